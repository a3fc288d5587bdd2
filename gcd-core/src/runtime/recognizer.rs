//! The reference recognizer: the semantics of ARCHITECTURE.md, written to
//! be obviously correct rather than fast.
//!
//! It re-runs each candidate terminal's DFA over the whole pending lexeme,
//! and it decides "valid prefix" by searching for a completion over
//! configurations, never by the matcher's shortcut. It follows every
//! derivation at once (a set of configurations), and it expands rules by
//! the grammar's productions themselves, not by the engine's prediction
//! table or FIRST sets, so a wrong table cannot hide here (member sets
//! aside, which it runs with the engine's parser). The matcher is tested
//! against it bit for bit.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::rc::Rc;

use crate::compiled::CompiledGrammar;
use crate::grammar::{NtId, Symbol, TermSet};
use crate::lexer::ByteClasses;
use crate::parser::{encode, NT_BIT};

/// What a byte string is, by the definition in ARCHITECTURE.md ("Semantics").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A whole sentence (EOS allowed). Also a valid prefix.
    Complete,
    /// Not complete, but some completion exists.
    Prefix,
    /// No completion exists.
    Dead,
    /// The search gave up before deciding.
    Unknown,
}

impl Status {
    /// Whether the bytes can still lead to a sentence.
    pub fn is_viable(self) -> bool {
        matches!(self, Status::Complete | Status::Prefix)
    }
}

/// One point of the lexer + parser run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Config {
    stack: Vec<u32>,
    /// Candidates of the pending lexeme (empty when no lexeme is pending).
    candidates: Vec<u32>,
    lexeme: Vec<u8>,
}

/// The reference recognizer for one compiled grammar.
pub struct Recognizer<'g> {
    g: &'g CompiledGrammar,
    classes: ByteClasses,
    /// Which rules derive the empty string (computed here, not taken from
    /// the engine's analysis).
    nullable: Vec<bool>,
    /// [`expansions`](Self::expansions) already computed, by stack: the
    /// searches ask for the same stacks over and over. With the stack
    /// symbols it holds, keys included: past [`MAX_EXPANDED_SYMBOLS`] it
    /// starts over.
    expanded: RefCell<(HashMap<Vec<u32>, Rc<Vec<Vec<u32>>>>, usize)>,
    /// Completion searches stop after visiting this many configurations.
    pub search_limit: usize,
}

/// Stack symbols the memo of expansions holds before it starts over (a
/// random generalized grammar's searches asked for enough distinct stacks
/// to fill 12 GB).
const MAX_EXPANDED_SYMBOLS: usize = 1 << 25;

impl<'g> Recognizer<'g> {
    /// A recognizer for `g`, with a [`search_limit`](Self::search_limit)
    /// of 20,000 configurations.
    pub fn new(g: &'g CompiledGrammar) -> Self {
        let gr = &g.grammar;
        let mut nullable = vec![false; gr.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &gr.productions {
                let empty = p
                    .rhs
                    .iter()
                    .all(|s| matches!(s, Symbol::N(n) if nullable[n.index()]));
                if empty && !nullable[p.lhs.index()] {
                    nullable[p.lhs.index()] = true;
                    changed = true;
                }
            }
        }
        Recognizer {
            g,
            classes: ByteClasses::new(&g.dfas),
            nullable,
            expanded: RefCell::default(),
            search_limit: 20_000,
        }
    }

    fn initial(&self) -> Config {
        Config {
            stack: self.g.parse.initial_stack(),
            candidates: Vec::new(),
            lexeme: Vec::new(),
        }
    }

    /// Every stack with a terminal on top (or empty) that `stack` reaches by
    /// expanding rules on top, each by every one of its productions. The
    /// transforms leave no left recursion, so this is finite.
    fn expansions(&self, stack: &[u32]) -> Rc<Vec<Vec<u32>>> {
        if let Some(e) = self.expanded.borrow().0.get(stack) {
            return e.clone();
        }
        let e = Rc::new(self.expand(stack));
        let symbols = stack.len() + e.iter().map(Vec::len).sum::<usize>();
        let mut memo = self.expanded.borrow_mut();
        if memo.1 + symbols > MAX_EXPANDED_SYMBOLS {
            *memo = Default::default();
        }
        memo.1 += symbols;
        memo.0.insert(stack.to_vec(), e.clone());
        e
    }

