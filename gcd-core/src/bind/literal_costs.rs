//! The budget's in-lexeme costs of literal terminals, read off the literal's
//! own bytes instead of searched over lexer states.
//!
//! A pending lexeme that can still end as literal `y` has spelled a prefix
//! `y[..k]` of it, and can only end as `y` by spelling the rest, so its
//! fewest tokens are the fewest vocabulary tokens that spell `y[k..]`: a
//! segmentation of a short string, found with the token trie. Searching
//! token tables instead builds them for every state along every key of an
//! object (a Kubernetes schema's hundreds of keys made a budget's first
//! mask walk the vocabulary for thousands of states).
//!
//! Which prefix a lexer state has read is found once per binding by running
//! each literal from the start state of every context it is a candidate
//! in: a literal alive in a state was read from one of those starts, and
//! the prefix it has read is the same by every path, since the literal's
//! own automaton is a chain.

use super::cost::INF;
use super::BoundGrammar;
use crate::grammar::TerminalPattern;
use crate::lexer::DEAD;
use crate::vocab::trie::TokenTrie;
use regex_syntax::hir::HirKind;
use rustc_hash::FxHashMap;

/// Per (lexer state, literal terminal alive in it): the fewest tokens that
/// end the pending lexeme as that literal (`INF` where the literal cannot
/// win, shadowed by another one).
#[derive(Debug, Default)]
pub(crate) struct LiteralCosts {
    costs: FxHashMap<(u32, u32), u32>,
    /// Per terminal, the first byte of the one string it matches.
    first: Vec<Option<u8>>,
}

impl LiteralCosts {
    pub(crate) fn new(b: &BoundGrammar) -> LiteralCosts {
        let g = &b.grammar;
        let lx = &g.lexer;
        let literals: Vec<Option<Vec<u8>>> = (g.grammar.terminals.iter())
            .map(|t| literal_bytes(&t.pattern))
            .collect();
        let mut suffix_costs: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut costs = FxHashMap::default();
        for (ci, set) in g.candidate_sets.iter().enumerate() {
            for y in set.iter() {
                let Some(Some(bytes)) = literals.get(y) else {
                    continue;
                };
                let y = y as u32;
                let mut path = Vec::with_capacity(bytes.len() + 1);
                let mut q = lx.starts[ci];
                path.push(q);
                for &byte in bytes {
                    q = lx.next(q, byte);
                    if q == DEAD {
                        break;
                    }
                    path.push(q);
                }
                let wins = path.len() == bytes.len() + 1 && g.lexeme_ends(q).any(|e| e == y);
                let suffix = suffix_costs
                    .entry(y)
                    .or_insert_with(|| fewest_tokens_spelling_suffixes(&b.trie, bytes));
                for (k, &s) in path.iter().enumerate() {
                    costs.insert((s, y), if wins { suffix[k] } else { INF });
                }
            }
        }
        let first = (literals.iter())
            .map(|l| l.as_ref().and_then(|bytes| bytes.first().copied()))
            .collect();
        LiteralCosts { costs, first }
    }

    /// The first byte of terminal `y`'s string, if it matches one.
    pub(crate) fn first_byte(&self, y: u32) -> Option<u8> {
        self.first.get(y as usize).copied().flatten()
    }

    /// The fewest tokens from state `q` to end as literal `y`, if `y` is a
    /// literal alive in `q`.
    pub(crate) fn get(&self, q: u32, y: u32) -> Option<u32> {
        self.costs.get(&(q, y)).copied()
    }
}

/// The one string `pattern` matches, if it matches one (a literal, or a
/// regex that spells one: JSON Schema keys are written as regexes).
fn literal_bytes(pattern: &TerminalPattern) -> Option<Vec<u8>> {
    match pattern {
        TerminalPattern::Literal {
            text,
            case_insensitive: false,
        } => Some(text.as_bytes().to_vec()),
        // Most regexes show at a glance that they are not one string.
        TerminalPattern::Regex(r) if r.contains(['[', '(', '|', '*', '+', '?', '.']) => None,
        TerminalPattern::Regex(r) => match regex_syntax::Parser::new().parse(r).ok()?.kind() {
            HirKind::Literal(lit) if !lit.0.is_empty() => Some(lit.0.to_vec()),
            _ => None,
        },
        _ => None,
    }
}

/// `out[k]`: the fewest tokens of `trie` whose bytes, one after another,
/// are exactly `text[k..]` (`INF` if none are).
fn fewest_tokens_spelling_suffixes(trie: &TokenTrie, text: &[u8]) -> Vec<u32> {
    let n = text.len();
    let mut out = vec![INF; n + 1];
    out[n] = 0;
    for k in (0..n).rev() {
        // Down the trie along text[k..]: every node with a token is a step.
        let mut node = 0usize;
        for (j, &byte) in text[k..].iter().enumerate() {
            let Some(child) = child(trie, node, byte) else {
                break;
            };
            node = child;
            if !trie.tokens_at(node).is_empty() {
                let after = out[k + j + 1];
                out[k] = out[k].min(after.saturating_add(1).min(INF));
            }
        }
    }
    out
}

/// The child of `node` along `byte` (children follow their parent in
/// preorder, each subtree ending where the next sibling starts).
fn child(trie: &TokenTrie, node: usize, byte: u8) -> Option<usize> {
    let end = trie.subtree_end[node] as usize;
    let mut c = node + 1;
    while c < end {
        if trie.byte[c] == byte {
            return Some(c);
        }
        c = trie.subtree_end[c] as usize;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Vocabulary;

    #[test]
    fn suffixes_take_the_fewest_tokens() {
        let tokens: Vec<Vec<u8>> = ["a", "b", "ab", "abc", "c", "bcd", "d"]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        let trie = TokenTrie::new(&Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        // abcd = abc·d or a·bcd; bcd whole; cd = c·d; d whole.
        assert_eq!(
            fewest_tokens_spelling_suffixes(&trie, b"abcd"),
            vec![2, 1, 2, 1, 0]
        );
        // No token spells x: nothing before it can be spelled either.
        assert_eq!(
            fewest_tokens_spelling_suffixes(&trie, b"axb"),
            vec![INF, INF, 1, 0]
        );
    }
}
