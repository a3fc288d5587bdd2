//! Beam search returns distinct texts: the tokenizations of one output
//! merge into one hypothesis whose probability is theirs summed.

use std::sync::Arc;

use gcd_core::runtime::decode::{beam_search, LogitsSource};
use gcd_core::{BoundGrammar, CompiledGrammar, Matcher, Vocabulary};

/// Equal logits for every token: the masked distribution is uniform.
struct Uniform;

impl LogitsSource for Uniform {
    fn next_logits(&mut self, _: &[u32], logits: &mut [f32]) {
        logits.fill(0.0);
    }
}

#[test]
fn tokenizations_of_one_text_merge_and_their_probabilities_add_up() {
    let g = gcd_core::lark::parse_grammar(r#"start: "ab" "c"?"#).unwrap();
    let tokens = ["a", "b", "ab", "c", "abc"]
        .map(|t| t.as_bytes().to_vec())
        .to_vec();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    let eos = 5;
    let bound = Arc::new(BoundGrammar::new(
        Arc::new(CompiledGrammar::new(&g).unwrap()),
        vocab,
    ));
    let outs = beam_search(&Matcher::new(bound), &mut Uniform, 4, 10);
    let texts: Vec<&[u8]> = outs.iter().map(|h| h.matcher.output()).collect();
    assert_eq!(
        texts,
        [b"abc".as_slice(), b"ab"],
        "distinct texts, best first"
    );
    // From the start `a`, `ab` and `abc` are allowed (1/3 each); after `ab`,
    // `c` or EOS (1/2 each); after `a`, only `b`. So P("abc") = 1/3 + 1/6 +
    // 1/6 over three tokenizations, P("ab") = 1/6 + 1/6 over two.
    assert_eq!(outs[0].tokenizations, 3);
    assert_eq!(outs[1].tokenizations, 2);
    assert!(
        (outs[0].log_prob.exp() - 2.0 / 3.0).abs() < 1e-5,
        "{}",
        outs[0].log_prob.exp()
    );
    assert!(
        (outs[1].log_prob.exp() - 1.0 / 3.0).abs() < 1e-5,
        "{}",
        outs[1].log_prob.exp()
    );
    // Each keeps its most probable tokenization.
    assert_eq!(outs[0].matcher.tokens(), [4, eos]);
    assert_eq!(outs[1].matcher.tokens(), [2, eos]);
}
