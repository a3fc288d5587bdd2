//! Rule templates: instances compared with the same grammar written out by
//! hand, instance names and kinds, memoized recursion, and each error with
//! its position.

use super::{assert_diag, err, ok, rhs_names};
use crate::compiled::CompiledGrammar;
use crate::error::DiagnosticKind;
use crate::grammar::{Grammar, RuleKind};
use crate::lark::parse_grammar;
use crate::runtime::tree;

/// Every production as `lhs: rhs`, rule names renamed by `rename`.
fn productions(g: &Grammar, rename: &[(&str, &str)]) -> Vec<String> {
    g.productions
        .iter()
        .map(|p| {
            let rhs: Vec<String> = p.rhs.iter().map(|s| g.display_symbol(*s)).collect();
            let mut line = format!("{}: {}", g.nonterminal(p.lhs).name, rhs.join(" "));
            for (from, to) in rename {
                line = line.replace(from, to);
            }
            line
        })
        .collect()
}

fn kind(g: &Grammar, rule: &str) -> RuleKind {
    g.nonterminals
        .iter()
        .find(|n| n.name == rule)
        .unwrap_or_else(|| panic!("no rule {rule}: {:?}", rule_names(g)))
        .kind
}

fn rule_names(g: &Grammar) -> Vec<&str> {
    g.nonterminals.iter().map(|n| n.name.as_str()).collect()
}

const SEPARATED: &str = r#"
start: list | dict
list: "[" _separated{atom, ","} "]"
dict: "{" _separated{pair, ";"} "}"
pair: atom ":" atom
_separated{x, sep}: x (sep x)*
atom: NUMBER
NUMBER: /[0-9]+/
%ignore " "
"#;

const SEPARATED_BY_HAND: &str = r#"
start: list | dict
list: "[" _sep_atom "]"
dict: "{" _sep_pair "}"
pair: atom ":" atom
atom: NUMBER
_sep_atom: atom ("," atom)*
_sep_pair: pair (";" pair)*
NUMBER: /[0-9]+/
%ignore " "
"#;

#[test]
fn instances_are_the_rules_written_out_by_hand() {
    let g = ok(SEPARATED);
    let by_hand = ok(SEPARATED_BY_HAND);
    let rename = [
        ("_separated{atom,\",\"}", "_sep_atom"),
        ("_separated{pair,\";\"}", "_sep_pair"),
    ];
    assert_eq!(productions(&g, &rename), productions(&by_hand, &[]));
    assert_eq!(
        rhs_names(&g, "list"),
        vec![vec!["\"[\"", "_separated{atom,\",\"}", "\"]\""]]
    );
    // A `_` template gives hidden rules, which parse trees splice.
    assert_eq!(kind(&g, "_separated{atom,\",\"}"), RuleKind::Hidden);
    let c = CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{e}"));
    let t = tree::parse(&c, "[1, 2, 3]").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.to_string(), "(start (list (atom 1) (atom 2) (atom 3)))");
    let t = tree::parse(&c, "{1:2; 3:4}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        t.to_string(),
        "(start (dict (pair (atom 1) (atom 2)) (pair (atom 3) (atom 4))))"
    );
    assert!(tree::parse(&c, "[1; 2]").is_err());
}

#[test]
fn modifiers_carry_over_to_instances() {
    let g = ok("start: pair{A} keep{B} plain{A}\n?pair{x}: x | x x\n!keep{x}: \",\" x\nplain{x}: x\nA: \"a\"\nB: \"b\"\n");
    assert_eq!(kind(&g, "pair{A}"), RuleKind::InlineSingle);
    assert_eq!(kind(&g, "keep{B}"), RuleKind::Normal);
    assert_eq!(kind(&g, "plain{A}"), RuleKind::Normal);
    let keeps = |rule: &str| {
        g.nonterminals
            .iter()
            .any(|n| n.name == rule && n.keep_all_tokens)
    };
    assert!(keeps("keep{B}"));
    assert!(!keeps("plain{A}"));
    // No rule is left for the templates themselves.
    assert!(!rule_names(&g)
        .iter()
        .any(|n| ["pair", "keep", "plain"].contains(n)));
}

