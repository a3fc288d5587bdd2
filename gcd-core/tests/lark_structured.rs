//! llguidance's `%regex { ... }` lexemes (substrings of a text at chunk
//! boundaries), its `%llguidance { ... }` options header and its rule
//! attributes (`[lazy]`; the others, and `stop`'s refusal, are in
//! `lark_attributes.rs`): languages against the definition (every
//! contiguous run of the chunks; a lazy lexeme ending at its first match),
//! and the refusals.

mod common;

use std::collections::BTreeSet;

use common::byte_tokens::byte_matcher;
use gcd_core::DiagnosticKind;

/// Every string over `alphabet` up to `len` bytes that `src` accepts whole.
fn language(src: &str, alphabet: &[u8], len: usize) -> BTreeSet<Vec<u8>> {
    let m = byte_matcher(src, alphabet);
    common::byte_tokens::language(&m, alphabet, len)
        .into_iter()
        .collect()
}

/// `lst[n:m].join("")` for every `n <= m`, wrapped in `before` and `after`,
/// up to `len` bytes: the definition, by brute force.
fn runs(chunks: &[&str], before: &str, after: &str, len: usize) -> BTreeSet<Vec<u8>> {
    let mut out = BTreeSet::new();
    for n in 0..=chunks.len() {
        for m in n..=chunks.len() {
            let s = format!("{before}{}{after}", chunks[n..m].concat()).into_bytes();
            if s.len() <= len {
                out.insert(s);
            }
        }
    }
    out
}

#[test]
fn substring_chunks_are_contiguous_runs() {
    let chunks = ["abc", "de", "fg"];
    let src = "start: T\nT: %regex { \"substring_chunks\": [\"abc\", \"de\", \"fg\"] }";
    let got = language(src, b"abcdefg", 7);
    assert_eq!(got, runs(&chunks, "", "", 7));
    // llguidance's examples: `ab` and `cde` are not runs.
    assert!(got.contains(&b"abcde".to_vec()) && got.contains(&b"defg".to_vec()));
    assert!(!got.contains(&b"ab".to_vec()) && !got.contains(&b"cde".to_vec()));
    // In a rule, between other lexemes, and empty there too.
    let src = "start: \"<\" %regex { \"substring_chunks\": [\"a\", \"b\", \"a\"] } \">\"";
    assert_eq!(
        language(src, b"ab<>", 5),
        runs(&["a", "b", "a"], "<", ">", 5)
    );
}

#[test]
fn substring_words_and_chars_cut_like_llguidance() {
    // As llguidance 1.9 cuts them: runs of word characters, of blanks and
    // of other characters.
    for (text, chunks, alphabet) in [
        (
            "foo bar. baz",
            &["foo", " ", "bar", ".", " ", "baz"][..],
            &b"fobarz. "[..],
        ),
        ("ab  c.d", &["ab", "  ", "c", ".", "d"][..], &b"abc .d"[..]),
        ("a..b", &["a", "..", "b"][..], &b"ab."[..]),
        ("a_1-b", &["a_1", "-", "b"][..], &b"a_1-b"[..]),
    ] {
        let src = format!("start: T\nT: %regex {{ \"substring_words\": {text:?} }}");
        assert_eq!(
            language(&src, alphabet, 6),
            runs(chunks, "", "", 6),
            "{text}"
        );
    }
    let src = "start: T\nT: %regex { \"substring_chars\": \"ab c\" }";
    assert_eq!(
        language(src, b"abc ", 4),
        runs(&["a", "b", " ", "c"], "", "", 4)
    );
}

#[test]
fn structured_regex_misuses_are_errors_naming_them() {
    for (form, kind, says) in [
        (
            "{ \"type\": \"substring\", \"chunks\": [\"a\"] }",
            DiagnosticKind::Unsupported,
            "form `\"type\": \"substring\"` is not supported",
        ),
        (
            "{ \"type\": \"number\", \"minimum\": 1 }",
            DiagnosticKind::Unsupported,
            "form `\"type\": \"number\"` is not supported",
        ),
        (
            "{ \"regex\": \"a+\" }",
            DiagnosticKind::Unsupported,
            "field `regex` is not supported",
        ),
        (
            "{ \"substring_chunks\": [\"a\"], \"substring_chars\": \"b\" }",
            DiagnosticKind::Syntax,
            "exactly one of",
        ),
        ("{}", DiagnosticKind::Syntax, "found none"),
        (
            "{ \"substring_chunks\": \"a\" }",
            DiagnosticKind::Syntax,
            "takes a list of strings",
        ),
        (
            "{ \"substring_words\": 3 }",
            DiagnosticKind::Syntax,
            "takes a string",
        ),
        (
            "{ \"substring_words\": }",
            DiagnosticKind::Syntax,
            "not JSON",
        ),
    ] {
        let src = format!("start: T\nT: %regex {form}");
        let e = gcd_core::lark::parse_grammar(&src).unwrap_err();
        let d = &e.diagnostics()[0];
        assert_eq!(d.kind, kind, "{src}: {e}");
        assert!(d.message.contains(says), "{src}: {e}");
    }
    let e = gcd_core::lark::parse_grammar("start: %regex").unwrap_err();
    assert!(
        e.to_string().contains("`%regex` must be followed by"),
        "{e}"
    );
    // Only the empty string: like `""`, nothing in a rule, an error as a
    // terminal.
    let src = "start: \"a\" %regex { \"substring_chunks\": [] } \"b\"";
    assert_eq!(language(src, b"ab", 3), BTreeSet::from([b"ab".to_vec()]));
    let e = gcd_core::lark::parse_grammar("start: T\nT: %regex { \"substring_chars\": \"\" }")
        .unwrap_err();
    assert_eq!(e.diagnostics()[0].kind, DiagnosticKind::EmptyMatch, "{e}");
}

