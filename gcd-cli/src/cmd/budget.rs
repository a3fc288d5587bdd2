//! `gcd budget`: the fewest tokens any complete output needs, which is the
//! smallest budget `sample --budget` takes.

use std::process::ExitCode;

use gcd_core::runtime::matcher::Matcher;
use serde_json::json;

use crate::args::{bind, load_vocab, GlobalArgs, GrammarArgs, Result};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    grammar: GrammarArgs,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<ExitCode> {
    let GrammarArgs { grammar, tokenizer } = &args.grammar;
    let bound = bind(global.load_grammar(grammar)?, load_vocab(tokenizer)?)?;
    let tokenizer = bound.vocab().name().to_string();
    let min = Matcher::new(bound).min_tokens_to_complete();
    if min >= gcd_core::bind::INF as usize {
        return Err(format!(
            "{grammar}: no budget plan completes it with this vocabulary (a terminal \
             that no sequence of whole tokens spells); sample without --budget"
        ));
    }
    if global.json {
        println!(
            "{}",
            json!({ "grammar": grammar, "tokenizer": tokenizer, "min_tokens": min })
        );
    } else {
        println!("minimum budget: {min} tokens");
    }
    Ok(ExitCode::SUCCESS)
}
