//! Splits TTFM into compile and bind for a few MaskBench files (debug aid).
use std::sync::Arc;
use std::time::Instant;
fn main() {
    let mut a = std::env::args().skip(1);
    let vocab = Arc::new(gcd_core::vocab::Vocabulary::load(&a.next().unwrap()).unwrap());
    let trie = Arc::new(gcd_core::trie::TokenTrie::new(&vocab));
    for f in a {
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        let t = Instant::now();
        let g = gcd_schema::to_grammar(&doc["schema"], &Default::default());
        let t1 = t.elapsed();
        let Ok(g) = g else { continue };
        let Ok(c) = gcd_core::compiled::CompiledGrammar::new(&g) else {
            continue;
        };
        let t2 = t.elapsed();
        let states = c.lexer.num_states();
        let b = Arc::new(gcd_core::bind::BoundGrammar::with_trie(
            Arc::new(c),
            vocab.clone(),
            trie.clone(),
        ));
        drop(gcd_core::matcher::Matcher::new(b.clone()).compute_mask(vocab.len()));
        let t3 = t.elapsed();
        println!(
            "{f}: ir={t1:?} compile={:?} first_mask={:?} terms={} lexer_states={states}",
            t2 - t1,
            t3 - t2,
            g.terminals.len()
        );
    }
}
