//! A vocabulary of one token per byte of a small alphabet, and the
//! language a grammar accepts over it by brute force: the plainest way to
//! check a front end's meaning on short strings.

use std::sync::Arc;

use gcd_core::{BoundGrammar, CompiledGrammar, Matcher, Vocabulary};

/// A matcher of the Lark grammar `src` over one token per byte of
/// `alphabet` (token `i` is `alphabet[i]`).
pub fn byte_matcher(src: &str, alphabet: &[u8]) -> Matcher {
    let g = gcd_core::lark::parse_grammar(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    let tokens = alphabet.iter().map(|&b| vec![b]).collect();
    let vocab = Arc::new(Vocabulary::from_tokens(tokens, vec![]));
    let compiled = Arc::new(CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}")));
    Matcher::new(Arc::new(BoundGrammar::new(compiled, vocab)))
}

/// Every string over `alphabet` up to `len` bytes that `m` accepts whole,
/// shortest first (`m` over [`byte_matcher`]'s vocabulary).
pub fn language(m: &Matcher, alphabet: &[u8], len: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut frontier = vec![(Vec::new(), m.clone())];
    for _ in 0..=len {
        let mut next = Vec::new();
        for (s, m) in frontier {
            if m.is_complete() {
                out.push(s.clone());
            }
            for (t, &b) in alphabet.iter().enumerate() {
                let mut m2 = m.clone();
                if m2.advance(t as u32).is_ok() {
                    let mut s2 = s.clone();
                    s2.push(b);
                    next.push((s2, m2));
                }
            }
        }
        frontier = next;
    }
    out
}
