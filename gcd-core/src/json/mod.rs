//! JSON shapes: the typed front ends (`#[derive(Constrained)]`, and JSON
//! Schema) describe the JSON they accept as a [`Shape`], and this module
//! turns shapes into a grammar that is LL(1) by construction.
//!
//! Objects keep a fixed property order (the order serde_json serializes);
//! optional properties are skipped with one token of lookahead because each
//! key is its own literal. Integers get exact digit-level regexes for their
//! ranges, so a `u8` cannot be 300.
//!
//! Submodules: [`lower`](to_grammar) builds the grammar IR of a shape
//! (shown as Lark text by the grammar's own printer,
//! [`Printer`](crate::grammar::Printer)); [`number`] holds the number
//! regexes both front ends share; [`Whitespace`] is the one whitespace
//! policy both front ends take.

use std::collections::HashMap;

mod lower;
pub mod number;
mod whitespace;

pub use lower::to_grammar;
pub use whitespace::Whitespace;

/// What JSON a value may be written as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// An integer in `min..=max` (JSON integers only: no fraction, no exponent).
    Integer {
        /// Smallest value allowed.
        min: i128,
        /// Largest value allowed, inclusive ([`to_grammar`] refuses a
        /// range with `max < min`).
        max: i128,
    },
    /// A JSON number that is finite as an `f64` (see [`number::finite_number_regex`]).
    Number,
    /// A JSON number that is finite as an `f32` (see
    /// [`number::finite_f32_number_regex`]): reading a larger one into an `f32`
    /// fails or gives infinity.
    Number32,
    /// A string of exactly one character.
    Char,
    /// A JSON string whose content obeys the rules (any string when they
    /// are all `None`).
    String(StringRules),
    /// Exactly this JSON text (a unit variant's `"Name"`, a tag value).
    Literal(String),
    /// A JSON array whose elements all have one shape.
    Array {
        /// Every element's shape.
        items: Box<Shape>,
        /// Fewest elements.
        min_items: usize,
        /// Most elements; `None` for no bound.
        max_items: Option<usize>,
    },
    /// A fixed-length array of different shapes (Rust tuples).
    Tuple(Vec<Shape>),
    /// An object with arbitrary string keys (HashMap, BTreeMap).
    Map {
        /// Every value's shape; keys are any JSON string.
        values: Box<Shape>,
    },
    /// An object with these fields in this order, optional ones possibly
    /// left out, and no other key.
    Object(Vec<Field>),
    /// Any one of the shapes; they must be told apart by their first token.
    OneOf(Vec<Shape>),
    /// Objects told apart by a first key `tag` whose string value names the
    /// variant (serde's internally and adjacently tagged enums): for each
    /// variant, its tag value and the fields that follow the tag.
    Tagged {
        /// The first key, unquoted.
        tag: String,
        /// Per variant: its tag value (unquoted) and the fields after the
        /// tag, in order.
        variants: Vec<(String, Vec<Field>)>,
    },
    /// A shape defined in the [`ShapeSet`] under this name (recursion).
    Named(String),
    /// A shape that cannot be enforced, and why (reported by [`to_grammar`]).
    Invalid(String),
}

/// What a JSON string's content must be. [`to_grammar`] refuses a
/// `pattern` together with a length bound, and a pattern that can match
/// `"`, `\` or a control character (which JSON escapes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringRules {
    /// A regex the JSON text of the string (between the quotes) must match.
    pub pattern: Option<String>,
    /// Length bounds, in characters.
    pub min_len: Option<usize>,
    /// Most characters (an escape or a surrogate pair counts as one);
    /// `None` for no bound.
    pub max_len: Option<usize>,
}

/// One key of a [`Shape::Object`] or of a [`Shape::Tagged`] variant, with
/// its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The key as written, unquoted (serde's renamed name).
    pub name: String,
    /// Other keys accepted for the field (serde's `alias`).
    pub aliases: Vec<String>,
    /// The value's shape.
    pub shape: Shape,
    /// Must be present (else it may be left out).
    pub required: bool,
}

