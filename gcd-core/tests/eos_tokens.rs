//! An EOS id ends the output even when its bytes are ordinary text (a
//! caller may name any token as EOS): the mask never offers it as text.

use std::sync::Arc;

use gcd_core::{BoundGrammar, CompiledGrammar, Matcher, Vocabulary};

#[test]
fn an_ordinary_token_named_eos_is_allowed_only_where_the_output_is_complete() {
    let g = gcd_core::lark::parse_grammar(r#"start: /"[ax]*"/"#).unwrap();
    let tokens = ["\"", "a", "x"].map(|t| t.as_bytes().to_vec()).to_vec();
    // `a` is EOS: inside the string it is not text any more.
    let vocab = Arc::new(Vocabulary::from_tokens(tokens, vec![1]));
    let bound = Arc::new(BoundGrammar::new(
        Arc::new(CompiledGrammar::new(&g).unwrap()),
        vocab,
    ));
    let mut m = Matcher::new(bound);
    for (next, complete) in [(0u32, false), (2, false), (0, true)] {
        let mask = m.compute_mask(3);
        for t in 0..3u32 {
            let mut fork = m.clone();
            assert_eq!(
                mask[t as usize],
                fork.advance(t).is_ok(),
                "token {t} after {:?}",
                m.output()
            );
        }
        m.advance(next).unwrap();
        assert_eq!(m.is_complete(), complete);
    }
    assert!(m.compute_mask(3)[1], "EOS once complete");
    m.advance(1).unwrap();
    assert!(m.is_finished());
    assert_eq!(m.output(), b"\"x\"");
    // Three tokens and EOS: the budget does not count EOS, after it either.
    m.set_budget(Some(3)).unwrap();
    assert!(m.set_budget(Some(2)).is_err());
}
