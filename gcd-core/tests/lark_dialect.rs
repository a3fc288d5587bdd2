//! llguidance's spellings in gcd's Lark dialect: `x{m,n}` repetition means
//! what Lark's `x ~ m..n` means (and `x{m,}` what `x ~ m` then `x*` means),
//! checked by the language each accepts over short strings.

mod common;

use common::byte_tokens::{byte_matcher as matcher, language};

#[test]
fn brace_counts_mean_lark_ranges() {
    let ab = b"ab";
    for (llg, lark) in [
        (r#"start: "a"{2,3} "b""#, r#"start: "a" ~ 2..3 "b""#),
        (r#"start: "a"{2} "b""#, r#"start: "a" ~ 2 "b""#),
        (r#"start: "a"{,2} "b""#, r#"start: "a" ~ 0..2 "b""#),
        (r#"start: "a"{2,} "b""#, r#"start: "a" ~ 2 "a"* "b""#),
        (
            r#"start: x{1,2}
x: "a" "b"?"#,
            r#"start: x ~ 1..2
x: "a" "b"?"#,
        ),
        (r#"start: ("a" | "b"){3}"#, r#"start: ("a" | "b") ~ 3"#),
        (
            "A: /a/{2,3}\nstart: A \"b\"",
            "A: /a/ ~ 2..3\nstart: A \"b\"",
        ),
    ] {
        let (l1, l2) = (
            language(&matcher(llg, ab), ab, 6),
            language(&matcher(lark, ab), ab, 6),
        );
        assert!(!l1.is_empty(), "{llg}");
        assert_eq!(l1, l2, "{llg}  vs  {lark}");
    }
}

#[test]
fn brace_counts_next_to_templates_and_errors() {
    // A template's arguments are never numbers: both forms live together.
    let src = "_two{x}: x x\nstart: _two{\"a\"} \"b\"{1,2}";
    let l = language(&matcher(src, b"ab"), b"ab", 5);
    assert_eq!(l, [b"aab".to_vec(), b"aabb".to_vec()]);
    for (bad, says) in [
        (r#"start: "a"{3,2}"#, "maximum must be at least the minimum"),
        (r#"start: "a"{2"#, "`}`"),
        (r#"start: "a"+{2}"#, "only one operator"),
    ] {
        let e = gcd_core::lark::parse_grammar(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

#[test]
fn terminals_that_match_the_empty_string_are_optional_uses() {
    // llguidance's grammars write `TEXT: (...)*`; read as `TEXT'?` where
    // TEXT' is TEXT without "": the same strings either way.
    let ab = b"ab";
    for (empty, explicit) in [
        (
            "start: \"b\" A \"b\"\nA: /a*/",
            "start: \"b\" A? \"b\"\nA: /a+/",
        ),
        (
            "start: A (\"b\" A)*\nA: (\"a\" | \"aa\")*",
            "start: A? (\"b\" A?)*\nA: (\"a\" | \"aa\")+",
        ),
        ("start: \"b\" /a?/ \"b\"", "start: \"b\" \"a\"? \"b\""),
        (
            "start: \"b\" \"b\"\n%ignore /a*/",
            "start: \"b\" \"b\"\n%ignore /a+/",
        ),
    ] {
        let (l1, l2) = (
            language(&matcher(empty, ab), ab, 6),
            language(&matcher(explicit, ab), ab, 6),
        );
        assert!(l1.contains(&b"bb".to_vec()), "{empty}: {l1:?}");
        assert_eq!(l1, l2, "{empty}  vs  {explicit}");
    }
}

#[test]
fn repetitions_of_rules_that_can_be_empty_keep_their_language() {
    // `(x | "b")*` with `x` nullable loops on nothing; read as repeating
    // its non-empty part, the language is the same as the one written
    // without the empty string.
    let abc = b"abc";
    for (nullable, explicit) in [
        (
            "start: (x | \"b\")* \"c\"\nx: \"a\"?",
            "start: (\"a\" | \"b\")* \"c\"",
        ),
        (
            "start: (x y)+ \"c\"\nx: \"a\"?\ny: \"b\" | ",
            "start: (\"a\" | \"b\" | \"a\" \"b\")* \"c\"",
        ),
        (
            "start: \"c\" (x | y)*\nx: \"a\" | y y\ny: \"b\"?",
            "start: \"c\" (\"a\" | \"b\")*",
        ),
        ("start: \"c\" x*\nx: (\"a\" x)?", "start: \"c\" \"a\"*"),
    ] {
        let (l1, l2) = (
            language(&matcher(nullable, abc), abc, 5),
            language(&matcher(explicit, abc), abc, 5),
        );
        assert!(l1.len() > 4, "{nullable}: {l1:?}");
        assert_eq!(l1, l2, "{nullable}  vs  {explicit}");
    }
}
