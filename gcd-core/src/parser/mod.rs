//! The LL(1) stack machine, generalized.
//!
//! The parser state is a stack of grammar symbols, top last. Shifting a
//! terminal expands nonterminals on top by the table until the terminal is
//! on top, then pops it. For an LL(1) grammar without useless symbols this is
//! exact: a terminal is shifted successfully iff the input so far plus that
//! terminal is a prefix of some sentence.
//!
//! Where a cell predicts several productions (a conflict), shifting forks:
//! [`ParseTables::shift_each`] yields one stack per derivation that takes
//! the terminal. The grammar has no left recursion (the transforms remove
//! it or refuse the grammar), so the expansions before a terminal is on top
//! are finite. An LL(1) grammar never forks and pays one test per
//! expansion for the possibility.
//!
//! A [`MemberSet`](crate::grammar::MemberSet) (members in any order, each
//! at most once) is run here rather than by the table: its `more` and
//! `next` rules sit on the stack above data words that hold the set of
//! members used so far, and the parser picks, refuses or ends members by
//! that set. Everything that walks a stack skips data words
//! ([`is_data`]) or reads them with their rule.

mod expansion;
mod member_set;
mod stack;

pub use expansion::Expansion;
pub use member_set::{SetPlan, SetRole, SetState, SetTables};
pub use stack::{Below, HeadStack, Pos, SharedStack, Stack, StackView};

use crate::analysis::{Ll1Table, Sets, NO_PRODUCTION, SEVERAL};
use crate::grammar::TermSet;
use crate::grammar::{Grammar, Symbol};

/// Symbols on the stack: terminals as their id, nonterminals with this bit.
pub const NT_BIT: u32 = 1 << 31;
/// A data word under a member set's rule: 30 bits of its used-member set.
pub const DATA_BIT: u32 = 1 << 30;
/// Members per data word.
const PER_WORD: usize = 30;

/// Data words for a set of `n` members (at least one).
fn words_for(n: usize) -> usize {
    n.div_ceil(PER_WORD).max(1)
}

pub fn encode(s: Symbol) -> u32 {
    match s {
        Symbol::T(t) => t.0,
        Symbol::N(n) => n.0 | NT_BIT,
    }
}

/// Whether a stack word is member-set data rather than a symbol.
#[inline]
pub fn is_data(s: u32) -> bool {
    s & (NT_BIT | DATA_BIT) == DATA_BIT
}

/// What the parser needs, flattened for speed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseTables {
    pub n_terms: usize,
    /// `nt * (n_terms + 1) + lookahead` → production, `u32::MAX`, or
    /// [`SEVERAL`] plus an index into `several_off` (see [`Ll1Table`]).
    pub table: std::sync::Arc<[u32]>,
    pub several: Vec<u32>,
    pub several_off: Vec<u32>,
    /// Right-hand sides, reversed (ready to push), as `rhs[off[p]..off[p+1]]`.
    pub rhs: Vec<u32>,
    pub rhs_off: Vec<u32>,
    /// Left-hand side of each production.
    pub lhs: Vec<u32>,
    pub nullable: Vec<bool>,
    /// FIRST of each nonterminal.
    pub first: Vec<TermSet>,
    pub start: u32,
    /// Member sets, and per nonterminal its set and role (if any) and its
    /// index among its set's members (`u32::MAX` if none or repeatable).
    #[serde(default)]
    pub sets: Vec<SetTables>,
    #[serde(default)]
    pub set_role: Vec<Option<(u32, SetRole)>>,
    #[serde(default)]
    pub member_index: Vec<u32>,
    /// Per nonterminal: whether it is a *star* rule, every production
    /// empty or ending with the rule itself (`X: a X | b X | ε`, as left
    /// recursion removal makes). Its language `L` is a Kleene closure, so
    /// `L·L = L`: two of it in a row on a stack accept what one does.
    #[serde(default)]
    pub star: Vec<bool>,
}

