//! Regex literals: Python's dialect read into regex-automata's, flags,
//! lookarounds within the lexeme, and invalid regexes with positions.

use super::*;

#[test]
fn hidden_terminals_and_regex_flags() {
    let g = ok("start: _SEP A B\n_SEP: /,\\s*/\nA: /a.b/s\nB: /b c # comment [\n/x\n");
    assert!(term(&g, "_SEP").hidden);
    assert_eq!(regex(&g, "A"), "(?s:a.b)");
    assert!(full_match(&regex(&g, "A"), "a\nb"));
    assert!(full_match(&regex(&g, "B"), "bc"));
}

#[test]
fn python_regex_dialect() {
    let g = ok(r#"start: A B C D E F
A: /\<[[]\>/
B: /{x}/
C: /[a&&b]/
D: /".*?"/
E: /a{2,3}?b??/
F: /[+--]/
"#);
    assert!(full_match(&regex(&g, "A"), "<[>"));
    assert!(full_match(&regex(&g, "B"), "{x}"));
    assert!(full_match(&regex(&g, "C"), "&"));
    assert_eq!(regex(&g, "D"), "\".*?\"");
    assert_eq!(regex(&g, "E"), "a{2,3}?b??");
    assert!(full_match(&regex(&g, "F"), ","));
}

#[test]
fn invalid_regexes_point_into_the_regex() {
    let e = err("start: A\nA: /ab(c/\n");
    assert_diag(
        &e,
        DiagnosticKind::InvalidRegex,
        2,
        7,
        &["invalid regex `/ab(c/`", "unclosed group"],
    );
    let e = err("start: /a{3,2}/\n");
    assert!(e.has_kind(DiagnosticKind::InvalidRegex), "{e}");
}

/// `\w` means what Python's `re` means: letters, numbers and `_`, but not
/// the combining marks and joiners that Unicode's `\w` adds, which Lark
/// would refuse in a name.
#[test]
fn word_class_is_pythons() {
    let g =
        crate::compiled::CompiledGrammar::new(&ok("start: NAME\nNAME: /\\w+/\nOTHER: /[\\w-]+/\n"))
            .unwrap();
    let accepts = |s: &str| crate::runtime::tree::parse(&g, s).is_ok();
    assert!(accepts("é1_x"));
    assert!(accepts("名字٣"));
    assert!(!accepts("a\u{0DD8}"), "a combining mark");
    assert!(!accepts("a\u{200C}b"), "a zero-width non-joiner");
    assert!(!accepts("a-b"));
}

/// The same inside a class (`[^\W\d]`, a name's first character) and for
/// `\s`, which in Python also holds the separators `\x1c`..`\x1f`.
#[test]
fn negated_and_space_classes_are_pythons() {
    let g = ok("start: NAME (\" \" NAME)*\nNAME: /[^\\W\\d]\\w*/\n");
    let g = crate::compiled::CompiledGrammar::new(&g).unwrap();
    let accepts = |s: &str| crate::runtime::tree::parse(&g, s).is_ok();
    assert!(accepts("é1 x_2"));
    assert!(!accepts("\u{0347}a"), "a combining mark first");
    assert!(!accepts("1a"));
    let g = ok("start: \"(\" S? \")\"\nS: /[\\s-]+/\n");
    let g = crate::compiled::CompiledGrammar::new(&g).unwrap();
    let accepts = |s: &str| crate::runtime::tree::parse(&g, s).is_ok();
    assert!(accepts("(\u{1c})"), "a file separator is Python space");
    assert!(accepts("( -\u{3000})"));
    assert!(!accepts("(\u{200B})"), "a zero-width space is not");
}

#[test]
fn lookarounds_are_compiled_within_the_lexeme() {
    // common.lark's ESCAPED_STRING carries a lookbehind into the terminal
    // that uses it.
    let g = ok("%import common.ESCAPED_STRING\nstart: ESCAPED_STRING\n");
    let c = crate::compiled::CompiledGrammar::new(&g).unwrap();
    assert!(c.warnings().is_empty(), "{:?}", c.warnings());
    let dfa = crate::lexer::TerminalDfa::new(&regex(&g, "ESCAPED_STRING")).unwrap();
    for (s, m) in [
        (r#""a\"b""#, true),
        (r#""a\\""#, true),
        (r#""a\""#, false),
        (r#""a"b""#, false),
    ] {
        assert_eq!(dfa.matches(s.as_bytes()), m, "{s}");
    }
    // lark.lark's OP looks at the byte after its lexeme: compiled, with a
    // warning that says where gcd and Python part.
    let g = ok("start: (OP | NAME)+\nOP: /[+*]|[?](?![a-z])/\nNAME: /[a-z]+/\n%ignore \" \"\n");
    let c = crate::compiled::CompiledGrammar::new(&g).unwrap();
    let w = c.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].warning && w[0].message.contains("terminal `OP` can look past the end"),
        "{}",
        w[0]
    );
}

#[test]
fn locale_regex_flag_is_refused_and_unicode_is_python_s_default() {
    // Lark 1.3.1 refuses `/[abc]/l` (Python refuses the flag for text
    // patterns) and reads `/x/u` as `/x/`.
    let e = err("start: A\nA: /[abc]/l\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        2,
        4,
        &["flag `l`", "/[abc]/l"],
    );
    let g = ok("start: A\nA: /x/u\n");
    assert_eq!(regex(&g, "A"), regex(&ok("start: A\nA: /x/\n"), "A"));
}
