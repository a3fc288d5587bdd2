//! Diagnostics shared by every stage that reads a grammar.
//!
//! A grammar can be wrong in many places at once, so stages collect every
//! problem they find into one [`GrammarError`] instead of stopping at the
//! first. Each [`Diagnostic`] has a machine-readable [`DiagnosticKind`], a
//! message that says what is wrong and what was expected, and, when the
//! grammar came from text, the [`Span`] of the culprit.

use std::fmt;

/// A 1-based line and column in grammar source text (columns count chars).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Pos {
    /// Line number, from 1.
    pub line: u32,
    /// Column within the line, from 1, counted in `char`s.
    pub col: u32,
}

/// A region of grammar source text, plus the byte offsets for tools (the
/// `grammar!` macro maps them back to Rust spans).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Span {
    /// Where the region begins.
    pub start: Pos,
    /// Just past the region's last character.
    pub end: Pos,
    /// Byte offset of `start` in the source text.
    pub byte_start: usize,
    /// Byte offset of `end` in the source text (exclusive).
    pub byte_end: usize,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.start.line, self.start.col)
    }
}

/// What kind of problem a diagnostic reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The grammar text does not follow the grammar language.
    Syntax,
    /// A construct of Lark that gcd does not support.
    Unsupported,
    /// A rule or terminal is used but never defined.
    Undefined,
    /// A rule or terminal is defined twice.
    Duplicate,
    /// A rule cannot be reached from the start rule.
    Unreachable,
    /// A rule derives no finite string of terminals.
    Unproductive,
    /// A terminal matches the empty string.
    EmptyMatch,
    /// A terminal's regular expression does not compile.
    InvalidRegex,
    /// Two alternatives of a rule both predict the same lookahead.
    Conflict,
    /// Left recursion that the transforms could not remove.
    LeftRecursion,
    /// Maximal munch can merge a terminal with the one that follows it, so
    /// some outputs that look valid cannot be completed.
    LexicalHazard,
    /// A grammar exceeds a size limit of the engine.
    TooLarge,
    /// Part of the source only annotates (a JSON Schema `format` no draft
    /// defines): it does not constrain the output.
    Annotation,
}

/// One problem in a grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem, for callers that react to some kinds.
    pub kind: DiagnosticKind,
    /// What is wrong and what was expected, for people.
    pub message: String,
    /// Where the culprit is in the source text; `None` when the grammar did
    /// not come from text or the problem has no one place.
    pub span: Option<Span>,
    /// Extra lines: the other alternative of a conflict, a hint how to fix.
    pub notes: Vec<(Option<Span>, String)>,
    /// A warning does not stop the grammar from compiling (an unused rule,
    /// a conflict that generalized parsing resolves).
    pub warning: bool,
}

impl Diagnostic {
    /// An error (not a warning) with no notes.
    pub fn new(kind: DiagnosticKind, span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            kind,
            message: message.into(),
            span,
            notes: Vec::new(),
            warning: false,
        }
    }

    /// The same diagnostic as a warning.
    pub fn into_warning(mut self) -> Self {
        self.warning = true;
        self
    }

    /// The same diagnostic with one more note, at `span` if given.
    pub fn with_note(mut self, span: Option<Span>, note: impl Into<String>) -> Self {
        self.notes.push((span, note.into()));
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = if self.warning { "warning" } else { "error" };
        match self.span {
            Some(span) => write!(f, "{span}: {level}: {}", self.message)?,
            None => write!(f, "{level}: {}", self.message)?,
        }
        for (span, note) in &self.notes {
            match span {
                Some(span) => write!(f, "\n  {span}: note: {note}")?,
                None => write!(f, "\n  note: {note}")?,
            }
        }
        Ok(())
    }
}

/// Every problem found in a grammar. Never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarError {
    diagnostics: Vec<Diagnostic>,
}

impl GrammarError {
    /// Panics if `diagnostics` is empty: an error must say what is wrong.
    pub fn new(diagnostics: Vec<Diagnostic>) -> Self {
        assert!(
            !diagnostics.is_empty(),
            "a GrammarError needs at least one diagnostic"
        );
        GrammarError { diagnostics }
    }

    /// An error of one diagnostic (see [`Diagnostic::new`]).
    pub fn single(kind: DiagnosticKind, span: Option<Span>, message: impl Into<String>) -> Self {
        GrammarError::new(vec![Diagnostic::new(kind, span, message)])
    }

    /// Every problem found; never empty.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The kind of the first diagnostic.
    pub fn kind(&self) -> DiagnosticKind {
        self.diagnostics[0].kind
    }

    /// Whether any diagnostic, not only the first, is of `kind`.
    pub fn has_kind(&self, kind: DiagnosticKind) -> bool {
        self.diagnostics.iter().any(|d| d.kind == kind)
    }
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GrammarError {}

/// Collects diagnostics; turns into `Err` only when something was pushed.
#[derive(Default)]
pub(crate) struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn error(&mut self, kind: DiagnosticKind, span: Option<Span>, message: impl Into<String>) {
        self.0.push(Diagnostic::new(kind, span, message));
    }
    pub fn into_result(self) -> Result<(), GrammarError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(GrammarError::new(self.0))
        }
    }
}
