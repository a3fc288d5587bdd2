//! Previous lexemes that plan alike, for the budget tables.
//!
//! A previous lexeme matters to a budget plan only through the bytes that
//! would extend it (under maximal munch the next lexeme's first byte must
//! not) and the terminals that must follow it with no separator. Terminals
//! alike in both are one class: a schema's hundreds of key literals are
//! one, and the budget's rule table (rules × classes²) is sized by them.

use crate::compiled::{CompiledGrammar, Lexing};
use rustc_hash::FxHashMap;

/// Previous lexemes that plan alike (see `budget`'s module docs).
#[derive(Debug)]
pub(crate) struct PreviousClasses {
    /// Per terminal, and at index `T` for "no lexeme yet": its class.
    pub(crate) class_of: Vec<u32>,
    /// Per class: the bytes that extend a lexeme of its terminals.
    pub(crate) extending: Vec<[bool; 256]>,
    /// Per class: one of its members (to look up its tight pairs).
    pub(crate) member: Vec<u32>,
}

impl PreviousClasses {
    /// The classes of `g`; with `merge` false, one per terminal.
    pub(crate) fn of(g: &CompiledGrammar, merge: bool) -> PreviousClasses {
        let t = g.grammar.terminals.len();
        // Under maximal munch the next lexeme's first byte must not extend
        // the previous one; a dynamic lexer may end a lexeme anywhere it
        // matches, except an ignored one, which ends at its longest match.
        let mut ext = g.extending_bytes_of_winners();
        if g.lexing() == Lexing::Dynamic {
            for (x, e) in ext.iter_mut().enumerate() {
                if !g.is_ignored(x as u32) {
                    *e = [false; 256];
                }
            }
        }
        ext.push([false; 256]); // no lexeme yet: nothing to extend
        let mut tight: Vec<Vec<usize>> = vec![Vec::new(); t + 1];
        for &(p, y) in &g.tight_pairs {
            tight[p].push(y);
        }
        let mut classes = PreviousClasses {
            class_of: Vec::with_capacity(t + 1),
            extending: Vec::new(),
            member: Vec::new(),
        };
        let mut index: FxHashMap<(&[bool; 256], &[usize]), u32> = FxHashMap::default();
        for p in 0..=t {
            let next = classes.member.len() as u32;
            let c = match merge {
                true => *index.entry((&ext[p], &tight[p])).or_insert(next),
                false => next,
            };
            if c == next {
                classes.extending.push(ext[p]);
                classes.member.push(p as u32);
            }
            classes.class_of.push(c);
        }
        classes
    }

    pub(crate) fn len(&self) -> usize {
        self.member.len()
    }
}
