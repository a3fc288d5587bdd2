//! llguidance's structured `%regex { ... }` lexemes: `substring_chunks`,
//! `substring_words` and `substring_chars`, each the contiguous runs of a
//! list of chunks (`lst[n:m].join("")` for `n <= m`, the empty string
//! included). Kept apart from `regex.rs`, which translates Python regexes:
//! this builds a regex from a JSON description instead.

use super::ast::{Node, Prec, ReLit};
use super::lexer::Token;
use super::parser::{PResult, Parser};
use crate::error::DiagnosticKind;
use crate::limits::Limits;

/// The fields llguidance reads; exactly one must be set.
const FIELDS: [&str; 3] = ["substring_chunks", "substring_words", "substring_chars"];

/// A refusal: its kind and message.
pub(super) type Refusal = (DiagnosticKind, String);

/// The chunks `spec` (the JSON object after `%regex`) cuts its text into.
pub(super) fn chunks(spec: &serde_json::Value) -> Result<Vec<String>, Refusal> {
    let syntax = |m: String| (DiagnosticKind::Syntax, m);
    let Some(obj) = spec.as_object() else {
        return Err(syntax(
            "`%regex` takes a JSON object, e.g. `%regex { \"substring_words\": \"...\" }`".into(),
        ));
    };
    if let Some(kind) = obj.get("type") {
        return Err((
            DiagnosticKind::Unsupported,
            format!(
                "`%regex` form `\"type\": {kind}` is not supported: llguidance documents the \
                 `type` forms as planned, with no settled meaning; write `substring_chunks`, \
                 `substring_words` or `substring_chars`"
            ),
        ));
    }
    if let Some(other) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        // The documentation's planned JSON-Schema-like forms (`"type":
        // "substring"`, `"number"`, `"integer"`) have no settled meaning.
        return Err((
            DiagnosticKind::Unsupported,
            format!(
                "`%regex` field `{other}` is not supported: gcd (like llguidance) reads only \
                 `substring_chunks`, `substring_words` and `substring_chars`"
            ),
        ));
    }
    let set: Vec<&String> = obj.keys().collect();
    let [field] = set[..] else {
        return Err(syntax(format!(
            "`%regex` needs exactly one of `substring_chunks`, `substring_words` and \
             `substring_chars`; found {}",
            if set.is_empty() {
                "none".to_string()
            } else {
                set.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )));
    };
    let value = &obj[field.as_str()];
    let text = || {
        value
            .as_str()
            .ok_or_else(|| syntax(format!("`%regex` field `{field}` takes a string")))
    };
    match field.as_str() {
        "substring_chunks" => {
            let items = value.as_array().map(|a| a.iter().map(|v| v.as_str()));
            let chunks: Option<Vec<&str>> = items.and_then(|i| i.collect());
            let chunks = chunks.ok_or_else(|| {
                syntax("`%regex` field `substring_chunks` takes a list of strings".into())
            })?;
            Ok(chunks.into_iter().map(str::to_string).collect())
        }
        "substring_words" => Ok(words(text()?)),
        _ => Ok(text()?.chars().map(String::from).collect()),
    }
}

/// What a character is for `substring_words`: runs of one class are one
/// chunk (llguidance 1.9 cuts `"ab, cd"` into `ab` `,` ` ` `cd`, and
/// `"a..b"` into `a` `..` `b`).
#[derive(PartialEq)]
enum CharClass {
    Word,
    Space,
    Other,
}

fn class(c: char) -> CharClass {
    if c.is_alphanumeric() || c == '_' {
        CharClass::Word
    } else if c.is_whitespace() {
        CharClass::Space
    } else {
        CharClass::Other
    }
}

/// `text` cut into maximal runs of word characters, of blanks and of
/// other characters.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last = None;
    for c in text.chars() {
        let k = class(c);
        match out.last_mut() {
            Some(run) if last.as_ref() == Some(&k) => run.push(c),
            _ => out.push(c.to_string()),
        }
        last = Some(k);
    }
    out
}

/// The regex (regex-automata syntax) of every contiguous run of `chunks`,
/// the empty one included: per start `n`, `c_n(?:c_n+1(?:...)?)?`. Its
/// size grows with the square of the chunk count, so long texts meet
/// [`Limits::max_regex_len`] (an error, not a cut).
pub(super) fn substring_regex(chunks: &[String]) -> Result<String, Refusal> {
    let limit = Limits::default().max_regex_len;
    let escaped: Vec<String> = chunks.iter().map(|c| regex_syntax::escape(c)).collect();
    let mut runs = Vec::with_capacity(escaped.len());
    let mut from_here = String::new();
    let mut total = 0usize;
    for e in escaped.iter().rev() {
        from_here = match from_here.is_empty() {
            true => e.clone(),
            false => format!("{e}(?:{from_here})?"),
        };
        total += from_here.len() + 1;
        if total > limit {
            return Err((
                DiagnosticKind::TooLarge,
                format!(
                    "`%regex` with {} chunks compiles to a regex longer than {limit} bytes \
                     (`Limits::max_regex_len`)",
                    chunks.len()
                ),
            ));
        }
        runs.push(from_here.clone());
    }
    runs.reverse();
    Ok(format!("(?:|{})", runs.join("|")))
}

impl Parser<'_, '_> {
    /// `%regex { ... }` (its JSON `text`, at `t`): a pattern like a
    /// `/regex/`, usable in terminals and rules.
    pub(super) fn structured_regex(&mut self, text: &str, t: &Token) -> PResult<Node> {
        let span = self.span_of(t);
        let built = serde_json::from_str::<serde_json::Value>(text)
            .map_err(|e| {
                let m = format!("the object after `%regex` is not JSON: {e}");
                (DiagnosticKind::Syntax, m)
            })
            .and_then(|spec| chunks(&spec))
            .and_then(|chunks| match chunks.iter().all(String::is_empty) {
                // Only the empty string: what `""` means.
                true => Ok(None),
                false => substring_regex(&chunks).map(Some),
            });
        match built {
            Ok(None) => Ok(Node::Lit {
                text: String::new(),
                ci: false,
                span,
            }),
            Ok(Some(re)) => Ok(Node::Re(Box::new(ReLit {
                re: Some(re),
                prec: Prec::Atom,
                matches_empty: true,
                text: format!("%regex {text}"),
                span,
            }))),
            Err((kind, msg)) => {
                self.error(kind, span, msg);
                Err(())
            }
        }
    }
}
