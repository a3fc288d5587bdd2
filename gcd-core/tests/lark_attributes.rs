//! llguidance's rule attributes beside `[lazy]`: `[max_tokens=N]` (gcd's
//! lexeme cap, set by the grammar), `[temperature=T]` (a hint the caller
//! reads back), `[capture]` / `[capture="name"]` (named byte ranges of a
//! finished output) and `[suffix="..."]` with `stop_capture` (a lazy
//! lexeme ended by the suffix, left out of the rule's own capture). Languages and captures against hand-computed ones,
//! and the errors for their misuse.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::budget::{generate_from, Strategy};
use common::byte_tokens::byte_matcher;
use gcd_core::grammar::TermId;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::runtime::tree::{parse_full, Capture};
use gcd_core::vocab::VocabErrorKind;
use gcd_core::{BoundGrammar, CompiledGrammar, DiagnosticKind, Matcher, Vocabulary};

fn compile(src: &str) -> Arc<CompiledGrammar> {
    let g = gcd_core::lark::parse_grammar(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    Arc::new(CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}")))
}

/// Every string over `alphabet` up to `len` bytes that `src` accepts whole,
/// one token per byte.
fn language(src: &str, alphabet: &[u8], len: usize) -> BTreeSet<String> {
    let m = byte_matcher(src, alphabet);
    (common::byte_tokens::language(&m, alphabet, len).into_iter())
        .map(|s| String::from_utf8(s).unwrap())
        .collect()
}

fn terminal(c: &CompiledGrammar, name: &str) -> TermId {
    let i = (c.grammar().terminals.iter()).position(|t| t.name == name);
    TermId(i.unwrap_or_else(|| panic!("no terminal {name}")) as u32)
}

/// `a` repeated `n` times.
fn a(n: usize) -> String {
    "a".repeat(n)
}

#[test]
fn max_tokens_caps_the_rules_lexeme_and_no_other() {
    // One token per byte: the capped lexeme holds at most 3 bytes.
    let capped = language("start: \"<\" w \">\"\nw[max_tokens=3]: /a+/", b"<a>", 8);
    let want: BTreeSet<String> = (1..=3).map(|n| format!("<{}>", a(n))).collect();
    assert_eq!(capped, want);
    let plain = language("start: \"<\" w \">\"\nw: /a+/", b"<a>", 8);
    assert_eq!(plain.len(), 6, "{plain:?}");
    // The cap is on the rule's lexeme only: the same terminal, or the same
    // pattern written elsewhere, stays uncapped.
    let want: BTreeSet<String> = (1..=2)
        .flat_map(|i| (1..=6 - i).map(move |j| format!("{},{}", a(i), a(j))))
        .collect();
    for src in [
        "start: w \",\" WORD\nw[max_tokens=2]: WORD\nWORD: /a+/",
        "start: w \",\" /a+/\nw[max_tokens=2]: /a+/",
        "start: w \",\" v\nw[max_tokens=2]: /a+/\nv: /a+/",
    ] {
        assert_eq!(language(src, b"a,", 7), want, "{src}");
    }
    let c = compile("start: w \",\" /a+/\nw[max_tokens=2, lazy]: /a+/");
    let w = terminal(&c, "LEXEME__w");
    assert_eq!(c.grammar().lexeme_cap(w), Some(2));
    assert_eq!(c.grammar().hints.lexeme_caps.len(), 1);
}

/// The most tokens a lexeme of `name` holds in `m`'s finished output (EOS
/// left out), by the tree parser's lexemes and the tokens' byte ranges.
fn most_tokens_in_lexeme(m: &Matcher, name: &str) -> usize {
    let vocab = m.bound().vocab();
    let mut ranges = Vec::new();
    let mut at = 0;
    for &t in m.tokens().iter().filter(|&&t| !vocab.is_eos(t)) {
        let len = vocab.token_bytes(t).unwrap().len();
        ranges.push(at..at + len);
        at += len;
    }
    let g = m.bound().grammar();
    let out = parse_full(g, m.output()).unwrap();
    let w = terminal(g, name);
    (out.lexemes.iter().filter(|l| l.terminal == w))
        .map(|l| {
            (ranges.iter())
                .filter(|r| r.start < l.span.end && l.span.start < r.end)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// A thinking segment capped by the grammar: every generation, whatever
/// tokens it prefers, is valid and spends at most N tokens on it, and some
/// spend exactly N; the cap closes the lexeme rather than cutting it.
#[test]
fn max_tokens_keeps_generation_within_n_tokens_and_valid() {
    let texts = [
        "<t>", "a", "b", "ab", "<", "/", "t", ">", "</t>", "!", "</s>",
    ];
    let tokens = texts.iter().map(|t| t.as_bytes().to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    for n in [1usize, 2, 3, 5, 8] {
        let src = format!("start: \"<t>\" think \"!\"\nthink[max_tokens={n}]: /[ab]*?<\\/t>/");
        let c = compile(&src);
        let bound = Arc::new(BoundGrammar::try_new(c.clone(), vocab.clone()).unwrap());
        let reference = Recognizer::new(&c);
        let mut at_cap = 0;
        for seed in 0..40 {
            for strategy in [Strategy::Uniform, Strategy::Longest, Strategy::Shortest] {
                let m = generate_from(Matcher::new(bound.clone()), strategy, seed, &reference);
                assert!(reference.is_complete(m.output()), "{src}: {:?}", m.output());
                let most = most_tokens_in_lexeme(&m, "LEXEME__think");
                assert!(most <= n, "{src}: {most} tokens: {:?}", m.output());
                at_cap += usize::from(most == n);
            }
        }
        assert!(at_cap > 0, "{src}: no generation reached the cap");
    }
}

#[test]
fn max_tokens_misuses_are_errors() {
    for (src, kind, says) in [
        (
            "start: g\ng[max_tokens=0]: /a+/",
            DiagnosticKind::Syntax,
            "at least 1",
        ),
        (
            "start: g\ng[max_tokens=\"3\"]: /a+/",
            DiagnosticKind::Syntax,
            "takes a number",
        ),
        (
            "start: g\ng[max_tokens]: /a+/",
            DiagnosticKind::Syntax,
            "takes a number",
        ),
        (
            "start: g\ng[max_tokens=2.5]: /a+/",
            DiagnosticKind::Syntax,
            "whole number",
        ),
        (
            "start: g\ng[max_tokens=2, max_tokens=3]: /a+/",
            DiagnosticKind::Duplicate,
            "given twice",
        ),
        (
            "start: g\ng[max_tokens=2]: h\nh: \"a\"",
            DiagnosticKind::Syntax,
            "cannot use rule `h`",
        ),
        (
            "start: g\ng[max_tokens=2]: /a/ -> x",
            DiagnosticKind::Syntax,
            "cannot have an alias",
        ),
        (
            "start: g\ng[max_tokens=2]: \"\"",
            DiagnosticKind::EmptyMatch,
            "max_tokens",
        ),
    ] {
        common::assert_refused(src, kind, says, Some(2));
    }
    // A cap the vocabulary cannot keep is refused when binding: `abc`
    // takes three one-byte tokens.
    let c = compile("start: g\ng[max_tokens=2]: \"abc\"");
    let tokens = [b"a", b"b", b"c"].iter().map(|t| t.to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens(tokens, vec![]));
    let e = BoundGrammar::try_new(c.clone(), vocab.clone())
        .err()
        .unwrap();
    assert_eq!(e.kind(), VocabErrorKind::LexemeCap, "{e}");
    assert!(e.to_string().contains("may need 3"), "{e}");
    let trie = Arc::new(gcd_core::vocab::trie::TokenTrie::new(&vocab));
    let e = BoundGrammar::try_with_trie(c, vocab.clone(), trie)
        .err()
        .unwrap();
    assert_eq!(e.kind(), VocabErrorKind::LexemeCap, "{e}");
    // So is one under dynamic lexing, where a lexeme has no one end.
    let g = gcd_core::lark::parse_grammar("start: g\ng[max_tokens=5]: \"abc\"").unwrap();
    let dynamic = gcd_core::Config::default().lexing(gcd_core::Lexing::Dynamic);
    let c = Arc::new(CompiledGrammar::with_config(&g, &dynamic).unwrap());
    let e = BoundGrammar::try_new(c, vocab).err().unwrap();
    assert!(e.to_string().contains("dynamic lexing"), "{e}");
}

#[test]
fn a_grammar_cap_can_be_lifted_on_the_matcher() {
    // Caps count tokens, so bytes fed directly are refused until lifted.
    let c = compile("start: \"<\" w \">\"\nw[max_tokens=2]: /a+/");
    let tokens = [b"<", b"a", b">"].iter().map(|t| t.to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens(tokens, vec![]));
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(c, vocab)));
    assert!(m.advance_bytes(b"<aaa").is_err());
    m.set_lexeme_cap("LEXEME__w", None).unwrap();
    m.advance_bytes(b"<aaaa>").unwrap();
    assert!(m.is_complete());
}

#[test]
fn temperature_is_read_back_and_changes_no_mask() {
    let hot = "start: \"x\" w \"!\"\nw[temperature=0.25]: /a+/";
    let plain = "start: \"x\" w \"!\"\nw: /a+/";
    assert_eq!(language(hot, b"xa!", 6), language(plain, b"xa!", 6));
    let c = compile(hot);
    assert_eq!(
        c.grammar().temperature(terminal(&c, "LEXEME__w")),
        Some(0.25)
    );
    assert_eq!(c.grammar().temperature(terminal(&c, "__ANON_X")), None);
    // The matcher: the temperature of the lexeme the next token continues.
    let mut m = byte_matcher(hot, b"xa!");
    let mut seen = Vec::new();
    for t in [0u32, 1, 1, 2] {
        seen.push(m.temperature());
        m.advance(t).unwrap();
    }
    seen.push(m.temperature());
    assert_eq!(seen, [None, Some(0.25), Some(0.25), Some(0.25), None]);
    // Integers and several attributes together.
    let c = compile("start: w\nw[temperature=2, max_tokens=9, lazy]: /a+/");
    let w = terminal(&c, "LEXEME__w");
    assert_eq!(c.grammar().temperature(w), Some(2.0));
    assert_eq!(c.grammar().lexeme_cap(w), Some(9));
}

#[test]
fn temperature_misuses_are_errors() {
    for (src, kind, says) in [
        (
            "start: g\ng[temperature=-1]: /a+/",
            DiagnosticKind::Syntax,
            "at least 0",
        ),
        (
            "start: g\ng[temperature=\"hot\"]: /a+/",
            DiagnosticKind::Syntax,
            "takes a number",
        ),
        (
            "start: g\ng[temperature]: /a+/",
            DiagnosticKind::Syntax,
            "takes a number",
        ),
        (
            "start: g\ng[temperature=0.5]: h\nh: \"a\"",
            DiagnosticKind::Syntax,
            "cannot use rule `h`",
        ),
    ] {
        let e = gcd_core::lark::parse_grammar(src).unwrap_err();
        let d = &e.diagnostics()[0];
        assert_eq!(d.kind, kind, "{src}: {e}");
        assert!(d.message.contains(says), "{src}: {e}");
    }
}

/// Captures by name and byte range, checked by hand on
/// `ab=1, c=23` (bytes: `a`0 `b`1 `=`2 `1`3 `,`4 ` `5 `c`6 `=`7 `2`8 `3`9).
#[test]
fn captures_name_byte_ranges_of_the_output() {
    let src = "start: pair (\",\" pair)*\npair[capture=\"kv\"]: key \"=\" val\n\
               key[capture]: /[a-z]+/\nval[capture=\"value\"]: /[0-9]+/\n%ignore \" \"";
    let c = compile(src);
    let input = "ab=1, c=23";
    let texts: Vec<String> = input.chars().map(String::from).collect();
    let tokens = texts.iter().map(|t| t.as_bytes().to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens(tokens, vec![]));
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(c, vocab)));
    for (i, _) in input.char_indices() {
        m.advance(i as u32).unwrap();
    }
    assert!(m.is_complete());
    let cap = |name: &str, rule: &str, span: std::ops::Range<usize>| Capture {
        name: name.into(),
        rule: rule.into(),
        span,
    };
    let want = vec![
        cap("kv", "pair", 0..4),
        cap("key", "key", 0..2),
        cap("value", "val", 3..4),
        cap("kv", "pair", 6..10),
        cap("key", "key", 6..7),
        cap("value", "val", 8..10),
    ];
    assert_eq!(m.captures().unwrap(), want);
    let texts: Vec<&[u8]> = want.iter().map(|c| &m.output()[c.span.clone()]).collect();
    assert_eq!(texts, [&b"ab=1"[..], b"ab", b"1", b"c=23", b"c", b"23"]);
    // Before the output is whole there is no tree to read them from.
    let mut part = Matcher::new(m.bound().clone());
    part.advance(0).unwrap();
    assert!(part.captures().is_err());
    // A grammar without captures has none.
    let c = compile("start: /a+/");
    assert_eq!(
        gcd_core::runtime::tree::captures(&c, b"aa").unwrap(),
        vec![]
    );
}

#[test]
fn captures_of_rules_trees_do_not_show_as_themselves_are_refused() {
    for (src, kind, says) in [
        (
            "start: g\n?g[capture]: /a+/",
            DiagnosticKind::Unsupported,
            "`?rule`",
        ),
        (
            "start: _g\n_g[capture]: /a+/",
            DiagnosticKind::Unsupported,
            "`_rule`",
        ),
        (
            "start: g\ng[capture]: /a+/ -> x",
            DiagnosticKind::Unsupported,
            "aliased `-> x`",
        ),
        (
            "start: g | h\ng[capture]: /a+/\nh: /b+/ -> g",
            DiagnosticKind::Unsupported,
            "rule `h` has an alternative aliased `-> g`",
        ),
        (
            "start: g\ng[capture=\"\"]: /a+/",
            DiagnosticKind::Syntax,
            "non-empty",
        ),
        (
            "start: g\ng[capture=3]: /a+/",
            DiagnosticKind::Syntax,
            "non-empty",
        ),
        (
            "start: g\ng[capture, capture]: /a+/",
            DiagnosticKind::Duplicate,
            "given twice",
        ),
    ] {
        common::assert_refused(src, kind, says, Some(2));
    }
}

#[test]
fn stop_stays_refused_by_name() {
    for src in [
        "start: g\ng[stop=\"\\n\"]: /a+/",
        "start: g\ng[stop=/x/]: /a+/",
        "start: g\ng[stop=\"\"]: /a+/",
    ] {
        let e = gcd_core::lark::parse_grammar(src).unwrap_err();
        let d = &e.diagnostics()[0];
        assert_eq!(d.kind, DiagnosticKind::Unsupported, "{src}: {e}");
        assert!(
            d.message.contains("`stop` (on `g`) is not supported"),
            "{src}: {e}"
        );
        assert!(d.message.contains("hidden from the output"), "{src}: {e}");
    }
}

/// `w[suffix="ab"]: /[ab]*/`: one lazy lexeme of `[ab]*ab`, so it ends at
/// the first `ab`: the strings over `a`, `b` that end in `ab` and hold no
/// earlier `ab` (by brute force, the definition).
#[test]
fn a_suffix_ends_a_lazy_lexeme_and_stays_in_the_output() {
    let got = language("start: w \"x\"\nw[suffix=\"ab\"]: /[ab]*/", b"abx", 7);
    let mut want = BTreeSet::new();
    for len in 2..=6usize {
        for bits in 0..1u32 << len {
            let s: String = (0..len)
                .map(|i| if bits >> i & 1 == 1 { 'b' } else { 'a' })
                .collect();
            if s.ends_with("ab") && !s[..len - 1].contains("ab") {
                want.insert(format!("{s}x"));
            }
        }
    }
    assert_eq!(got, want);
    assert!(want.contains("bbaabx") && !want.contains("ababx"));
}

/// llguidance's example: the rule's own capture leaves the suffix out,
/// `stop_capture` holds it, and an enclosing rule's capture has both.
#[test]
fn a_suffix_is_left_out_of_its_rules_capture() {
    let src = "start: outer \"!\"\nouter[capture]: with_suffix\n\
               with_suffix[capture, suffix=\"<end>\", stop_capture=\"end\"]: /(.|\\n)*/";
    let c = compile(src);
    let input = b"foo<end>!";
    let texts: Vec<Vec<u8>> = input.iter().map(|&b| vec![b]).collect();
    let vocab = Arc::new(Vocabulary::from_tokens(texts, vec![]));
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(c, vocab)));
    for i in 0..input.len() {
        m.advance(i as u32).unwrap();
    }
    assert!(m.is_complete());
    let got: Vec<(String, &[u8])> = (m.captures().unwrap().iter())
        .map(|c| (c.name.clone(), &m.output()[c.span.clone()]))
        .collect();
    let want: Vec<(String, &[u8])> = vec![
        ("outer".into(), b"foo<end>"),
        ("with_suffix".into(), b"foo"),
        ("end".into(), b"<end>"),
    ];
    assert_eq!(got, want);
    // Lazy: the first `<end>` ends it, so a second one is refused here.
    let mut m2 = Matcher::new(m.bound().clone());
    for i in 0..8 {
        m2.advance(i).unwrap();
    }
    assert!(m2.advance(3).is_err(), "`<` after the first `<end>`");
}

