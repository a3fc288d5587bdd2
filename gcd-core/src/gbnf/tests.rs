//! Hand-computed languages and every misuse's error.

use super::*;
use crate::compiled::CompiledGrammar;
use crate::error::DiagnosticKind;
use crate::runtime::recognizer::Recognizer;

fn compile(src: &str, merge: bool) -> CompiledGrammar {
    let options = Options {
        merge,
        ..Options::default()
    };
    let (b, _) = parse_with_options(src, &options).unwrap_or_else(|e| panic!("{src}: {e}"));
    let g = b.build().unwrap_or_else(|e| panic!("{src}: {e}"));
    CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Checks `yes` are sentences and `no` are not, with merging on and off.
fn language(src: &str, yes: &[&str], no: &[&str]) {
    for merge in [true, false] {
        let c = compile(src, merge);
        let r = Recognizer::new(&c);
        for s in yes {
            assert!(
                r.is_complete(s.as_bytes()),
                "{src} (merge {merge}) refuses {s:?}"
            );
        }
        for s in no {
            assert!(
                !r.is_complete(s.as_bytes()),
                "{src} (merge {merge}) accepts {s:?}"
            );
        }
    }
}

#[test]
fn maximal_munch_does_not_swallow_the_next_class() {
    language("root ::= [a-z]+ [a-z]", &["ab", "abc"], &["a", ""]);
    language("root ::= [a-z]* \"a\"", &["a", "ba", "aaa"], &["ab", ""]);
}

#[test]
fn overlapping_classes_keep_both_derivations() {
    language(
        "root ::= [a-z] \"x\" | \"a\" \"y\"",
        &["ax", "ay", "bx"],
        &["by", "a", "axy"],
    );
}

#[test]
fn escapes_mean_their_characters() {
    language(
        r#"root ::= "\x41\u00e9\U0001F600\t\n\r\\\"\[\]\-""#,
        &["A\u{e9}\u{1F600}\t\n\r\\\"[]-"],
        &["A"],
    );
    language(r"root ::= [\x00-\x1F]", &["\u{0}", "\u{1f}"], &[" "]);
}

#[test]
fn classes_negation_and_any_character() {
    language(
        r#"root ::= [^"\\]"#,
        &["a", "\u{e9}", "\u{1F600}", "\n"],
        &["\"", "\\", "ab"],
    );
    language("root ::= .", &["\n", "a", "\u{1F600}"], &["", "ab"]);
    language("root ::= [a-c-]", &["a", "b", "-"], &["d"]);
    language("root ::= [-a]", &["-", "a"], &["b"]);
    language("root ::= [0-9a-fA-F]+", &["09af", "F"], &["g", ""]);
}

#[test]
fn non_ascii_characters_sharing_a_first_byte() {
    // é and è both start with 0xC3.
    language("root ::= \"é\"* \"è\"", &["è", "ééè"], &["é", "èè", ""]);
    language("root ::= [é-ê]+ \"è\"", &["éè", "êêè"], &["è", "é"]);
}

#[test]
fn repetitions() {
    language(
        "root ::= \"ab\"{2,3}",
        &["abab", "ababab"],
        &["ab", "abababab"],
    );
    language("root ::= \"a\"{2}", &["aa"], &["a", "aaa"]);
    language("root ::= \"a\"{2,}", &["aa", "aaaaa"], &["a"]);
    language("root ::= \"a\"{,2}", &["", "a", "aa"], &["aaa"]);
    language("root ::= \"a\"{0}", &[""], &["a"]);
    language(
        "root ::= (\"a\" | \"bc\")? \"d\"+",
        &["d", "ad", "bcdd"],
        &["abcd", "a"],
    );
    language("root ::= (\"a\"?)* \"b\"", &["b", "aab"], &["a"]);
}

#[test]
fn comments_line_breaks_and_empty_alternatives() {
    let src =
        "# a comment\nroot ::= (\n  \"a\" # inside\n  | \"b\"\n) x\nx ::= | \"c\" |\n  \"d\"\n";
    language(src, &["a", "b", "ac", "bd"], &["c", "ab", "acd"]);
    language("root ::= \"\"", &[""], &["a"]);
    language("root ::= \"a\"\r\nb ::= \"c\"\r\n", &["a"], &["c"]);
}

#[test]
fn recursion_and_left_recursion() {
    let parens = "root ::= \"(\" root \")\" root | \"\"";
    language(parens, &["", "()", "(())()"], &["(", ")(", "(()"]);
    language("root ::= root \"a\" | \"b\"", &["b", "baa"], &["a", "ab"]);
}

#[test]
fn rules_used_as_regular_pieces() {
    let src = r#"root ::= "[" ws (item ("," ws item)*)? "]"
item ::= "\"" char* "\"" ws
char ::= [^"\\] | "\\" ["\\n]
ws ::= [ \n]*
"#;
    language(
        src,
        &["[]", "[ \"a\\\"\" ]", "[\"\",  \"x\"]", "[\"é\" ,\"\\\\\"]"],
        &["[", "[\"a]", "[\"\\q\"]", "[,]"],
    );
}

#[test]
fn merging_makes_few_terminals_where_it_is_sound() {
    let json = r#"root ::= value
value ::= object | array | string | number | ("true" | "false" | "null") ws
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
array ::= "[" ws ( value ("," ws value)* )? "]" ws
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}) )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws
ws ::= | " " | "\n" [ \t]{0,20}
"#;
    let (_, report) = parse_with_options(json, &Options::default()).unwrap();
    assert!(
        !report.gave_up && report.merged_terminals >= 4,
        "{report:?}"
    );
    language(
        json,
        &[
            "{\"a\": [1, -2.5e+3, true], \"b\": {}}",
            "\"\\u00e9\"",
            "[ ]",
        ],
        &["{\"a\" 1}", "[1,]", "01", "\"\\x\""],
    );
    // Strings and numbers are whole terminals: far fewer than characters.
    let c = compile(json, true);
    assert!(
        c.grammar().terminals.len() < 30,
        "{}",
        c.grammar().terminals.len()
    );
}

