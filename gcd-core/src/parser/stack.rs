//! Parser stacks: the plain `Vec`, a graph-structured [`SharedStack`] for
//! generalized parsing, and a view that shares its lower part, so the mask
//! walk can try many short futures without copying.
//!
//! Derivations of an ambiguous grammar fork where the prediction table has
//! several productions. Kept as whole stacks they multiply: in Java an `(`
//! may open a cast, a call's argument or a parenthesized expression, and
//! after each of those another `(` forks the same way again, so `k` forks
//! per parenthesis make `k^n` stacks after `n`. The forks share everything
//! below the fork point, and they reach the same top again. A
//! [`SharedStack`] is a top segment over a *set* of lower parts; stacks
//! that agree on their top merge into one whose lower part is the union of
//! theirs, so `n` parentheses cost about `n·k`, not `k^n`.
//!
//! Invariant ("settled"): a stack with several ways down has a top segment
//! (above the shared part) holding a symbol that cannot derive the empty
//! string. Then the terminals it accepts next, whether it may end, and the
//! lexer context depend on that segment alone, and every consumer that
//! reads a stack from the top down stops inside it. [`Stack::settle`]
//! restores the invariant after each shift by splitting a stack whose
//! segment has run empty (or nullable) into its lower parts.

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use smallvec::SmallVec;

use super::{is_data, Expansion, ParseTables, NT_BIT};

/// What [`ParseTables::shift_each`](super::ParseTables::shift_each) needs
/// of a stack.
pub trait Stack: Sized {
    /// Pops the top symbol; where the stack goes on below in several ways,
    /// `self` takes the first and a copy for each other one (not yet
    /// popped) lands in `forks`.
    fn pop_forking(&mut self, forks: &mut Vec<Self>) -> Option<u32>;
    /// Pops the top symbol of a stack with one way down (member sets read
    /// their data words so; they never fork).
    fn pop(&mut self) -> Option<u32> {
        let mut forks = Vec::new();
        let s = self.pop_forking(&mut forks);
        debug_assert!(forks.is_empty(), "member sets never fork");
        s
    }
    fn push_slice(&mut self, symbols: &[u32]);
    /// The symbols from the top down, as far as they are determined (see
    /// the module's invariant).
    fn top_down(&self) -> impl Iterator<Item = u32> + '_;
    fn top_symbol(&self) -> Option<u32>;
    /// Called where derivations fork, before each one's production is
    /// pushed: a shared stack makes its content a lower part the forks
    /// share, so they can merge again.
    fn seal(&mut self) {}
    /// Calls `each` with the stack, split so that each part is settled.
    fn settle(self, _nullable: &[bool], each: &mut impl FnMut(Self)) {
        each(self)
    }
    /// Adds to `out` the stacks after a conflicting nonterminal, just
    /// popped from this (sealed) stack, took a terminal: one per leftover
    /// of `e`, or fewer over shared parts.
    fn push_leftovers(&self, e: &Expansion, out: &mut Vec<Self>)
    where
        Self: Clone,
    {
        for leftover in &e.leftovers {
            let mut after = self.clone();
            after.push_slice(leftover);
            out.push(after);
        }
    }
}

/// How far below the top [`collapse_stars`] looks: a shift pushes one
/// production, so a repeat it makes is within that production's length.
const NEAR_TOP: usize = 8;

/// The upper of two equal star rules next to each other among the top
/// [`NEAR_TOP`] symbols of `top` (top last), if any; see
/// [`ParseTables::star`](super::ParseTables::star). Without it the stack
/// accepts the same strings, and a mask walk that meets a chain of unary
/// operators (Go's `- - - x`, each pushing the expression's tail again)
/// sees the same stack after every one instead of a deeper one each time.
fn star_repeat(top: &[u32], parse: &ParseTables) -> Option<usize> {
    let n = top.len();
    let lo = n.saturating_sub(NEAR_TOP).max(1);
    (lo..n)
        .rev()
        .find(|&i| top[i] == top[i - 1] && parse.is_star(top[i]))
}

/// Whether stack symbol `s` can derive the empty string.
pub(super) fn nullable_symbol(nullable: &[bool], s: u32) -> bool {
    s & NT_BIT != 0
        && nullable
            .get((s & !NT_BIT) as usize)
            .copied()
            .unwrap_or(false)
}

