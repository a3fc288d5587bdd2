//! The LL(1) stack machine.
//!
//! The parser state is a stack of grammar symbols, top last. Shifting a
//! terminal expands nonterminals on top by the table until the terminal is
//! on top, then pops it. For an LL(1) grammar without useless symbols this is
//! exact: a terminal is shifted successfully iff the input so far plus that
//! terminal is a prefix of some sentence.

use crate::analysis::{Ll1Table, Sets, TermSet};
use crate::grammar::{Grammar, Symbol};

/// Symbols on the stack: terminals as their id, nonterminals with this bit.
pub const NT_BIT: u32 = 1 << 31;

pub fn encode(s: Symbol) -> u32 {
    match s {
        Symbol::T(t) => t.0,
        Symbol::N(n) => n.0 | NT_BIT,
    }
}

/// What the parser needs, flattened for speed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseTables {
    pub n_terms: usize,
    /// `nt * (n_terms + 1) + lookahead` → production or `u32::MAX`.
    pub table: Vec<u32>,
    /// Right-hand sides, reversed (ready to push), as `rhs[off[p]..off[p+1]]`.
    pub rhs: Vec<u32>,
    pub rhs_off: Vec<u32>,
    /// Left-hand side of each production.
    pub lhs: Vec<u32>,
    pub nullable: Vec<bool>,
    /// FIRST of each nonterminal.
    pub first: Vec<TermSet>,
    pub start: u32,
}

impl ParseTables {
    pub fn new(g: &Grammar, sets: &Sets, table: &Ll1Table) -> ParseTables {
        let mut rhs = Vec::new();
        let mut rhs_off = vec![0u32];
        for p in &g.productions {
            rhs.extend(p.rhs.iter().rev().map(|&s| encode(s)));
            rhs_off.push(rhs.len() as u32);
        }
        ParseTables {
            n_terms: g.terminals.len(),
            table: table.cells().to_vec(),
            rhs,
            rhs_off,
            lhs: g.productions.iter().map(|p| p.lhs.0).collect(),
            nullable: sets.nullable.clone(),
            first: sets.first.clone(),
            start: g.start.0,
        }
    }

    /// The stack before any input.
    pub fn initial_stack(&self) -> Vec<u32> {
        vec![self.start | NT_BIT]
    }

    #[inline]
    fn predict(&self, nt: u32, lookahead: usize) -> Option<usize> {
        let p = self.table[nt as usize * (self.n_terms + 1) + lookahead];
        (p != u32::MAX).then_some(p as usize)
    }

    /// Shifts terminal `t`. On failure returns false and leaves `stack` in an
    /// unspecified state: callers that may fail work on a copy.
    pub fn shift(&self, stack: &mut impl Stack, t: u32) -> bool {
        while let Some(top) = stack.pop() {
            if top & NT_BIT == 0 {
                return top == t;
            }
            match self.predict(top & !NT_BIT, t as usize) {
                Some(p) => stack
                    .push_slice(&self.rhs[self.rhs_off[p] as usize..self.rhs_off[p + 1] as usize]),
                None => return false,
            }
        }
        false
    }

    /// Whether the input may end here.
    pub fn accepts_end(&self, stack: &[u32]) -> bool {
        self.accepts_end_top_down(stack.iter().copied())
    }

    /// Like [`accepts_end`](Self::accepts_end), for a stack in any order.
    pub fn accepts_end_top_down(&self, mut symbols: impl Iterator<Item = u32>) -> bool {
        // Every symbol left must derive the empty string.
        symbols.all(|s| s & NT_BIT != 0 && self.nullable[(s & !NT_BIT) as usize])
    }

    /// The terminals that can be shifted next (index `n_terms` = end of input).
    pub fn acceptable(&self, stack: &[u32]) -> TermSet {
        self.acceptable_top_down(stack.iter().rev().copied())
    }

    /// Like [`acceptable`](Self::acceptable), given the stack from the top down.
    pub fn acceptable_top_down(&self, top_down: impl Iterator<Item = u32>) -> TermSet {
        let mut set = TermSet::new(self.n_terms);
        for s in top_down {
            if s & NT_BIT == 0 {
                set.insert(s as usize);
                return set;
            }
            let n = (s & !NT_BIT) as usize;
            set.union_with(&self.first[n]);
            if !self.nullable[n] {
                return set;
            }
        }
        set.insert(self.n_terms);
        set
    }
}

/// What [`ParseTables::shift`] needs of a stack.
pub trait Stack {
    fn pop(&mut self) -> Option<u32>;
    fn push_slice(&mut self, symbols: &[u32]);
}

impl Stack for Vec<u32> {
    fn pop(&mut self) -> Option<u32> {
        Vec::pop(self)
    }
    fn push_slice(&mut self, symbols: &[u32]) {
        self.extend_from_slice(symbols);
    }
}

/// A stack that shares its lower part with another: the mask walk explores
/// many short futures of one parser state without copying its stack.
#[derive(Clone, Debug)]
pub struct StackView<'a> {
    base: &'a [u32],
    /// How many of `base`'s bottom elements are still on the stack.
    keep: usize,
    /// Symbols pushed above them, top last (inline: views are cloned per
    /// boundary on the mask's hot path).
    top: smallvec::SmallVec<[u32; 12]>,
}

impl<'a> StackView<'a> {
    pub fn new(base: &'a [u32]) -> Self {
        StackView {
            base,
            keep: base.len(),
            top: smallvec::SmallVec::new(),
        }
    }

    /// The stack from the top down.
    pub fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        self.top
            .iter()
            .rev()
            .chain(self.base[..self.keep].iter().rev())
            .copied()
    }

    /// How many base elements are kept, and the symbols above them (top last).
    pub fn parts(&self) -> (usize, &[u32]) {
        (self.keep, &self.top)
    }

    pub fn top_symbol(&self) -> Option<u32> {
        self.top
            .last()
            .or_else(|| self.keep.checked_sub(1).map(|i| &self.base[i]))
            .copied()
    }

    pub fn to_vec(&self) -> Vec<u32> {
        let mut v = self.base[..self.keep].to_vec();
        v.extend_from_slice(&self.top);
        v
    }
}

impl Stack for StackView<'_> {
    fn pop(&mut self) -> Option<u32> {
        if let Some(s) = self.top.pop() {
            return Some(s);
        }
        self.keep = self.keep.checked_sub(1)?;
        Some(self.base[self.keep])
    }
    fn push_slice(&mut self, symbols: &[u32]) {
        self.top.extend_from_slice(symbols);
    }
}
