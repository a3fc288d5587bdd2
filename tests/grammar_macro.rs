//! `grammar!`: the three input forms, tables equal to a run-time build,
//! parse trees and masks from the precompiled grammar.

use std::sync::Arc;

use gcd::core::compiled::CompiledGrammar;
use gcd::core::lark::parse_grammar;
use gcd::core::runtime::matcher::Matcher;
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
    pub(crate) JsonFromFile = file "gcd-core/src/lark/json.lark";
}

fn runtime_build(source: &str) -> CompiledGrammar {
    CompiledGrammar::new(&parse_grammar(source).unwrap()).unwrap()
}

#[test]
fn emitted_tables_equal_a_run_time_build() {
    assert_eq!(**Arith::compiled(), runtime_build(Arith::SOURCE));
    assert_eq!(**Pairs::compiled(), runtime_build(Pairs::SOURCE));
    assert_eq!(
        **JsonFromFile::compiled(),
        runtime_build(JsonFromFile::SOURCE)
    );
    assert_eq!(
        **JsonFromFile::compiled(),
        *gcd::core::lark::builtin::json_compiled()
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

#[test]
fn tables_bound_ahead_of_time_load_on_the_item() {
    let dir = std::env::temp_dir().join(format!("gcd-prebind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path =
        gcd::build::write_bound_tables_to(dir.join("arith.bound"), Arith::compiled(), "o200k_base")
            .unwrap();
    let tables = std::fs::read(&path).unwrap();
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let loaded = Arith::load_bound(vocab.clone(), &tables).unwrap();
    let fresh = Arith::bind(vocab.clone());
    assert_eq!(loaded.states(), fresh.states());
    let (mut a, mut b) = (Matcher::new(loaded), Matcher::new(fresh));
    for text in ["12", "*", "(", "3", "+", "4", ")"] {
        let ids = vocab.encode(text).unwrap();
        for id in ids {
            assert_eq!(a.compute_mask(vocab.len()), b.compute_mask(vocab.len()));
            a.advance(id).unwrap();
            b.advance(id).unwrap();
        }
    }
    assert!(a.is_complete());
    // Another grammar's item refuses them.
    assert!(Pairs::load_bound(vocab, &tables).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

gcd::grammar! {
    /// A title is told from a name only by what follows it: not LL(1), so
    /// the grammar opts into generalized parsing.
    #[gcd(generalized)]
    Names;
    start: title? NAME
    title: NAME
    NAME: /"[a-z]+"/
    %ignore " "
}

#[test]
fn generalized_grammars_opt_in() {
    assert!(!Names::compiled().is_ll1());
    let with_title = Names::parse("sir robin").unwrap().to_string();
    assert!(with_title.contains("(title"), "{with_title}");
    let without = Names::parse("robin").unwrap().to_string();
    assert!(!without.contains("title"), "{without}");
    assert!(Names::parse("sir robin hood").is_err());
}

gcd::grammar! {
    /// Two runs of `a` with nothing between: maximal munch would read one
    /// run, so the grammar asks for dynamic lexing (a lexeme may end
    /// wherever a terminal matches).
    #[gcd(dynamic_lexing)]
    Runs;
    start: A A
    A: /"a+"/
}

#[test]
fn dynamic_lexing_opts_in() {
    assert_eq!(Runs::compiled().lexing(), gcd::core::Lexing::Dynamic);
    let vocab = Arc::new(Vocabulary::from_tokens(
        ["a", "aa", "b"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect(),
        vec![],
    ));
    let mut m = Matcher::new(Runs::bind(vocab.clone()));
    m.advance(1).unwrap();
    assert!(m.is_complete(), "\"aa\" is two runs of one `a`");
    let mask = m.compute_mask(vocab.len());
    assert!(mask[0] && mask[1] && !mask[2]);
    // The same text without the option is a compile error (tests/ui/fail/lexical_hazard.rs).
    assert!(Runs::parse("aa").is_err(), "parse trees need maximal munch");
}

gcd::grammar! {
    /// A call, then the end-of-prompt special token, written as Rust tokens.
    EndsWithSpecial;
    start: CALL <|endofprompt|>
    CALL: /"[a-z]+\\(\\)"/
}

gcd::grammar! {
    /// By id, in text form.
    EndsWithId = r#"start: "ok" <[200018]>"#;
}

#[test]
fn special_tokens_in_both_forms() {
    assert_eq!(
        EndsWithSpecial::SOURCE,
        "start: CALL <|endofprompt|>\nCALL: /[a-z]+\\(\\)/"
    );
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let bound = EndsWithSpecial::try_bind(vocab.clone()).unwrap();
    let v = bound.vocab().clone();
    let mut m = Matcher::new(bound);
    for id in v.encode("run()").unwrap() {
        m.advance(id).unwrap();
    }
    let end = v.encode("<|endofprompt|>").unwrap();
    assert_eq!(end.len(), 1, "bound, the name encodes as the token");
    let mask = m.compute_mask(v.len());
    assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![end[0] as usize]);
    m.advance(end[0]).unwrap();
    assert_eq!(m.text(), "run()<|endofprompt|>");
    // <[200018]> is o200k's <|endofprompt|>: the same token by id.
    let by_id = EndsWithId::try_bind(vocab.clone()).unwrap();
    assert_eq!(
        by_id.vocab().special_symbols().collect::<Vec<_>>(),
        vec![(200018, "<|endofprompt|>")]
    );
    // A vocabulary without the token: an error naming it.
    let small = Arc::new(Vocabulary::from_tokens(vec![b"a".to_vec()], vec![]));
    let e = EndsWithSpecial::try_bind(small).unwrap_err();
    assert!(e.to_string().contains("<|endofprompt|>"), "{e}");
}

mod typed {
    #[derive(gcd::Constrained, serde::Deserialize, Debug, PartialEq)]
    #[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
    pub enum ToolCall {
        Lookup { id: u8 },
        Ping,
    }

    gcd::grammar! {
        /// Tool calls in tags, each the JSON of `ToolCall`.
        pub Calls;
        start: call+ <|endofprompt|>
        call: "<tool_call>" @ToolCall "</tool_call>"
    }

    gcd::grammar! {
        /// The text form, with a path.
        pub One = r#"start: "call " @self::ToolCall"#;
    }
}

#[test]
fn typed_rules_link_the_types_grammar() {
    use typed::{Calls, One, ToolCall};
    assert!(Calls::try_compiled().is_ok());
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let bound = Calls::try_bind(vocab).unwrap();
    let v = bound.vocab().clone();
    let text = "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"id\":7}}</tool_call><tool_call>{\"name\":\"ping\"}</tool_call><|endofprompt|>";
    let mut m = Matcher::new(bound);
    for id in v.encode(text).unwrap() {
        m.advance(id)
            .unwrap_or_else(|e| panic!("{:?}: {e}", m.text()));
    }
    assert!(m.is_complete());
    // Only the type's JSON: an unknown tool or a wrong argument type stops.
    for bad in [
        "<tool_call>{\"name\":\"delete\"",
        "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"id\":\"7",
    ] {
        assert!(
            !Matcher::new(Calls::try_bind(Arc::new(Vocabulary::o200k_base().unwrap())).unwrap())
                .accepts_bytes(bad.as_bytes()),
            "{bad}"
        );
    }
    let tree = One::parse("call {\"name\":\"ping\"}").unwrap();
    assert_eq!(tree.children().len(), 1);
    let json = &"call {\"name\":\"lookup\",\"arguments\":{\"id\":3}}"[5..];
    assert_eq!(
        serde_json::from_str::<ToolCall>(json).unwrap(),
        ToolCall::Lookup { id: 3 }
    );
    assert!(
        One::parse("call {\"name\":\"lookup\"}").is_err(),
        "arguments are required"
    );
}
