//! Option values by name. The command line, the Python package and the
//! derive's attributes all spell options as strings (`"dynamic"`,
//! `"single_space"`); each option type parses its own names (`FromStr`)
//! and writes them back (`Display`), so every front end accepts the same
//! spellings and reports a wrong one with the same list.

use std::fmt;

/// A name that names none of an option's values: what `FromStr` returns
/// for gcd's option types ([`Lexing`](crate::Lexing),
/// [`Whitespace`](crate::json::Whitespace), gcd-schema's `PropertyOrder`).
/// It keeps the parts, not a sentence, so that each front end can word its
/// own message (`lexing must be ...`, `whitespace="x": expected ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownOptionName {
    option: &'static str,
    given: String,
    expected: &'static [&'static str],
    note: Option<&'static str>,
}

impl UnknownOptionName {
    /// `given` is not one of `expected`, the names of `option`'s values.
    pub fn new(option: &'static str, given: &str, expected: &'static [&'static str]) -> Self {
        UnknownOptionName {
            option,
            given: given.to_string(),
            expected,
            note: None,
        }
    }

    /// Adds what the names leave unsaid (the range of a parameter in
    /// `capped:N`), printed after the list.
    pub fn with_note(mut self, note: &'static str) -> Self {
        self.note = Some(note);
        self
    }

    /// What the name was for: `"lexing"`, `"whitespace policy"`.
    pub fn option(&self) -> &'static str {
        self.option
    }

    /// The name as given.
    pub fn given(&self) -> &str {
        &self.given
    }

    /// The accepted names, in the order they are listed.
    pub fn expected(&self) -> &'static [&'static str] {
        self.expected
    }

    /// The accepted names as a sentence lists them, quoted:
    /// `"compact", "spaced" or "json"`, then the note in parentheses.
    pub fn expected_list(&self) -> impl fmt::Display + '_ {
        ExpectedList(self)
    }
}

struct ExpectedList<'a>(&'a UnknownOptionName);

impl fmt::Display for ExpectedList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = self.0.expected;
        for (i, name) in names.iter().enumerate() {
            let sep = match i {
                0 => "",
                _ if i + 1 == names.len() => " or ",
                _ => ", ",
            };
            write!(f, "{sep}{name:?}")?;
        }
        if let Some(note) = self.0.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

impl fmt::Display for UnknownOptionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {:?}: expected {}",
            self.option,
            self.given,
            self.expected_list()
        )
    }
}

impl std::error::Error for UnknownOptionName {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_the_names_as_a_sentence() {
        let e = UnknownOptionName::new("lexing", "earley", &["maximal-munch", "dynamic"]);
        assert_eq!(
            e.to_string(),
            r#"unknown lexing "earley": expected "maximal-munch" or "dynamic""#
        );
        let e = UnknownOptionName::new("x", "y", &["a", "b", "c"]).with_note("or d");
        assert_eq!(e.expected_list().to_string(), r#""a", "b" or "c" (or d)"#);
    }
}
