//! Integer ranges as regexes over digit strings.
//!
//! JSON Schema bounds on integers (`minimum`, `maximum`, the exclusive
//! forms) become a regular language of decimal spellings; building it digit
//! by digit keeps the bound exact for any magnitude, where a float
//! comparison would not. The same construction over fixed-width hex digits
//! spells `\uXXXX` escapes for a range of code points. The construction
//! lives in gcd-core ([`gcd_core::json::number`]), shared with
//! `#[derive(Constrained)]`; this module keeps gcd-schema's names for it.

pub use gcd_core::json::number::{
    fixed_range, integer_range, natural_range, plain_integer_range, EXPONENT_INTEGER, PLAIN_INTEGER,
};

#[cfg(test)]
pub(crate) mod tests {
    /// Whole-string matcher for tests.
    pub(crate) fn full(re: &str) -> impl Fn(&str) -> bool {
        let r = regex_automata::dfa::regex::Regex::new(&format!("^(?:{re})$")).unwrap();
        move |s: &str| r.is_match(s)
    }
}
