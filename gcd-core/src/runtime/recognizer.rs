//! The reference recognizer: the semantics of ARCHITECTURE.md, written to
//! be obviously correct rather than fast.
//!
//! It re-runs each candidate terminal's DFA over the whole pending lexeme,
//! and it decides "valid prefix" by searching for a completion over
//! configurations, never by the matcher's shortcut. The matcher is
//! tested against it bit for bit.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use crate::compiled::CompiledGrammar;
use crate::lexer::ByteClasses;

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
    /// Completion searches stop after visiting this many configurations.
    pub search_limit: usize,
}

impl<'g> Recognizer<'g> {
    pub fn new(g: &'g CompiledGrammar) -> Self {
        Recognizer {
            g,
            classes: ByteClasses::new(&g.dfas),
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

    /// Candidates for a lexeme starting now: what the parser accepts, plus ignored terminals.
    fn candidates(&self, stack: &[u32]) -> Vec<u32> {
        let acc = self.g.parse.acceptable(stack);
        (0..self.g.dfas.len() as u32)
            .filter(|&t| acc.contains(t as usize) || self.g.is_ignored(t))
            .collect()
    }

    fn extends(&self, candidates: &[u32], lexeme: &[u8]) -> bool {
        candidates
            .iter()
            .any(|&t| self.g.dfas[t as usize].run(lexeme).is_some())
    }

    /// Ends the pending lexeme: the best-ranked candidate matching it wins
    /// and is shifted (ignored terminals are dropped). False if none matches
    /// or the parser rejects the winner.
    fn close_lexeme(&self, c: &mut Config) -> bool {
        if c.lexeme.is_empty() {
            return true;
        }
        let winner = c
            .candidates
            .iter()
            .copied()
            .filter(|&t| self.g.dfas[t as usize].matches(&c.lexeme))
            .min_by_key(|&t| self.g.rank[t as usize]);
        let Some(w) = winner else { return false };
        if !self.g.is_ignored(w) && !self.g.parse.shift(&mut c.stack, w) {
            return false;
        }
        c.lexeme.clear();
        c.candidates.clear();
        true
    }

    /// Feeds one byte; false if the configuration dies.
    fn feed(&self, c: &mut Config, b: u8) -> bool {
        if !c.lexeme.is_empty() {
            c.lexeme.push(b);
            if self.extends(&c.candidates, &c.lexeme) {
                return true;
            }
            c.lexeme.pop();
            if !self.close_lexeme(c) {
                return false;
            }
        }
        c.candidates = self.candidates(&c.stack);
        c.lexeme.push(b);
        self.extends(&c.candidates, &c.lexeme)
    }

    fn accepts_end(&self, c: &Config) -> bool {
        let mut c = c.clone();
        self.close_lexeme(&mut c) && self.g.parse.accepts_end(&c.stack)
    }

    /// The configuration after `bytes`, or `None` if it died on the way.
    fn run(&self, bytes: &[u8]) -> Option<Config> {
        let mut c = self.initial();
        for &b in bytes {
            if !self.feed(&mut c, b) {
                return None;
            }
        }
        Some(c)
    }

    /// Whether `bytes` is a whole sentence.
    pub fn is_complete(&self, bytes: &[u8]) -> bool {
        self.run(bytes).is_some_and(|c| self.accepts_end(&c))
    }

    /// Complete, valid prefix or dead, deciding "prefix" by finding a completion.
    pub fn status(&self, bytes: &[u8]) -> Status {
        let Some(c) = self.run(bytes) else {
            return Status::Dead;
        };
        if self.accepts_end(&c) {
            return Status::Complete;
        }
        self.search(c)
    }

    /// Search for a completion from `c`, visiting every configuration
    /// reachable from it until one may end (the order only decides how soon:
    /// shorter parser stacks first, as they are closer to the end, then
    /// breadth first). Configurations are compared by what determines their
    /// future: the stack, the candidates and each candidate's DFA state on
    /// the lexeme.
    fn search(&self, c: Config) -> Status {
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
        seen.insert(key(&c));
        let mut order = 0usize;
        let mut queue = BinaryHeap::from([(Reverse((c.stack.len(), order)), c)]);
        while let Some((_, c)) = queue.pop() {
            for &b in &self.classes.representatives {
                let mut next = c.clone();
                if !self.feed(&mut next, b) {
                    continue;
                }
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
        Status::Dead
    }
}