#[test]
fn arguments_may_be_any_item_and_name_their_instance() {
    let g = ok(concat!(
        "start: t{A, \",\"} t{/[0-9]+/i, \"b\"i} t{\"a\"..\"c\", (A | B)} t{A+, [B]} t{A ~ 2, (A*)+}\n",
        "t{x, y}: x y\n",
        "A: \"a\"\nB: \"b\"\n",
    ));
    let names: Vec<&str> = rule_names(&g)
        .into_iter()
        .filter(|n| n.starts_with("t{") && n.ends_with('}'))
        .collect();
    assert_eq!(
        names,
        vec![
            "t{A,\",\"}",
            "t{/[0-9]+/i,\"b\"i}",
            "t{\"a\"..\"c\",(A | B)}",
            "t{A+,[B]}",
            "t{A ~ 2,(A*)+}",
        ]
    );
    assert_eq!(rhs_names(&g, "t{A,\",\"}"), vec![vec!["A", "\",\""]]);
}

#[test]
fn same_arguments_share_one_instance_and_recursion_terminates() {
    let g = ok(
        "start: list{A} \";\" list{A} list{B}\nlist{x}: x | x \",\" list{x}\nA: \"a\"\nB: \"b\"\n",
    );
    let lists: Vec<&str> = rule_names(&g)
        .into_iter()
        .filter(|n| n.starts_with("list"))
        .collect();
    assert_eq!(lists, vec!["list{A}", "list{B}"]);
    assert_eq!(
        rhs_names(&g, "list{A}"),
        vec![vec!["A"], vec!["A", "\",\"", "list{A}"]]
    );
}

#[test]
fn templates_use_templates() {
    // Mutual recursion with the same argument (as in Lark's template_lark),
    // and a template use as an argument, expanded innermost first.
    let g = ok(concat!(
        "start: sum{NUM} pair{list{NUM}, NUM}\n",
        "?sum{x}: term{x} (\"+\" term{x})*\n",
        "?term{x}: x | \"(\" sum{x} \")\"\n",
        "pair{a, b}: a \":\" b\n",
        "list{x}: \"[\" x (\",\" x)* \"]\"\n",
        "NUM: /[0-9]+/\n",
    ));
    assert_eq!(
        rhs_names(&g, "term{NUM}"),
        vec![vec!["NUM"], vec!["\"(\"", "sum{NUM}", "\")\""]]
    );
    assert_eq!(
        rhs_names(&g, "pair{list{NUM},NUM}"),
        vec![vec!["list{NUM}", "\":\"", "NUM"]]
    );
    assert_eq!(kind(&g, "sum{NUM}"), RuleKind::InlineSingle);
    let c = CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{e}"));
    let t = tree::parse(&c, "(1+2)[3,4]:5").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        t.to_string(),
        "(start (sum{NUM} 1 2) (pair{list{NUM},NUM} (list{NUM} 3 4) 5))"
    );
}

#[test]
fn a_use_may_start_a_continuation_line() {
    // Inside brackets a line that starts with `name{...}` continues the
    // definition unless a `:` follows, as for `name`.
    let g = ok("start: (A\n  t{A})\nt{x}: x \"!\"\nA: \"a\"\n");
    assert_eq!(rhs_names(&g, "start"), vec![vec!["A", "t{A}"]]);
}

#[test]
fn unused_templates_make_no_rules_and_are_not_errors() {
    let g = ok("start: A\nunused{x}: x x\nA: \"a\"\n");
    assert_eq!(rule_names(&g), vec!["start"]);
}

#[test]
fn wrong_number_of_arguments() {
    let e = err("start: sep{A}\nsep{x, s}: x (s x)*\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        8,
        &["`sep`", "takes 2 arguments (x, s), found 1"],
    );
    let e = err("start: one{A, A}\none{x}: x\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        8,
        &["takes 1 argument (x), found 2"],
    );
}

