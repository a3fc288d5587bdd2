//! An arithmetic DSL defined inline with `grammar!`: compiled at build time,
//! sampled under a token budget on the embedded o200k vocabulary, and
//! parsed into a tree.
//!
//! `cargo run --release --example arith`

mod common;

use std::sync::Arc;

use gcd::core::runtime::decode;
use gcd::{Matcher, Vocabulary};

gcd::grammar! {
    /// Integer arithmetic with the usual precedence and left associativity.
    pub Arith;
    start: expr
    ?expr: expr "+" term -> add
         | expr "-" term -> sub
         | term
    ?term: term "*" factor -> mul
         | term "/" factor -> div
         | factor
    ?factor: NUMBER
           | "-" factor -> neg
           | "(" expr ")"
    NUMBER: /"[0-9]{1,4}"/
    %ignore " "
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    let bound = Arith::bind(vocab.clone());
    let mut model = common::StandInModel::new(&vocab, 7);
    for budget in [6, 12, 24] {
        let mut m = Matcher::new(bound.clone()).with_budget(budget)?;
        decode::greedy(&mut m, &mut model, budget + 1)?;
        let text = String::from_utf8(m.output().to_vec())?;
        println!(
            "budget {budget:>2}, {} tokens: {text}",
            m.tokens().len() - 1
        );
        println!("{}", Arith::parse(&text)?.pretty());
    }
    Ok(())
}
