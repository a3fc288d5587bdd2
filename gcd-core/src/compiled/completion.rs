//! Shortest completions in bytes, independent of any vocabulary.
//!
//! TruncProof's budget rests on "how little is still needed to finish". In
//! bytes that is a property of the grammar alone, so it is computed once
//! with the grammar (and embedded by `grammar!`): per terminal DFA state,
//! the fewest bytes to a match; per rule, the fewest bytes of a derivation.
//! The token-level costs that the budgeted matcher uses are built at bind
//! time from the vocabulary (`bind::budget`).
//!
//! The per-rule numbers add up shortest lexemes one terminal at a time, so
//! they are a lower bound on the shortest sentence: maximal munch or a tie
//! lost to another terminal can make the shortest lexeme unusable in
//! context. Tests measure how often the bound is exact.

use crate::grammar::{Grammar, Symbol};
use crate::lexer::TerminalDfa;

/// "Cannot finish".
pub use crate::lexer::UNREACHABLE;

/// The fewest bytes that finish a lexeme, per terminal DFA state, and that
/// a rule derives, per rule.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShortestCompletion {
    /// `terminal_state[t][q]`: fewest bytes that take DFA state `q` of
    /// terminal `t` to a match ([`UNREACHABLE`] if none).
    pub terminal_state: Vec<Vec<u32>>,
    /// Fewest bytes of a derivation of each rule (a lower bound, see above).
    pub rule: Vec<u32>,
}

impl ShortestCompletion {
    /// Computes both tables for `g`, whose terminal `t` has DFA `dfas[t]`.
    pub fn new(g: &Grammar, dfas: &[TerminalDfa]) -> ShortestCompletion {
        let terminal_state: Vec<Vec<u32>> = (dfas.iter())
            .map(|d| d.distances_to_match().to_vec())
            .collect();
        let rule = shortest_derivations(g, &terminal_state);
        ShortestCompletion {
            terminal_state,
            rule,
        }
    }

    /// Fewest bytes of a sentence of the grammar (a lower bound).
    pub fn min_sentence_bytes(&self, g: &Grammar) -> u32 {
        self.rule[g.start.index()]
    }
}

/// Fewest bytes of a derivation of each rule, settling the cheapest rule
/// first (Knuth's generalization of Dijkstra's algorithm: a production's
/// cost is a sum that never falls below its parts). Rounds over every
/// production until nothing changed took one per link of a chain of rules.
fn shortest_derivations(g: &Grammar, terminal_state: &[Vec<u32>]) -> Vec<u32> {
    use std::cmp::Reverse;
    let mut rule = vec![UNREACHABLE; g.nonterminals.len()];
    // Per production: the bytes of its parts known so far, and how many
    // rule occurrences are not settled yet.
    let mut partial = vec![0u32; g.productions.len()];
    let mut missing = vec![0u32; g.productions.len()];
    let mut uses: Vec<Vec<u32>> = vec![Vec::new(); g.nonterminals.len()];
    let mut heap = std::collections::BinaryHeap::new();
    for (i, p) in g.productions.iter().enumerate() {
        for s in &p.rhs {
            match *s {
                Symbol::T(t) => {
                    let c = terminal_state[t.index()]
                        .first()
                        .copied()
                        .unwrap_or(UNREACHABLE);
                    partial[i] = partial[i].saturating_add(c);
                }
                Symbol::N(n) => {
                    missing[i] += 1;
                    uses[n.index()].push(i as u32);
                }
            }
        }
        if missing[i] == 0 && partial[i] != UNREACHABLE {
            heap.push(Reverse((partial[i], p.lhs.0)));
        }
    }
    let mut settled = vec![false; g.nonterminals.len()];
    while let Some(Reverse((c, a))) = heap.pop() {
        if std::mem::replace(&mut settled[a as usize], true) {
            continue;
        }
        rule[a as usize] = c;
        for &i in &uses[a as usize] {
            let i = i as usize;
            partial[i] = partial[i].saturating_add(c);
            missing[i] -= 1;
            if missing[i] == 0 && partial[i] != UNREACHABLE {
                heap.push(Reverse((partial[i], g.productions[i].lhs.0)));
            }
        }
    }
    rule
}

#[cfg(test)]
mod tests {
    use crate::compiled::CompiledGrammar;
    use crate::lark::parse_grammar;

    #[test]
    fn terminal_states_and_rules() {
        let src = "start: pair+ | \"-\"\npair: KEY \"=\" VAL\nKEY: /[a-z]{3,}/\nVAL: /[0-9]+/";
        let g = CompiledGrammar::new(&parse_grammar(src).unwrap()).unwrap();
        let sc = &g.completion;
        let key = g
            .grammar
            .terminals
            .iter()
            .position(|t| t.name == "KEY")
            .unwrap();
        assert_eq!(sc.terminal_state[key][0], 3);
        assert_eq!(
            sc.terminal_state[key][g.dfas[key].next(0, b'a') as usize],
            2
        );
        assert_eq!(sc.min_sentence_bytes(&g.grammar), 1, "`-`");
        let pair = g
            .grammar
            .nonterminals
            .iter()
            .position(|n| n.name == "pair")
            .unwrap();
        assert_eq!(sc.rule[pair], 5, "`abc=1`");
    }
}