/// Whether some symbol of `symbols` cannot derive the empty string. A
/// member set's data words are no symbols: they only qualify the rule
/// above them.
fn has_solid(nullable: &[bool], symbols: &[u32]) -> bool {
    symbols
        .iter()
        .rev()
        .any(|&s| !is_data(s) && !nullable_symbol(nullable, s))
}

impl Stack for Vec<u32> {
    fn pop_forking(&mut self, _: &mut Vec<Self>) -> Option<u32> {
        Vec::pop(self)
    }
    fn push_slice(&mut self, symbols: &[u32]) {
        self.extend_from_slice(symbols);
    }
    fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        self.iter().rev().copied()
    }
    fn top_symbol(&self) -> Option<u32> {
        self.last().copied()
    }
}

/// A set of parser stacks: `top` (bottom first) over any of `below`'s
/// stacks, or over nothing.
#[derive(Debug, Default)]
pub struct SharedStack {
    pub top: Vec<u32>,
    pub below: Option<Arc<Below>>,
}

/// Room a copy leaves for pushes: a shift pops a few symbols and pushes a
/// production's right-hand side, and the mask walk copies a stack for
/// every shift it tries, so an exact-size copy would reallocate at once.
const PUSH_ROOM: usize = 8;

impl Clone for SharedStack {
    fn clone(&self) -> SharedStack {
        let mut top = Vec::with_capacity(self.top.len() + PUSH_ROOM);
        top.extend_from_slice(&self.top);
        SharedStack {
            top,
            below: self.below.clone(),
        }
    }
}

/// The lower parts a [`SharedStack`] may continue with.
#[derive(Debug)]
pub struct Below {
    /// Inline for one: every fork seals its stack into a single part.
    pub alts: SmallVec<[SharedStack; 1]>,
    /// The budget's cost vector of this set (the cheapest of its stacks),
    /// filled on first use by [`crate::bind::BudgetTables`]: one per kind
    /// of tables ([`crate::bind::CostTier`]), since a fresh binding's
    /// bounds and its exact tables give different vectors.
    pub costs: [OnceLock<Vec<u32>>; 2],
}

impl SharedStack {
    pub fn new(stack: Vec<u32>) -> SharedStack {
        SharedStack {
            top: stack,
            below: None,
        }
    }

