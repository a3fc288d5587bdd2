//! Splits TTFM into phases for MaskBench files (debug aid): schema → IR,
//! terminal DFAs (the slowest one named), the rest of compilation, first
//! mask (bind + token-table walk), and the first mask of a fresh binding
//! under a budget (which builds the budget tables, and the token tables
//! of the states their searches read).
//!
//! `cargo run --release -p gcd-schema --example ttfm_probe -- TOKENIZER FILE...`
use std::sync::Arc;
use std::time::Instant;
fn main() {
    let mut a = std::env::args().skip(1);
    let vocab = Arc::new(gcd_core::vocab::Vocabulary::load(&a.next().unwrap()).unwrap());
    let trie = Arc::new(gcd_core::vocab::trie::TokenTrie::new(&vocab));
    let opts = gcd_schema::Options::default();
    for f in a {
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        let t = Instant::now();
        let g = gcd_schema::to_grammar(&doc["schema"], &opts);
        let ir = t.elapsed();
        let Ok(g) = g else { continue };
        let t = Instant::now();
        let mut slowest = (std::time::Duration::ZERO, String::new());
        for term in &g.terminals {
            let t0 = Instant::now();
            let re = term.pattern.to_regex();
            let _ = gcd_core::lexer::TerminalDfa::new(&re);
            let d = t0.elapsed();
            if d > slowest.0 {
                slowest = (d, re.chars().take(60).collect());
            }
        }
        let dfas = t.elapsed();
        let t = Instant::now();
        let Ok(c) = gcd_core::compiled::CompiledGrammar::new(&g) else {
            continue;
        };
        let c = Arc::new(c);
        let compile = t.elapsed();
        let states = c.lexer().num_states();
        let t = Instant::now();
        let b = Arc::new(gcd_core::bind::BoundGrammar::with_trie(
            c.clone(),
            vocab.clone(),
            trie.clone(),
        ));
        drop(gcd_core::runtime::matcher::Matcher::new(b.clone()).compute_mask(vocab.len()));
        let mask = t.elapsed();
        let t = Instant::now();
        let b = Arc::new(gcd_core::bind::BoundGrammar::with_trie(
            c.clone(),
            vocab.clone(),
            trie.clone(),
        ));
        let budgeted = gcd_core::runtime::matcher::Matcher::new(b).with_budget(1 << 20);
        let budget_set = t.elapsed();
        // The matcher (and with it the binding) is dropped after the clock
        // stops, as the unbudgeted one's binding is.
        let (refused, _keep) = match budgeted {
            Ok(m) => {
                drop(m.compute_mask(vocab.len()));
                ("", Some(m))
            }
            Err(_) => (" (budget refused)", None),
        };
        let budget_mask = t.elapsed();
        let total = ir + dfas + compile + mask;
        println!(
            "{:>8.0} ir={:>6.0} dfas={:>6.0} compile={:>6.0} mask={:>6.0} budget_mask={:>8.0}{refused} budget_set={:>8.0} terms={} lexer_states={states} slowest={:.0}us {:?} {}",
            total.as_secs_f64() * 1e6,
            ir.as_secs_f64() * 1e6,
            dfas.as_secs_f64() * 1e6,
            compile.as_secs_f64() * 1e6,
            mask.as_secs_f64() * 1e6,
            budget_mask.as_secs_f64() * 1e6,
            budget_set.as_secs_f64() * 1e6,
            g.terminals.len(),
            slowest.0.as_secs_f64() * 1e6,
            slowest.1,
            f.rsplit('/').next().unwrap(),
        );
    }
}
