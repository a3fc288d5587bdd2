//! The mask: the union over configurations of the tokens each allows.
//!
//! Derivations of a generalized grammar mostly differ deep in their stacks,
//! so asking "which tokens does this one allow" once per configuration
//! repeats the same trie walk many times. Instead the walk carries a
//! *group* of parser stacks that share a lexer state: configurations with
//! the same pending lexer state form one group, and where a lexeme ends
//! inside a token the stacks that take the winning terminal are regrouped
//! by the lexer state the next lexeme starts in. A trie subtree is then
//! walked once per distinct lexer state, not once per derivation, and the
//! parser is asked once per (group, winning terminal), not once per trie
//! node. Within a lexeme the stacks do not matter; they are consulted only
//! at boundaries, for member-set viability, and for the budget (where any
//! stack of the group that fits is a plan).
//!
//! A generalized grammar's walk carries [`SharedStack`]s, so the forks of
//! one token merge where they push the same symbols, as the matcher's own
//! configurations do; without that, `k` forks per `(` would make the walk
//! of a token `((((` visit `k^4` stacks. An LL(1) grammar's walk carries
//! copy-free views, one per group.

use std::cell::{Cell, RefCell};
use std::hash::Hasher;
use std::ops::Range;

use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;

use super::{Config, Matcher};
use crate::bind::{
    set_bit, BoundGrammar, Boundary, BudgetTables, CostTier, EndFilter, PendingCap, StateTables,
};
use crate::compiled::CompiledGrammar;
use crate::grammar::TermSet;
use crate::lexer::DEAD;
use crate::parser::{HeadStack, ParseTables, SharedStack, Stack, StackView};

/// The terminals (ignored ones included) that a lexeme starting with
/// parser `view` may end as, when they are fewer than the lexer's
/// candidates: with member sets, the lexer also runs a used member's key
/// (see [`crate::parser::ParseTables::candidates_top_down`]), and a
/// pending lexeme that only such a key can still win is a dead end.
///
/// With forks, a rule above a set (`value: obj_a | obj_b`) has the FIRST
/// set of the sets' approximating rules, so the terminals a stack takes
/// are found by trying each candidate on it.
pub(super) fn exact_candidates(g: &CompiledGrammar, view: &StackView) -> Option<TermSet> {
    if !g.parse.has_sets() {
        return None;
    }
    let candidates = g.parse.candidates_top_down(view.top_down());
    let mut exact = if g.parse.is_generalized() {
        g.parse.shiftable(view, &candidates)
    } else if g.parse.set_decides_top_down(view.top_down()) {
        g.parse.acceptable_top_down(view.top_down())
    } else {
        return None;
    };
    if exact == candidates {
        return None;
    }
    exact.union_with(&g.ignored);
    Some(exact)
}

/// Whether lexer state `q` can still end as one of `exact`.
pub(super) fn viable(g: &CompiledGrammar, q: u32, exact: &TermSet) -> bool {
    g.lexer.alive[q as usize]
        .iter()
        .any(|&t| exact.contains(t as usize))
}

/// What the walk needs of the stacks it carries. An LL(1) grammar never
/// forks, so its walk carries views that copy nothing; a generalized one
/// carries [`SharedStack`]s, which seal where they fork and merge when
/// they reach the same top again.
pub(super) trait WalkStack<'a>: Stack + Clone {
    /// Whether two stacks are the same (may say no for equal ones).
    fn same(&self, other: &Self) -> bool;
    fn hash_into(&self, h: &mut FxHasher);
    /// Drops repeated star rules near the top (the language stays).
    fn collapse_stars(&mut self, parse: &ParseTables);
    /// Merges `items` whose stacks of one lexer state share their top.
    fn merge(items: &mut Vec<(u32, Self)>);
    fn exact(&self, g: &CompiledGrammar) -> Option<TermSet>;
    /// The budget's cost to finish this stack after a lexeme of `w`.
    /// The cost to finish after a lexeme of `w` by `tables`; `own`: the
    /// view's cost vectors are `tables`' (else they are computed here).
    fn cost_after(&self, tables: &BudgetTables, b: &BoundGrammar, w: u32, own: bool) -> u32;
    /// Adds the tokens whose first byte closed the pending lexeme, with
    /// group `gi` after taking its winner, the next lexeme in lexer state
    /// `q` (`filter`: the pending state's end filter).
    fn add_after_close(
        walk: &mut MaskWalk<'a, Self>,
        out: &mut [u64],
        q: u32,
        gi: u32,
        filter: u32,
    ) {
        let b = walk.b;
        walk.add_state(out, gi, q, Some(b.end_filter(filter)), true);
    }
}

