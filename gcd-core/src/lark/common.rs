//! gcd's own `common` library ([`common.lark`](super::COMMON_LARK)), what
//! `%import common.NAME` takes terminals from. Parsed and compiled once per
//! process with the same front end as user grammars.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::ast::Frag;
use super::parser::parse_text;
use super::source::Source;
use super::terminals::{TState, TermCompiler};
use super::COMMON_LARK;

pub(super) fn common_terminals() -> &'static HashMap<String, Frag> {
    static COMMON: OnceLock<HashMap<String, Frag>> = OnceLock::new();
    COMMON.get_or_init(|| {
        let source = Source::new(COMMON_LARK);
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
        debug_assert!(diags.is_empty(), "common.lark has errors: {diags:?}");
        frags
    })
}
