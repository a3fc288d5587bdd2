//! The mask under [`Lexing::Dynamic`](crate::compiled::Lexing): a lexeme
//! may end wherever a candidate matches, so a token's bytes can be cut
//! into lexemes in many ways and no per-lexer-state token table (which
//! assumes the one cut of maximal munch) applies.
//!
//! The walk follows the token trie with the set of configurations each
//! prefix leads to, stepping them exactly as [`Matcher::advance`] does
//! (by [`CompiledGrammar::step`]), and allows a token iff the set at its
//! node is not empty. Without a lexical hazard to prove, "some
//! configuration is alive" is "some completion exists": every live
//! lexeme can grow into a match of one of its candidates and end there.
//! Stacks are interned per mask and what shifting a terminal does to one
//! is computed once, so the common step (the byte extends the lexeme)
//! copies nothing.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::Matcher;
use crate::bind::set_bit;
use crate::compiled::CompiledGrammar;
use crate::lexer::DEAD;
use crate::parser::{SharedStack, Stack, StackView};

/// The stacks one mask meets, by index.
struct Stacks<'a> {
    g: &'a CompiledGrammar,
    all: Vec<SharedStack>,
    /// By top segment and the identity of the lower part.
    index: FxHashMap<(Vec<u32>, usize), u32>,
    /// Per stack: (terminal, range of `after`) for each terminal shifted.
    shifted: Vec<SmallVec<[(u32, u32, u32); 2]>>,
    /// (stack after a terminal, lexer state of the next lexeme).
    after: Vec<(u32, u32)>,
}

impl<'a> Stacks<'a> {
    fn intern(&mut self, s: SharedStack) -> u32 {
        let below = s
            .below
            .as_ref()
            .map_or(0, |b| std::sync::Arc::as_ptr(b) as usize);
        let next = self.all.len() as u32;
        let id = *self.index.entry((s.top.clone(), below)).or_insert(next);
        if id == next {
            self.all.push(s);
            self.shifted.push(SmallVec::new());
        }
        id
    }

    /// The configurations that start a lexeme after stack `si` ends one
    /// as terminal `w`, as a range of `self.after`.
    fn after(&mut self, si: u32, w: u32) -> std::ops::Range<usize> {
        if let Some(&(_, from, to)) = self.shifted[si as usize].iter().find(|s| s.0 == w) {
            return from as usize..to as usize;
        }
        {
            let g = self.g;
            let mut made: SmallVec<[(SharedStack, u32); 1]> = SmallVec::new();
            let each = |v: SharedStack| {
                let q = g.start_state_top_down(v.top_symbol(), || v.top_down());
                if q != DEAD {
                    made.push((v, q));
                }
            };
            g.each_shift(self.all[si as usize].clone(), w, each);
            let made: SmallVec<[(u32, u32); 2]> =
                made.into_iter().map(|(v, q)| (self.intern(v), q)).collect();
            let from = self.after.len() as u32;
            self.after.extend(made);
            let to = self.after.len() as u32;
            self.shifted[si as usize].push((w, from, to));
            from as usize..to as usize
        }
    }
}

impl Matcher {
    /// Adds every token that some configuration allows (EOS aside), by
    /// walking the trie with configuration sets.
    pub(super) fn fill_dynamic(&self, out: &mut [u64]) {
        let b = &*self.bound;
        let g = &b.grammar;
        let trie = &b.trie;
        let mut stacks = Stacks {
            g,
            all: Vec::new(),
            index: FxHashMap::default(),
            shifted: Vec::new(),
            after: Vec::new(),
        };
        // Per trie depth: (stack, lexer state) after that many bytes.
        let mut at: Vec<Vec<(u32, u32)>> = vec![Vec::new(); trie.max_depth + 1];
        for c in &self.configs {
            let si = stacks.intern(c.stack.clone());
            at[0].push((si, c.lexer));
        }
        let mut next: Vec<(u32, u32)> = Vec::new();
        // Under a budget, a token is allowed iff one of the configurations
        // it leads to has a plan that fits (each is a real plan).
        let limit = self.budget.map(|n| (n - self.tokens.len() - 1) as u32);
        let mut fitting: FxHashMap<(u32, u32), bool> = FxHashMap::default();
        let mut fits = |stacks: &Stacks, items: &[(u32, u32)]| {
            let Some(limit) = limit else { return true };
            items.iter().any(|&(si, q)| {
                *fitting.entry((si, q)).or_insert_with(|| {
                    let view = StackView::of(&stacks.all[si as usize], None);
                    b.budget().fits(b, &view, q, None, limit)
                })
            })
        };
        let end = trie.subtree_end[0] as usize;
        let mut i = 1;
        while i < end {
            let d = trie.depth[i] as usize;
            let byte = trie.byte[i];
            // Nothing to close before the first byte of the output.
            let fresh = d == 1 && self.fresh;
            next.clear();
            for k in 0..at[d - 1].len() {
                let (si, q) = at[d - 1][k];
                let ns = g.lexer.next(q, byte);
                if ns != DEAD {
                    next.push((si, ns));
                }
                if fresh {
                    continue;
                }
                for w in g.dynamic_ends_before(q, byte) {
                    for k in stacks.after(si, w) {
                        let (sj, q2) = stacks.after[k];
                        let n2 = g.lexer.next(q2, byte);
                        if n2 != DEAD {
                            next.push((sj, n2));
                        }
                    }
                }
            }
            if next.is_empty() {
                i = trie.subtree_end[i] as usize;
                continue;
            }
            if next.len() > 1 {
                next.sort_unstable();
                next.dedup();
            }
            let tokens = trie.tokens_at(i);
            if !tokens.is_empty() && fits(&stacks, &next) {
                for &t in tokens {
                    set_bit(out, t);
                }
            }
            std::mem::swap(&mut at[d], &mut next);
            i += 1;
        }
    }
}
