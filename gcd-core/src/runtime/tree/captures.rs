//! Named captures (llguidance's `[capture]` / `[capture="name"]`), read off
//! the parse tree: a captured rule shows in trees as a node of its own name
//! and nothing else does (the grammar builder refuses a capture where that
//! is not so), so each such node is one derivation of the rule, and its span
//! is what the rule matched.

use std::collections::HashMap;
use std::ops::Range;

use super::{parse_bytes, Node, ParseError};
use crate::compiled::CompiledGrammar;

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
    /// as for parse-tree spans.
    pub span: Range<usize>,
}

/// Every capture in `input`, a whole sentence of `grammar`, in pre-order (a
/// rule before the rules inside it, then left to right). Empty when the
/// grammar captures nothing; an error when `input` does not parse.
pub fn captures(grammar: &CompiledGrammar, input: &[u8]) -> Result<Vec<Capture>, ParseError> {
    let wanted: HashMap<&str, &str> = (grammar.grammar.hints.captures.iter())
        .map(|(rule, name)| (rule.as_str(), name.as_str()))
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let tree = parse_bytes(grammar, input)?;
    Ok(of_tree(&tree, &wanted))
}

/// The captures of a parsed tree; `wanted` maps a rule to its capture name.
fn of_tree(tree: &Node, wanted: &HashMap<&str, &str>) -> Vec<Capture> {
    (tree.iter())
        .filter_map(|n| match n {
            Node::Rule { name, span, .. } => wanted.get(name.as_str()).map(|c| Capture {
                name: c.to_string(),
                rule: name.clone(),
                span: span.clone(),
            }),
            Node::Token { .. } => None,
        })
        .collect()
}
