//! Batched masks in the layouts engines take: every row of the int32
//! bitmask and of the logits batch equals that matcher's own mask.
use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::lark;
use gcd_core::runtime::batch::{bitmask_words, fill_bitmasks, mask_logits_batch, ShapeError};
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GRAMMAR: &str = r#"
start: "[" (item ("," item)*)? "]"
item: NUMBER | WORD | start
NUMBER: /[0-9]+/
WORD: /"[a-z]*"/
"#;

/// Every byte, then multi-byte tokens: 70 ids, so rows end mid-word.
fn tokens() -> Vec<Vec<u8>> {
    let mut t: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    for s in [
        "[1", "2,", "\"ab\"", "]]", ",[", "\"", "[]", "12", "\"x\",", "3]",
    ] {
        t.push(s.as_bytes().to_vec());
    }
    t
}

/// Matchers at different points of random outputs (some complete).
fn matchers(b: &Arc<BoundGrammar>, n: usize, seed: u64) -> Vec<Matcher> {
    let mut rng = StdRng::seed_from_u64(seed);
    let width = b.vocab().len();
    (0..n)
        .map(|_| {
            let mut m = Matcher::new(b.clone());
            for _ in 0..rng.random_range(0..12) {
                let allowed: Vec<usize> = m.compute_mask(width).iter_ones().collect();
                let eos = b.vocab().eos_ids();
                let choices: Vec<usize> = (allowed.into_iter())
                    .filter(|&t| !eos.contains(&(t as u32)))
                    .collect();
                if choices.is_empty() {
                    break;
                }
                let t = choices[rng.random_range(0..choices.len())];
                m.advance(t as u32).expect("an allowed token");
            }
            m
        })
        .collect()
}

#[test]
fn bitmask_rows_equal_each_matchers_mask() {
    let g = CompiledGrammar::new(&lark::parse_grammar(GRAMMAR).unwrap()).unwrap();
    let vocab = Vocabulary::from_tokens_with_eos(tokens(), "<eos>");
    let b = Arc::new(BoundGrammar::new(Arc::new(g), Arc::new(vocab)));
    let v = b.vocab().len();
    for (seed, rows) in [(1, 1), (2, 7), (3, 64)] {
        let ms = matchers(&b, rows, seed);
        let refs: Vec<&Matcher> = ms.iter().collect();
        // The engines' width (a padded vocabulary) and the exact one.
        for width in [v, v + 45] {
            let words = bitmask_words(width);
            let mut bitmask = vec![-1i32; rows * words];
            fill_bitmasks(&refs, &mut bitmask).unwrap();
            let mut logits = vec![0.5f32; rows * width];
            mask_logits_batch(&refs, &mut logits).unwrap();
            for (r, m) in ms.iter().enumerate() {
                let want = m.compute_mask(width);
                let row = &bitmask[r * words..(r + 1) * words];
                for t in 0..words * 32 {
                    let bit = row[t / 32] as u32 >> (t % 32) & 1 == 1;
                    let allowed = t < width && want[t];
                    assert_eq!(bit, allowed, "seed {seed} row {r} token {t}");
                    if t < width {
                        let l = logits[r * width + t];
                        assert_eq!(l == 0.5, allowed, "logit of row {r} token {t}: {l}");
                    }
                }
                assert!(want.any(), "row {r}: a matcher always allows something");
            }
        }
    }
}

#[test]
fn buffers_that_do_not_split_into_rows_are_errors() {
    let g = CompiledGrammar::new(&lark::parse_grammar(GRAMMAR).unwrap()).unwrap();
    let vocab = Vocabulary::from_tokens_with_eos(tokens(), "<eos>");
    let b = Arc::new(BoundGrammar::new(Arc::new(g), Arc::new(vocab)));
    let ms = matchers(&b, 3, 9);
    let refs: Vec<&Matcher> = ms.iter().collect();
    let mut bitmask = vec![0i32; 3 * 3 + 1];
    assert_eq!(
        fill_bitmasks(&refs, &mut bitmask),
        Err(ShapeError { len: 10, rows: 3 })
    );
    assert_eq!(bitmask, vec![0; 10], "nothing written");
    let mut logits = vec![0f32; 5];
    assert!(mask_logits_batch(&refs, &mut logits).is_err());
    assert!(mask_logits_batch(&[], &mut logits).is_err());
    assert_eq!(fill_bitmasks(&[], &mut []), Ok(()));
}
