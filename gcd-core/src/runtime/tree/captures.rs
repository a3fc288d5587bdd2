//! Named captures (llguidance's `[capture]` / `[capture="name"]`), read off
//! the parse tree: a captured rule shows in trees as a node of its own name
//! and nothing else does (the grammar builder refuses a capture where that
//! is not so), so each such node is one derivation of the rule, and its span
//! is what the rule matched.

use std::collections::HashMap;
use std::ops::Range;

use super::{parse_bytes, Node, ParseError};
use crate::compiled::CompiledGrammar;
use crate::grammar::CapturePart;

/// One derivation of a captured rule in an output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Capture {
    /// The name it is captured under (the rule's, unless
    /// `[capture="name"]` gave another).
    pub name: String,
    /// The captured rule.
    pub rule: String,
    /// Its bytes in the input, from the start of its first lexeme to the end
    /// of its last: ignored text (`%ignore`) around it is not part of it,
    /// as for parse-tree spans. With llguidance's `suffix=`, the rule's
    /// capture leaves the suffix out and `stop_capture`'s is the suffix.
    pub span: Range<usize>,
}

/// Every capture in `input`, a whole sentence of `grammar`, in pre-order (a
/// rule before the rules inside it, then left to right). Empty when the
/// grammar captures nothing; an error when `input` does not parse.
pub fn captures(grammar: &CompiledGrammar, input: &[u8]) -> Result<Vec<Capture>, ParseError> {
    let mut wanted: HashMap<&str, Vec<(&str, CapturePart)>> = HashMap::new();
    for (rule, name, part) in &grammar.grammar.hints.captures {
        wanted.entry(rule).or_default().push((name, *part));
    }
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let tree = parse_bytes(grammar, input)?;
    Ok(of_tree(&tree, &wanted))
}

/// The captures of a parsed tree; `wanted` maps a rule to its captures.
fn of_tree(tree: &Node, wanted: &HashMap<&str, Vec<(&str, CapturePart)>>) -> Vec<Capture> {
    let mut out = Vec::new();
    for n in tree.iter() {
        let Node::Rule { name, span, .. } = n else {
            continue;
        };
        for (c, part) in wanted.get(name.as_str()).into_iter().flatten() {
            out.push(Capture {
                name: c.to_string(),
                rule: name.clone(),
                span: part.of(span.clone()),
            });
        }
    }
    out
}