impl<'a> WalkStack<'a> for StackView<'a> {
    fn same(&self, other: &Self) -> bool {
        self.same_as(other)
    }
    fn hash_into(&self, h: &mut FxHasher) {
        StackView::hash_into(self, h)
    }
    fn collapse_stars(&mut self, parse: &ParseTables) {
        StackView::collapse_stars(self, parse)
    }
    fn merge(_: &mut Vec<(u32, Self)>) {}
    fn exact(&self, g: &CompiledGrammar) -> Option<TermSet> {
        exact_candidates(g, self)
    }
    fn cost_after(&self, tables: &BudgetTables, b: &BoundGrammar, w: u32, own: bool) -> u32 {
        match own {
            true => tables.cost_after(b, self, w),
            false => tables.cost_after(b, &self.without_costs(), w),
        }
    }
}

impl<'a> WalkStack<'a> for SharedStack {
    fn same(&self, other: &Self) -> bool {
        self.same_as(other)
    }
    fn hash_into(&self, h: &mut FxHasher) {
        SharedStack::hash_into(self, h)
    }
    fn collapse_stars(&mut self, parse: &ParseTables) {
        SharedStack::collapse_stars(self, parse)
    }
    fn merge(items: &mut Vec<(u32, Self)>) {
        SharedStack::merge_in_place(
            items,
            |(q, s)| (*q, s),
            |(_, s), below| s.below = Some(below),
        );
    }
    fn exact(&self, g: &CompiledGrammar) -> Option<TermSet> {
        exact_candidates(g, &StackView::of(self, None))
    }
    fn cost_after(&self, tables: &BudgetTables, b: &BoundGrammar, w: u32, _: bool) -> u32 {
        tables.cost_after(b, &StackView::of(self, None), w)
    }
}

/// A head walk reads no member sets (grammars with them take whole-stack
/// walks) and has no budget.
impl<'a> WalkStack<'a> for HeadStack<'a> {
    fn same(&self, other: &Self) -> bool {
        self.stack.same_as(&other.stack)
    }
    fn hash_into(&self, h: &mut FxHasher) {
        self.stack.hash_into(h)
    }
    fn collapse_stars(&mut self, parse: &ParseTables) {
        self.stack.collapse_stars(parse)
    }
    fn merge(items: &mut Vec<(u32, Self)>) {
        SharedStack::merge_in_place(
            items,
            |(q, h)| (*q, &h.stack),
            |(_, h), below| h.stack.below = Some(below),
        );
    }
    fn exact(&self, _: &CompiledGrammar) -> Option<TermSet> {
        None
    }
    fn cost_after(&self, _: &BudgetTables, _: &BoundGrammar, _: u32, _: bool) -> u32 {
        0
    }
    fn add_after_close(
        walk: &mut MaskWalk<'a, Self>,
        out: &mut [u64],
        q: u32,
        gi: u32,
        filter: u32,
    ) {
        walk.add_head_after_close(out, q, gi, filter);
    }
}

/// Parser stacks that share a lexer state.
struct Group<S> {
    /// No two that could merge.
    views: SmallVec<[S; 1]>,
    /// The union of the stacks' [`exact_candidates`], `None` when one of
    /// them has none (the lexer's candidates are exact).
    exact: Option<TermSet>,
    /// Memo of [`MaskWalk::shift`]: (winner, range of `buckets`).
    shifted: SmallVec<[(u32, u32, u32); 2]>,
    /// With lexeme caps: the tokens that hold the group's pending lexeme,
    /// the token walked included when it reaches it (so one more than the
    /// configurations' count in the walk's first group, one after a shift).
    held: u32,
}

/// Marks a memoized shift that read below a head.
const UNDECIDED: u32 = u32::MAX;