impl ParseTables {
    pub fn new(g: &Grammar, sets: &Sets, table: &Ll1Table) -> ParseTables {
        let mut rhs = Vec::new();
        let mut rhs_off = vec![0u32];
        for p in &g.productions {
            rhs.extend(p.rhs.iter().rev().map(|&s| encode(s)));
            rhs_off.push(rhs.len() as u32);
        }
        let n_nts = g.nonterminals.len();
        let mut set_role = vec![None; n_nts];
        let mut member_index = vec![u32::MAX; n_nts];
        let mut tables = Vec::new();
        for (i, m) in g.member_sets.iter().enumerate() {
            let i = i as u32;
            set_role[m.list.index()] = Some((i, SetRole::List));
            set_role[m.more.index()] = Some((i, SetRole::More));
            set_role[m.next.index()] = Some((i, SetRole::Next));
            let mut required = vec![0u32; words_for(m.members.len())];
            for (k, &(n, r)) in m.members.iter().enumerate() {
                member_index[n.index()] = k as u32;
                if r {
                    required[k / PER_WORD] |= 1 << (k % PER_WORD);
                }
            }
            tables.push(SetTables {
                list: m.list.0,
                more: m.more.0,
                next: m.next.0,
                members: m.members.iter().map(|&(n, _)| n.0 | NT_BIT).collect(),
                required,
                repeatable: m.repeatable.iter().map(|n| n.0 | NT_BIT).collect(),
                separator: m.separator.0,
                nonempty: m.nonempty,
            });
        }
        let (several, several_off) = table.several();
        let mut star: Vec<bool> = (0..n_nts)
            .map(|n| sets.nullable[n] && set_role[n].is_none())
            .collect();
        for (p, prod) in g.productions.iter().enumerate() {
            let last = rhs[rhs_off[p] as usize..rhs_off[p + 1] as usize].first();
            if last.is_some_and(|&s| s != prod.lhs.0 | NT_BIT) {
                star[prod.lhs.index()] = false;
            }
        }
        ParseTables {
            n_terms: g.terminals.len(),
            table: table.cells().clone(),
            several: several.to_vec(),
            several_off: several_off.to_vec(),
            rhs,
            rhs_off,
            lhs: g.productions.iter().map(|p| p.lhs.0).collect(),
            nullable: sets.nullable.clone(),
            first: sets.first.clone(),
            start: g.start.0,
            sets: tables,
            set_role,
            member_index,
            star,
        }
    }

    /// Whether stack symbol `s` is a [`star`](Self::star) rule.
    #[inline]
    pub fn is_star(&self, s: u32) -> bool {
        s & NT_BIT != 0
            && self
                .star
                .get((s & !NT_BIT) as usize)
                .copied()
                .unwrap_or(false)
    }

    /// The stack before any input.
    pub fn initial_stack(&self) -> Vec<u32> {
        vec![self.start | NT_BIT]
    }

    /// The one production predicted, `None` for none or several (member
    /// sets' rules never conflict: the compiler checks).
    #[inline]
    fn predict(&self, nt: u32, lookahead: usize) -> Option<usize> {
        let p = self.table[nt as usize * (self.n_terms + 1) + lookahead];
        (p & SEVERAL == 0).then_some(p as usize)
    }

    /// Whether some cell predicts several productions.
    pub fn is_generalized(&self) -> bool {
        self.several_off.len() > 1
    }

    /// The member set rule `nt` is, if any.
    #[inline]
    pub fn set_role(&self, nt: u32) -> Option<(&SetTables, SetRole)> {
        match self.set_role.get(nt as usize) {
            Some(&Some((i, role))) => Some((&self.sets[i as usize], role)),
            _ => None,
        }
    }

