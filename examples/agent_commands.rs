//! A command language for an agent: a few verbs with typed arguments,
//! defined with `grammar!`, single spaces between words and no others.
//! Sampled outputs are always one well-formed command, and the parse tree hands the arguments over, typed by terminal.
//!
//! `cargo run --release --example agent_commands`

mod common;

use std::sync::Arc;

use gcd::core::runtime::decode;
use gcd::core::runtime::tree::Node;
use gcd::{Matcher, Vocabulary};

gcd::grammar! {
    pub Command;
    start: command "\n"
    ?command: "open" _SP PATH -> open
            | "search" _SP QUERY [" in " PATH] [" limit " COUNT] -> search
            | "move" _SP PATH _SP "to" _SP PATH -> move_file
            | "wait" _SP COUNT _SP UNIT -> wait
            | "done" -> done
    UNIT: "ms" | "s" | "min"
    PATH: /"[a-z0-9_]+(/[a-z0-9_.]+)*"/
    QUERY: /"\"[ !#-~]{1,40}\""/
    COUNT: /"[1-9][0-9]{0,2}"/
    _SP: " "
}

/// The arguments of a command, by terminal name.
fn arguments(tree: &Node) -> Vec<(String, String)> {
    tree.tokens()
        .filter_map(|t| t.text().map(|x| (t.name().to_string(), x.to_string())))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    let bound = Command::bind(vocab.clone());
    let mut model = common::StandInModel::new(&vocab, 3);
    for _ in 0..4 {
        let mut m = Matcher::new(bound.clone()).with_budget(20)?;
        decode::greedy(&mut m, &mut model, 21)?;
        let text = String::from_utf8(m.output().to_vec())?;
        let tree = Command::parse(&text)?;
        let verb = tree
            .children()
            .first()
            .map(|c| c.name().to_string())
            .unwrap_or_default();
        println!("{} tokens: {:?}", m.tokens().len() - 1, text);
        println!("  verb {verb}, arguments {:?}", arguments(&tree));
        print!("{}", tree.pretty());
    }
    Ok(())
}