#[test]
fn llguidance_options_are_honoured_or_refused_by_name() {
    // What gcd does anyway: accepted, the language unchanged.
    let plain = language("start: \"a\" \"b\"\n%ignore \" \"", b"ab ", 4);
    for header in [
        "%llguidance {}",
        "%llguidance { \"no_forcing\": true }",
        "%llguidance { \"no_forcing\": false, \"allow_invalid_utf8\": false }",
        "%llguidance { \"allow_initial_skip\": true }\n%llguidance {}",
    ] {
        let src = format!("{header}\nstart: \"a\" \"b\"\n%ignore \" \"");
        assert_eq!(language(&src, b"ab ", 4), plain, "{header}");
    }
    // gcd lets ignored text lead, as `allow_initial_skip: true` asks.
    assert!(plain.contains(&b" ab".to_vec()));
    for (header, kind, says) in [
        (
            "%llguidance { \"allow_invalid_utf8\": true }",
            DiagnosticKind::Unsupported,
            "`allow_invalid_utf8: true` is not supported",
        ),
        (
            "%llguidance { \"allow_initial_skip\": false }",
            DiagnosticKind::Unsupported,
            "`allow_initial_skip: false` is not supported",
        ),
        (
            "%llguidance { \"skip_repetition\": \"once\" }",
            DiagnosticKind::Unsupported,
            "`skip_repetition` (\"once\") is not supported",
        ),
        (
            "%llguidance { \"lenient\": true }",
            DiagnosticKind::Unsupported,
            "option `lenient` is not supported",
        ),
        (
            "%llguidance { \"no_forcing\": 3 }",
            DiagnosticKind::Syntax,
            "takes true or false",
        ),
        (
            "%llguidance [1]",
            DiagnosticKind::Syntax,
            "must be followed by",
        ),
        ("%llguidance", DiagnosticKind::Syntax, "must be followed by"),
    ] {
        let src = format!("{header}\nstart: \"a\"");
        let e = gcd_core::lark::parse_grammar(&src).unwrap_err();
        let d = &e.diagnostics()[0];
        assert_eq!(d.kind, kind, "{src}: {e}");
        assert!(d.message.contains(says), "{src}: {e}");
        assert_eq!(d.span.map(|s| s.start.line), Some(1), "{src}: {e}");
    }
}

#[test]
fn a_lazy_rule_is_one_lexeme_ended_at_its_first_match() {
    // llguidance: `foo[lazy]: /[0-9]+/` matches a single digit.
    let got = language("start: d \"x\"\nd[lazy]: /[0-9]+/", b"12x", 3);
    assert_eq!(got, BTreeSet::from([b"1x".to_vec(), b"2x".to_vec()]));
    // Text up to the first `b`, then any `a`s: `a* b a*`.
    let got = language("start: w \"a\"*\nw[lazy]: /[ab]*b/", b"ab", 4);
    let want: BTreeSet<Vec<u8>> = (0..=3)
        .flat_map(|i| {
            (0..=3 - i).map(move |j| [vec![b'a'; i], b"b".to_vec(), vec![b'a'; j]].concat())
        })
        .collect();
    assert_eq!(got, want);
    // A body made of several pieces and terminals is still one lexeme.
    let got = language("start: w+\nw[lazy]: \"<\" A* \">\"\nA: /[a<>]/", b"a<>", 3);
    assert_eq!(
        got,
        BTreeSet::from([b"<>".to_vec(), b"<a>".to_vec(), b"<<>".to_vec()])
    );
}

#[test]
fn rule_attributes_gcd_does_not_take_are_errors_naming_them() {
    for (src, kind, says) in [
        (
            "start: g\ng[stop=\"\\n\"]: /a+/",
            DiagnosticKind::Unsupported,
            "`stop` (on `g`) is not supported",
        ),
        (
            "start: g\ng[fast]: /a+/",
            DiagnosticKind::Unsupported,
            "unknown rule attribute `fast`",
        ),
        (
            "start: g\ng[lazy=1]: /a+/",
            DiagnosticKind::Syntax,
            "`lazy` takes no value",
        ),
        (
            "start: g\ng[lazy: /a+/",
            DiagnosticKind::Syntax,
            "`,` or `]`",
        ),
        (
            "start: G\nG[lazy]: /a+/",
            DiagnosticKind::Syntax,
            "terminal `G` cannot take attributes",
        ),
        (
            "start: g\ng[lazy]: h\nh: \"a\"",
            DiagnosticKind::Syntax,
            "cannot use rule `h`",
        ),
        (
            "start: g\ng[lazy]: /a/ & ~/b/",
            DiagnosticKind::Unsupported,
            "cannot make lazy",
        ),
    ] {
        common::assert_refused(src, kind, says, Some(2));
    }
}
