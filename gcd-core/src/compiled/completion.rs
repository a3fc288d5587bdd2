//! Shortest completions in bytes, independent of any vocabulary.
//!
//! TruncProof's budget rests on "how little is still needed to finish". In
//! bytes that is a property of the grammar alone, so it is computed once
//! with the grammar (and embedded by `grammar!`): per terminal DFA state,
//! the fewest bytes to a match; per rule, the fewest bytes of a derivation.
//! The token-level costs that the budgeted matcher uses are built at bind
//! time from the vocabulary ([`crate::budget`]).
//!
//! The per-rule numbers add up shortest lexemes one terminal at a time, so
//! they are a lower bound on the shortest sentence: maximal munch or a tie
//! lost to another terminal can make the shortest lexeme unusable in
//! context. Tests measure how often the bound is exact.

use crate::grammar::{Grammar, Symbol};
use crate::lexer::{predecessors, TerminalDfa};

/// "Cannot finish".
pub const UNREACHABLE: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShortestCompletion {
    /// `terminal_state[t][q]`: fewest bytes that take DFA state `q` of
    /// terminal `t` to a match ([`UNREACHABLE`] if none).
    pub terminal_state: Vec<Vec<u32>>,
    /// Fewest bytes of a derivation of each rule (a lower bound, see above).
    pub rule: Vec<u32>,
}

impl ShortestCompletion {
    pub fn new(g: &Grammar, dfas: &[TerminalDfa]) -> ShortestCompletion {
        let terminal_state: Vec<Vec<u32>> = dfas.iter().map(distances_to_match).collect();
        let mut rule = vec![UNREACHABLE; g.nonterminals.len()];
        // Costs only fall; each pass settles at least one more rule.
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                let cost = p.rhs.iter().try_fold(0u32, |acc, s| {
                    let c = match *s {
                        Symbol::T(t) => terminal_state[t.index()][0],
                        Symbol::N(n) => rule[n.index()],
                    };
                    (c != UNREACHABLE).then(|| acc.saturating_add(c))
                });
                if let Some(c) = cost {
                    if c < rule[p.lhs.index()] {
                        rule[p.lhs.index()] = c;
                        changed = true;
                    }
                }
            }
        }
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

/// Breadth-first search backwards from the accepting states.
fn distances_to_match(dfa: &TerminalDfa) -> Vec<u32> {
    let n = dfa.len();
    let (start, preds) = predecessors(&dfa.trans, n);
    let mut dist = vec![UNREACHABLE; n];
    let mut queue = std::collections::VecDeque::new();
    for (q, d) in dist.iter_mut().enumerate() {
        if dfa.is_accepting(q as u32) {
            *d = 0;
            queue.push_back(q as u32);
        }
    }
    while let Some(q) = queue.pop_front() {
        let next = dist[q as usize] + 1;
        for &p in &preds[start[q as usize] as usize..start[q as usize + 1] as usize] {
            if dist[p as usize] == UNREACHABLE {
                dist[p as usize] = next;
                queue.push_back(p);
            }
        }
    }
    dist
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