    /// Whether `self` and `other` share their lower part (by identity).
    pub fn same_below(&self, other: &SharedStack) -> bool {
        match (&self.below, &other.below) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Drops repeated star rules near the top (see [`star_repeat`]).
    pub fn collapse_stars(&mut self, parse: &ParseTables) {
        while let Some(i) = star_repeat(&self.top, parse) {
            self.top.remove(i);
        }
    }

    /// Whether `self` and `other` are the same stack by content above
    /// their lower part, and share that part (by identity).
    pub fn same_as(&self, other: &SharedStack) -> bool {
        self.top == other.top && self.same_below(other)
    }

    /// Hashes what [`same_as`](Self::same_as) compares.
    pub fn hash_into(&self, h: &mut FxHasher) {
        self.top.hash(h);
        self.below.as_ref().map(Arc::as_ptr).hash(h);
    }

    /// The stacks `self` stands for, each bottom first. Exponential in the
    /// worst case: for tests and keys over small grammars.
    pub fn expand(&self) -> Vec<Vec<u32>> {
        let lower = match &self.below {
            None => vec![Vec::new()],
            Some(b) => b.alts.iter().flat_map(|a| a.expand()).collect(),
        };
        (lower.into_iter())
            .map(|mut s| {
                s.extend_from_slice(&self.top);
                s
            })
            .collect()
    }

    /// Merges items whose stacks have the same key (a lexer state, say) and
    /// the same top segment into the first of them, over the union of their
    /// lower parts (exact repeats just drop), keeping first-seen order.
    /// `part` reads an item's key and stack; `set_union` gives a merged item
    /// its union of lower parts.
    ///
    /// Masks of generalized grammars merge after every shift they try, so
    /// this neither copies tops for keys nor allocates for the usual few
    /// items: tops are compared in place, by hash first.
    pub fn merge_in_place<T, K: Hash + Eq>(
        items: &mut Vec<T>,
        part: impl Fn(&T) -> (K, &SharedStack),
        mut set_union: impl FnMut(&mut T, Arc<Below>),
    ) {
        if items.len() < 2 {
            return;
        }
        let hash_of = |item: &T| {
            let (q, s) = part(item);
            let mut h = FxHasher::default();
            (q, &s.top[..], s.below.is_some()).hash(&mut h);
            h.finish()
        };
        let same = |a: &T, b: &T| {
            let ((qa, sa), (qb, sb)) = (part(a), part(b));
            qa == qb && sa.top == sb.top && sa.below.is_some() == sb.below.is_some()
        };
        // Per item: the first item it merges into (itself if none), and
        // for such a first item, the lower parts gathered from the others.
        let hashes: SmallVec<[u64; 8]> = items.iter().map(hash_of).collect();
        let mut first: SmallVec<[u32; 8]> = SmallVec::new();
        let mut belows: FxHashMap<u32, SmallVec<[Arc<Below>; 2]>> = FxHashMap::default();
        // Few items: scan the earlier ones; many: index them by hash, so a
        // merge stays linear up to the configuration cap.
        let mut by_hash: FxHashMap<u64, SmallVec<[u32; 1]>> = FxHashMap::default();
        let scan = items.len() <= 32;
        for i in 0..items.len() {
            let matches = |j: usize| hashes[j] == hashes[i] && same(&items[j], &items[i]);
            let j = if scan {
                (0..i).find(|&j| first[j] == j as u32 && matches(j))
            } else {
                let firsts = by_hash.entry(hashes[i]).or_default();
                let found = firsts.iter().map(|&j| j as usize).find(|&j| matches(j));
                if found.is_none() {
                    firsts.push(i as u32);
                }
                found
            }
            .unwrap_or(i);
            first.push(j as u32);
            if j == i {
                continue;
            }
            // Without lower parts, the same top is the same stack.
            let (Some(bj), Some(bi)) = (&part(&items[j]).1.below, &part(&items[i]).1.below) else {
                continue;
            };
            let gathered = belows
                .entry(j as u32)
                .or_insert_with(|| smallvec::smallvec![bj.clone()]);
            if !gathered.iter().any(|x| Arc::ptr_eq(x, bi)) {
                gathered.push(bi.clone());
            }
        }
        let mut i = 0;
        items.retain_mut(|item| {
            let keep = first[i] == i as u32;
            if let Some(gathered) = belows.get(&(i as u32)).filter(|g| g.len() > 1) {
                set_union(item, Arc::new(Below::union(gathered)));
            }
            i += 1;
            keep
        });
    }

    /// Node `n` of `e`'s leftover forest over this (sealed) stack.
    fn under_leftover(&self, e: &Expansion, n: u32) -> SharedStack {
        let node = &e.nodes[n as usize];
        let below = if node.children.is_empty() {
            self.below.clone()
        } else {
            let mut alts: SmallVec<[SharedStack; 1]> = (node.children.iter())
                .map(|&c| self.under_leftover(e, c))
                .collect();
            if node.over_rest {
                alts.push(self.clone());
            }
            Some(Arc::new(Below {
                alts,
                costs: Default::default(),
            }))
        };
        let mut top = Vec::with_capacity(node.segment.len() + PUSH_ROOM);
        top.extend_from_slice(&node.segment);
        SharedStack { top, below }
    }
}

impl Below {
    /// The lower parts of all of `belows`, each once.
    fn union(belows: &[Arc<Below>]) -> Below {
        if belows.iter().all(|b| b.alts.len() == 1) {
            // Forks sealed at a shift each leave one lower part: point at
            // them instead of copying their tops, which a walk that never
            // pops this deep would copy for nothing.
            let alts = (belows.iter())
                .map(|b| SharedStack {
                    top: Vec::new(),
                    below: Some(b.clone()),
                })
                .collect();
            return Below {
                alts,
                costs: Default::default(),
            };
        }
        let mut seen = FxHashSet::default();
        let alts = (belows.iter())
            .flat_map(|b| b.alts.iter())
            .filter(|a| {
                let below = a.below.as_ref().map_or(std::ptr::null(), Arc::as_ptr);
                seen.insert((&a.top[..], below))
            })
            .cloned()
            .collect();
        Below {
            alts,
            costs: Default::default(),
        }
    }
}

impl Stack for SharedStack {
    fn push_slice(&mut self, symbols: &[u32]) {
        self.top.extend_from_slice(symbols);
    }
    fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        self.top.iter().rev().copied()
    }
    fn top_symbol(&self) -> Option<u32> {
        self.top.last().copied()
    }
    fn pop_forking(&mut self, forks: &mut Vec<Self>) -> Option<u32> {
        loop {
            if let Some(s) = self.top.pop() {
                return Some(s);
            }
            let below = self.below.take()?;
            forks.extend(below.alts[1..].iter().cloned());
            *self = below.alts[0].clone();
        }
    }
    fn seal(&mut self) {
        if !self.top.is_empty() {
            let whole = std::mem::take(self);
            self.below = Some(Arc::new(Below {
                alts: smallvec::smallvec![whole],
                costs: Default::default(),
            }));
        }
    }
    /// The expansion's forest over this stack: its segments shared as
    /// the forks they stand for would have merged.
    fn push_leftovers(&self, e: &Expansion, out: &mut Vec<Self>) {
        debug_assert!(self.top.is_empty(), "a sealed stack");
        out.extend(e.roots.iter().map(|&n| self.under_leftover(e, n)));
        if e.bare {
            out.push(self.clone());
        }
    }
    fn settle(self, nullable: &[bool], each: &mut impl FnMut(Self)) {
        let Some(below) = &self.below else {
            return each(self);
        };
        if has_solid(nullable, &self.top) {
            return each(self);
        }
        for alt in &below.alts {
            let mut s = alt.clone();
            s.top.extend_from_slice(&self.top);
            s.settle(nullable, each);
        }
    }
}

