//! Constrained JSON generation under a hard token budget, with a stand-in
//! model in place of a real LLM. Whatever the logits say, each output is
//! complete JSON within its budget.
//!
//! `cargo run --release --example json_budget`

mod common;

use std::sync::Arc;

use gcd::core::lark::builtin;
use gcd::core::runtime::decode;
use gcd::{BoundGrammar, Matcher, Vocabulary};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    let bound = Arc::new(BoundGrammar::new(builtin::json_compiled(), vocab.clone()));
    let mut model = common::StandInModel::new(&vocab, 1);
    for budget in [4, 16, 48] {
        let mut m = Matcher::new(bound.clone()).with_budget(budget)?;
        decode::greedy(&mut m, &mut model, budget + 1)?;
        let text = String::from_utf8_lossy(m.output());
        println!(
            "budget {budget:>2}: {} tokens: {text}",
            m.tokens().len() - 1
        );
    }
    Ok(())
}
