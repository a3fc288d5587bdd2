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
    /// Sorted by (state, literal), each once: a literal's states are
    /// pushed along its path from every context, and a sort is cheaper
    /// than a hash insert per state and context.
    costs: Vec<((u32, u32), u32)>,
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
        // Per literal, once a path reached a state where it alone is alive
        // (after `k` bytes) and whether it wins at the end: such states are
        // one per prefix whatever the context (the lexer keeps one state
        // per lone member), so later paths stop where they meet them.
        let mut alone_from: Vec<Option<(usize, bool)>> = vec![None; literals.len()];
        let root = RootChildren::of(&b.trie);
        let mut costs = Vec::new();
        let mut path = Vec::new();
        for (ci, set) in g.candidate_sets.iter().enumerate() {
            for y in set.iter() {
                let Some(Some(bytes)) = literals.get(y) else {
                    continue;
                };
                let known = alone_from[y];
                let y = y as u32;
                path.clear();
                let mut q = lx.starts[ci];
                let mut met = None;
                for k in 0..=bytes.len() {
                    let alone = lx.single.get(q as usize).is_some_and(|&m| m != u32::MAX);
                    if let Some((_, wins)) = known.filter(|&(k0, _)| alone && k >= k0) {
                        met = Some(wins);
                        break;
                    }
                    path.push(q);
                    if alone && known.is_none() && alone_from[y as usize].is_none() {
                        alone_from[y as usize] = Some((k, false));
                    }
                    let Some(&byte) = bytes.get(k) else { break };
                    q = lx.next(q, byte);
                    if q == DEAD {
                        break;
                    }
                }
                let wins = met.unwrap_or_else(|| {
                    path.len() == bytes.len() + 1 && g.lexeme_ends(q).any(|e| e == y)
                });
                if let (None, Some((k0, _))) = (known, alone_from[y as usize]) {
                    alone_from[y as usize] = Some((k0, wins));
                }
                let suffix = suffix_costs
                    .entry(y)
                    .or_insert_with(|| fewest_tokens_spelling_suffixes(&b.trie, &root, bytes));
                for (k, &s) in path.iter().enumerate() {
                    costs.push(((s, y), if wins { suffix[k] } else { INF }));
                }
            }
        }
        // A state's prefix of the literal is the same from every context
        // (see the module docs), so duplicates agree.
        costs.sort_unstable();
        costs.dedup_by_key(|&mut (key, _)| key);
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
        let i = self.costs.binary_search_by_key(&(q, y), |&(key, _)| key);
        i.ok().map(|i| self.costs[i].1)
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
        // Most regexes show at a glance that they are not one string, and
        // most that are (JSON Schema keys) hold no character a regex reads
        // specially, so they are their own bytes without a parse.
        TerminalPattern::Regex(r) if r.contains(['[', '(', '|', '*', '+', '?', '.']) => None,
        TerminalPattern::Regex(r) if !r.is_empty() && !r.contains(REGEX_SPECIAL) => {
            Some(r.as_bytes().to_vec())
        }
        TerminalPattern::Regex(r) => match regex_syntax::Parser::new().parse(r).ok()?.kind() {
            HirKind::Literal(lit) if !lit.0.is_empty() => Some(lit.0.to_vec()),
            _ => None,
        },
        _ => None,
    }
}

/// The characters, besides those [`literal_bytes`] rules out first, that
/// a regex may read as other than themselves (escapes, anchors, counts;
/// `#` and whitespace only under `x`, which takes a `(`).
const REGEX_SPECIAL: [char; 5] = ['\\', '^', '$', '{', '}'];

/// The root's child along each byte: every suffix starts there, and the
/// root has a child for most bytes, too many to scan for each.
struct RootChildren([u32; 256]);

impl RootChildren {
    fn of(trie: &TokenTrie) -> RootChildren {
        let mut by_byte = [u32::MAX; 256];
        for node in trie.root_children() {
            by_byte[trie.byte[node] as usize] = node as u32;
        }
        RootChildren(by_byte)
    }
}

