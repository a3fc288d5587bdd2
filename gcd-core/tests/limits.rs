//! Every limit in `Limits` refuses what exceeds it with an error that names
//! it, and lets through what stays within it.
use std::time::Duration;

use gcd_core::compiled::{CompiledGrammar, Config};
use gcd_core::error::{DiagnosticKind, GrammarError};
use gcd_core::lark::parse_grammar_with;
use gcd_core::Limits;

fn compile(src: &str, limits: &Limits) -> Result<CompiledGrammar, GrammarError> {
    let g = parse_grammar_with(src, limits)?;
    CompiledGrammar::with_config(&g, &Config::default().limits(limits.clone()))
}

/// The error's message names `limit`, and the error is about size.
fn refused(src: &str, limits: &Limits, limit: &str) {
    let Err(e) = compile(src, limits) else {
        panic!("not refused by `{limit}`: {src}");
    };
    let text = e.to_string();
    assert!(text.contains(limit), "the error names `{limit}`: {text}");
    assert!(
        e.diagnostics()
            .iter()
            .any(|d| d.kind == DiagnosticKind::TooLarge),
        "{text}"
    );
}

/// `start: K0 K1? ... Kn?`: after each key every later one may come, so
/// each context lexes all later keys: members grow with n².
fn optional_keys(n: usize) -> String {
    let mut src = String::from("start: \"{\" k0");
    for i in 1..n {
        src.push_str(&format!(" k{i}?"));
    }
    src.push_str(" \"}\"\n");
    for i in 0..n {
        src.push_str(&format!("k{i}: \"\\\"key_{i}\\\"\"\n"));
    }
    src
}

#[test]
fn lexer_states_and_members() {
    let src = optional_keys(200);
    let ok = compile(&src, &Limits::default()).expect("within the defaults");
    let states = ok.lexer().num_states();
    let mut l = Limits::default();
    l.max_lexer_states = states / 2;
    refused(&src, &l, "Limits::max_lexer_states");
    l.max_lexer_states = states;
    assert!(compile(&src, &l).is_ok(), "exactly at the limit");
    let mut l = Limits::default();
    l.max_lexer_members = 10_000;
    refused(&src, &l, "Limits::max_lexer_members");
}

#[test]
fn terminals() {
    let src = optional_keys(200);
    let mut l = Limits::default();
    l.max_terminals = 150;
    refused(&src, &l, "Limits::max_terminals");
    l.max_terminals = 202;
    assert!(compile(&src, &l).is_ok(), "200 keys, the braces");
}

#[test]
fn candidate_sets() {
    let src = optional_keys(50);
    let mut l = Limits::default();
    l.max_candidate_sets = 10;
    refused(&src, &l, "Limits::max_candidate_sets");
}

#[test]
fn compile_time() {
    let src = optional_keys(50);
    let mut l = Limits::default();
    l.max_compile_time = Some(Duration::ZERO);
    refused(&src, &l, "Limits::max_compile_time");
    l.max_compile_time = Some(Duration::from_secs(600));
    assert!(compile(&src, &l).is_ok());
}

#[test]
fn lark_text_limits() {
    let mut l = Limits::default();
    l.max_regex_len = 20;
    refused(
        "start: A\nA: B B B\nB: /[a-z]+(foo|bar)[0-9]*/\n",
        &l,
        "Limits::max_regex_len",
    );
    assert!(compile("start: A\nA: /[a-z]+/\n", &l).is_ok());

    let mut l = Limits::default();
    l.max_rule_expansion = 50;
    refused("start: \"a\"~60\n", &l, "Limits::max_rule_expansion");
    assert!(compile("start: \"a\"~20\n", &l).is_ok());

    let mut l = Limits::default();
    l.max_template_instances = 3;
    let src = "start: _pair{\"a\"} _pair{\"b\"} _pair{\"c\"} _pair{\"d\"}\n\
               _pair{x}: x x\n";
    refused(src, &l, "Limits::max_template_instances");
    l.max_template_instances = 4;
    assert!(compile(src, &l).is_ok());
}

/// The defaults let the case through that shaped `max_lexer_members`: an
/// object of 3,000 optional properties in schema order.
#[test]
fn defaults_take_three_thousand_optional_keys() {
    let g = compile(&optional_keys(3000), &Limits::default()).expect("compiles");
    assert!(g.lexer().num_states() > 3000);
}
