//! llguidance's `&` (and) and `~` (not) in Lark terminals: the compiled
//! automaton against a brute-force check with regex-automata on every
//! short string, and whole grammars through the matcher, plus the misuses
//! that must be errors.

mod common;

use std::cell::RefCell;
use std::collections::HashMap;

use common::byte_tokens::byte_matcher as matcher;
use gcd_core::grammar::RegexCombination;
use gcd_core::lexer::{DfaError, TerminalDfa};
use gcd_core::{CompiledGrammar, Matcher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regex_automata::meta::Regex;

/// Every byte string over `alphabet` up to `len` bytes.
fn strings(alphabet: &[u8], len: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut layer = vec![Vec::new()];
    for _ in 0..len {
        let mut next = Vec::new();
        for s in &layer {
            for &b in alphabet {
                let mut t: Vec<u8> = s.clone();
                t.push(b);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}

/// Whether `re` matches all of `s` (regex-automata, the independent side).
fn full_match(re: &str, s: &[u8]) -> bool {
    thread_local! {
        static COMPILED: RefCell<HashMap<String, Regex>> = RefCell::default();
    }
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        let r = c.entry(re.to_string()).or_insert_with(|| {
            Regex::new(&format!("^(?:{re})$")).unwrap_or_else(|e| panic!("{re}: {e}"))
        });
        r.is_match(s)
    })
}

/// The combination's verdict on `s` by its definition: each leaf by
/// regex-automata, `~` within valid UTF-8.
fn expected(c: &RegexCombination, s: &[u8]) -> bool {
    let text = std::str::from_utf8(s).is_ok();
    let eval = |leaf: &str| Some(full_match(leaf, s));
    c.eval(&eval) == Some(true) && (text || !c.has_not())
}

/// `a`, `b` and `é` (two bytes, so strings can cut it in half).
const ALPHABET: &[u8] = &[b'a', b'b', 0xC3, 0xA9];

const LEAVES: &[&str] = &[
    "a+",
    "(?:ab)*",
    "b",
    "[ab]{2}",
    "(?s:.*)ab(?s:.*)",
    "é|a",
    "(?s:.)",
    "a*b?",
];

fn random_combination(rng: &mut StdRng, depth: u32) -> RegexCombination {
    if depth == 0 || rng.random_bool(0.3) {
        let leaf = LEAVES[rng.random_range(0..LEAVES.len())];
        return RegexCombination::Regex(leaf.to_string());
    }
    match rng.random_range(0..3) {
        0 => RegexCombination::Not(Box::new(random_combination(rng, depth - 1))),
        k => {
            let parts = (0..rng.random_range(2..=3))
                .map(|_| random_combination(rng, depth - 1))
                .collect();
            if k == 1 {
                RegexCombination::And(parts)
            } else {
                RegexCombination::Or(parts)
            }
        }
    }
}

#[test]
fn combination_automata_match_a_brute_force_check() {
    let all = strings(ALPHABET, 4);
    let mut rng = StdRng::seed_from_u64(41);
    let (mut built, mut empty, mut never) = (0, 0, 0);
    for _ in 0..300 {
        let c = random_combination(&mut rng, 3);
        let members: Vec<&Vec<u8>> = all.iter().filter(|s| expected(&c, s)).collect();
        let matches_empty = expected(&c, b"");
        assert_eq!(
            TerminalDfa::combination_matches_empty(&c).unwrap(),
            matches_empty,
            "{c}"
        );
        match TerminalDfa::combination(&c) {
            Ok(dfa) => {
                built += 1;
                assert!(!matches_empty, "{c} matches \"\" but compiled");
                for s in &all {
                    assert_eq!(dfa.matches(s), expected(&c, s), "{c} on {s:?}");
                }
            }
            Err(DfaError::MatchesEmpty) => {
                empty += 1;
                assert!(matches_empty, "{c}: refused as matching \"\"");
            }
            Err(DfaError::NeverMatches) => {
                never += 1;
                assert!(
                    members.is_empty(),
                    "{c}: refused as empty, matches {members:?}"
                );
            }
            Err(e) => panic!("{c}: {e:?}"),
        }
    }
    // The seed exercises every outcome.
    assert!(
        built > 50 && empty > 20 && never > 0,
        "{built} {empty} {never}"
    );
}

/// Whether `m` accepts all of `s` (tokens are `alphabet`'s bytes).
fn accepts(m: &Matcher, alphabet: &[u8], s: &[u8]) -> bool {
    let mut m = m.clone();
    s.iter().all(|b| {
        let t = alphabet.iter().position(|a| a == b).unwrap() as u32;
        m.advance(t).is_ok()
    }) && m.is_complete()
}

/// Checks `src`'s language on every string up to `len` bytes against
/// `oracle`; returns how many it accepts.
fn check_language(src: &str, alphabet: &[u8], len: usize, oracle: impl Fn(&[u8]) -> bool) -> usize {
    let m = matcher(src, alphabet);
    let mut n = 0;
    for s in strings(alphabet, len) {
        let want = oracle(&s);
        assert_eq!(
            accepts(&m, alphabet, &s),
            want,
            "{src}\non {:?}",
            String::from_utf8_lossy(&s)
        );
        n += usize::from(want);
    }
    n
}

#[test]
fn an_identifier_that_is_no_keyword() {
    let src = "start: ID\nID: /[a-z]+/ & ~KEYWORD\nKEYWORD: \"if\" | \"in\"";
    let n = check_language(src, b"ifn", 4, |s| {
        !s.is_empty() && s != b"if" && s != b"in"
    });
    assert_eq!(n, 3 + 9 - 2 + 27 + 81);
    // Keywords and identifiers side by side: contextual maximal munch
    // picks the keyword terminal for `if`, the identifier for the rest.
    let src = "start: (KEYWORD | ID) (\" \" (KEYWORD | ID))*\n\
               ID: /[a-z]+/ & ~KEYWORD\nKEYWORD: \"if\" | \"in\"";
    check_language(src, b"if ", 5, |s| {
        !s.is_empty() && s.split(|&b| b == b' ').all(|w| !w.is_empty())
    });
}

#[test]
fn and_binds_tighter_than_or_and_looser_than_a_sequence() {
    // `(a & [ab]) | b`, not `a & ([ab] | b)`.
    let n = check_language("start: T\nT: /a/ & /[ab]/ | /b/", b"ab", 3, |s| {
        s == b"a" || s == b"b"
    });
    assert_eq!(n, 2);
    // `("a" "b") & /[ab]+/`, not `"a" ("b" & /[ab]+/)`... which is the same
    // language here, so check one where they differ: `"a" "b" & /a/`
    // would be `a` followed by nothing if `&` bound tighter.
    let src = "start: T\nT: \"a\" /b*/ & /ab/";
    check_language(src, b"ab", 3, |s| s == b"ab");
    // `~` binds tighter than `|`.
    let src = "start: T\nT: ~/a/ & /[ab]/ | /aa/";
    check_language(src, b"ab", 3, |s| s == b"b" || s == b"aa");
}

#[test]
fn lines_without_a_blank_line() {
    // llguidance's own example.
    let src = "start: ASCII_LINES\nASCII_LINES: /[a-zA-Z \\n]*/ & ~/(?s:.*)\\n\\n(?s:.*)/";
    check_language(src, b"a\n", 6, |s| !s.windows(2).any(|w| w == b"\n\n"));
}

#[test]
fn not_is_the_complement_among_utf8_strings() {
    // llguidance's `~` also takes invalid UTF-8; gcd's only text, which is
    // what llguidance's advice `/(?s:.*)/ & ~X` gives there too.
    let alphabet = &[b'a', 0xC3, 0xA9];
    let not_a = |s: &[u8]| std::str::from_utf8(s).is_ok() && s != b"a";
    check_language("start: T\nT: ~/a/", alphabet, 4, not_a);
    check_language("start: T\nT: /(?s:.*)/ & ~/a/", alphabet, 4, not_a);
    // Double negation is the regex itself.
    check_language("start: T\nT: ~~/a|é/", alphabet, 4, |s| {
        s == b"a" || s == "é".as_bytes()
    });
    // `~` of a terminal that matches everything leaves nothing: an error,
    // not a grammar that accepts nothing.
    let g = gcd_core::lark::parse_grammar("start: \"a\" T?\nT: ~/(?s:.*)/").unwrap();
    let e = CompiledGrammar::new(&g).unwrap_err().to_string();
    assert!(e.contains('T'), "{e}");
}

#[test]
fn combinations_in_ignore_and_inside_other_terminals() {
    // A lone `a` is no ignored lexeme; `aa` or `ab` is one.
    let src = "start: \"x\" \"x\"\n%ignore /[ab]+/ & ~/a/";
    check_language(src, b"xab", 4, |s| {
        let parts: Vec<&[u8]> = s.split(|&b| b == b'x').collect();
        parts.len() == 3 && parts.iter().all(|p| *p != b"a")
    });
    // A terminal made of a combination terminal and `|`.
    let src = "start: T\nT: NOT_A | \"a\" \"a\"\nNOT_A: /[ab]{1,2}/ & ~/a/";
    check_language(src, b"ab", 3, |s| {
        s == b"aa" || (matches!(s.len(), 1 | 2) && s != b"a")
    });
}

#[test]
fn misuses_are_errors_naming_them() {
    for (bad, says) in [
        // A rule's language need not be regular.
        ("start: \"a\" & \"b\"", "`&` combines terminals only"),
        ("start: ~\"a\"", "`~` combines terminals only"),
        // `~A+` is `(~A)+`, which gcd cannot build.
        ("start: T\nT: ~/a/+", "repeats the result of `&` or `~`"),
        (
            "start: T\nT: \"x\" (/a/ & /[ab]/)",
            "concatenates the result of `&` or `~`",
        ),
        (
            "start: T\nT: \"x\" U\nU: ~/a/",
            "concatenates the result of `&` or `~`",
        ),
        (
            "start: T\nT: /a/ & ",
            "`&` needs a terminal expression on each side",
        ),
        ("start: T\nT: /a/ & /(/", "invalid"),
    ] {
        let e = gcd_core::lark::parse_grammar(bad)
            .and_then(|g| CompiledGrammar::new(&g).map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    // Lark's repetition `~ n` is unchanged next to the prefix `~`.
    check_language("start: \"a\" ~ 2 T\nT: /[ab]/ & ~/b/", b"ab", 3, |s| {
        s == b"aaa"
    });
}
