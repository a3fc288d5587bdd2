//! The C subset of the TruncProof paper (shared data), which is not LL(1) as
//! written: the transforms left-factor it at run time, then a sampled
//! program under a token budget is parsed into a tree.
//!
//! `cargo run --release --example c_subset [-- path/to/c_subset.lark]`

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use gcd::core::compiled::CompiledGrammar;
use gcd::core::lark::parse_grammar;
use gcd::core::runtime::decode;
use gcd::core::runtime::tree;
use gcd::{BoundGrammar, Matcher, Vocabulary};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| gcd::core::shared_data::path("grammars/truncproof/c_subset.lark"))
        .ok_or("no C-subset grammar: pass its path as the argument")?;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read the C-subset grammar at {}: {e} (pass its path as the argument)",
            path.display()
        )
    })?;
    let grammar = Arc::new(CompiledGrammar::new(&parse_grammar(&text)?)?);
    println!(
        "{} rewrites made it LL(1):",
        grammar.report().rewrites.len()
    );
    for r in &grammar.report().rewrites {
        println!("  {}", r.message);
    }
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    let bound = Arc::new(BoundGrammar::new(grammar.clone(), vocab.clone()));
    let mut model = common::StandInModel::new(&vocab, 11);
    let budget = 48;
    let mut m = Matcher::new(bound).with_budget(budget)?;
    decode::greedy(&mut m, &mut model, budget + 1)?;
    let program = String::from_utf8(m.output().to_vec())?;
    println!(
        "\nbudget {budget}, {} tokens:\n{program}\n",
        m.tokens().len() - 1
    );
    print!("{}", tree::parse(&grammar, &program)?.pretty());
    Ok(())
}