    /// Reads the member-set state of header `top` (an encoded nonterminal)
    /// with its data words from `below` (top down).
    pub fn read_set<'a>(
        &'a self,
        top: u32,
        mut below: impl FnMut() -> Option<u32>,
    ) -> Option<SetState<'a>> {
        if top & NT_BIT == 0 {
            return None;
        }
        let (set, role) = self.set_role(top & !NT_BIT)?;
        let used = match role {
            SetRole::List => smallvec::smallvec![0; set.words()],
            _ => (0..set.words())
                .map(|_| below().map_or(0, |w| w & !DATA_BIT))
                .collect(),
        };
        Some(SetState { set, role, used })
    }

    /// The member (and its index, `None` if repeatable) that production
    /// `p` of a set's `list` or `next` rule starts with; `None` for the
    /// empty production.
    fn member_of(&self, p: usize) -> Option<(u32, Option<usize>)> {
        let (a, b) = (self.rhs_off[p] as usize, self.rhs_off[p + 1] as usize);
        let m = *self.rhs[a..b].last()?;
        let k = self.member_index[(m & !NT_BIT) as usize];
        Some((m, (k != u32::MAX).then_some(k as usize)))
    }

    /// Calls `each` with the stack after `t` for every derivation of
    /// `stack` that takes it. An LL(1) grammar shifts in place and calls it
    /// at most once, copying nothing.
    #[inline]
    pub fn shift_each<S: Stack + Clone>(&self, stack: S, t: u32, each: impl FnMut(S)) {
        self.shift_each_expanded(stack, t, |_| None::<std::sync::Arc<Expansion>>, each)
    }

    /// [`shift_each`](Self::shift_each), taking the derivations of a
    /// conflicting nonterminal from `expansion` (its [`Expansion`] for
    /// `t`, or `None` to fork as `shift_each` does). The stacks are the
    /// same; they may come in another order.
    #[inline]
    pub fn shift_each_expanded<S: Stack + Clone, E: AsRef<Expansion>>(
        &self,
        mut stack: S,
        t: u32,
        expansion: impl Fn(u32) -> Option<E>,
        mut each: impl FnMut(S),
    ) {
        let mut forks = Vec::new();
        let mut done = Vec::new();
        if self.shift_forking(&mut stack, t, &mut forks, &mut done, &expansion) {
            stack.settle(&self.nullable, &mut each);
        }
        loop {
            for s in done.drain(..) {
                s.settle(&self.nullable, &mut each);
            }
            let Some(mut s) = forks.pop() else { break };
            if self.shift_forking(&mut s, t, &mut forks, &mut done, &expansion) {
                s.settle(&self.nullable, &mut each);
            }
        }
    }

    /// Shifts `t` on `stack`, taking the first production of a conflicting
    /// cell and leaving a copy of the stack for each other one (with that
    /// production expanded) in `forks`, for the caller to go on with; or,
    /// where `expansion` has the cell's derivations, leaving each stack
    /// after `t` in `done`. On failure returns false and leaves `stack` in
    /// an unspecified state.
    fn shift_forking<S: Stack + Clone, E: AsRef<Expansion>>(
        &self,
        stack: &mut S,
        t: u32,
        forks: &mut Vec<S>,
        done: &mut Vec<S>,
        expansion: &impl Fn(u32) -> Option<E>,
    ) -> bool {
        while let Some(top) = stack.pop_forking(forks) {
            if top & NT_BIT == 0 {
                return top == t;
            }
            if let Some(st) = self.read_set(top, || stack.pop()) {
                if !self.shift_in_set(stack, &st, t) {
                    return false;
                }
                continue;
            }
            match self.cell(top, t) {
                NO_PRODUCTION => return false,
                c if c & SEVERAL != 0 => {
                    stack.seal();
                    if let Some(e) = expansion(top) {
                        let e = e.as_ref();
                        stack.push_leftovers(e, done);
                        if e.through {
                            continue;
                        }
                        return false;
                    }
                    let alts = self.several_of(c);
                    for &p in &alts[1..] {
                        let mut fork = stack.clone();
                        fork.push_slice(self.rhs_of(p as usize));
                        forks.push(fork);
                    }
                    stack.push_slice(self.rhs_of(alts[0] as usize));
                }
                p => stack.push_slice(self.rhs_of(p as usize)),
            }
        }
        false
    }

    /// The table's cell for nonterminal `top` (encoded) and terminal `t`.
    #[inline]
    fn cell(&self, top: u32, t: u32) -> u32 {
        self.table[(top & !NT_BIT) as usize * (self.n_terms + 1) + t as usize]
    }

    /// The productions of a cell that holds several ([`SEVERAL`] set).
    fn several_of(&self, cell: u32) -> &[u32] {
        let k = (cell & !SEVERAL) as usize;
        &self.several[self.several_off[k] as usize..self.several_off[k + 1] as usize]
    }

    /// Production `p`'s right-hand side, reversed (ready to push).
    #[inline]
    fn rhs_of(&self, p: usize) -> &[u32] {
        &self.rhs[self.rhs_off[p] as usize..self.rhs_off[p + 1] as usize]
    }

    /// One step of a member set (already popped) before terminal `t`:
    /// pushes what `t` continues with, nothing if the list ends here.
    fn shift_in_set(&self, stack: &mut impl Stack, st: &SetState, t: u32) -> bool {
        let s = st.set;
        match st.role {
            SetRole::More if t == s.separator => {
                if !s.has_free(&st.used) {
                    return false;
                }
                stack.push_slice(&s.push_words(s.next, &st.used));
                stack.push_slice(&[t]);
                true
            }
            SetRole::More => s.required_done(&st.used),
            SetRole::List | SetRole::Next => {
                let nt = if st.role == SetRole::List {
                    s.list
                } else {
                    s.next
                };
                let member = self.predict(nt, t as usize).map(|p| self.member_of(p));
                match member {
                    Some(Some((m, k))) => {
                        if k.is_some_and(|k| SetTables::is_used(&st.used, k)) {
                            return false;
                        }
                        let used = match k {
                            Some(k) => SetTables::with(&st.used, k),
                            None => st.used.clone(),
                        };
                        stack.push_slice(&s.push_words(s.more, &used));
                        stack.push_slice(&[m]);
                        true
                    }
                    // The list ends before `t`.
                    Some(None) => st.role == SetRole::List && s.may_be_empty(),
                    None => false,
                }
            }
        }
    }

    /// Whether the input may end here.
    pub fn accepts_end(&self, stack: &[u32]) -> bool {
        self.accepts_end_top_down(stack.iter().rev().copied())
    }

    /// Like [`accepts_end`](Self::accepts_end), given the stack from the top down.
    pub fn accepts_end_top_down(&self, symbols: impl Iterator<Item = u32>) -> bool {
        // Every symbol left must derive the empty string.
        let mut it = symbols;
        while let Some(s) = it.next() {
            if s & NT_BIT == 0 {
                return false;
            }
            let empty = match self.read_set(s, || it.next()) {
                Some(st) => match st.role {
                    SetRole::List => st.set.may_be_empty(),
                    SetRole::More => st.set.required_done(&st.used),
                    SetRole::Next => false,
                },
                None => self.nullable[(s & !NT_BIT) as usize],
            };
            if !empty {
                return false;
            }
        }
        true
    }

    /// The terminals that can be shifted next (index `n_terms` = end of input).
    pub fn acceptable(&self, stack: &[u32]) -> TermSet {
        self.acceptable_top_down(stack.iter().rev().copied())
    }

    /// Like [`acceptable`](Self::acceptable), given the stack from the top
    /// down: exactly the terminals [`shift`](Self::shift) takes.
    pub fn acceptable_top_down(&self, top_down: impl Iterator<Item = u32>) -> TermSet {
        let mut set = TermSet::new(self.n_terms);
        let mut it = top_down;
        while let Some(s) = it.next() {
            if s & NT_BIT == 0 {
                set.insert(s as usize);
                return set;
            }
            let Some(st) = self.read_set(s, || it.next()) else {
                let n = (s & !NT_BIT) as usize;
                set.union_with(&self.first[n]);
                if !self.nullable[n] {
                    return set;
                }
                continue;
            };
            let (sets, used) = (st.set, &st.used);
            let may_end = match st.role {
                SetRole::More => {
                    if sets.has_free(used) {
                        set.insert(sets.separator as usize);
                    }
                    sets.required_done(used)
                }
                SetRole::List | SetRole::Next => {
                    for (m, _) in sets.free(used) {
                        set.union_with(&self.first[(m & !NT_BIT) as usize]);
                    }
                    st.role == SetRole::List && sets.may_be_empty()
                }
            };
            if !may_end {
                return set;
            }
        }
        set.insert(self.n_terms);
        set
    }

    /// The lexer's candidates at a lexeme start (index `n_terms` = end of
    /// input): [`acceptable_top_down`](Self::acceptable_top_down) where
    /// member sets count as their approximating rules. A superset of it
    /// that the compiler enumerated, so it names a lexer start state.
    pub fn candidates_top_down(&self, top_down: impl Iterator<Item = u32>) -> TermSet {
        let mut set = TermSet::new(self.n_terms);
        for s in top_down.filter(|&s| !is_data(s)) {
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

    /// The terminals of `candidates` that some derivation of `stack` shifts
    /// (end of input, index `n_terms`, as [`accepts_end_top_down`](Self::accepts_end_top_down) says).
    pub fn shiftable<S: Stack + Clone>(&self, stack: &S, candidates: &TermSet) -> TermSet {
        let mut set = TermSet::new(self.n_terms);
        for t in candidates.iter() {
            let takes = if t == self.n_terms {
                self.accepts_end_top_down(stack.top_down())
            } else {
                let mut any = false;
                self.shift_each(stack.clone(), t as u32, |_| any = true);
                any
            };
            if takes {
                set.insert(t);
            }
        }
        set
    }

    /// Whether the grammar has member sets (whose candidates can be more
    /// than what the parser accepts).
    pub fn has_sets(&self) -> bool {
        !self.sets.is_empty()
    }

    /// Whether the next terminal may be decided by a member set's rule:
    /// only then can [`candidates_top_down`](Self::candidates_top_down)
    /// exceed [`acceptable_top_down`](Self::acceptable_top_down).
    pub fn set_decides_top_down(&self, top_down: impl Iterator<Item = u32>) -> bool {
        for s in top_down.filter(|&s| !is_data(s)) {
            if s & NT_BIT == 0 {
                return false;
            }
            let n = s & !NT_BIT;
            if self.set_role(n).is_some() {
                return true;
            }
            if !self.nullable[n as usize] {
                return false;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::compiled::CompiledGrammar;

    /// Whether rule `rule` of Lark grammar `src` is a star rule once compiled.
    fn star_of(src: &str, rule: &str) -> bool {
        let g = crate::lark::parse_grammar(src).unwrap();
        let c = CompiledGrammar::new(&g).unwrap();
        let names: Vec<&str> = c
            .grammar
            .nonterminals
            .iter()
            .map(|n| n.name.as_str())
            .collect();
        let n = names
            .iter()
            .position(|&n| n == rule)
            .unwrap_or_else(|| panic!("{rule} not in {names:?}"));
        c.parse.star[n]
    }

    #[test]
    fn star_rules_are_closures() {
        // (a|b)*: two in a row accept what one does.
        assert!(star_of("start: (\"a\" | \"b\")* \"c\"\n", "start__star1"));
        // Left recursion removed: `x: x "+" "a" | "a"` leaves a tail `("+" "a")*`.
        assert!(star_of(
            "start: x \"c\"\nx: x \"+\" \"a\" | \"a\"\n",
            "x__lr2"
        ));
        // a^n b^n and a?: `x x` accepts "abab" and "aa", `x` does not.
        assert!(!star_of("start: x \"c\"\nx: (\"a\" x \"b\")?\n", "x"));
        assert!(!star_of("start: x \"c\"\nx: \"a\"?\n", "x"));
        // Not nullable.
        assert!(!star_of("start: x \"c\"\nx: \"a\" x | \"a\"\n", "x"));
    }
}
