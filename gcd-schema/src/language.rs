//! Facts about regular languages, decided on DFAs: membership, inclusion
//! and disjointness.
//!
//! Exactness questions such as "may a key match two `patternProperties`
//! at once?" or "does this pattern match every key?" are questions about
//! languages, not about regex text. We answer them on gcd-core's terminal
//! DFAs (built by regex-automata), walking the product of two automata
//! breadth-first; nothing here matches text by hand.

use std::collections::{HashSet, VecDeque};

use gcd_core::lexer::{DfaError, TerminalDfa, DEAD};

/// A regular language over bytes.
pub struct Language {
    /// `None`: the empty language.
    dfa: Option<TerminalDfa>,
}

impl Language {
    /// The language of an (anchored) regex. `None` for a regex gcd-core
    /// cannot compile, or one that matches the empty string (never the case
    /// for quoted JSON strings, the only use here).
    pub fn new(regex: &str) -> Option<Language> {
        // Too many states to build here (see `long_string`).
        if crate::node::long_string(regex).is_some() {
            return None;
        }
        match TerminalDfa::new(regex) {
            Ok(dfa) => Some(Language { dfa: Some(dfa) }),
            Err(DfaError::NeverMatches) => Some(Language { dfa: None }),
            Err(_) => None,
        }
    }

    /// The strings every one of `regexes` matches (a [`Scalar`](crate::node::Scalar)
    /// alternative): `None` as for [`new`](Self::new).
    pub fn of_all(regexes: &[String]) -> Option<Language> {
        match regexes {
            [re] => Language::new(re),
            _ if regexes
                .iter()
                .any(|r| crate::node::long_string(r).is_some()) =>
            {
                None
            }
            _ => match TerminalDfa::intersection(regexes) {
                Ok(dfa) => Some(Language { dfa: Some(dfa) }),
                Err(DfaError::NeverMatches) => Some(Language { dfa: None }),
                Err(_) => None,
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        self.dfa.is_none()
    }

    pub fn contains(&self, text: &[u8]) -> bool {
        self.dfa.as_ref().is_some_and(|d| d.matches(text))
    }

    /// Whether every string of `self` is in `other`.
    pub fn is_subset_of(&self, other: &Language) -> bool {
        let Some(a) = &self.dfa else { return true };
        let Some(b) = &other.dfa else { return false };
        // States of the product; `DEAD` on b's side: b can no longer match.
        !reach(a, b, |x, y| {
            a.is_accepting(x) && (y == DEAD || !b.is_accepting(y))
        })
    }

    /// Whether no string is in both.
    pub fn is_disjoint(&self, other: &Language) -> bool {
        let (Some(a), Some(b)) = (&self.dfa, &other.dfa) else {
            return true;
        };
        !reach(a, b, |x, y| {
            y != DEAD && a.is_accepting(x) && b.is_accepting(y)
        })
    }
}

/// Whether some pair of states satisfying `stop` is reachable in the
/// product of `a` and `b` (a stays live; b may have died).
fn reach(a: &TerminalDfa, b: &TerminalDfa, stop: impl Fn(u32, u32) -> bool) -> bool {
    let mut seen = HashSet::from([(0u32, 0u32)]);
    let mut queue = VecDeque::from([(0u32, 0u32)]);
    while let Some((x, y)) = queue.pop_front() {
        if stop(x, y) {
            return true;
        }
        for byte in 0..=255u8 {
            let nx = a.next(x, byte);
            if nx == DEAD {
                continue;
            }
            let ny = if y == DEAD { DEAD } else { b.next(y, byte) };
            if seen.insert((nx, ny)) {
                queue.push_back((nx, ny));
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusion_and_disjointness() {
        let all = Language::new("\"[a-z]*\"").unwrap();
        let some = Language::new("\"a[a-z]*\"").unwrap();
        let other = Language::new("\"b[a-z]*\"").unwrap();
        assert!(some.is_subset_of(&all));
        assert!(!all.is_subset_of(&some));
        assert!(some.is_disjoint(&other));
        assert!(!some.is_disjoint(&all));
        assert!(some.contains(b"\"abc\""));
        assert!(!some.contains(b"\"bc\""));
        let none = Language::new("\"[^\\x00-\\x{10FFFF}]\"").unwrap();
        assert!(none.is_empty());
        assert!(none.is_subset_of(&some));
        assert!(none.is_disjoint(&all));
    }
}