#[test]
fn a_merged_run_is_one_regex_so_nothing_inside_it_is_swallowed() {
    let src = "root ::= \"x\" [a-z]+ [a-z] \"y\"";
    let (_, report) = parse_with_options(src, &Options::default()).unwrap();
    assert_eq!(
        (report.merged_terminals, report.rounds),
        (1, 1),
        "{report:?}"
    );
    language(src, &["xaby"], &["xay"]);
}

#[test]
fn a_merge_extended_by_what_follows_is_undone() {
    // `r` is recursive, so `[a-z]+` is a run of its own, and `r` starts
    // with a letter that would extend its lexeme.
    let src = "root ::= [a-z]+ r\nr ::= [a-z] | [a-z] r";
    let (_, report) = parse_with_options(src, &Options::default()).unwrap();
    assert!(report.rounds >= 2 && !report.gave_up, "{report:?}");
    language(src, &["ab", "abc"], &["a", ""]);
}

#[test]
fn a_merge_with_a_rival_at_its_start_is_undone() {
    let src = "root ::= [a-z]+ \"x\" | \"a\" r\nr ::= \"y\" | \"y\" r";
    let (_, report) = parse_with_options(src, &Options::default()).unwrap();
    assert!(report.rounds >= 2 && !report.gave_up, "{report:?}");
    language(src, &["ax", "abx", "ay", "ayy", "ayx"], &["a", "ayz", "x"]);
}

fn error(src: &str) -> GrammarError {
    match parse(src).and_then(|b| b.build()) {
        Ok(_) => panic!("{src:?} was accepted"),
        Err(e) => e,
    }
}

/// The first diagnostic's kind, `line:col` and message contain `what`.
fn expect_error(src: &str, kind: DiagnosticKind, at: &str, what: &str) {
    let e = error(src);
    let d = &e.diagnostics()[0];
    assert_eq!(d.kind, kind, "{src:?}: {e}");
    let span = d.span.map(|s| s.to_string()).unwrap_or_default();
    assert_eq!(span, at, "{src:?}: {e}");
    assert!(d.message.contains(what), "{src:?}: {e}");
}

#[test]
fn misuse_is_a_clear_error_with_its_position() {
    use DiagnosticKind::*;
    expect_error(
        "root ::= foo",
        Undefined,
        "1:10",
        "rule `foo` is used in `root`",
    );
    expect_error("start ::= \"a\"", Undefined, "", "no rule named `root`");
    expect_error(
        "root ::= \"a\"\nroot ::= \"b\"",
        Duplicate,
        "2:1",
        "defined twice",
    );
    expect_error("root ::= \"\\q\"", Syntax, "1:11", "unknown escape `\\q`");
    expect_error(
        "root ::= \"\\x4\"",
        Syntax,
        "1:11",
        "exactly 2 hexadecimal digits",
    );
    expect_error(
        "root ::= \"\\uD800\"",
        Syntax,
        "1:11",
        "not a Unicode scalar value",
    );
    expect_error("root ::= \"abc", Syntax, "1:10", "unterminated literal");
    expect_error(
        "root ::= [abc",
        Syntax,
        "1:10",
        "unterminated character class",
    );
    expect_error("root ::= []", Syntax, "1:10", "empty character class");
    expect_error("root ::= [z-a]", Syntax, "1:11", "range `z-a` is empty");
    expect_error(
        "root ::= [^\\x00-\\U0010FFFF]",
        Syntax,
        "1:10",
        "excludes every character",
    );
    expect_error(
        "root ::= \"a\"{3,2}",
        Syntax,
        "1:13",
        "maximum below its minimum",
    );
    expect_error("root ::= \"a\"{x}", Syntax, "1:13", "expected a number");
    expect_error("root ::= \"a\"{2", Syntax, "1:13", "malformed repetition");
    expect_error("root ::= \"a\"{,}", Syntax, "1:13", "gives no bound");
    expect_error("root ::= \"a\"{99999999999}", Syntax, "1:14", "too large");
    expect_error("root ::= * \"a\"", Syntax, "1:10", "no item before it");
    expect_error("root ::= (\"a\"", Syntax, "1:10", "never closed");
    expect_error("root ::= \"a\")", Syntax, "1:13", "without a matching `(`");
    expect_error("root := \"a\"", Syntax, "1:6", "expected `::=`");
    expect_error("root ::= <think>", Syntax, "1:10", "token references");
    expect_error("root ::= \"a\" ; \"b\"", Syntax, "1:14", "expected an item");
    expect_error("::= \"a\"", Syntax, "1:1", "expected a rule name");
    expect_error("", Syntax, "", "no rules");
    expect_error(
        "root ::= \"a\"{1000000}",
        TooLarge,
        "1:1",
        "Limits::max_rule_expansion",
    );
    let deep = format!("root ::= {}\"a\"{}", "(".repeat(100), ")".repeat(100));
    expect_error(&deep, Syntax, "1:74", "nested more than 64 deep");
}

#[test]
fn every_undefined_rule_is_reported() {
    let e = error("root ::= a b\nx ::= c");
    let undefined = (e.diagnostics().iter())
        .filter(|d| d.kind == DiagnosticKind::Undefined)
        .count();
    assert_eq!(undefined, 3, "{e}");
}