/// The top symbols of some stack, cut off from the rest: a consumer that
/// reads past them (pops the last, or reads top-down to the end) sets
/// `bottom`, because what it found there depends on the symbols cut off.
/// A mask walk over a head learns which tokens the head alone decides
/// (see the matcher's head masks); every other operation behaves as on
/// the whole stack.
#[derive(Clone, Debug)]
pub struct HeadStack<'a> {
    pub stack: SharedStack,
    pub bottom: &'a Cell<bool>,
}

impl Stack for HeadStack<'_> {
    fn push_slice(&mut self, symbols: &[u32]) {
        self.stack.top.extend_from_slice(symbols);
    }
    fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        let bottom = self.bottom;
        self.stack.top_down().chain(std::iter::from_fn(move || {
            bottom.set(true);
            None
        }))
    }
    fn top_symbol(&self) -> Option<u32> {
        self.stack.top_symbol()
    }
    fn pop_forking(&mut self, forks: &mut Vec<Self>) -> Option<u32> {
        let mut lower = Vec::new();
        let s = self.stack.pop_forking(&mut lower);
        let bottom = self.bottom;
        forks.extend(lower.into_iter().map(|stack| HeadStack { stack, bottom }));
        if s.is_none() {
            bottom.set(true);
        }
        s
    }
    fn seal(&mut self) {
        self.stack.seal();
    }
    fn push_leftovers(&self, e: &Expansion, out: &mut Vec<Self>) {
        let bottom = self.bottom;
        out.extend(e.roots.iter().map(|&n| HeadStack {
            stack: self.stack.under_leftover(e, n),
            bottom,
        }));
        if e.bare {
            out.push(self.clone());
        }
    }
    fn settle(self, nullable: &[bool], each: &mut impl FnMut(Self)) {
        let bottom = self.bottom;
        self.stack
            .settle(nullable, &mut |stack| each(HeadStack { stack, bottom }));
    }
}

/// Where a [`StackView`] goes on below its own symbols: the bottom `keep`
/// symbols of `base`, over `below` (if any). `costs` are the budget cost
/// vectors of `base`'s positions when the matcher keeps them.
#[derive(Clone, Copy, Debug)]
pub struct Pos<'a> {
    pub base: &'a [u32],
    pub keep: usize,
    pub below: Option<&'a Below>,
    pub costs: Option<&'a [Vec<u32>]>,
}

impl<'a> Pos<'a> {
    fn of(s: &'a SharedStack, costs: Option<&'a [Vec<u32>]>) -> Pos<'a> {
        Pos {
            base: &s.top,
            keep: s.top.len(),
            below: s.below.as_deref(),
            costs,
        }
    }
}