/// Named shapes, so that recursive types refer to themselves by name.
#[derive(Clone, Debug, Default)]
pub struct ShapeSet {
    shapes: Vec<Option<Shape>>,
    index: HashMap<String, usize>,
}

impl ShapeSet {
    /// A set with no names.
    pub fn new() -> ShapeSet {
        ShapeSet::default()
    }

    /// Whether `name` is defined or being defined.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Claims `name` before its shape is known, so that a recursive
    /// reference inside it finds the name.
    pub fn reserve(&mut self, name: &str) {
        if !self.contains(name) {
            self.index.insert(name.to_string(), self.shapes.len());
            self.shapes.push(None);
        }
    }

    /// Gives `name` its shape, reserving the name first if needed; a later
    /// definition replaces an earlier one.
    pub fn define(&mut self, name: &str, shape: Shape) {
        self.reserve(name);
        self.shapes[self.index[name]] = Some(shape);
    }

    /// The shape defined under `name`; `None` if the name is unknown or
    /// only reserved.
    pub fn get(&self, name: &str) -> Option<&Shape> {
        self.index.get(name).and_then(|&i| self.shapes[i].as_ref())
    }
}

/// A shape that cannot become an exact grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// The regexes that linking `shape` determinizes for `shape` itself (a
/// string pattern and its check, a length-bounded string, an integer
/// range), exactly as they will be asked of
/// [`TerminalDfa::new`](crate::lexer::TerminalDfa::new); the shared
/// `STRING`/`NUMBER` terminals are left out. The derive builds these at
/// compile time.
pub fn regexes_to_prebuild(shape: &Shape) -> Result<Vec<String>, ShapeError> {
    let g = to_grammar(shape, &ShapeSet::new(), Whitespace::Compact)?;
    let mut out: Vec<String> = match shape {
        Shape::String(StringRules {
            pattern: Some(p), ..
        }) => vec![pattern_check_regex(p)],
        _ => Vec::new(),
    };
    out.extend(
        g.terminals
            .iter()
            .filter(|t| t.name.starts_with("__ANON") && !t.pattern.is_literal())
            .map(|t| t.pattern.to_regex()),
    );
    Ok(out)
}

/// What [`check_pattern_needs_no_escapes`] determinizes for `pattern`.
fn pattern_check_regex(pattern: &str) -> String {
    format!("(?:{pattern})")
}

/// One JSON-string character as it may be written: unescaped, an escape, or
/// a surrogate pair (one `char`); unpaired surrogates are refused as serde_json does.
pub(super) const CHAR: &str = r#"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"#;

/// A JSON string (quotes included) whose content matches `content`.
pub(super) fn json_string_regex(content: &str) -> String {
    format!("\"{content}\"")
}

/// Refuses patterns that could match `"`, `\` or control characters, whose
/// JSON text would be an escape the pattern does not describe.
pub(super) fn check_pattern_needs_no_escapes(pattern: &str) -> Result<(), ShapeError> {
    let dfa = crate::lexer::TerminalDfa::new(&pattern_check_regex(pattern))
        .or_else(|e| match e {
            crate::lexer::DfaError::MatchesEmpty => {
                crate::lexer::TerminalDfa::new(&format!("(?:{pattern})x"))
            }
            other => Err(other),
        })
        .map_err(|e| ShapeError(format!("pattern `{pattern}`: {e:?}")))?;
    let bad = (0..dfa.len() as u32).any(|s| {
        (0u8..0x20)
            .chain([b'"', b'\\'])
            .any(|b| dfa.next(s, b) != crate::lexer::DEAD)
    });
    if bad {
        return Err(ShapeError(format!(
            "pattern `{pattern}` can match `\"`, `\\` or control characters, which JSON escapes; exclude them"
        )));
    }
    Ok(())
}

/// `s` as a JSON string.
pub fn json_quote(s: &str) -> String {
    serde_json::to_string(s).expect("a str serializes")
}

#[cfg(test)]
mod tests;