/// `out[k]`: the fewest tokens of `trie` whose bytes, one after another,
/// are exactly `text[k..]` (`INF` if none are).
fn fewest_tokens_spelling_suffixes(trie: &TokenTrie, root: &RootChildren, text: &[u8]) -> Vec<u32> {
    let n = text.len();
    let mut out = vec![INF; n + 1];
    out[n] = 0;
    for k in (0..n).rev() {
        // Down the trie along text[k..]: every node with a token is a step.
        let mut node = 0usize;
        for (j, &byte) in text[k..].iter().enumerate() {
            let next = match j {
                0 => Some(root.0[byte as usize])
                    .filter(|&c| c != u32::MAX)
                    .map(|c| c as usize),
                _ => child(trie, node, byte),
            };
            let Some(child) = next else {
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
    use std::sync::Arc;

    /// Every literal's path walked whole from every context, as the
    /// module docs describe it, without stopping where paths meet.
    fn costs_by_whole_paths(b: &BoundGrammar) -> Vec<((u32, u32), u32)> {
        let (g, lx) = (&b.grammar, &b.grammar.lexer);
        let root = RootChildren::of(&b.trie);
        let mut costs = std::collections::BTreeMap::new();
        for (ci, set) in g.candidate_sets.iter().enumerate() {
            for y in set.iter() {
                let Some(Some(bytes)) = g
                    .grammar
                    .terminals
                    .get(y)
                    .map(|t| literal_bytes(&t.pattern))
                else {
                    continue;
                };
                let mut path = vec![lx.starts[ci]];
                for &byte in &bytes {
                    match lx.next(*path.last().unwrap(), byte) {
                        DEAD => break,
                        q => path.push(q),
                    }
                }
                let q = *path.last().unwrap();
                let wins = path.len() == bytes.len() + 1 && g.lexeme_ends(q).any(|e| e == y as u32);
                let suffix = fewest_tokens_spelling_suffixes(&b.trie, &root, &bytes);
                for (k, &s) in path.iter().enumerate() {
                    let cost = if wins { suffix[k] } else { INF };
                    assert_eq!(*costs.entry((s, y as u32)).or_insert(cost), cost);
                }
            }
        }
        costs.into_iter().collect()
    }

    #[test]
    fn paths_that_meet_give_the_costs_of_whole_paths() {
        // Keys that share prefixes; NAME alone from its first byte in one
        // context, beside other keys in another, and beside a string that
        // stays alive along all of it in a third.
        let src = r#"
            start: "{" (pair ("," pair)*)? "}" | "[" NAME "]" | "(" value ")"
            pair: (NAME | NAMES | ID) ":" value
            value: STRING | NAME | "{" (pair ("," pair)*)? "}"
            NAME: "\"name\""
            NAMES: "\"names\""
            ID: "\"id\""
            STRING: /"[a-z]*x"/
        "#;
        let tokens: Vec<Vec<u8>> = (0u8..128)
            .map(|c| vec![c])
            .chain(["\"na", "me", "names", "\"", "\"id\"", "\":"].map(|t| t.as_bytes().to_vec()))
            .collect();
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        let g = crate::lark::parse_grammar(src).unwrap();
        let g = Arc::new(crate::compiled::CompiledGrammar::new(&g).unwrap());
        let b = BoundGrammar::new(g, vocab);
        let costs = LiteralCosts::new(&b).costs;
        assert!(costs.len() > 10, "{costs:?}");
        assert_eq!(costs, costs_by_whole_paths(&b));
    }

    #[test]
    fn literal_regexes_read_without_a_parse_as_with_one() {
        let parsed = |r: &str| match regex_syntax::Parser::new().parse(r).ok()?.kind() {
            HirKind::Literal(lit) if !lit.0.is_empty() => Some(lit.0.to_vec()),
            _ => None,
        };
        let regexes = [
            "\"check_out_date\"",
            "a b",
            "é",
            "x{2}",
            "\\.",
            "^a",
            "a$",
            "a}",
            "{",
            "\\\\",
            "#a",
            "(?x)a b",
            "a\\-b",
            "[ab]",
            "",
        ];
        for r in regexes {
            let fast = literal_bytes(&TerminalPattern::Regex(r.to_string()));
            let agrees = match (&fast, parsed(r)) {
                (f, p) if *f == p => true,
                // Rejected at a glance though it spells one string.
                (None, Some(_)) => r.contains(['[', '(', '|', '*', '+', '?', '.']),
                _ => false,
            };
            assert!(agrees, "{r:?}: {fast:?}");
        }
    }

    #[test]
    fn suffixes_take_the_fewest_tokens() {
        let tokens: Vec<Vec<u8>> = ["a", "b", "ab", "abc", "c", "bcd", "d"]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        let trie = TokenTrie::new(&Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        // abcd = abc·d or a·bcd; bcd whole; cd = c·d; d whole.
        let root = RootChildren::of(&trie);
        assert_eq!(
            fewest_tokens_spelling_suffixes(&trie, &root, b"abcd"),
            vec![2, 1, 2, 1, 0]
        );
        // No token spells x: nothing before it can be spelled either.
        assert_eq!(
            fewest_tokens_spelling_suffixes(&trie, &root, b"axb"),
            vec![INF, INF, 1, 0]
        );
    }
}
