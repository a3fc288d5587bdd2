//! `grammar!`: the three input forms, tables equal to a run-time build,
//! parse trees and masks from the precompiled grammar.

use std::sync::Arc;

use gcd::core::compiled::CompiledGrammar;
use gcd::core::grammar::lark::parse_grammar;
use gcd::core::matcher::Matcher;
use gcd::core::vocab::Vocabulary;

gcd::grammar! {
    /// Sums and products of integers.
    pub Arith;
    start: expr
    ?expr: expr "+" term -> add
         | expr "-" term -> sub
         | term
    ?term: term "*" atom -> mul | atom
    ?atom: NUMBER | "(" expr ")"
    NUMBER: /"[0-9]+"/
    %ignore " "
}

gcd::grammar! {
    Pairs = r#"
start: pair ("," pair)*
pair: KEY "=" VALUE
KEY: /[a-z]+/
VALUE: /[0-9]+/
"#;
}

gcd::grammar! {
    pub(crate) JsonFromFile = file "gcd-core/src/grammars/json.lark";
}

fn runtime_build(source: &str) -> CompiledGrammar {
    CompiledGrammar::new(&parse_grammar(source).unwrap()).unwrap()
}

#[test]
fn emitted_tables_equal_a_run_time_build() {
    assert_eq!(*Arith::compiled(), runtime_build(Arith::SOURCE));
    assert_eq!(*Pairs::compiled(), runtime_build(Pairs::SOURCE));
    assert_eq!(
        *JsonFromFile::compiled(),
        runtime_build(JsonFromFile::SOURCE)
    );
    assert_eq!(
        *JsonFromFile::compiled(),
        *gcd::core::builtin::json_compiled()
    );
}

#[test]
fn inline_grammar_text_is_what_was_written() {
    assert_eq!(
        Arith::SOURCE,
        "start: expr\n?expr: expr \"+\" term -> add | expr \"-\" term -> sub | term\n\
         ?term: term \"*\" atom -> mul | atom\n?atom: NUMBER | \"(\" expr \")\"\n\
         NUMBER: /[0-9]+/\n%ignore \" \""
    );
}

#[test]
fn parse_trees_are_left_associative() {
    let t = Arith::parse("1 - 2 - 3 * (4 + 5)").unwrap();
    assert_eq!(t.to_string(), "(start (sub (sub 1 2) (mul 3 (add 4 5))))");
    let p = Pairs::parse("a=1,bc=23").unwrap();
    assert_eq!(p.children().len(), 2);
    assert_eq!(p.children()[1].span(), 4..9);
    assert!(Arith::parse("1 +").is_err());
    assert!(Pairs::parse("a=1,").is_err());
}

#[test]
fn masks_from_the_precompiled_grammar() {
    let vocab = Arc::new(Vocabulary::from_tokens(
        ["1", "2", "+", " ", "(", ")", "*", "-", "12", "+(", "x"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect(),
        vec![],
    ));
    let bound = Arith::bind(vocab.clone());
    let mut m = Matcher::new(bound);
    for tok in [0u32, 9, 8, 5] {
        m.advance(tok).unwrap();
    }
    assert_eq!(m.output(), b"1+(12)");
    assert!(m.is_complete());
    let mask = m.compute_mask(vocab.len());
    assert!(!mask[10], "x is never allowed");
    assert!(
        mask[2] && mask[6] && !mask[4],
        "after `1+(12)`: an operator, not `(`"
    );
}
