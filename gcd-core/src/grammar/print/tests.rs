//! The printer on hand-written grammars (the exact text), and the round
//! trip every printed grammar must survive: its text reads back through
//! the Lark front end as a grammar with the same rules, and prints the same.

use std::collections::BTreeMap;

use super::{Names, Pattern};
use crate::grammar::sugar::Folded;
use crate::grammar::{Grammar, NtId, RuleKind, Symbol};
use crate::lark::parse_grammar;

/// `g` printed reads back as a grammar with the same rules (folded rules
/// expanded in place) that prints as the same text; returns the text.
pub(crate) fn assert_reads_back(g: &Grammar) -> String {
    let text = g.to_string();
    let back = parse_grammar(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let again = back.to_string();
    assert_eq!(
        text, again,
        "printed text does not print the same once read back"
    );
    let names = Names::new(g);
    let folded = Folded::new(g);
    let ours = rules(g, &|n| folded.is_folded(n), &|n| names.rule(n).to_string());
    let theirs = rules(
        &back,
        &|n| back.nonterminal(n).kind == RuleKind::Generated,
        &|n| back.nonterminal(n).name.clone(),
    );
    for (name, alts) in &ours {
        assert_eq!(
            Some(alts),
            theirs.get(name),
            "rule `{name}` differs:\n{text}"
        );
    }
    // The `start` rule printed in front of a start rule named otherwise.
    assert!(theirs.keys().all(|k| ours.contains_key(k) || k == "start"));
    text
}

/// The alternatives of each rule `expand` keeps, by name, with the rules
/// it expands written in place: alternatives sorted, one alternative
/// spliced, a rule inside itself as `^depth`; terminals as their Lark text.
fn rules(
    g: &Grammar,
    expand: &dyn Fn(NtId) -> bool,
    name: &dyn Fn(NtId) -> String,
) -> BTreeMap<String, Vec<String>> {
    fn rhs(g: &Grammar, rhs: &[Symbol], c: &Canon<'_>, stack: &mut Vec<NtId>) -> String {
        let parts: Vec<String> = rhs.iter().map(|&s| symbol(g, s, c, stack)).collect();
        parts.join(" ")
    }
    fn symbol(g: &Grammar, s: Symbol, c: &Canon<'_>, stack: &mut Vec<NtId>) -> String {
        match s {
            Symbol::T(t) => {
                let t = g.terminal(t);
                format!("{}.{}", Pattern(&t.pattern), t.priority)
            }
            Symbol::N(n) if !(c.expand)(n) => (c.name)(n),
            Symbol::N(n) => {
                if let Some(depth) = stack.iter().rposition(|&m| m == n) {
                    return format!("^{}", stack.len() - depth);
                }
                stack.push(n);
                let mut alts: Vec<String> = (g.productions_of(n))
                    .map(|(_, p)| rhs(g, &p.rhs, c, stack))
                    .collect();
                stack.pop();
                alts.sort();
                match &alts[..] {
                    [one] => one.clone(),
                    _ => format!("({})", alts.join(" | ")),
                }
            }
        }
    }
    struct Canon<'a> {
        expand: &'a dyn Fn(NtId) -> bool,
        name: &'a dyn Fn(NtId) -> String,
    }
    let c = Canon { expand, name };
    (0..g.nonterminals.len() as u32)
        .map(NtId)
        .filter(|&n| !expand(n))
        .map(|n| {
            let alts = g
                .productions_of(n)
                .map(|(_, p)| {
                    let alias = p.alias.as_deref().unwrap_or("");
                    format!("{} -> {alias}", rhs(g, &p.rhs, &c, &mut Vec::new()))
                })
                .collect();
            (name(n), alts)
        })
        .collect()
}

fn printed(src: &str) -> String {
    let g = parse_grammar(src).unwrap_or_else(|e| panic!("{e}"));
    assert_reads_back(&g)
}