    fn expand(&self, stack: &[u32]) -> Vec<Vec<u32>> {
        let gr = &self.g.grammar;
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut work = vec![stack.to_vec()];
        while let Some(mut st) = work.pop() {
            let Some(&top) = st.last() else {
                out.push(st);
                continue;
            };
            if top & NT_BIT == 0 {
                out.push(st);
                continue;
            }
            st.pop();
            for (_, p) in gr.productions_of(NtId(top & !NT_BIT)) {
                let mut next = st.clone();
                next.extend(p.rhs.iter().rev().map(|&s| encode(s)));
                if seen.insert(next.clone()) {
                    work.push(next);
                }
            }
        }
        out
    }

    /// The stacks after shifting terminal `t` on `stack`, one per derivation.
    fn shifts(&self, stack: &[u32], t: u32) -> Vec<Vec<u32>> {
        if self.g.parse.has_sets() {
            let mut out = Vec::new();
            self.g.parse.shift_each(stack.to_vec(), t, |s| out.push(s));
            return out;
        }
        let mut out: Vec<Vec<u32>> = self
            .expansions(stack)
            .iter()
            .filter(|s| s.last() == Some(&t))
            .map(|s| s[..s.len() - 1].to_vec())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Whether `stack` derives the empty string.
    fn ends(&self, stack: &[u32]) -> bool {
        if self.g.parse.has_sets() {
            return self.g.parse.accepts_end(stack);
        }
        stack
            .iter()
            .all(|&s| s & NT_BIT != 0 && self.nullable[(s & !NT_BIT) as usize])
    }

    /// Candidates for a lexeme starting now: what the parser accepts, plus
    /// ignored terminals unless the next symbol is a tight rule.
    fn candidates(&self, stack: &[u32]) -> Vec<u32> {
        let nts = &self.g.grammar.nonterminals;
        let tight = stack
            .last()
            .is_some_and(|&s| s & NT_BIT != 0 && nts[(s & !NT_BIT) as usize].tight);
        let mut acc = TermSet::new(self.g.dfas.len() + 1);
        if self.g.parse.has_sets() {
            acc = self.g.parse.acceptable(stack);
        } else {
            for s in self.expansions(stack).iter() {
                if let Some(&t) = s.last() {
                    acc.insert(t as usize);
                }
            }
        }
        (0..self.g.dfas.len() as u32)
            .filter(|&t| acc.contains(t as usize) || (self.g.is_ignored(t) && !tight))
            .collect()
    }

    fn extends(&self, candidates: &[u32], lexeme: &[u8]) -> bool {
        candidates
            .iter()
            .any(|&t| self.g.dfas[t as usize].run(lexeme).is_some())
    }

    /// Ends the pending lexeme: the best-ranked candidate matching it wins
    /// and is shifted (ignored terminals are dropped); under dynamic
    /// lexing every matching candidate does, each in its own
    /// configurations. One configuration per derivation that takes the
    /// terminal; none if nothing matches.
    ///
    /// `next` is the byte that follows (none at the end of the text): under
    /// dynamic lexing an ignored lexeme ends only where `next` cannot
    /// extend it (its longest match, as Lark's ignores).
    fn close_lexeme(&self, c: Config, next: Option<u8>) -> Vec<Config> {
        if c.lexeme.is_empty() {
            return vec![c];
        }
        let extends = |t: u32| {
            next.is_some_and(|b| {
                let mut longer = c.lexeme.clone();
                longer.push(b);
                self.g.dfas[t as usize].run(&longer).is_some()
            })
        };
        let mut matching: Vec<u32> = c
            .candidates
            .iter()
            .copied()
            .filter(|&t| self.g.dfas[t as usize].matches(&c.lexeme))
            .collect();
        if self.dynamic() {
            matching.retain(|&t| !(self.g.is_ignored(t) && extends(t)));
        }
        if !self.dynamic() {
            matching = matching
                .into_iter()
                .min_by_key(|&t| self.g.rank[t as usize])
                .into_iter()
                .collect();
        }
        let mut stacks = Vec::new();
        for w in matching {
            if self.g.is_ignored(w) {
                stacks.push(c.stack.clone());
            } else {
                stacks.extend(self.shifts(&c.stack, w));
            }
        }
        stacks
            .into_iter()
            .map(|stack| Config {
                stack,
                candidates: Vec::new(),
                lexeme: Vec::new(),
            })
            .collect()
    }

    fn dynamic(&self) -> bool {
        self.g.lexing() == crate::compiled::Lexing::Dynamic
    }

    /// Feeds one byte: the configurations that survive it. The byte
    /// extends the pending lexeme if it can; else (or also, under dynamic
    /// lexing) it closes the lexeme and starts the next one.
    fn feed(&self, c: &Config, b: u8) -> Vec<Config> {
        let mut out = Vec::new();
        if !c.lexeme.is_empty() {
            let mut longer = c.clone();
            longer.lexeme.push(b);
            if self.extends(&longer.candidates, &longer.lexeme) {
                if !self.dynamic() {
                    return vec![longer];
                }
                out.push(longer);
            }
        }
        for mut next in self.close_lexeme(c.clone(), Some(b)) {
            next.candidates = self.candidates(&next.stack);
            next.lexeme.push(b);
            if self.extends(&next.candidates, &next.lexeme) {
                out.push(next);
            }
        }
        out
    }

    fn accepts_end(&self, c: &Config) -> bool {
        self.close_lexeme(c.clone(), None)
            .iter()
            .any(|c| self.ends(&c.stack))
    }

    /// The configurations after `bytes` (empty if all died on the way).
    fn run(&self, bytes: &[u8]) -> Vec<Config> {
        self.run_within(bytes, usize::MAX).expect("no limit")
    }

    /// [`run`](Self::run), or `None` once more than `limit` derivations
    /// are alive: this recognizer keeps whole stacks, so an ambiguity that
    /// multiplies them is beyond it long before it troubles the matcher.
    fn run_within(&self, bytes: &[u8], limit: usize) -> Option<Vec<Config>> {
        let mut configs = vec![self.initial()];
        for &b in bytes {
            let mut next: Vec<Config> = configs.iter().flat_map(|c| self.feed(c, b)).collect();
            next.sort();
            next.dedup();
            if next.len() > limit {
                return None;
            }
            configs = next;
        }
        Some(configs)
    }

    /// Whether following every derivation of `bytes` keeps at most `limit`
    /// of them alive at each byte (so that the other questions here can be
    /// answered in reasonable time).
    pub fn follows_within(&self, bytes: &[u8], limit: usize) -> bool {
        self.run_within(bytes, limit).is_some()
    }

    /// Whether `bytes` is a whole sentence.
    pub fn is_complete(&self, bytes: &[u8]) -> bool {
        self.run(bytes).iter().any(|c| self.accepts_end(c))
    }

    /// Complete, valid prefix or dead, deciding "prefix" by finding a completion.
    pub fn status(&self, bytes: &[u8]) -> Status {
        let configs = self.run(bytes);
        if configs.is_empty() {
            return Status::Dead;
        }
        if configs.iter().any(|c| self.accepts_end(c)) {
            return Status::Complete;
        }
        self.search(configs)
    }

    /// Search for a completion from `start`, visiting every configuration
    /// reachable from it until one may end (the order only decides how soon:
    /// shorter parser stacks first, as they are closer to the end, then
    /// breadth first). Configurations are compared by what determines their
    /// future: the stack, the candidates and each candidate's DFA state on
    /// the lexeme.
    fn search(&self, start: Vec<Config>) -> Status {
        let key = |c: &Config| {
            let states: Vec<Option<u32>> = c
                .candidates
                .iter()
                .map(|&t| self.g.dfas[t as usize].run(&c.lexeme))
                .collect();
            (
                c.stack.clone(),
                c.candidates.clone(),
                states,
                c.lexeme.is_empty(),
            )
        };
        let mut seen = HashSet::new();
        let mut order = 0usize;
        let mut queue = BinaryHeap::new();
        for c in start {
            if seen.insert(key(&c)) {
                order += 1;
                queue.push((Reverse((c.stack.len(), order)), c));
            }
        }
        while let Some((_, c)) = queue.pop() {
            for &b in &self.classes.representatives {
                for next in self.feed(&c, b) {
                    if self.accepts_end(&next) {
                        return Status::Prefix;
                    }
                    if seen.insert(key(&next)) {
                        if seen.len() > self.search_limit {
                            return Status::Unknown;
                        }
                        order += 1;
                        queue.push((Reverse((next.stack.len(), order)), next));
                    }
                }
            }
        }
        Status::Dead
    }
}
