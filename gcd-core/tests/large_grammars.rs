//! Grammars at the scale users write or generate (a rule with thousands of
//! literal alternatives: keywords, country codes) compile and are exact.
//! No timing is asserted; each step that compared every alternative or
//! terminal with every other took minutes at 20,000 (`gcd check` on such a
//! file: 52 s before, under a second after), and would make this test crawl.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::lark::parse_grammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;

#[test]
fn thousands_of_literal_alternatives() {
    let n = 5000;
    let alts: Vec<String> = (0..n).map(|i| format!("\"w{i}\"")).collect();
    let text = format!("start: ({}) \";\"\n", alts.join(" | "));
    let g = parse_grammar(&text).unwrap();
    assert_eq!(g.terminals.len(), n + 1);
    let c = Arc::new(CompiledGrammar::new(&g).unwrap());
    assert!(c.is_ll1());
    let tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    let bound = Arc::new(BoundGrammar::new(c, vocab));
    let accepts = |s: &str| {
        let mut m = Matcher::new(bound.clone());
        s.bytes().all(|b| m.advance(b as u32).is_ok()) && m.is_complete()
    };
    for ok in ["w0;", "w4999;", "w123;", "w10;"] {
        assert!(accepts(ok), "{ok}");
    }
    for bad in ["w5000;", "w;", "w01;", "w0", "x1;"] {
        assert!(!accepts(bad), "{bad}");
    }
}
