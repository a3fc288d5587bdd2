//! Snapshots of a [`CompiledGrammar`]: what the `grammar!` macro embeds so
//! that run time compiles no regex and runs no analysis. Data from elsewhere
//! is checked for every index the matcher relies on, so a corrupt snapshot
//! is an error, not a panic later.

use crate::analysis::SEVERAL;
use crate::codec::{self, SnapshotError};
use crate::compiled::CompiledGrammar;
use crate::lexer::{TerminalDfa, DEAD};
use crate::parser::NT_BIT;

const SNAPSHOT_MAGIC: &[u8; 8] = b"gcd-gram";
/// Bumped whenever a serialized table changes shape.
const SNAPSHOT_VERSION: u32 = 9;

impl CompiledGrammar {
    /// Serializes every table, so that a grammar known at build time (the
    /// `grammar!` macro) is loaded with [`from_bytes`](Self::from_bytes)
    /// instead of compiling regexes and analysing the grammar at run time.
    pub fn to_bytes(&self) -> Vec<u8> {
        codec::encode(SNAPSHOT_MAGIC, SNAPSHOT_VERSION, self)
    }

    /// Loads tables written by [`to_bytes`](Self::to_bytes) by the same
    /// version of gcd-core. Data from elsewhere is checked for the indices
    /// the matcher relies on, so a corrupt snapshot is an error, not a panic
    /// later.
    pub fn from_bytes(bytes: &[u8]) -> Result<CompiledGrammar, SnapshotError> {
        let g: CompiledGrammar = codec::decode(SNAPSHOT_MAGIC, SNAPSHOT_VERSION, bytes)?;
        g.check_indices().map_err(SnapshotError::Corrupt)?;
        Ok(g)
    }

    /// The size invariants between tables that indexing relies on.
    fn check_indices(&self) -> Result<(), String> {
        let n = self.grammar.terminals.len();
        let nts = self.grammar.nonterminals.len();
        let lx = &self.lexer;
        let states = lx.winner.len();
        let classes = lx.classes.len();
        let single_ok = lx.single.len() == states
            && (lx.single.iter().zip(&lx.alive)).all(|(&x, alive)| match alive[..] {
                [t] => self
                    .dfas
                    .get(t as usize)
                    .is_some_and(|d| (x as usize) < d.len()),
                _ => x == u32::MAX,
            });
        let checks = [
            (self.dfas.len() == n, "one DFA per terminal"),
            (single_ok, "single-terminal lexer states"),
            (
                self.completion.rule.len() == nts
                    && self
                        .completion
                        .terminal_state
                        .iter()
                        .map(Vec::len)
                        .eq(self.dfas.iter().map(|d| d.len())),
                "completion tables",
            ),
            (self.rank.len() == n, "one rank per terminal"),
            (self.parse.n_terms == n, "parse table terminal count"),
            (self.parse.table.len() == nts * (n + 1), "parse table size"),
            (
                self.parse.lhs.len() + 1 == self.parse.rhs_off.len(),
                "production offsets",
            ),
            (
                self.parse.first.len() == nts && self.parse.nullable.len() == nts,
                "per-rule sets",
            ),
            (
                match self.lexing {
                    crate::compiled::Lexing::Dynamic => {
                        self.matching.len() == states
                            && self.matching.iter().flatten().all(|&(t, x)| {
                                (t as usize) < n
                                    && (x == u32::MAX || (x as usize) < self.extenders.len())
                            })
                    }
                    _ => self.matching.is_empty() && self.extenders.is_empty(),
                },
                "matching terminals per lexer state",
            ),
            (
                self.parse.table.iter().all(|&p| {
                    p == u32::MAX
                        || (p as usize) < self.parse.lhs.len()
                        || (p & SEVERAL != 0
                            && ((p & !SEVERAL) as usize) + 1 < self.parse.several_off.len())
                }) && self
                    .parse
                    .several
                    .iter()
                    .all(|&p| (p as usize) < self.parse.lhs.len())
                    && self.parse.several_off.first().is_none_or(|&o| o == 0)
                    && self.parse.several_off.windows(2).all(|w| w[0] <= w[1])
                    && self
                        .parse
                        .several_off
                        .last()
                        .is_none_or(|&e| e as usize == self.parse.several.len()),
                "parse table productions in range",
            ),
            (
                self.parse
                    .rhs_off
                    .last()
                    .is_some_and(|&e| e as usize == self.parse.rhs.len())
                    && self.parse.rhs_off.windows(2).all(|w| w[0] <= w[1])
                    && (self.parse.start as usize) < nts,
                "production offsets in order",
            ),
            (
                self.parse.rhs.iter().all(|&s| {
                    let i = (s & !NT_BIT) as usize;
                    if s & NT_BIT != 0 {
                        i < nts
                    } else {
                        i < n
                    }
                }),
                "right-hand-side symbols in range",
            ),
            (
                self.parse.set_role.len() == nts
                    && self.parse.member_index.len() == nts
                    && self
                        .parse
                        .set_role
                        .iter()
                        .flatten()
                        .all(|&(i, _)| (i as usize) < self.parse.sets.len())
                    && self.parse.sets.iter().all(|s| {
                        let nt = |x: u32| x & NT_BIT != 0 && ((x & !NT_BIT) as usize) < nts;
                        [s.list, s.more, s.next].iter().all(|&x| (x as usize) < nts)
                            && s.members.iter().chain(&s.repeatable).all(|&m| nt(m))
                            && s.required.len() == s.words()
                            && (s.separator as usize) < n
                    }),
                "member-set tables",
            ),
            (
                lx.trans.len() == states * classes,
                "lexer transition table size",
            ),
            (
                lx.starts.len() == self.candidate_sets.len(),
                "one lexer start per candidate set",
            ),
            (
                self.start_by_top_t.len() == n && self.start_by_top_n.len() == nts,
                "start-state tables",
            ),
            (
                lx.trans
                    .iter()
                    .chain(&lx.starts)
                    .all(|&s| s == DEAD || (s as usize) < states),
                "lexer states in range",
            ),
            (
                lx.classes.class_of.iter().all(|&c| (c as usize) < classes),
                "byte classes in range",
            ),
            (
                self.dfas.iter().all(TerminalDfa::is_consistent),
                "terminal DFA tables",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, what)) => Err(format!("inconsistent tables: {what}")),
            None => Ok(()),
        }
    }
}