/// One mask computation.
pub(super) struct MaskWalk<'a, S> {
    pub(super) b: &'a BoundGrammar,
    g: &'a CompiledGrammar,
    groups: Vec<Group<S>>,
    /// (lexer start state, group) after a shift; ranges of it are memoized
    /// per group.
    buckets: Vec<(u32, u32)>,
    /// Groups made by shifts, by the hash of their stacks: a shift that
    /// leaves the stacks as some group has them goes on as that group, with
    /// its memo (a run of `-` in a token is a chain of unary minuses, each
    /// leaving the stack as the one before did).
    interned: FxHashMap<u64, SmallVec<[u32; 1]>>,
    /// Per trie depth: lexer state and group after that many bytes.
    state: Vec<u32>,
    group: Vec<u32>,
    /// The most tokens any allowed token may leave the completion.
    limit: Option<u32>,
    /// Per terminal, the most tokens one of its lexemes may hold.
    caps: Option<&'a [u32]>,
    /// A head walk's flag, set by a shift that read below the head.
    pub(super) bottom: Option<&'a Cell<bool>>,
    /// A head walk's trie nodes whose subtrees it could not decide: a
    /// shift there read below the head.
    pub(super) undecided: Vec<u32>,
    /// Trie subtrees (sorted, disjoint `[start, end)` node ranges) a walk
    /// is limited to: the nodes in them and their ancestors.
    pub(super) only: Option<&'a [(u32, u32)]>,
    /// Under a budget: the cost to finish (group, view, terminal) after a
    /// lexeme of the terminal, the same for every lexer state its tokens
    /// reach.
    after: RefCell<FxHashMap<(u32, u32, u32), u32>>,
    /// The tables the views' cost vectors are for: with the bounds, a
    /// decision they do not show goes to the exact tables.
    pub(super) tier: CostTier,
    /// `after` by the bounds.
    after_upper: RefCell<FxHashMap<(u32, u32, u32), u32>>,
}

impl Matcher {
    /// Sets `out` to the tokens that some configuration allows (EOS
    /// aside).
    pub(super) fn fill_tokens(&self, out: &mut [u64]) {
        let g = &self.bound.grammar;
        let heads = self.token_limit().is_none() && !g.parse.has_sets();
        if heads && self.bound.head_masks_on() && g.lexing() != crate::compiled::Lexing::Dynamic {
            // Copies its first set instead of clearing `out` first.
            return self.fill_by_heads(out);
        }
        out.fill(0);
        if self.budget.is_some_and(|n| self.tokens.len() >= n) {
            return;
        }
        if g.lexing() == crate::compiled::Lexing::Dynamic {
            return self.fill_dynamic(out);
        }
        if !g.parse.is_generalized() {
            self.fill_with(out, Config::view);
        } else {
            self.fill_with(out, |c| c.stack.clone());
        }
    }

    /// The walk over every configuration, grouped by lexer state.
    fn fill_with<'a, S: WalkStack<'a>>(&'a self, out: &mut [u64], root: impl Fn(&'a Config) -> S) {
        let mut walk = MaskWalk::new(&self.bound, self.token_limit());
        walk.caps = self.caps.as_deref();
        walk.tier = self.cost_tier;
        let mut order: SmallVec<[usize; 1]> = (0..self.configs.len()).collect();
        let key = |i: &usize| (self.configs[*i].lexer, self.configs[*i].held);
        order.sort_by_key(key);
        for same in order.chunk_by(|i, j| key(i) == key(j)) {
            let (q, held) = key(&same[0]);
            let views = same.iter().map(|&i| root(&self.configs[i])).collect();
            walk.run(out, q, views, self.fresh, held);
        }
    }
}