/// A stack that shares its lower part with another: symbols pushed on top
/// of a position in a stack the matcher owns. The mask walk explores many
/// short futures of a configuration this way without copying its stack.
#[derive(Clone, Debug)]
pub struct StackView<'a> {
    /// Symbols pushed above the position, top last (inline: views are
    /// cloned per boundary on the mask's hot path).
    top: SmallVec<[u32; 12]>,
    at: Pos<'a>,
}

impl<'a> StackView<'a> {
    pub fn new(base: &'a [u32]) -> Self {
        StackView {
            top: SmallVec::new(),
            at: Pos {
                base,
                keep: base.len(),
                below: None,
                costs: None,
            },
        }
    }

    /// A view of a shared stack, with the budget cost vectors of its top
    /// segment if known.
    /// The same view without the cost vectors it carries, for tables
    /// other than the ones they were computed with (computed on demand).
    pub fn without_costs(&self) -> Self {
        let mut v = self.clone();
        v.at.costs = None;
        v
    }

    pub fn of(s: &'a SharedStack, costs: Option<&'a [Vec<u32>]>) -> Self {
        StackView {
            top: SmallVec::new(),
            at: Pos::of(s, costs),
        }
    }

    /// Drops repeated star rules near the top (see [`star_repeat`]),
    /// including one pushed right above the same rule of the position.
    pub fn collapse_stars(&mut self, parse: &ParseTables) {
        while let Some(i) = star_repeat(&self.top, parse) {
            self.top.remove(i);
        }
        let p = &self.at;
        if let (Some(&first), Some(k)) = (self.top.first(), p.keep.checked_sub(1)) {
            if first == p.base[k] && parse.is_star(first) {
                self.top.remove(0);
            }
        }
    }

    /// Whether `self` and `other` push the same symbols on the same
    /// position of the same stack (a conservative equality).
    pub fn same_as(&self, other: &StackView) -> bool {
        let (a, b) = (&self.at, &other.at);
        self.top == other.top
            && std::ptr::eq(a.base, b.base)
            && a.keep == b.keep
            && a.below.map(|x| x as *const Below) == b.below.map(|x| x as *const Below)
            && a.costs.is_some() == b.costs.is_some()
    }

    /// Hashes what [`same_as`](Self::same_as) compares.
    pub fn hash_into(&self, h: &mut FxHasher) {
        self.top.hash(h);
        (self.at.base.as_ptr(), self.at.keep).hash(h);
        self.at.below.map(|x| x as *const Below).hash(h);
    }

    /// The symbols above the position (top last), and the position.
    pub fn parts(&self) -> (&[u32], &Pos<'a>) {
        (&self.top, &self.at)
    }
}

impl Stack for StackView<'_> {
    fn push_slice(&mut self, symbols: &[u32]) {
        self.top.extend_from_slice(symbols);
    }
    fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        let p = &self.at;
        self.top
            .iter()
            .rev()
            .chain(p.base[..p.keep].iter().rev())
            .copied()
    }
    fn top_symbol(&self) -> Option<u32> {
        let p = &self.at;
        self.top
            .last()
            .or_else(|| p.keep.checked_sub(1).map(|i| &p.base[i]))
            .copied()
    }
    fn pop_forking(&mut self, forks: &mut Vec<Self>) -> Option<u32> {
        loop {
            if let Some(s) = self.top.pop() {
                return Some(s);
            }
            let p = &mut self.at;
            if p.keep > 0 {
                p.keep -= 1;
                return Some(p.base[p.keep]);
            }
            let below = p.below?;
            for alt in &below.alts[1..] {
                forks.push(StackView {
                    top: SmallVec::new(),
                    at: Pos::of(alt, None),
                });
            }
            self.at = Pos::of(&below.alts[0], None);
        }
    }
    fn settle(self, nullable: &[bool], each: &mut impl FnMut(Self)) {
        let p = self.at;
        let Some(below) = p.below else {
            return each(self);
        };
        if has_solid(nullable, &self.top) || has_solid(nullable, &p.base[..p.keep]) {
            return each(self);
        }
        for alt in &below.alts {
            let mut top: SmallVec<[u32; 12]> = p.base[..p.keep].iter().copied().collect();
            top.extend_from_slice(&self.top);
            StackView {
                top,
                at: Pos::of(alt, None),
            }
            .settle(nullable, each);
        }
    }
}
