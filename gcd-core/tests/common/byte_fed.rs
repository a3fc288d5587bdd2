//! gcd's side of an oracle test: a grammar bound to a vocabulary where byte
//! `b` is token `b` (so any string can be fed byte by byte), plus the
//! grammar's pieces, a few joins of them and EOS.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::Rng;

pub struct ByteFed {
    pub bound: Arc<BoundGrammar>,
    /// The EOS token's id (after every other token).
    pub eos: usize,
}

impl ByteFed {
    pub fn new(compiled: CompiledGrammar, pieces: &[&str], rng: &mut StdRng) -> ByteFed {
        let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        let mut longer: Vec<Vec<u8>> = pieces.iter().map(|p| p.as_bytes().to_vec()).collect();
        for _ in 0..8 {
            let a = pieces[rng.random_range(0..pieces.len())];
            let b = pieces[rng.random_range(0..pieces.len())];
            longer.push(format!("{a}{b}").into_bytes());
        }
        longer.sort();
        longer.dedup();
        tokens.extend(longer.into_iter().filter(|t| t.len() > 1));
        let eos = tokens.len();
        let vocab = Vocabulary::from_tokens_with_eos(tokens, "</s>");
        ByteFed {
            bound: Arc::new(BoundGrammar::new(Arc::new(compiled), Arc::new(vocab))),
            eos,
        }
    }

    /// A complete output drawn uniformly among allowed tokens under a budget
    /// of the fewest tokens plus `slack`; `None` when the grammar derives
    /// nothing or an ambiguous one exceeds the configuration cap.
    pub fn sample(&self, rng: &mut StdRng, slack: usize) -> Option<Vec<u8>> {
        let m = Matcher::new(self.bound.clone());
        let min = m.min_tokens_to_complete();
        if min >= gcd_core::bind::INF as usize {
            return None;
        }
        let mut m = m.with_budget(min + slack).unwrap();
        loop {
            let allowed: Vec<usize> = m.compute_mask(self.eos + 1).iter_ones().collect();
            assert!(
                !allowed.is_empty(),
                "budgeted generation reached a dead end"
            );
            let t = allowed[rng.random_range(0..allowed.len())];
            if t == self.eos {
                assert!(m.is_complete());
                return Some(m.output().to_vec());
            }
            match m.advance(t as u32) {
                Ok(()) => {}
                // An ambiguous grammar may refuse to follow more derivations.
                Err(e) if e.kind() == MatchErrorKind::TooManyConfigurations => return None,
                Err(e) => panic!("the mask allowed a token advance refused: {e}"),
            }
        }
    }

    /// Whether gcd accepts `s` whole, fed byte by byte; `None` where an
    /// ambiguous grammar exceeds the configuration cap.
    pub fn accepts(&self, s: &[u8]) -> Option<bool> {
        let mut m = Matcher::new(self.bound.clone());
        for &b in s {
            match m.advance(b as u32) {
                Ok(()) => {}
                Err(e) if e.kind() == MatchErrorKind::TooManyConfigurations => return None,
                Err(_) => return Some(false),
            }
        }
        Some(m.is_complete())
    }
}
