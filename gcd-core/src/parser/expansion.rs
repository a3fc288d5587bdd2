//! What a terminal does to a conflicting nonterminal, worked out once.
//!
//! Shifting a terminal onto a nonterminal whose cell predicts several
//! productions forks, and the forks fork again below: in Java, an
//! identifier where an expression starts is a primary, a cast's type, a
//! lambda's parameter, a method reference, a generic type, ..., 228
//! derivations. A mask walk shifts the same terminal onto the same
//! nonterminal for every stack it meets, and those expansions and the
//! merging of their forks were most of a cold mask's time. None of it
//! depends on what lies below the nonterminal unless it derives nothing
//! before the terminal, so an [`Expansion`] keeps, per (nonterminal,
//! terminal), the symbols each derivation leaves in the nonterminal's
//! place, each once, and whether some derivation goes on below.
//!
//! The leftovers are also kept as a forest read from the top, so that a
//! shared stack takes them as a few stacks over shared lower parts, as
//! the forks would have merged into: each node is a segment that holds a
//! symbol that cannot derive the empty string (a settled segment, see
//! [`SharedStack`](super::SharedStack)), over its children or the stack
//! below the nonterminal.

use rustc_hash::FxHashSet;

use super::stack::nullable_symbol;
use super::{ParseTables, NT_BIT};
use crate::analysis::{NO_PRODUCTION, SEVERAL};

/// Expansion steps past which an expansion is not kept (the shift then
/// forks as it always did).
const MAX_EXPANSION_STEPS: usize = 1 << 16;

/// The derivations of one nonterminal that take one terminal.
#[derive(Debug, PartialEq, Eq)]
pub struct Expansion {
    /// The symbols a derivation leaves in the nonterminal's place after
    /// the terminal (bottom first, ready to push), each once, sorted.
    pub leftovers: Vec<Box<[u32]>>,
    /// The leftovers as a forest: its roots (indexes into `nodes`).
    pub roots: Vec<u32>,
    pub nodes: Vec<LeftoverNode>,
    /// Some leftover is empty: the stack below the nonterminal is a stack
    /// after the terminal as it is.
    pub bare: bool,
    /// Some derivation derives nothing before the terminal: the shift goes
    /// on below the nonterminal.
    pub through: bool,
}

/// A segment of leftovers (see [`Expansion::roots`]).
#[derive(Debug, PartialEq, Eq)]
pub struct LeftoverNode {
    /// Bottom first; it holds a symbol that cannot derive the empty string
    /// unless nothing of the leftover lies below it.
    pub segment: Box<[u32]>,
    /// What may lie below the segment (indexes into the nodes).
    pub children: Vec<u32>,
    /// The stack below the nonterminal may lie right below the segment.
    pub over_rest: bool,
}

impl ParseTables {
    /// The derivations of nonterminal `x` (encoded) that take terminal
    /// `t`; `None` for grammars with member sets (a set reads its data
    /// words below it) and past [`MAX_EXPANSION_STEPS`].
    pub fn expansion(&self, x: u32, t: u32) -> Option<Expansion> {
        if self.has_sets() || x & NT_BIT == 0 {
            return None;
        }
        let mut leftovers = FxHashSet::default();
        let mut through = false;
        let mut work = vec![vec![x]];
        let mut steps = 0;
        while let Some(mut s) = work.pop() {
            loop {
                steps += 1;
                if steps > MAX_EXPANSION_STEPS {
                    return None;
                }
                let Some(top) = s.pop() else {
                    through = true;
                    break;
                };
                if top & NT_BIT == 0 {
                    if top == t {
                        leftovers.insert(s.into_boxed_slice());
                    }
                    break;
                }
                match self.cell(top, t) {
                    NO_PRODUCTION => break,
                    c if c & SEVERAL != 0 => {
                        let alts = self.several_of(c);
                        for &p in &alts[1..] {
                            let mut fork = s.clone();
                            fork.extend_from_slice(self.rhs_of(p as usize));
                            work.push(fork);
                        }
                        s.extend_from_slice(self.rhs_of(alts[0] as usize));
                    }
                    p => s.extend_from_slice(self.rhs_of(p as usize)),
                }
            }
        }
        let mut leftovers: Vec<Box<[u32]>> = leftovers.into_iter().collect();
        leftovers.sort_unstable();
        let mut nodes = Vec::new();
        let tails: Vec<&[u32]> = leftovers.iter().map(|l| &l[..]).collect();
        let (roots, bare) = self.forest(&tails, &mut nodes);
        Some(Expansion {
            leftovers,
            roots,
            nodes,
            bare,
            through,
        })
    }

