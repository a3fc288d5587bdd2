//! Parse trees (`gcd_core::runtime::tree`): Lark's tree shape on grammars that the
//! transforms made LL(1), spans, errors, and properties against the
//! reference recognizer and against an independent chart parser that builds
//! the tree from the grammar *as written* (before left-recursion removal and
//! left factoring).

mod common;
#[path = "parse_tree/reference.rs"]
mod reference;

use gcd_core::analysis::transform::RewriteKind;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::{Grammar, Symbol};
use gcd_core::lark::builtin::json_compiled;
use gcd_core::lark::parse_grammar;
use gcd_core::runtime::recognizer::{Recognizer, Status};
use gcd_core::runtime::tree::{self, LexemeRole, Node, ParseErrorKind, ParseOutput};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reference::reference_tree;

/// `src`'s grammar, from its rule `start` or else its first rule (these
/// grammars are written as Lark would be called with `start=` that rule).
fn grammar(src: &str) -> gcd_core::grammar::Grammar {
    let has_start = src.lines().any(|l| {
        let l = l.trim_start().trim_start_matches(['?', '!']);
        l.starts_with("start:") || l.starts_with("start ")
    });
    if has_start {
        return parse_grammar(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    }
    let first = (src.lines().map(str::trim))
        .find(|l| l.contains(':') && !l.starts_with(['%', '/', '#', '|']))
        .and_then(|l| l.split(':').next())
        .map(|n| n.trim().trim_start_matches(['?', '!']))
        .unwrap_or_else(|| panic!("no rule in\n{src}"));
    let mut b = gcd_core::lark::parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    b.start(first)
        .build()
        .unwrap_or_else(|e| panic!("{src}\n{e}"))
}

fn compile(src: &str) -> CompiledGrammar {
    CompiledGrammar::new(&grammar(src)).unwrap_or_else(|e| panic!("{src}\n{e}"))
}

/// S-expression with token texts as they are (the tests' own printer).
fn sx(n: &Node) -> String {
    match n {
        Node::Token { text, .. } => text.clone(),
        Node::Rule { name, children, .. } => {
            let mut s = format!("({name}");
            for c in children {
                s.push(' ');
                s.push_str(&sx(c));
            }
            s.push(')');
            s
        }
    }
}

fn tree_of(g: &CompiledGrammar, input: &str) -> Node {
    tree::parse(g, input).unwrap_or_else(|e| panic!("{input:?}: {e}"))
}

/// Every token's span slices back to its text, every rule's span covers
/// its children's, and children are in order without overlap.
fn check_spans(n: &Node, input: &str) {
    match n {
        Node::Token { text, span, .. } => assert_eq!(&input[span.clone()], text, "{span:?}"),
        Node::Rule { children, span, .. } => {
            let mut last = span.start;
            for c in children {
                let cs = c.span();
                assert!(
                    cs.start >= last && cs.end <= span.end,
                    "{c} {cs:?} outside {span:?} of {n}"
                );
                last = cs.end;
                check_spans(c, input);
            }
            // A non-empty rule starts and ends at a lexeme, never on ignored text.
            if !span.is_empty() {
                assert!(
                    !input[span.clone()].starts_with(' ') && !input[span.clone()].ends_with(' '),
                    "{n} {span:?}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Shapes.

const ARITH: &str = r#"
?expr: expr "+" term -> add
     | expr "-" term -> sub
     | term
?term: term "*" factor -> mul
     | term "/" factor -> div
     | factor
?factor: NUMBER
       | "-" factor -> neg
       | "(" expr ")"
NUMBER: /[0-9]+/
%ignore /[ \t\n]+/
"#;

#[test]
fn arithmetic_left_recursion_is_left_associative_with_aliases() {
    let g = compile(ARITH);
    let tails: Vec<_> = g.report().tails().collect();
    assert_eq!(tails.len(), 2, "{}", g.report());
    assert_eq!(sx(&tree_of(&g, "1+2*3-4")), "(sub (add 1 (mul 2 3)) 4)");
    assert_eq!(sx(&tree_of(&g, "1-2-3-4")), "(sub (sub (sub 1 2) 3) 4)");
    assert_eq!(sx(&tree_of(&g, "8/4/2*3")), "(mul (div (div 8 4) 2) 3)");
    assert_eq!(
        sx(&tree_of(&g, "-(1+2)*-3")),
        "(mul (neg (add 1 2)) (neg 3))"
    );
    assert_eq!(sx(&tree_of(&g, "((7))")), "7");
    // The exact tree, with terminals and spans.
    let t = tree_of(&g, "1+2*3-4");
    let tok = |text: &str, at: usize| Node::Token {
        terminal: "NUMBER".into(),
        text: text.into(),
        span: at..at + 1,
    };
    let expected = Node::Rule {
        name: "sub".into(),
        span: 0..7,
        children: vec![
            Node::Rule {
                name: "add".into(),
                span: 0..5,
                children: vec![
                    tok("1", 0),
                    Node::Rule {
                        name: "mul".into(),
                        span: 2..5,
                        children: vec![tok("2", 2), tok("3", 4)],
                    },
                ],
            },
            tok("4", 6),
        ],
    };
    assert_eq!(t, expected);
    // Display is the same S-expression; `{:#}` names the terminals.
    assert_eq!(t.to_string(), "(sub (add 1 (mul 2 3)) 4)");
    assert_eq!(
        format!("{t:#}"),
        "(sub (add NUMBER:1 (mul NUMBER:2 NUMBER:3)) NUMBER:4)"
    );
}

#[test]
fn left_recursion_without_aliases_and_with_plain_rules() {
    // Not `?`: every level is a node, the base included.
    let g = compile(
        r#"
        expr: expr "+" term | term
        term: NUMBER
        NUMBER: /[0-9]+/
    "#,
    );
    assert_eq!(
        sx(&tree_of(&g, "1+2+3")),
        "(expr (expr (expr (term 1)) (term 2)) (term 3))"
    );
    assert_eq!(sx(&tree_of(&g, "1")), "(expr (term 1))");
    // Lists written left-recursively, with a hidden list rule: flat.
    let g = compile(
        r#"
        start: "[" _items "]"
        _items: _items "," ITEM | ITEM
        ITEM: /[a-z]+/
    "#,
    );
    assert_eq!(sx(&tree_of(&g, "[a,b,c]")), "(start a b c)");
    // A tail that needs factoring itself keeps each level's alias.
    let g = compile(
        r#"
        ?e: e "+" NUMBER -> add | e "+" "+" -> incr | e "!" -> fact | NUMBER
        NUMBER: /[0-9]+/
    "#,
    );
    assert!(
        g.report()
            .rewrites
            .iter()
            .any(|r| r.kind == RewriteKind::LeftFactoring),
        "{}",
        g.report()
    );
    assert_eq!(
        sx(&tree_of(&g, "1+2++!+3")),
        "(add (fact (incr (add 1 2))) 3)"
    );
}

#[test]
fn inline_single_rules() {
    let g = compile(
        r#"
        start: item+
        ?item: pair | WORD | "<" WORD ">" | "[" WORD* "]" | "!" WORD -> bang
        pair: NUM "=" WORD
        WORD: /[a-z]+/
        NUM: /[0-9]+/
        %ignore " "
    "#,
    );
    // One child: replaced by it (a token or a rule). Zero or two: kept.
    // An aliased alternative always gives its node.
    assert_eq!(
        sx(&tree_of(&g, "a 1=c <d> [] [e f] [g] !h")),
        "(start a (pair 1 c) d (item) (item e f) g (bang h))"
    );
}

#[test]
fn hidden_rules_and_terminals() {
    let g = compile(
        r#"
        start: kv+
        kv: KEY _EQ _value _SEMI
        _value: NUMBER | "(" NUMBER ("," NUMBER)* ")"
        KEY: /[a-z]+/
        NUMBER: /[0-9]+/
        _EQ: "="
        _SEMI: ";"
        %ignore " "
    "#,
    );
    let input = "a=1; b = (2, 3) ;";
    let out = tree::parse_full(&g, input.as_bytes()).unwrap();
    assert_eq!(sx(&out.tree), "(start (kv a 1) (kv b 2 3))");
    // The hidden tokens are parsed (and listed) but not in the tree.
    let roles: Vec<(String, LexemeRole)> = out
        .lexemes
        .iter()
        .filter(|l| l.role != LexemeRole::Ignored)
        .map(|l| (input[l.span.clone()].to_string(), l.role))
        .collect();
    let filtered: Vec<&str> = roles
        .iter()
        .filter(|(_, r)| *r == LexemeRole::Filtered)
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(filtered, ["=", ";", "=", "(", ",", ")", ";"]);
    check_spans(&out.tree, input);
    let kv = &out.tree.children()[1];
    assert_eq!(&input[kv.span()], "b = (2, 3) ;");
}

#[test]
fn keep_all_tokens_rules_keep_literals_and_hidden_tokens() {
    // `!pair` keeps its own "=" and `_SEMI`, also those inside the generated
    // rules of its `*`; `plain` (no `!`) still drops them.
    let g = compile(
        r#"
        start: pair plain
        !pair: KEY "=" NUMBER ("," NUMBER)* _SEMI
        plain: KEY "=" NUMBER _SEMI
        KEY: /[a-z]+/
        NUMBER: /[0-9]+/
        _SEMI: ";"
        %ignore " "
    "#,
    );
    let input = "a = 1, 2; b = 3;";
    let out = tree::parse_full(&g, input.as_bytes()).unwrap();
    assert_eq!(sx(&out.tree), "(start (pair a = 1 , 2 ;) (plain b 3))");
    let filtered: Vec<&str> = out
        .lexemes
        .iter()
        .filter(|l| l.role == LexemeRole::Filtered)
        .map(|l| &input[l.span.clone()])
        .collect();
    assert_eq!(filtered, ["=", ";"]);
    check_spans(&out.tree, input);
}

#[test]
fn pretty_prints_one_node_per_line() {
    let g =
        compile("start: pair+\npair: KEY \"=\" VAL\nKEY: /[a-z]+/\nVAL: /[0-9]+/\n%ignore \" \"");
    let t = tree_of(&g, "a=1 b = 22");
    assert_eq!(
        t.pretty(),
        "start\n  pair\n    KEY a\n    VAL 1\n  pair\n    KEY b\n    VAL 22\n"
    );
}

#[test]
fn anonymous_regexes_are_kept_and_named_literals_too() {
    let g = compile(
        r#"
        start: /[a-z]+/ "=" EQ /[0-9]+/ ";"
        EQ: "=="
    "#,
    );
    let t = tree_of(&g, "ab===12;");
    assert_eq!(sx(&t), "(start ab == 12)");
    let names: Vec<&str> = t.tokens().map(|n| n.name()).collect();
    assert_eq!(names.len(), 3);
    assert!(
        names[0].starts_with("__ANON") && names[1] == "EQ" && names[2].starts_with("__ANON"),
        "{names:?}"
    );
}

#[test]
fn ignored_whitespace_and_spans() {
    let g = compile(ARITH);
    let input = "  12 +\t(3 *\n 45)  ";
    let out = tree::parse_full(&g, input.as_bytes()).unwrap();
    let t = &out.tree;
    assert_eq!(sx(t), "(add 12 (mul 3 45))");
    assert_eq!(t.span(), 2..16);
    assert_eq!(&input[t.span()], "12 +\t(3 *\n 45)");
    // `(mul ...)` spans its parenthesis-free content; the parentheses belong to the factor.
    let mul = &t.children()[1];
    assert_eq!(&input[mul.span()], "3 *\n 45");
    check_spans(t, input);
    let texts: Vec<&str> = t.tokens().map(|n| n.text().unwrap()).collect();
    assert_eq!(texts, ["12", "3", "45"]);
    // The lexemes cover the input back to back; ignored ones included.
    let mut at = 0;
    for l in &out.lexemes {
        assert_eq!(l.span.start, at);
        at = l.span.end;
    }
    assert_eq!(at, input.len());
    let ignored: Vec<&str> = out
        .lexemes
        .iter()
        .filter(|l| l.role == LexemeRole::Ignored)
        .map(|l| &input[l.span.clone()])
        .collect();
    assert_eq!(ignored, ["  ", " ", "\t", " ", "\n ", "  "]);
    // Empty rules get an empty span after the previous lexeme.
    let g = compile(
        r#"
        start: A opt B
        opt: C?
        A: "a"
        B: "b"
        C: "c"
        %ignore " "
    "#,
    );
    let t = tree_of(&g, "a  b");
    assert_eq!(sx(&t), "(start a (opt) b)");
    assert_eq!(t.children()[1].span(), 1..1);
    assert_eq!(t.span(), 0..4);
}

#[test]
fn json_builtin_tree() {
    let g = json_compiled();
    let input = r#" {"name": "gcd", "tags": ["ll1", 2, -3.5e2, true, false, null], "nested": {"a": [], "b": {}}} "#;
    let t = tree_of(&g, input);
    assert_eq!(
        sx(&t),
        r#"(object (member "name" "gcd") (member "tags" (array "ll1" 2 -3.5e2 (true) (false) (null))) (member "nested" (object (member "a" (array)) (member "b" (object)))))"#
    );
    check_spans(&t, input);
    let strings: Vec<&str> = t
        .tokens()
        .filter(|n| n.name() == "STRING")
        .map(|n| n.text().unwrap())
        .collect();
    assert_eq!(
        strings,
        [
            r#""name""#,
            r#""gcd""#,
            r#""tags""#,
            r#""ll1""#,
            r#""nested""#,
            r#""a""#,
            r#""b""#
        ]
    );
    // A bare scalar: `?start` and `?value` inline down to the token.
    let t = tree_of(&g, " 42 ");
    assert_eq!(
        t,
        Node::Token {
            terminal: "NUMBER".into(),
            text: "42".into(),
            span: 1..3
        }
    );
    assert_eq!(sx(&tree_of(&g, "null")), "(null)");
}

#[test]
fn left_factoring_keeps_the_aliases() {
    let g = compile(
        r#"
        start: (stmt ";")*
        ?stmt: call | NAME "=" expr -> assign
        call: NAME "(" ")" -> call0
            | NAME "(" args ")" -> calln
        args: expr ("," expr)*
        ?expr: call | NAME | NUMBER
        NAME: /[a-z]+/
        NUMBER: /[0-9]+/
        %ignore " "
    "#,
    );
    assert!(
        g.report()
            .rewrites
            .iter()
            .any(|r| r.kind == RewriteKind::LeftFactoring),
        "{}",
        g.report()
    );
    let t = tree_of(&g, "f(); g(x, h(), 1); y = k(2);");
    assert_eq!(
        sx(&t),
        "(start (call0 f) (calln g (args x (call0 h) 1)) (assign y (calln k (args 2))))"
    );
    check_spans(&t, "f(); g(x, h(), 1); y = k(2);");
}

#[test]
fn truncproof_c_subset() {
    let Some(root) = common::data::shared_data() else {
        return;
    };
    let path = root.join("grammars/truncproof/c_subset.lark");
    let Ok(src) = std::fs::read_to_string(&path) else {
        eprintln!("SKIP: {} not found", path.display());
        return;
    };
    let g = compile(&src);
    let program = "int max(int a, int b) {\n  int m = a;\n  if (b > a) { m = b; } else { m = a; }\n  while (m >= 10) { m = m - 10 / (2 * a); }\n  log(m, -1);\n  return m;\n}\n";
    let out = tree::parse_full(&g, program.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let t = &out.tree;
    check_spans(t, program);
    assert_eq!(t.name(), "start");
    assert_eq!(t.children().len(), 1);
    let decl = &t.children()[0];
    assert_eq!(decl.name(), "declaration");
    let kids: Vec<String> = decl.children().iter().map(sx).collect();
    assert_eq!(
        kids[0], "(data_type)",
        "keywords are anonymous literals: filtered, as in Lark"
    );
    assert_eq!(kids[1], "max");
    assert_eq!(
        kids[2],
        "(parameters (parameter (data_type) a) (parameter (data_type) b))"
    );
    let stmts = &decl.children()[3..];
    assert_eq!(stmts.len(), 5, "{kids:?}");
    assert!(stmts.iter().all(|s| s.name() == "statement"));
    assert_eq!(
        sx(&stmts[0]),
        "(statement (data_type) m (expression (term (factor a))))"
    );
    assert_eq!(
        sx(&stmts[1]),
        "(statement (condition (expression (term (factor b))) (relation_operator) (expression (term (factor a)))) \
         (statement m (expression (term (factor b)))) (statement m (expression (term (factor a)))))"
    );
    assert_eq!(
        sx(&stmts[2]),
        "(statement (condition (expression (term (factor m))) (relation_operator) (expression (term (factor (number 10))))) \
         (statement m (expression (term (factor m)) (term (factor (number 10)) (factor (paren_expr (expression (term (factor (number 2)) (factor a)))))))))"
    );
    assert_eq!(
        sx(&stmts[3]),
        "(statement log (arg_list (expression (term (factor m))) (expression (term (factor (unary_term (factor (number 1))))))))"
    );
    assert_eq!(sx(&stmts[4]), "(statement (expression (term (factor m))))");
    // The operators are filtered from the tree but listed with the lexemes.
    let ops: Vec<&str> = out
        .lexemes
        .iter()
        .filter(|l| l.role == LexemeRole::Filtered)
        .map(|l| &program[l.span.clone()])
        .filter(|s| ["<", "<=", ">", ">=", "==", "!="].contains(s))
        .collect();
    assert_eq!(ops, [">", ">="]);
    // Same tree as the grammar as written gives.
    let original = parse_grammar(&src).unwrap();
    assert_eq!(
        reference_tree(&original, &g, program.as_bytes(), &out).as_ref(),
        Some(t)
    );
    // An error names the place and what was acceptable.
    let e = tree::parse(&g, "int f() {\n  x = 1 +;\n}").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::UnexpectedByte);
    assert_eq!((e.line(), e.column(), e.offset()), (2, 10, 19));
    let msg = e.to_string();
    assert!(
        msg.contains("line 2, column 10") && msg.contains("NAME") && msg.contains("\"(\""),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------
// Errors.

#[test]
fn errors_have_kinds_positions_and_expectations() {
    let g = json_compiled();
    let cases: &[(&str, ParseErrorKind, usize, &[&str])] = &[
        (
            "[1, 2",
            ParseErrorKind::UnexpectedEnd,
            5,
            &["\",\"", "\"]\""],
        ),
        ("[1.]", ParseErrorKind::InvalidLexeme, 3, &["NUMBER"]),
        ("{\"a\" 1}", ParseErrorKind::UnexpectedByte, 5, &["\":\""]),
        ("\"abc", ParseErrorKind::UnexpectedEnd, 4, &["STRING"]),
        ("1 2", ParseErrorKind::UnexpectedByte, 2, &["end of input"]),
        ("", ParseErrorKind::UnexpectedEnd, 0, &["STRING", "NUMBER"]),
        ("[tru]", ParseErrorKind::InvalidLexeme, 4, &["\"true\""]),
    ];
    for &(input, kind, offset, expected) in cases {
        let e = tree::parse(&g, input).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (kind, offset), "{input:?}: {e}");
        for x in expected {
            assert!(
                e.expected().iter().any(|y| y == x),
                "{input:?}: {x} not in {:?}",
                e.expected()
            );
        }
        let msg = e.to_string();
        assert!(msg.contains(&format!("byte {offset}")), "{msg}");
    }
    let e = tree::parse(&g, "[1.]").unwrap_err();
    assert_eq!(e.lexeme_start(), Some(1));
    assert!(e.to_string().contains("\"1.\""), "{e}");
    // Columns count characters; invalid UTF-8 is an error, not a panic.
    let e = tree::parse(&g, "{\n  \"é\": x}").unwrap_err();
    assert_eq!((e.line(), e.column(), e.offset()), (2, 8, 10));
    let e = tree::parse_bytes(&g, b"[\"\xff\"]").unwrap_err();
    assert_eq!(e.offset(), 2);
    assert!(!e.to_string().is_empty());
}

#[test]
fn random_bytes_never_panic() {
    let g = json_compiled();
    let r = Recognizer::new(&g);
    let mut rng = StdRng::seed_from_u64(7);
    let alphabet = b"{}[],:\"0123456789.-+eEtrufalsn \n\\\xc3\xa9\xff";
    for _ in 0..3000 {
        let len = rng.random_range(0..14);
        let input: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())])
            .collect();
        let res = tree::parse_full(&g, &input);
        assert_eq!(
            res.is_ok(),
            r.is_complete(&input),
            "{:?}",
            String::from_utf8_lossy(&input)
        );
        if let Ok(out) = &res {
            check_output(&g, &input, out);
        } else if let Err(e) = &res {
            check_error_position(&r, &input, e);
        }
    }
}

#[test]
fn deep_nesting_and_messages() {
    let g = json_compiled();
    let depth = 3000;
    let input = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let t = tree_of(&g, &input);
    assert_eq!(t.iter().filter(|n| n.name() == "array").count(), depth);
    let messages = [
        ("[1.]", "unexpected ']' after the incomplete lexeme \"1.\" at line 1, column 4 (byte 3); expected NUMBER"),
        ("[1, 2", "unexpected end of input at line 1, column 6 (byte 5); expected one of \",\", \"]\""),
        ("\"ab", "unexpected end of input inside the lexeme \"\\\"ab\" at line 1, column 4 (byte 3); expected STRING"),
        ("1 2", "unexpected '2' at line 1, column 3 (byte 2); expected end of input"),
    ];
    for (bad, msg) in messages {
        assert_eq!(tree::parse(&g, bad).unwrap_err().to_string(), msg);
    }
}

// ---------------------------------------------------------------------------
// Properties.

/// Lexemes cover the input back to back; dropping the ignored ones leaves
/// the parsed text; the tree's tokens are the `Tree` lexemes, in order.
fn check_output(g: &CompiledGrammar, input: &[u8], out: &ParseOutput) {
    let mut at = 0;
    let mut kept = Vec::new();
    for l in &out.lexemes {
        assert_eq!(l.span.start, at, "lexemes are back to back");
        assert!(l.span.end > l.span.start);
        at = l.span.end;
        let t = g.grammar().terminal(l.terminal);
        assert_eq!(l.role == LexemeRole::Ignored, t.ignored);
        assert!(g.dfas()[l.terminal.index()].matches(&input[l.span.clone()]));
        if l.role == LexemeRole::Tree {
            kept.push(l.clone());
        }
    }
    assert_eq!(at, input.len());
    let without_ignored: Vec<u8> = out
        .lexemes
        .iter()
        .filter(|l| l.role != LexemeRole::Ignored)
        .flat_map(|l| input[l.span.clone()].iter().copied())
        .collect();
    let ignored_len: usize = out
        .lexemes
        .iter()
        .filter(|l| l.role == LexemeRole::Ignored)
        .map(|l| l.span.len())
        .sum();
    assert_eq!(without_ignored.len() + ignored_len, input.len());
    let leaves: Vec<&Node> = out.tree.tokens().collect();
    assert_eq!(leaves.len(), kept.len());
    for (n, l) in leaves.iter().zip(&kept) {
        assert_eq!(n.span(), l.span);
        assert_eq!(n.name(), g.grammar().terminal(l.terminal).name);
        assert_eq!(
            n.text().unwrap(),
            String::from_utf8_lossy(&input[l.span.clone()])
        );
    }
    // Rule spans contain their children in order.
    for n in out.tree.iter() {
        let s = n.span();
        let mut last = s.start;
        for c in n.children() {
            let cs = c.span();
            assert!(cs.start >= last && cs.end <= s.end, "{n}: {cs:?} in {s:?}");
            last = cs.end;
        }
    }
}

/// Whether a generalized grammar gave up on an input with more derivations
/// than its cap (an LL(1) grammar never does).
fn too_ambiguous(g: &CompiledGrammar, res: &Result<tree::ParseOutput, tree::ParseError>) -> bool {
    let over = res
        .as_ref()
        .is_err_and(|e| e.kind() == ParseErrorKind::TooAmbiguous);
    assert!(!over || !g.is_ll1());
    over
}

/// The error is where the reference dies: the bytes before it are a valid
/// prefix, one more byte is dead (or the input ended early).
fn check_error_position(r: &Recognizer, input: &[u8], e: &tree::ParseError) {
    assert!(e.line() >= 1 && e.column() >= 1 && !e.to_string().is_empty());
    let o = e.offset();
    assert!(o <= input.len());
    if e.kind() == ParseErrorKind::UnexpectedEnd {
        assert_eq!(o, input.len(), "{e}");
    } else {
        assert!(o < input.len(), "{e}");
        assert_eq!(r.status(&input[..o + 1]), Status::Dead, "{e}");
    }
    let before = r.status(&input[..o]);
    assert!(
        before.is_viable() || before == Status::Unknown,
        "{:?}: {e}: {before:?}",
        String::from_utf8_lossy(input)
    );
}

/// A random string of the grammar's terminals: a random derivation (the
/// shortest alternatives once deep or long), each terminal spelled by a
/// random walk on its DFA, sometimes with a space between when spaces are
/// ignored. Maximal munch may still lex it differently: callers check.
fn random_derivation(g: &CompiledGrammar, rng: &mut StdRng, max_depth: usize) -> Vec<u8> {
    let gr = g.grammar();
    // Height of the shortest derivation tree of each rule.
    let mut height = vec![usize::MAX; gr.nonterminals.len()];
    let prod_height = |p: &gcd_core::grammar::Production, height: &[usize]| {
        p.rhs.iter().try_fold(1usize, |h, s| match *s {
            Symbol::T(_) => Some(h),
            Symbol::N(b) => (height[b.index()] != usize::MAX).then(|| h.max(height[b.index()] + 1)),
        })
    };
    let mut changed = true;
    while changed {
        changed = false;
        for p in &gr.productions {
            if let Some(h) = prod_height(p, &height) {
                if h < height[p.lhs.index()] {
                    height[p.lhs.index()] = h;
                    changed = true;
                }
            }
        }
    }
    let space = g.ignored().iter().any(|t| g.dfas()[t].matches(b" "));
    let mut out = Vec::new();
    let mut work = vec![(Symbol::N(gr.start), 0usize)];
    while let Some((sym, depth)) = work.pop() {
        match sym {
            Symbol::T(t) => {
                if space && !out.is_empty() && rng.random_bool(0.4) {
                    out.push(b' ');
                }
                let dfa = &g.dfas()[t.index()];
                let mut s = 0u32;
                loop {
                    let next: Vec<(u8, u32)> = (0..=255u8)
                        .filter_map(|b| {
                            let n = dfa.trans[s as usize * 256 + b as usize];
                            (n != gcd_core::lexer::DEAD).then_some((b, n))
                        })
                        .collect();
                    if dfa.accepting[s as usize] && (next.is_empty() || rng.random_bool(0.5)) {
                        break;
                    }
                    // Prefer ASCII so that texts stay readable.
                    let ascii: Vec<(u8, u32)> = next
                        .iter()
                        .copied()
                        .filter(|(b, _)| b.is_ascii_graphic())
                        .collect();
                    let pool = if ascii.is_empty() || rng.random_bool(0.05) {
                        &next
                    } else {
                        &ascii
                    };
                    let (b, n) = pool[rng.random_range(0..pool.len())];
                    out.push(b);
                    s = n;
                }
            }
            Symbol::N(a) => {
                let prods: Vec<&gcd_core::grammar::Production> =
                    gr.productions_of(a).map(|(_, p)| p).collect();
                let p = if depth >= max_depth || out.len() > 40 {
                    *prods
                        .iter()
                        .min_by_key(|p| prod_height(p, &height).unwrap_or(usize::MAX))
                        .unwrap()
                } else {
                    prods[rng.random_range(0..prods.len())]
                };
                work.extend(p.rhs.iter().rev().map(|&s| (s, depth + 1)));
            }
        }
    }
    out
}

/// Mutations of a sentence: a byte dropped, inserted or replaced.
fn mutate(rng: &mut StdRng, s: &[u8], alphabet: &[u8]) -> Vec<u8> {
    let mut m = s.to_vec();
    let b = alphabet[rng.random_range(0..alphabet.len())];
    match rng.random_range(0..3) {
        0 if !m.is_empty() => {
            m.remove(rng.random_range(0..m.len()));
        }
        1 if !m.is_empty() => {
            let i = rng.random_range(0..m.len());
            m[i] = b;
        }
        _ => m.insert(rng.random_range(0..=m.len()), b),
    }
    m
}

/// Checks one grammar on random sentences and mutations; returns how many
/// trees were compared with the reference.
fn exercise(
    original: &Grammar,
    g: &CompiledGrammar,
    seed: u64,
    alphabet: &[u8],
    label: &str,
) -> usize {
    let r = Recognizer::new(g);
    let mut rng = StdRng::seed_from_u64(seed);
    let comparable = g.report().rewrites.iter().all(|w| {
        matches!(
            w.kind,
            RewriteKind::LeftRecursion
                | RewriteKind::LeftFactoring
                | RewriteKind::DuplicateAlternative
                | RewriteKind::RemovedRule
        )
    });
    let mut compared = 0;
    for _ in 0..12 {
        let s = random_derivation(g, &mut rng, 6);
        let parsed = tree::parse_full(g, &s);
        if too_ambiguous(g, &parsed) {
            continue;
        }
        if !r.is_complete(&s) {
            // Maximal munch lexed it differently: then it must be an error.
            let e = parsed.expect_err(label);
            check_error_position(&r, &s, &e);
            continue;
        }
        let out = parsed.unwrap_or_else(|e| {
            panic!(
                "{label}: {:?} is a sentence but: {e}\n{}",
                String::from_utf8_lossy(&s),
                g.report()
            )
        });
        check_output(g, &s, &out);
        // Only a generalized grammar can have several trees for one input;
        // the reference builds one of them, not necessarily the one chosen.
        assert!(!out.ambiguous || !g.is_ll1(), "{label}");
        if comparable && !out.ambiguous {
            let reference = reference_tree(original, g, &s, &out);
            assert_eq!(
                reference.as_ref(),
                Some(&out.tree),
                "{label}: {:?}\nreference {}\nparsed    {:#}\n{}",
                String::from_utf8_lossy(&s),
                reference
                    .as_ref()
                    .map_or("-".to_string(), |t| format!("{t:#}")),
                out.tree,
                g.report()
            );
            compared += 1;
        }
        for _ in 0..3 {
            let m = mutate(&mut rng, &s, alphabet);
            let res = tree::parse_full(g, &m);
            if too_ambiguous(g, &res) {
                continue;
            }
            assert_eq!(
                res.is_ok(),
                r.is_complete(&m),
                "{label}: {:?}",
                String::from_utf8_lossy(&m)
            );
            match res {
                Ok(out) => check_output(g, &m, &out),
                Err(e) => check_error_position(&r, &m, &e),
            }
        }
    }
    compared
}

/// A random Lark grammar with rule kinds, aliases, anonymous literals and
/// regexes, hidden terminals, EBNF and left recursion.
fn random_lark(seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let n_rules = rng.random_range(1..=4);
    let names: Vec<String> = (0..n_rules)
        .map(|i| {
            if i == 0 {
                "start".to_string()
            } else if rng.random_bool(0.25) {
                format!("_r{i}")
            } else {
                format!("r{i}")
            }
        })
        .collect();
    let atoms = [
        "A", "B", "_H", "NUM", "\"x\"", "\"y\"", "\"(\"", "\")\"", "\",\"", "/z+/", "\"xy\"",
    ];
    let atom = |rng: &mut StdRng| atoms[rng.random_range(0..atoms.len())].to_string();
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        // An item after an alternative's head: a terminal, a later rule, now
        // and then any rule, sometimes with EBNF around it.
        let item = |rng: &mut StdRng| -> String {
            let pick = rng.random_range(0..10);
            let base = if pick < 5 || i + 1 >= n_rules && pick < 9 {
                atom(rng)
            } else if pick < 9 {
                names[rng.random_range(i + 1..n_rules)].clone()
            } else {
                names[rng.random_range(0..n_rules)].clone()
            };
            match rng.random_range(0..12) {
                0 => format!("{base}?"),
                1 => format!("{base}*"),
                2 => format!("{base}+"),
                3 => format!("[{base} \",\"]"),
                4 => format!("({base} | {})", atom(rng)),
                _ => base,
            }
        };
        let prefix = if name.starts_with('_') || rng.random_bool(0.6) {
            ""
        } else {
            "?"
        };
        let mut alts: Vec<Vec<String>> = Vec::new();
        for k in 0..rng.random_range(1..=3) {
            let mut items: Vec<String> = match rng.random_range(0..10) {
                // Shares a prefix with an earlier alternative: needs factoring.
                0..=2 if k > 0 => {
                    let prev = &alts[rng.random_range(0..alts.len())];
                    let keep = rng.random_range(1..=prev.len().max(1)).min(prev.len());
                    prev[..keep].to_vec()
                }
                3 if k > 0 => Vec::new(),
                _ => vec![atom(&mut rng)],
            };
            for _ in 0..rng.random_range(0..=2) {
                items.push(item(&mut rng));
            }
            if k == 0 && i + 1 < n_rules {
                items.push(names[i + 1].clone());
            }
            alts.push(items);
        }
        let mut texts: Vec<String> = alts
            .iter()
            .enumerate()
            .map(|(k, items)| {
                let mut alt = if items.is_empty() {
                    "\"\"".to_string()
                } else {
                    items.join(" ")
                };
                if rng.random_bool(0.35) {
                    alt.push_str(&format!(" -> a{i}_{k}"));
                }
                alt
            })
            .collect();
        // Left recursion: `name: name TERM item?`.
        for k in 0..rng.random_range(0..=2) {
            let mut alt = format!("{name} {}", atom(&mut rng));
            if rng.random_bool(0.4) {
                alt.push(' ');
                alt.push_str(&item(&mut rng));
            }
            if rng.random_bool(0.5) {
                alt.push_str(&format!(" -> l{i}_{k}"));
            }
            texts.push(alt);
        }
        out.push_str(&format!("{prefix}{name}: {}\n", texts.join(" | ")));
    }
    out.push_str("A: \"a\"\nB: /b+/\n_H: \"h\"\nNUM: /[0-9]+/\n");
    if rng.random_bool(0.6) {
        out.push_str("%ignore \" \"\n");
    }
    out
}

#[test]
fn random_lark_grammars_agree_with_the_recognizer_and_the_reference() {
    let alphabet = b"abhxyz09(), ";
    let (mut compiled, mut with_tails, mut factored, mut compared) = (0, 0, 0, 0);
    for seed in 0..1500u64 {
        let src = random_lark(seed);
        let Ok(original) = parse_grammar(&src) else {
            continue;
        };
        let Ok(g) = CompiledGrammar::new(&original) else {
            continue;
        };
        compiled += 1;
        with_tails += usize::from(g.report().tails().next().is_some());
        factored += usize::from(
            g.report()
                .rewrites
                .iter()
                .any(|r| r.kind == RewriteKind::LeftFactoring),
        );
        compared += exercise(
            &original,
            &g,
            seed,
            alphabet,
            &format!("seed {seed}\n{src}"),
        );
    }
    eprintln!("{compiled} grammars compiled, {with_tails} with left-recursion tails, {factored} factored, {compared} trees compared");
    assert!(
        compiled >= 250 && with_tails >= 100 && factored >= 50 && compared >= 2000,
        "{compiled} {with_tails} {factored} {compared}"
    );
}

#[test]
fn random_builder_grammars_agree_with_the_recognizer_and_the_reference() {
    let alphabet = b"abcxyz01(),\" \xc3\xa9";
    let (mut compiled, mut compared) = (0, 0);
    for seed in 0..300u64 {
        let Some(original) = common::random_grammar(seed).build() else {
            continue;
        };
        let Ok(g) = CompiledGrammar::new(&original) else {
            continue;
        };
        compiled += 1;
        compared += exercise(
            &original,
            &g,
            seed,
            alphabet,
            &format!("builder seed {seed}"),
        );
    }
    eprintln!("{compiled} builder grammars compiled, {compared} trees compared");
    assert!(compiled >= 50 && compared >= 300, "{compiled} {compared}");
}

#[test]
fn hand_written_grammars_agree_with_the_reference() {
    let grammars: &[(&str, &[u8])] = &[
        (ARITH, b"0123456789+-*/() "),
        (
            r#"
            start: stmt*
            ?stmt: NAME "=" expr ";" -> assign | NAME "(" [expr ("," expr)*] ")" ";" -> call | "{" stmt* "}" -> block
            ?expr: expr "." NAME -> field | expr "[" expr "]" -> index | NAME | NUM
            NAME: /[a-z]+/
            NUM: /[0-9]+/
            %ignore " "
            "#,
            b"abxy01=;(),{}.[] ",
        ),
        (
            r#"
            ?start: _list
            _list: _list "," item | item
            item: KEY [":" VALUE] -> pair
            KEY: /k[0-9]/
            VALUE: /v[0-9]*/
            "#,
            b"k1v2:,",
        ),
    ];
    let mut compared = 0;
    for (i, (src, alphabet)) in grammars.iter().enumerate() {
        let original = grammar(src);
        let g = compile(src);
        for round in 0..20 {
            compared += exercise(&original, &g, 1000 * i as u64 + round, alphabet, src);
        }
    }
    assert!(compared > 200, "{compared}");
}

/// Each error kind of the tree parser, asserted by kind.
#[test]
fn parse_error_kinds() {
    // Member lists in any order have no tree form yet.
    let sets = (0..50)
        .find_map(|seed| common::random_member_grammar(seed).compile())
        .expect("a member-set grammar compiles");
    let e = tree::parse_full(&sets, b"()").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::UnsupportedGrammar, "{e}");
    // UnexpectedToken (a lexeme the parser cannot take) does not occur: the
    // lexer's candidates are exactly what the stack takes. Here "b" follows
    // `x` in one place only, and after "z" it is no candidate at all.
    let g = compile("start: x \"b\" | \"z\" x \"c\"\nx: \"a\" |\n");
    let e = tree::parse_full(&g, b"zb").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::UnexpectedByte, "{e}");
    let mut expected = e.expected().to_vec();
    expected.sort();
    assert_eq!(expected, ["\"a\"", "\"c\""], "{e}");
    let json = json_compiled();
    let e = tree::parse_full(&json, b"[1.]").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::InvalidLexeme, "{e}");
    let e = tree::parse_full(&json, b"[1").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::UnexpectedEnd, "{e}");
}