#[test]
fn undefined_templates_and_names_used_the_wrong_way() {
    let e = err("start: nope{A}\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Undefined,
        1,
        8,
        &["template `nope` is used but never defined"],
    );
    // A template without braces, also as an argument or in a template body.
    let e = err("start: sep A t{sep}\nsep{x}: x\nt{x}: x sep\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        8,
        &["`sep` is a template", "`sep{x}`"],
    );
    assert_diag(&e, DiagnosticKind::Syntax, 1, 16, &["`sep` is a template"]);
    assert_diag(&e, DiagnosticKind::Syntax, 3, 9, &["`sep` is a template"]);
    // A plain rule, a terminal or a parameter with braces.
    let e = err("start: a{A} A{a} t{A}\na: A\nt{x}: x{A}\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        8,
        &["`a` is a rule, not a template"],
    );
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        13,
        &["terminal `A` cannot take arguments"],
    );
    assert_diag(&e, DiagnosticKind::Syntax, 3, 7, &["`x` is a parameter"]);
}

#[test]
fn template_definitions_that_are_refused() {
    let e = err("start: A\nA{x}: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        2,
        1,
        &["terminal `A` cannot be a template"],
    );
    let e = err("start: t{A}\nt{x, x}: x\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Duplicate,
        2,
        6,
        &["two parameters named `x`"],
    );
    let e = err("start: t{A}\nt{x}: x\nt{y}: y y\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Duplicate,
        3,
        1,
        &["`t` is defined twice"],
    );
    let e = err("start: t{A}\nt: A\nt{y}: y y\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Duplicate,
        3,
        1,
        &["`t` is defined twice", "one namespace"],
    );
    let e = err("start: A\nA: t{\"a\"}\nt{x}: x\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        2,
        4,
        &["terminal `A` cannot use template `t{...}`"],
    );
}

#[test]
fn template_syntax_errors() {
    for (src, line, col, part) in [
        (
            "start: t{A,}\nt{x}: x\nA: \"a\"\n",
            1,
            12,
            "expected a name",
        ),
        (
            "start: t{A B}\nt{x}: x\nA: \"a\"\n",
            1,
            12,
            "`,` or `}` to close the `{` of `t{...}` at 1:9",
        ),
        ("start: t{}\nt{x}: x\n", 1, 10, "expected a name"),
        (
            "start: t{A}\nt{}: A\nA: \"a\"\n",
            2,
            3,
            "a parameter name in `t{...}`",
        ),
        (
            "start: t{A}\nt{x y}: x\nA: \"a\"\n",
            2,
            5,
            "`,` or `}` in the parameters of `t`",
        ),
    ] {
        let e = err(src);
        assert_diag(&e, DiagnosticKind::Syntax, line, col, &[part]);
    }
}

#[test]
fn expansion_that_never_ends_is_refused() {
    // The argument grows by a few characters each level: the depth limit.
    let e = err("start: f{A}\nf{x}: x | f{[x]}\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::TooLarge,
        2,
        11,
        &["does not terminate", "more than 64 levels deep", "f{[[["],
    );
    let d = &e.diagnostics()[0];
    assert!(d.notes[0].1.contains("must pass the same arguments"), "{e}");
    assert_eq!(e.diagnostics().len(), 1, "reported once: {e}");
    // The argument doubles each level: the length limit.
    let e = err("start: f{A}\nf{x}: x | f{(x x)}\nA: \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::TooLarge,
        2,
        11,
        &["grow beyond 1000 characters"],
    );
    // Two uses per level: the number of instances.
    let e = err("start: f{A}\nf{x}: x | f{[x]} f{x*}\nA: \"a\"\n");
    let d = &e.diagnostics()[0];
    assert_eq!(d.kind, DiagnosticKind::TooLarge, "{e}");
    assert!(
        d.message.contains("more than 10000 distinct instances"),
        "{e}"
    );
    assert_eq!(d.span.map(|s| s.start.line), Some(2), "{e}");
}

#[test]
fn template_errors_are_collected_with_other_errors() {
    let e = parse_grammar("start: t{A} u{A}\nt{x, y}: x y\nB: /[/\nc: nope{A}\nA: \"a\"\n")
        .unwrap_err();
    let kinds: Vec<_> = e
        .diagnostics()
        .iter()
        .map(|d| (d.kind, d.span.map(|s| (s.start.line, s.start.col))))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (DiagnosticKind::Syntax, Some((1, 8))),
            (DiagnosticKind::Undefined, Some((1, 13))),
            (DiagnosticKind::InvalidRegex, Some((3, 5))),
            (DiagnosticKind::Undefined, Some((4, 4))),
        ],
        "{e}"
    );
}