#[test]
fn suffix_misuses_are_errors() {
    for (src, kind, says) in [
        (
            "start: g\ng[suffix=/x/]: /a+/",
            DiagnosticKind::Unsupported,
            "\"literal\" only",
        ),
        (
            "start: g\ng[suffix=X]: /a+/\nX: \"x\"",
            DiagnosticKind::Unsupported,
            "\"literal\" only",
        ),
        (
            "start: g\ng[suffix=\"\"]: /a+/",
            DiagnosticKind::Unsupported,
            "non-empty",
        ),
        (
            "start: g\ng[suffix=\"x\"i]: /a+/",
            DiagnosticKind::Unsupported,
            "\"literal\" only",
        ),
        (
            "start: g\ng[stop_capture=\"x\"]: /a+/",
            DiagnosticKind::Syntax,
            "has none",
        ),
        (
            "start: g\ng[stop_capture]: /a+/",
            DiagnosticKind::Syntax,
            "takes a non-empty",
        ),
        (
            "start: g\ng[suffix=\"x\"]: h\nh: \"a\"",
            DiagnosticKind::Syntax,
            "cannot use rule `h`",
        ),
        (
            "start: g\ng[suffix=\"x\"]: /a/ & ~/b/",
            DiagnosticKind::Unsupported,
            "cannot make lazy",
        ),
    ] {
        common::assert_refused(src, kind, says, Some(2));
    }
}