impl<'a, S: WalkStack<'a>> MaskWalk<'a, S> {
    pub(super) fn new(b: &'a BoundGrammar, limit: Option<u32>) -> Self {
        let depth = 1 + b.trie.max_depth;
        MaskWalk {
            b,
            g: &b.grammar,
            groups: Vec::new(),
            buckets: Vec::new(),
            interned: FxHashMap::default(),
            state: vec![DEAD; depth],
            group: vec![0; depth],
            limit,
            caps: None,
            bottom: None,
            undecided: Vec::new(),
            only: None,
            after: RefCell::default(),
            tier: CostTier::Exact,
            after_upper: RefCell::default(),
        }
    }

    /// Adds the tokens allowed with the pending lexeme in lexer state `q`
    /// and parser stacks `views` (`fresh`: nothing read yet; `held`: the
    /// tokens the lexeme holds, counted under lexeme caps).
    pub(super) fn run(
        &mut self,
        out: &mut [u64],
        q: u32,
        views: SmallVec<[S; 1]>,
        fresh: bool,
        held: u32,
    ) {
        let b = self.b;
        let end_filter = b.end_filter_of(q).filter(|_| !fresh);
        // Under caps, a token whose first byte closes the lexeme leaves it
        // the tokens it holds: its group counts one fewer.
        let closing = (end_filter.is_some() && self.caps.is_some())
            .then(|| self.new_group(views.clone(), held));
        let gi = self.new_group(views, held + 1);
        // A walk limited to what a head mask left undecided skips the
        // tokens within the lexeme: they read no stack, so the head
        // decided them.
        let within = self.only.is_none();
        self.add_state(out, gi, q, None, within);
        // Tokens whose first byte closes the pending lexeme.
        if let Some(end_filter) = end_filter {
            let w = self.g.lexer.winner(q).expect("end filter implies a winner");
            let filter = b.end_filter(end_filter);
            let Some(shifted) = self.shift(closing.unwrap_or(gi), w) else {
                let trie = &b.trie;
                let first = |n: &usize| filter.first_bytes[trie.byte[*n] as usize];
                self.undecided
                    .extend(trie.root_children().filter(first).map(|n| n as u32));
                return;
            };
            for k in shifted {
                let (q2, gj) = self.buckets[k];
                S::add_after_close(self, out, q2, gj, end_filter);
            }
        }
    }

    /// Whether the walk goes into trie node `i` (see `only`).
    #[inline]
    fn needed(&self, i: usize) -> bool {
        let Some(only) = self.only else {
            return true;
        };
        let end = self.b.trie.subtree_end[i];
        let k = only.partition_point(|&(_, e)| e <= i as u32);
        k < only.len() && only[k].0 < end
    }

    pub(super) fn new_group(&mut self, views: SmallVec<[S; 1]>, held: u32) -> u32 {
        // A lexeme may end as what any of the stacks takes.
        let mut exact = None;
        if self.g.parse.has_sets() {
            for v in &views {
                match (v.exact(self.g), &mut exact) {
                    (None, _) => {
                        exact = None;
                        break;
                    }
                    (Some(e), None) => exact = Some(e),
                    (Some(e), Some(all)) => {
                        all.union_with(&e);
                    }
                }
            }
        }
        self.groups.push(Group {
            views,
            exact,
            shifted: SmallVec::new(),
            held,
        });
        (self.groups.len() - 1) as u32
    }

    /// A group of `views`: an existing one if it has the same stacks.
    /// The stacks of group `gi`.
    pub(super) fn views(&self, gi: u32) -> &[S] {
        &self.groups[gi as usize].views
    }

    fn intern_group(&mut self, views: SmallVec<[S; 1]>) -> u32 {
        let mut h = FxHasher::default();
        for v in &views {
            v.hash_into(&mut h);
        }
        let hash = h.finish();
        let same = |g: &Group<S>| {
            g.views.len() == views.len() && g.views.iter().zip(&views).all(|(a, b)| a.same(b))
        };
        if let Some(ids) = self.interned.get(&hash) {
            if let Some(&gi) = ids.iter().find(|&&gi| same(&self.groups[gi as usize])) {
                return gi;
            }
        }
        let gi = self.new_group(views, 1);
        self.interned.entry(hash).or_default().push(gi);
        gi
    }

    /// The groups after group `gi` takes terminal `w`: each with the lexer
    /// state its next lexeme starts in (never [`DEAD`]), as a range of
    /// `buckets`. `None` in a head walk when the shift read below the head.
    fn shift(&mut self, gi: u32, w: u32) -> Option<Range<usize>> {
        // A lexeme past its cap ends no derivation.
        if (self.caps).is_some_and(|caps| self.groups[gi as usize].held > caps[w as usize]) {
            return Some(0..0);
        }
        if let Some(&(_, from, to)) = self.groups[gi as usize].shifted.iter().find(|s| s.0 == w) {
            return (from != UNDECIDED).then_some(from as usize..to as usize);
        }
        let g = self.g;
        if let Some(bottom) = self.bottom {
            bottom.set(false);
        }
        let mut after: SmallVec<[(u32, S); 1]> = SmallVec::new();
        let b = self.b;
        for view in &self.groups[gi as usize].views {
            g.each_shift_expanded(
                view.clone(),
                w,
                |x| b.expansion(x, w),
                |mut v| {
                    v.collapse_stars(&g.parse);
                    let q2 = g.start_state_top_down(v.top_symbol(), || v.top_down());
                    if q2 != DEAD {
                        after.push((q2, v));
                    }
                },
            );
        }
        if self.bottom.is_some_and(Cell::get) {
            (self.groups[gi as usize].shifted).push((w, UNDECIDED, UNDECIDED));
            return None;
        }
        // Derivations that pushed the same symbols go on as one, over all
        // their lower parts.
        if after.len() > 1 {
            let mut items = after.into_vec();
            S::merge(&mut items);
            after = SmallVec::from_vec(items);
        }
        let mut by_state: SmallVec<[(u32, SmallVec<[S; 1]>); 1]> = SmallVec::new();
        for (q2, v) in after {
            match by_state.iter_mut().find(|(q, _)| *q == q2) {
                Some((_, views)) => views.push(v),
                None => by_state.push((q2, smallvec::smallvec![v])),
            }
        }
        let mut made: SmallVec<[(u32, u32); 2]> = SmallVec::new();
        for (q2, views) in by_state {
            made.push((q2, self.intern_group(views)));
        }
        let from = self.buckets.len();
        self.buckets.extend(made);
        let to = self.buckets.len();
        (self.groups[gi as usize].shifted).push((w, from as u32, to as u32));
        Some(from..to)
    }

    /// Whether some stack of group `gi` can finish within the budget and
    /// the lexeme caps from lexer state `q` (always, without either).
    fn fits(&self, gi: u32, q: u32) -> bool {
        let Some(limit) = self.limit else {
            return true;
        };
        let group = &self.groups[gi as usize];
        let cap = (self.caps).map(|limits| PendingCap {
            limits,
            held: group.held,
        });
        let b = self.b;
        let own = self.tier == CostTier::Exact;
        if !own {
            let upper = b.budget_upper();
            let mut memo = self.after_upper.borrow_mut();
            let shown = (group.views.iter().enumerate()).any(|(vi, v)| {
                upper.fits_by_bounds(b, q, cap, limit, |w| {
                    *(memo.entry((gi, vi as u32, w)))
                        .or_insert_with(|| v.cost_after(upper, b, w, true))
                })
            });
            if shown {
                return true;
            }
        }
        let exact = b.budget();
        let mut memo = self.after.borrow_mut();
        (group.views.iter().enumerate()).any(|(vi, v)| {
            BudgetTables::fits_with(b, q, cap, limit, |w| {
                *(memo.entry((gi, vi as u32, w))).or_insert_with(|| v.cost_after(exact, b, w, own))
            })
        })
    }

    /// Adds the tokens lexer state `q`'s tables allow with group `gi`, as
    /// [`add_tables`](Self::add_tables) does.
    pub(super) fn add_state(
        &mut self,
        out: &mut [u64],
        gi: u32,
        q: u32,
        filter: Option<&EndFilter>,
        within: bool,
    ) {
        self.add_tables_of(out, gi, self.b.state(q), Some(q), filter, within)
    }

    /// Adds the tokens `tables` allow with group `gi`: those crossing its
    /// boundaries, and (if `within`) those within the lexeme.
    pub(super) fn add_tables(
        &mut self,
        out: &mut [u64],
        gi: u32,
        tables: &StateTables,
        filter: Option<&EndFilter>,
        within: bool,
    ) {
        self.add_tables_of(out, gi, tables, None, filter, within)
    }

    /// [`add_tables`](Self::add_tables), for the tables of lexer state
    /// `of` when given: their large boundaries are then crossed by
    /// [`forest`](BoundGrammar::forest) tables once they recur.
    fn add_tables_of(
        &mut self,
        out: &mut [u64],
        gi: u32,
        tables: &StateTables,
        of: Option<u32>,
        filter: Option<&EndFilter>,
        within: bool,
    ) {
        let g = self.g;
        let exact = self.groups[gi as usize].exact.as_ref();
        let tokens = filter.map(|f| &f.tokens);
        if within && self.limit.is_none() && exact.is_none() {
            tables.within.or_into(out, tokens);
        } else if within {
            for (end, set) in &tables.within_by_end {
                if exact.is_none_or(|e| viable(g, *end, e)) && self.fits(gi, *end) {
                    set.or_into(out, tokens);
                }
            }
        }
        for boundary in &tables.boundaries {
            let Some(shifted) = self.shift(gi, boundary.winner) else {
                let trie = &self.b.trie;
                let first = |n: &&u32| {
                    filter.is_none_or(|f| {
                        f.first_bytes[trie.first_byte_of_node(**n as usize) as usize]
                    })
                };
                self.undecided.extend(boundary.nodes.iter().filter(first));
                continue;
            };
            let forests = of
                .filter(|_| self.only.is_none() && boundary.nodes.len() >= self.b.rooted_min_nodes);
            for k in shifted {
                let (q2, gj) = self.buckets[k];
                match forests.and_then(|q| self.b.forest(q, boundary, q2)) {
                    Some(forest) => self.add_tables_of(out, gj, &forest, None, filter, true),
                    None => self.add_boundary(out, gj, q2, boundary, filter),
                }
            }
        }
    }

    /// Adds the tokens that start a new lexeme, in lexer state `q`, after
    /// `boundary`'s winner, with group `gi` after it.
    fn add_boundary(
        &mut self,
        out: &mut [u64],
        gi: u32,
        q: u32,
        boundary: &Boundary,
        filter: Option<&EndFilter>,
    ) {
        let b = self.b;
        let lx = &self.g.lexer;
        let nc = lx.classes.len();
        let (nodes, class_off) = (&boundary.nodes[..], &boundary.class_off[..]);
        // Nodes are sorted by class: one lexer lookup per class present.
        let mut k = 0;
        while let Some(&first) = nodes.get(k) {
            let c = lx.classes.class_of[b.trie.byte[first as usize] as usize] as usize;
            // (Never behind `k`, whatever a loaded snapshot says.)
            let end = (class_off[c + 1] as usize).clamp(k + 1, nodes.len());
            if lx.trans[q as usize * nc + c] != DEAD {
                for &node in &nodes[k..end] {
                    if !self.needed(node as usize) {
                        continue;
                    }
                    if filter.is_some_and(|f| {
                        !f.first_bytes[b.trie.first_byte_of_node(node as usize) as usize]
                    }) {
                        continue;
                    }
                    self.walk(out, gi, q, node as usize);
                }
            }
            k = end;
        }
    }

    /// Walks the trie below `root` (whose byte starts a new lexeme in lexer
    /// state `q`, with group `gi`), crossing further lexeme boundaries with
    /// the parser.
    fn walk(&mut self, out: &mut [u64], gi: u32, q: u32, root: usize) {
        let trie = &self.b.trie;
        let lx = &self.g.lexer;
        if !self.needed(root) {
            return;
        }
        if trie.subtree_end[root] as usize - root >= self.b.rooted_min_nodes {
            // A large subtree: its tables, built once, instead of a walk.
            let tables = self.b.rooted(q, root as u32);
            return self.add_tables(out, gi, &tables, None, true);
        }
        let base = trie.depth[root] as usize;
        self.state[base - 1] = q;
        self.group[base - 1] = gi;
        let end = trie.subtree_end[root] as usize;
        let mut i = root;
        while i < end {
            if !self.needed(i) {
                i = trie.subtree_end[i] as usize;
                continue;
            }
            let d = trie.depth[i] as usize;
            let s = self.state[d - 1];
            let mut gi = self.group[d - 1];
            let byte = trie.byte[i];
            let mut ns = lx.next(s, byte);
            if ns == DEAD {
                let Some(w) = lx.winner(s) else {
                    i = trie.subtree_end[i] as usize;
                    continue;
                };
                // The first group that goes on walks on here; each group
                // in another lexer state walks this subtree on its own (a
                // large subtree, every group: from its tables).
                let big = trie.subtree_end[i] as usize - i >= self.b.rooted_min_nodes;
                let mut next = None;
                let Some(shifted) = self.shift(gi, w) else {
                    self.undecided.push(i as u32);
                    i = trie.subtree_end[i] as usize;
                    continue;
                };
                for k in shifted {
                    let (q2, gj) = self.buckets[k];
                    let n2 = lx.next(q2, byte);
                    if n2 == DEAD {
                        continue;
                    }
                    if next.is_none() && !big {
                        next = Some((gj, n2));
                    } else {
                        let saved = (self.state[d - 1], self.group[d - 1]);
                        self.walk(out, gj, q2, i);
                        (self.state[d - 1], self.group[d - 1]) = saved;
                    }
                }
                let Some((gj, n2)) = next else {
                    i = trie.subtree_end[i] as usize;
                    continue;
                };
                (gi, ns) = (gj, n2);
            }
            if (self.groups[gi as usize].exact.as_ref()).is_some_and(|e| !viable(self.g, ns, e)) {
                i = trie.subtree_end[i] as usize;
                continue;
            }
            let tokens = trie.tokens_at(i);
            if !tokens.is_empty() && self.fits(gi, ns) {
                for &t in tokens {
                    set_bit(out, t);
                }
            }
            self.state[d] = ns;
            self.group[d] = gi;
            i += 1;
        }
    }
}
