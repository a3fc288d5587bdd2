//! gcd's own terminal libraries, what `%import common.NAME` and
//! `%import python.NAME` take terminals from: [`common.lark`](super::COMMON_LARK)
//! and [`python.lark`](super::PYTHON_LARK), which match the same languages
//! as Lark's. Each is parsed and compiled once per process with the same
//! front end as user grammars.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::ast::Frag;
use super::parser::parse_text;
use super::source::Source;
use super::terminals::{TState, TermCompiler};
use super::{COMMON_LARK, PYTHON_LARK};

/// The terminals of built-in library `module` (`common`, `python`), or
/// `None` if there is no such library.
pub(super) fn library_terminals(module: &str) -> Option<&'static HashMap<String, Frag>> {
    static COMMON: OnceLock<HashMap<String, Frag>> = OnceLock::new();
    static PYTHON: OnceLock<HashMap<String, Frag>> = OnceLock::new();
    match module {
        "common" => Some(COMMON.get_or_init(|| compile_library(COMMON_LARK))),
        "python" => Some(PYTHON.get_or_init(|| compile_library(PYTHON_LARK))),
        _ => None,
    }
}

fn compile_library(text: &str) -> HashMap<String, Frag> {
    let source = Source::new(text);
    let (out, mut diags) = parse_text(&source);
    let index: HashMap<String, usize> = out
        .terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let rules = HashSet::new();
    let mut tc = TermCompiler {
        terms: &out.terms,
        index: &index,
        rules: &rules,
        state: vec![TState::Todo; out.terms.len()],
        stack: Vec::new(),
        nest: 0,
        max_regex_len: crate::limits::Limits::default().max_regex_len,
        diags: &mut diags,
    };
    let frags: HashMap<String, Frag> = (0..out.terms.len())
        .filter_map(|i| tc.term(i).map(|f| (out.terms[i].name.clone(), f)))
        .collect();
    debug_assert!(diags.is_empty(), "a built-in library has errors: {diags:?}");
    frags
}