#[test]
fn sugar_folds_back_as_written() {
    let src = r#"start: a+ ("," a)* b ~ 0..3 [c | d] (e f)* x ~ 2..4 -> all
    | "" -> none
a: "a"
b: /b\/c/
!c: "c"i
d: D
e: E
?f: E | "\n"
x: "x"
D.2: "d"
E: /[ab]+/ & ~/aa/
%ignore " "
"#;
    // As written, but for `x ~ 2..4` (two copies, then up to two more)
    // and the parentheses of a combination.
    let expected = src
        .replace("x ~ 2..4 -> all\n    |", "x x x ~ 0..2 -> all |")
        .replace("E: /[ab]+/ & ~/aa/", "E: (/[ab]+/ & ~/aa/)");
    assert_eq!(printed(src), expected);
}

#[test]
fn names_lark_would_misread_are_renamed() {
    use crate::grammar::{Expr, GrammarBuilder, TerminalPattern};
    let mut b = GrammarBuilder::new();
    b.terminal("call__STRING", TerminalPattern::Regex("\"[a-z]*\"".into()));
    b.rule(
        "Top",
        vec![Expr::seq(vec![Expr::name("x{1}"), Expr::name("start")])],
    );
    b.rule("x{1}", vec![Expr::name("call__STRING")]);
    b.rule("start", vec![Expr::star(Expr::literal("a\u{85}"))]);
    b.start("Top");
    let g = b.build().unwrap();
    assert_eq!(
        assert_reads_back(&g),
        "start: top\ntop: x_1_ start_2\nx_1_: CALL__STRING\nstart_2: \"a\\u0085\"*\nCALL__STRING: /\"[a-z]*\"/\n"
    );
}

#[test]
fn transformed_grammars_fold_too() {
    // Left-recursion removal's generated rules read as the loop they are.
    let g = parse_grammar("start: start \"+\" n | n\nn: /[0-9]+/").unwrap();
    let c = crate::compiled::CompiledGrammar::new(&g).unwrap();
    assert_eq!(
        assert_reads_back(c.grammar()),
        "start: n (\"+\" n)*\nn: /[0-9]+/\n"
    );
}

#[test]
fn cycles_of_generated_rules_stay_rules() {
    use crate::grammar::{Nonterminal, Production, Terminal, TerminalPattern};
    let rule = |name: &str, kind| Nonterminal {
        name: name.into(),
        kind,
        keep_all_tokens: false,
        tight: false,
        span: None,
    };
    let literal = |text: &str| Terminal {
        name: format!("__ANON_{}", text.to_uppercase()),
        pattern: TerminalPattern::Literal {
            text: text.into(),
            case_insensitive: false,
        },
        priority: 0,
        ignored: false,
        hidden: false,
        span: None,
    };
    let (t, n) = (
        |i| Symbol::T(crate::grammar::TermId(i)),
        |i| Symbol::N(NtId(i)),
    );
    let prod = |lhs, rhs| Production {
        lhs: NtId(lhs),
        rhs,
        alias: None,
        span: None,
    };
    let g = Grammar {
        terminals: vec![literal("a"), literal("b"), literal("x")],
        nonterminals: vec![
            rule("start", RuleKind::Normal),
            rule("start__alt1", RuleKind::Generated),
            rule("start__group2", RuleKind::Generated),
        ],
        productions: vec![
            prod(0, vec![n(1)]),
            prod(1, vec![t(0), n(2)]),
            prod(1, vec![t(2)]),
            prod(2, vec![t(1), n(1)]),
        ],
        start: NtId(0),
        member_sets: Vec::new(),
        hints: Default::default(),
    };
    assert_eq!(
        assert_reads_back(&g),
        "start: _start__alt1\n_start__alt1: \"a\" \"b\" _start__alt1 | \"x\"\n"
    );
}

#[test]
fn real_lark_grammars_print_and_read_back() {
    for src in [
        crate::lark::builtin::JSON_LARK,
        "start: (item \";\")+\nitem: NAME (\"=\" NAME)? | \"(\" item ~ 3 \")\"\nNAME: /[a-z]+/\n%ignore /[ \\t]+/",
    ] {
        printed(src);
    }
}