    /// Adds the forest of `tails` (bottom first; each read from its end)
    /// to `nodes`: its roots, and whether some tail is empty.
    fn forest(&self, tails: &[&[u32]], nodes: &mut Vec<LeftoverNode>) -> (Vec<u32>, bool) {
        let mut empty = false;
        // Per distinct top segment (through its first solid symbol), what
        // lies below it in each tail, in first-seen order.
        let mut groups: Vec<(&[u32], Vec<&[u32]>)> = Vec::new();
        for &tail in tails {
            if tail.is_empty() {
                empty = true;
                continue;
            }
            let solid = (0..tail.len())
                .rev()
                .find(|&i| !nullable_symbol(&self.nullable, tail[i]))
                .unwrap_or(0);
            let (below, segment) = tail.split_at(solid);
            match groups.iter_mut().find(|(s, _)| *s == segment) {
                Some((_, belows)) => belows.push(below),
                None => groups.push((segment, vec![below])),
            }
        }
        let roots = (groups.into_iter())
            .map(|(segment, belows)| {
                let (children, over_rest) = self.forest(&belows, nodes);
                nodes.push(LeftoverNode {
                    segment: segment.into(),
                    children,
                    over_rest,
                });
                nodes.len() as u32 - 1
            })
            .collect();
        (roots, empty)
    }
}

impl ParseTables {
    /// Checks every expansion (all of them, however few their leftovers)
    /// against forking: for each conflicting nonterminal and terminal, over
    /// plain and shared stacks with and without lower parts, the stacks
    /// after the shift must be the same. Returns how many expansions it
    /// checked (for tests over random grammars).
    #[doc(hidden)]
    pub fn check_expansions(&self) -> Result<usize, String> {
        use std::sync::Arc;

        use super::{Below, SharedStack};

        let mut checked = 0;
        for nt in 0..self.nullable.len() as u32 {
            let x = nt | NT_BIT;
            for t in 0..self.n_terms as u32 {
                let Some(e) = self.expansion(x, t) else {
                    continue;
                };
                let e = Arc::new(e);
                let only_x = |y: u32| (y == x).then(|| e.clone());
                let lower = |alts: Vec<Vec<u32>>| {
                    Some(Arc::new(Below {
                        alts: alts.into_iter().map(SharedStack::new).collect(),
                        costs: Default::default(),
                    }))
                };
                let shared = [
                    SharedStack::new(vec![x]),
                    SharedStack::new(vec![t, x, x]),
                    SharedStack {
                        top: vec![x],
                        below: lower(vec![vec![t], vec![], vec![x, t]]),
                    },
                ];
                for stack in shared {
                    let (mut forked, mut expanded) = (Vec::new(), Vec::new());
                    self.shift_each(stack.clone(), t, |s| forked.extend(s.expand()));
                    self.shift_each_expanded(stack.clone(), t, only_x, |s| {
                        expanded.extend(s.expand())
                    });
                    for v in [&mut forked, &mut expanded] {
                        v.sort_unstable();
                        v.dedup();
                    }
                    if forked != expanded {
                        return Err(format!(
                            "nonterminal {nt}, terminal {t}, stacks {:?}: forking gives {forked:?}, \
                             the expansion {expanded:?}",
                            stack.expand()
                        ));
                    }
                }
                for stack in [vec![x], vec![t, x, x]] {
                    let (mut forked, mut expanded) = (Vec::new(), Vec::new());
                    self.shift_each(stack.clone(), t, |s| forked.push(s));
                    self.shift_each_expanded(stack.clone(), t, only_x, |s| expanded.push(s));
                    for v in [&mut forked, &mut expanded] {
                        v.sort_unstable();
                        v.dedup();
                    }
                    if forked != expanded {
                        return Err(format!(
                            "nonterminal {nt}, terminal {t}, stack {stack:?}: forking gives \
                             {forked:?}, the expansion {expanded:?}"
                        ));
                    }
                }
                checked += 1;
            }
        }
        Ok(checked)
    }
}
