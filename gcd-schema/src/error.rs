//! Schema compilation errors: a kind, the keyword and the JSON pointer.

use std::fmt;

use gcd_core::GrammarError;

/// What went wrong, for callers that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// A keyword (or keyword value) we cannot enforce exactly.
    Unsupported,
    /// The schema itself is malformed (wrong JSON type for a keyword, bad ref).
    Invalid,
    /// The schema (or a part that must be used) allows no value at all.
    Unsatisfiable,
    /// The generated grammar is not LL(1) / too large for gcd-core.
    Grammar,
    /// The schema goes past a limit of [`Options`](crate::Options) (its
    /// nesting depth), checked before any work that grows with it.
    TooLarge,
}

/// A schema we refuse to compile, and where.
#[derive(Debug, Clone, thiserror::Error)]
pub struct SchemaError {
    kind: SchemaErrorKind,
    keyword: Option<String>,
    pointer: String,
    message: String,
    /// What gcd-core said, for [`SchemaErrorKind::Grammar`].
    #[source]
    grammar: Option<GrammarError>,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{} at {at}", self.message)
    }
}

impl SchemaError {
    pub(crate) fn new(
        kind: SchemaErrorKind,
        keyword: Option<&str>,
        pointer: &str,
        message: String,
    ) -> Self {
        SchemaError {
            kind,
            keyword: keyword.map(str::to_string),
            pointer: pointer.to_string(),
            message,
            grammar: None,
        }
    }

    /// Keeps gcd-core's error as the source of this one.
    pub(crate) fn caused_by(mut self, e: GrammarError) -> Self {
        self.grammar = Some(e);
        self
    }

    /// `unsupported keyword "K"` (or value of it), with details.
    pub(crate) fn unsupported(keyword: &str, pointer: &str, detail: impl fmt::Display) -> Self {
        let detail = detail.to_string();
        let msg = if detail.is_empty() {
            format!("unsupported keyword \"{keyword}\"")
        } else {
            format!("unsupported keyword \"{keyword}\" ({detail})")
        };
        Self::new(SchemaErrorKind::Unsupported, Some(keyword), pointer, msg)
    }

    pub(crate) fn invalid(keyword: Option<&str>, pointer: &str, detail: impl fmt::Display) -> Self {
        Self::new(
            SchemaErrorKind::Invalid,
            keyword,
            pointer,
            format!("invalid schema: {detail}"),
        )
    }

    pub(crate) fn unsatisfiable(pointer: &str, detail: impl fmt::Display) -> Self {
        Self::new(
            SchemaErrorKind::Unsatisfiable,
            None,
            pointer,
            format!("schema allows no value: {detail}"),
        )
    }

    /// The same error inside a larger document: `prefix` (a JSON pointer
    /// to where the schema sits) goes before its pointer.
    pub(crate) fn under(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }

    /// What went wrong, to branch on; the message is for people.
    pub fn kind(&self) -> SchemaErrorKind {
        self.kind
    }

    /// The keyword at fault, when one is.
    pub fn keyword(&self) -> Option<&str> {
        self.keyword.as_deref()
    }

    /// JSON pointer of the (sub)schema at fault.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }
}
