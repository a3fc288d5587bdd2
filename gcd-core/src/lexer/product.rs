//! Products of terminal automata read in lockstep: the intersection of
//! regexes (a pattern within a JSON string's length bounds) and, with other
//! rules for accepting and keeping tuples, boolean combinations
//! (`combination.rs`). A product steps once per byte class that every
//! operand treats alike, and its liveness is read off those rows before
//! they are spread over the 256 bytes.

use rustc_hash::FxHashMap;

use super::determinize::MAX_PRODUCT_STATES;
use super::dfa::{DfaError, TerminalDfa};
use super::table::live_states_of_width;
use super::DEAD;
use crate::grammar::TerminalPattern;

impl TerminalDfa {
    /// The lexemes that every one of `regexes` matches: the product of
    /// their automata, cached under a key that no regex spells. One of them
    /// may match the empty string (a Lark terminal `/a*/` is used as its
    /// non-empty part, `/a*/` and `/(?s:.)+/`); the product may not.
    /// Refused past `MAX_PRODUCT_STATES`.
    pub fn intersection(regexes: &[String]) -> Result<TerminalDfa, DfaError> {
        let key = TerminalPattern::Intersection(regexes.to_vec()).to_regex();
        Self::new_with(&key, || {
            let dfas = regexes.iter().map(|r| Self::component(r));
            let dfas = dfas.collect::<Result<Vec<_>, _>>()?;
            Self::product(&dfas)
        })
    }

    /// One operand of an intersection, from the process-wide cache: the
    /// same string body with length bounds is intersected with pattern
    /// after pattern, and building it again for each was most of their
    /// cost. An operand that matches the empty string has a key of its own,
    /// which no regex spells.
    fn component(regex: &str) -> Result<TerminalDfa, DfaError> {
        match Self::new(regex) {
            Err(DfaError::MatchesEmpty) => {
                let key = format!("(?allow-empty){regex}");
                Self::new_with(&key, || Self::build(regex, true))
            }
            dfa => dfa,
        }
    }

    /// The intersection's product: every operand alive, every one
    /// accepting.
    fn product(dfas: &[TerminalDfa]) -> Result<TerminalDfa, DfaError> {
        Self::product_by(
            dfas,
            |states| dfas.iter().zip(states).all(|(d, &q)| d.is_accepting(q)),
            |states| !states.contains(&DEAD),
        )
    }

    /// The product of `dfas` read in lockstep: a state is the tuple of
    /// their states ([`DEAD`] for one that has stopped), which accepts
    /// where `accept` says so. A tuple that `alive` rejects can never
    /// accept and is not kept (states `alive` keeps but that cannot reach
    /// a match are dropped after). Intersections and boolean combinations
    /// (`combination.rs`) are this one construction with other rules.
    /// Stepped once per class of bytes that every operand treats alike (a
    /// handful, where the 256 bytes each cost a lookup of the tuple).
    /// Refused past `MAX_PRODUCT_STATES`.
    pub(super) fn product_by(
        dfas: &[TerminalDfa],
        accept: impl Fn(&[u32]) -> bool,
        alive: impl Fn(&[u32]) -> bool,
    ) -> Result<TerminalDfa, DfaError> {
        let k = dfas.len();
        if k == 0 {
            return Err(DfaError::Invalid("a product of no automata".into()));
        }
        let classes = super::ByteClasses::new(dfas);
        // Tuples end to end; found again by their states packed in a `u64`
        // for a pair (most intersections), else by the tuple itself.
        let mut flat = vec![0u32; k];
        let mut pairs: FxHashMap<u64, u32> = FxHashMap::from_iter([(0, 0)]);
        let mut tuples: FxHashMap<Vec<u32>, u32> = FxHashMap::from_iter([(vec![0u32; k], 0)]);
        let (mut rows, mut accepting) = (Vec::new(), Vec::new());
        let mut by_class = vec![DEAD; classes.len()];
        let mut next = Vec::with_capacity(k);
        let mut i = 0;
        while i * k < flat.len() {
            accepting.push(accept(&flat[i * k..(i + 1) * k]));
            for (c, &byte) in classes.representatives.iter().enumerate() {
                next.clear();
                next.extend(
                    dfas.iter()
                        .zip(&flat[i * k..(i + 1) * k])
                        .map(|(d, &q)| match q {
                            DEAD => DEAD,
                            q => d.next(q, byte),
                        }),
                );
                if !alive(&next) {
                    by_class[c] = DEAD;
                    continue;
                }
                let fresh = (flat.len() / k) as u32;
                let id = match k {
                    2 => *pairs
                        .entry(u64::from(next[0]) << 32 | u64::from(next[1]))
                        .or_insert(fresh),
                    _ => *tuples.entry(next.clone()).or_insert(fresh),
                };
                if id == fresh {
                    if fresh as usize >= MAX_PRODUCT_STATES {
                        return Err(DfaError::TooLarge(MAX_PRODUCT_STATES));
                    }
                    flat.extend_from_slice(&next);
                }
                by_class[c] = id;
            }
            rows.extend_from_slice(&by_class);
            i += 1;
        }
        // Liveness and the byte classes are read off the rows of classes:
        // spread over 256 bytes first, a product's table cost ten times as
        // much to sweep, and its classes were read back off every row.
        if accepting[0] {
            return Err(DfaError::MatchesEmpty);
        }
        let nc = classes.len();
        let live = live_states_of_width(&rows, nc, &accepting);
        if !live[0] {
            return Err(DfaError::NeverMatches);
        }
        let mut id = vec![DEAD; live.len()];
        let mut kept = 0u32;
        for (s, _) in live.iter().enumerate().filter(|(_, &l)| l) {
            id[s] = kept;
            kept += 1;
        }
        let mut trans = Vec::with_capacity(kept as usize * 256);
        let mut row = [DEAD; 256];
        for s in (0..live.len()).filter(|&s| live[s]) {
            let targets = &rows[s * nc..(s + 1) * nc];
            for (b, &c) in classes.class_of.iter().enumerate() {
                let t = targets[c as usize];
                row[b] = if t == DEAD { DEAD } else { id[t as usize] };
            }
            trans.extend_from_slice(&row);
        }
        let accepting: Vec<bool> = (accepting.iter().zip(&live))
            .filter(|(_, &l)| l)
            .map(|(&a, _)| a)
            .collect();
        Ok(Self::from_live_table(trans, accepting, classes.class_of))
    }
}
