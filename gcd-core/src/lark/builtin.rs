//! Grammars that ship with gcd.

use std::sync::{Arc, OnceLock};

use crate::compiled::CompiledGrammar;
use crate::error::GrammarError;
use crate::grammar::Grammar;
use crate::lark;

/// The text of the built-in RFC 8259 JSON grammar.
pub const JSON_LARK: &str = include_str!("json.lark");

/// The built-in JSON grammar.
pub fn json() -> Grammar {
    lark::parse_grammar(JSON_LARK).expect("the built-in JSON grammar is valid")
}

/// The built-in JSON grammar, compiled once per process.
pub fn json_compiled() -> Arc<CompiledGrammar> {
    static JSON: OnceLock<Arc<CompiledGrammar>> = OnceLock::new();
    JSON.get_or_init(|| {
        Arc::new(CompiledGrammar::new(&json()).expect("the built-in JSON grammar compiles"))
    })
    .clone()
}

/// A built-in grammar by name (`json`), or `None`.
pub fn by_name(name: &str) -> Option<Result<Arc<CompiledGrammar>, GrammarError>> {
    match name {
        "json" => Some(Ok(json_compiled())),
        _ => None,
    }
}
