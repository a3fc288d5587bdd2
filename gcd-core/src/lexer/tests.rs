use super::table::live_states;
use super::*;
use crate::grammar::TermSet;

/// A seeded xorshift: `rand(m)` is below `m`.
fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |m| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    }
}

#[test]
fn dfa_matches_like_regex() {
    let d = TerminalDfa::new(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?").unwrap();
    for (s, m) in [
        ("0", true),
        ("-12.5", true),
        ("01", false),
        ("1.", false),
        ("-", false),
        ("", false),
    ] {
        assert_eq!(d.matches(s.as_bytes()), m, "{s}");
    }
    // "01" is dead after "0" + "1": liveness is exact, not just regex-automata's dead state.
    assert_eq!(d.run(b"01"), None);
    assert!(d.run(b"1.").is_some());
}

#[test]
fn liveness_matches_a_plain_fixpoint() {
    // Random sparse tables, including long chains down to state 0 (the
    // sweeps give up on those) and dead cycles.
    let mut rand = xorshift(0x2545_f491_4f6c_dd1du64);
    for round in 0..300 {
        let n = 1 + rand(40) as usize;
        let mut trans = vec![DEAD; n * 256];
        let accepting: Vec<bool> = (0..n)
            .map(|s| s == 0 && round % 2 == 0 || rand(8) == 0)
            .collect();
        for s in 0..n {
            if round % 3 == 0 && s > 0 {
                trans[s * 256 + b'a' as usize] = s as u32 - 1;
            }
            for _ in 0..rand(3) {
                trans[s * 256 + rand(256) as usize] = rand(n as u64) as u32;
            }
        }
        let mut want = accepting.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for s in 0..n {
                if !want[s]
                    && trans[s * 256..(s + 1) * 256]
                        .iter()
                        .any(|&t| t != DEAD && want[t as usize])
                {
                    want[s] = true;
                    changed = true;
                }
            }
        }
        assert_eq!(live_states(&trans, &accepting), want, "round {round}");
    }
}

#[test]
fn byte_classes_by_hash_equal_by_columns() {
    let dfas: Vec<TerminalDfa> = [
        r"[a-z]+",
        r"-?(0|[1-9][0-9]*)",
        r#""[^"\\]*""#,
        "if",
        r"\s+",
        "é|ü",
    ]
    .iter()
    .map(|r| TerminalDfa::new(r).unwrap())
    .collect();
    for k in 0..=dfas.len() {
        let some = &dfas[..k];
        assert_eq!(ByteClasses::new(some), ByteClasses::by_columns(some), "{k}");
        assert_eq!(
            ByteClasses::by_refinement(some),
            ByteClasses::by_columns(some),
            "{k}"
        );
    }
}

/// Schemas' terminal sets: many keys (literals that split a few bytes
/// each) beside strings, numbers and classes; the signature grouping must
/// give what comparing whole columns gives.
#[test]
fn byte_classes_of_many_tables_equal_by_columns() {
    let mut rand = xorshift(0x9e37_79b9_7f4a_7c15);
    let shapes = [
        r"[a-z]+",
        r#""[^"\\]*""#,
        r"-?(0|[1-9][0-9]*)",
        r"[A-F0-9]{2,4}",
        r"\s+",
    ];
    for round in 0..200 {
        let mut dfas: Vec<TerminalDfa> = Vec::new();
        for _ in 0..1 + rand(60) {
            if rand(4) == 0 {
                dfas.push(TerminalDfa::new(shapes[rand(shapes.len() as u64) as usize]).unwrap());
            } else {
                let len = 1 + rand(8) as usize;
                // Bytes from a narrow range, so that keys share and split classes.
                let bytes: Vec<u8> = (0..len).map(|_| 0x20 + rand(96) as u8).collect();
                dfas.push(TerminalDfa::literal_bytes(&bytes).unwrap());
            }
        }
        assert_eq!(
            ByteClasses::new(&dfas),
            ByteClasses::by_columns(&dfas),
            "round {round}"
        );
    }
}

#[test]
fn lazy_regex_ends_at_first_match() {
    let d = TerminalDfa::new(r"/\*(.|\n)*?\*/").unwrap();
    assert!(d.matches(b"/* a */"));
    assert!(!d.matches(b"/* a */ b */"));
    assert_eq!(d.run(b"/* a */ "), None);
    let greedy = TerminalDfa::new(r"/\*(.|\n)*\*/").unwrap();
    assert!(greedy.matches(b"/* a */ b */"));
}

#[test]
fn dfa_rejects_empty_and_bad() {
    assert_eq!(TerminalDfa::new("a*"), Err(DfaError::MatchesEmpty));
    assert!(matches!(TerminalDfa::new("a("), Err(DfaError::Invalid(_))));
}

#[test]
fn unicode_classes_work_on_bytes() {
    let d = TerminalDfa::new(r#""[^"]*""#).unwrap();
    let s = "\"é\"".as_bytes();
    assert!(d.matches(s));
    // Half a character is still a live prefix.
    assert!(d.run(&s[..2]).is_some());
    assert!(!d.matches(&s[..3]));
    // Invalid UTF-8 is dead.
    assert_eq!(d.run(b"\"\xff"), None);
}

#[test]
fn automaton_ties_and_ends() {
    let dfas = vec![
        TerminalDfa::new("if").unwrap(),
        TerminalDfa::new("[a-z]+").unwrap(),
    ];
    let rank = vec![0, 1];
    let mut set = TermSet::new(2);
    set.insert(0);
    set.insert(1);
    let a = LexerAutomaton::build(&dfas, &rank, &[set], 1000).unwrap();
    let s = a.starts[0];
    let s1 = a.next(s, b'i');
    let s2 = a.next(s1, b'f');
    assert_eq!(a.winner(s2), Some(0));
    let s3 = a.next(s2, b'x');
    assert_eq!(a.winner(s3), Some(1));
    assert_eq!(a.next(s3, b' '), DEAD);
}

#[test]
fn intersection_matches_what_every_part_matches() {
    let parts = vec![r"[a-c]+d?".to_string(), r"(?:.|\n){2,3}".to_string()];
    let both = TerminalDfa::intersection(&parts).unwrap();
    // In the other order too: the first part's classes alone cannot tell
    // the bytes the second splits, and the other way round.
    let reversed: Vec<String> = parts.iter().rev().cloned().collect();
    let both_reversed = TerminalDfa::intersection(&reversed).unwrap();
    let each: Vec<TerminalDfa> = parts.iter().map(|r| TerminalDfa::new(r).unwrap()).collect();
    // Three parts: the product's tuples, not its pairs.
    let three = [parts.clone(), vec![r"[^a]+".to_string()]].concat();
    let all_three = TerminalDfa::intersection(&three).unwrap();
    let not_a = TerminalDfa::new(r"[^a]+").unwrap();
    // Every string over a small alphabet up to length 5, against the parts;
    // the product steps by byte class, so the alphabet has bytes of classes
    // that only one part tells apart (`c`, `\n`, a non-ASCII lead byte).
    let mut strings = vec![Vec::new()];
    for _ in 0..5 {
        let longer: Vec<Vec<u8>> = (strings.iter())
            .flat_map(|s| {
                b"abcdz\n\xc3".iter().map(move |&b| {
                    let mut t = s.clone();
                    t.push(b);
                    t
                })
            })
            .collect();
        strings.extend(longer);
        strings.dedup();
    }
    let mut matched = 0;
    for s in &strings {
        let want = each.iter().all(|d| d.matches(s));
        assert_eq!(both.matches(s), want, "{:?}", String::from_utf8_lossy(s));
        assert_eq!(
            both_reversed.matches(s),
            want,
            "{:?}",
            String::from_utf8_lossy(s)
        );
        let want_three = want && not_a.matches(s);
        assert_eq!(
            all_three.matches(s),
            want_three,
            "{:?}",
            String::from_utf8_lossy(s)
        );
        matched += want as usize;
    }
    assert!(matched > 10, "{matched}");
    // Nothing in common, the empty string in common, too many states.
    let disjoint = [r"a+".to_string(), r"b+".to_string()];
    assert_eq!(
        TerminalDfa::intersection(&disjoint),
        Err(DfaError::NeverMatches)
    );
    let empty = [r"a*".to_string(), r"b*".to_string()];
    assert_eq!(
        TerminalDfa::intersection(&empty),
        Err(DfaError::MatchesEmpty)
    );
    // One part may match the empty string; the product then matches what
    // the other part allows of it.
    let one_empty = [r"a*".to_string(), r"(?:.|\n){2,3}".to_string()];
    let both = TerminalDfa::intersection(&one_empty).unwrap();
    assert!(both.matches(b"aa") && both.matches(b"aaa"));
    assert!(!both.matches(b"a") && !both.matches(b"aaaa") && !both.matches(b"ab"));
    let big = [r"[ab]*a[ab]{13}".to_string(), r"[ab]{1,40}".to_string()];
    assert_eq!(
        TerminalDfa::intersection(&big),
        Err(DfaError::TooLarge(determinize::MAX_PRODUCT_STATES))
    );
}

/// Whether `s` is exactly a match of `re`, by regex-automata alone.
fn full_match(re: &str, s: &[u8]) -> bool {
    use regex_automata::dfa::{dense, Automaton, StartKind};
    use regex_automata::util::start;
    let dfa = dense::Builder::new()
        .configure(dense::DFA::config().start_kind(StartKind::Anchored))
        .build(re)
        .unwrap();
    let mut q = dfa
        .start_state(&start::Config::new().anchored(regex_automata::Anchored::Yes))
        .unwrap();
    for &b in s {
        q = dfa.next_state(q, b);
    }
    dfa.is_match_state(dfa.next_eoi_state(q))
}

/// Every string over `alphabet` up to `max` bytes.
fn strings(alphabet: &[u8], max: usize) -> Vec<Vec<u8>> {
    let mut all = vec![Vec::new()];
    let mut layer = vec![Vec::new()];
    for _ in 0..max {
        layer = layer
            .iter()
            .flat_map(|s: &Vec<u8>| alphabet.iter().map(move |&c| [s.clone(), vec![c]].concat()))
            .collect();
        all.extend(layer.iter().cloned());
    }
    all
}

/// One lookaround assertion of a random test regex.
#[derive(Clone, Copy, Debug)]
enum Look {
    Ahead(bool),
    Behind(bool),
}

impl Look {
    fn syntax(self) -> &'static str {
        match self {
            Look::Ahead(false) => "(?=",
            Look::Ahead(true) => "(?!",
            Look::Behind(false) => "(?<=",
            Look::Behind(true) => "(?<!",
        }
    }

    /// Whether the assertion holds at `i` of lexeme `s`: it sees `s` only.
    fn holds(self, body: &str, s: &[u8], i: usize) -> bool {
        match self {
            Look::Ahead(neg) => (i..=s.len()).any(|j| full_match(body, &s[i..j])) != neg,
            Look::Behind(neg) => (0..=i).any(|j| full_match(body, &s[j..i])) != neg,
        }
    }
}

#[test]
fn lookaround_matches_its_definition_on_random_regexes() {
    // A regex is `P0 L1 P1 L2 P2` (pieces and assertions); a string matches
    // iff some split of it matches the pieces with each assertion holding
    // at its cut, evaluated by regex-automata on the pieces alone.
    // Counted pieces with a bound of 8 or more are built as chains.
    const PIECES: [&str; 10] = [
        "a",
        "b",
        "a*",
        "b+",
        "(?:ab)*",
        "[ab]",
        "a|bb",
        "[ab]{0,9}",
        "b{1,8}",
        "(?:)",
    ];
    const LOOKS: [Look; 4] = [
        Look::Ahead(false),
        Look::Ahead(true),
        Look::Behind(false),
        Look::Behind(true),
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as usize
    };
    let inputs = strings(b"ab", 6);
    let mut compared = 0;
    for _ in 0..300 {
        let looks = 1 + rand(2);
        let pieces: Vec<&str> = (0..=looks).map(|_| PIECES[rand(PIECES.len())]).collect();
        let asserts: Vec<(Look, &str)> = (0..looks)
            .map(|_| (LOOKS[rand(LOOKS.len())], PIECES[rand(PIECES.len() - 1)]))
            .collect();
        let mut re = format!("(?:{})", pieces[0]);
        for (k, (look, body)) in asserts.iter().enumerate() {
            re += &format!("{}{body})(?:{})", look.syntax(), pieces[k + 1]);
        }
        let dfa = match TerminalDfa::new(&re) {
            Ok(d) => Some(d),
            // Terminals never match the empty string.
            Err(DfaError::MatchesEmpty) => {
                assert!(splits_match(&pieces, &asserts, b"", 0, 0), "{re}");
                continue;
            }
            Err(DfaError::NeverMatches) => None,
            Err(e) => panic!("{re}: {e:?}"),
        };
        for s in &inputs {
            let expected = !s.is_empty() && splits_match(&pieces, &asserts, s, 0, 0);
            let got = dfa.as_ref().is_some_and(|d| d.matches(s));
            assert_eq!(got, expected, "{re} on {:?}", String::from_utf8_lossy(s));
        }
        compared += dfa.is_some() as usize;
    }
    assert!(compared > 100, "only {compared} random regexes compiled");
}

/// Whether `s[at..]` matches pieces `k..` with the assertions between them.
fn splits_match(pieces: &[&str], asserts: &[(Look, &str)], s: &[u8], k: usize, at: usize) -> bool {
    if k + 1 == pieces.len() {
        return full_match(pieces[k], &s[at..]);
    }
    (at..=s.len()).any(|cut| {
        full_match(pieces[k], &s[at..cut])
            && asserts[k].0.holds(asserts[k].1, s, cut)
            && splits_match(pieces, asserts, s, k + 1, cut)
    })
}

#[test]
fn lookaround_agrees_with_equivalent_plain_regexes() {
    // (with lookaround, without, alphabet): the same language on every
    // string up to 7 bytes.
    let pairs: [(&str, &str, &[u8]); 6] = [
        // Verilog's block comment: a `*` in the body is not before a `/`.
        (
            r"/\*(\*(?!/)|[^*])*\*/",
            r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/",
            b"/*a",
        ),
        // common.lark's ESCAPED_STRING: ends at the first `"` after an even
        // run of backslashes (lazy: the lexeme ends at its first match).
        (
            r#"".*?(?<!\\)(\\\\)*?""#,
            r#""(?:[^"\\\n]|\\.)*""#,
            b"\"\\a\n",
        ),
        // Python's short string: not the start of a `"""` string.
        (r#""(?!"").*?""#, r#""[^"\n]*""#, b"\"a\n"),
        (r"a(?=b)[a-z]+", r"ab[a-z]*", b"abc"),
        (r"[a-z]+(?<!x)", r"[a-z]*[a-wyz]", b"axy"),
        (r"(?i:a(?=B)[a-z]+)", r"(?i:ab[a-z]*)", b"aAbB"),
    ];
    for (with, plain, alphabet) in pairs {
        let a = TerminalDfa::new(with).unwrap();
        let b = TerminalDfa::new(plain).unwrap();
        for s in strings(alphabet, 7) {
            assert_eq!(
                a.matches(&s),
                b.matches(&s),
                "{with} on {:?}",
                String::from_utf8_lossy(&s)
            );
        }
    }
}

#[test]
fn lookaround_reports_what_it_cannot_see() {
    use super::lookaround::{sees_past_end, split};
    // A lookahead at the end of the lexeme would look at the text after it.
    assert!(sees_past_end(r"[?](?![a-z])"));
    assert!(sees_past_end(r#""(?!"").*?""#));
    assert!(!sees_past_end(r"/\*(\*(?!/)|[^*])*\*/"));
    assert!(!sees_past_end(r"a(?=b)[a-z]+"));
    assert_eq!(
        split("a(?=b(?!c))").unwrap_err(),
        "a lookaround inside a lookaround"
    );
    assert!(split("a(?=b").is_err());
    let nine = "a(?=a)".repeat(9);
    assert!(
        matches!(TerminalDfa::new(&nine), Err(DfaError::Invalid(m)) if m.contains("more than 8"))
    );
    // Groups and classes that look like assertions are not.
    assert_eq!(split(r"[(?=]a\(?=b").unwrap(), None);
    assert_eq!(split("(?P<x>a)(?<y>b)").unwrap(), None);
}

#[test]
fn overlaps_is_a_non_empty_intersection() {
    let pairs = [
        (r"[a-c]+", r"b[0-9]*", true),
        (r"a+", r"b+", false),
        (r#""x[a-z]*""#, r#""[^x"][a-z]*""#, false),
        (r#""x[a-z]*""#, r#""[a-z]+""#, true),
        (r"(ab)+", r"a(ba)*b", true),
        (r"a{3}", r"a{1,2}", false),
    ];
    for (a, b, want) in pairs {
        let (da, db) = (TerminalDfa::new(a).unwrap(), TerminalDfa::new(b).unwrap());
        assert_eq!(da.overlaps(&db), want, "{a} & {b}");
        assert_eq!(db.overlaps(&da), want, "{b} & {a}");
        let product = TerminalDfa::intersection(&[a.to_string(), b.to_string()]);
        assert_eq!(
            product.is_ok(),
            want,
            "{a} & {b}: the product says {product:?}"
        );
    }
}

/// `new_minimal` merges the states that determinization leaves apart
/// where branches end alike, and keeps the language.
#[test]
fn minimal_dfa_merges_branches_that_end_alike() {
    let re = "(?:a[0-9]+|b[0-9]+|c)";
    let raw = TerminalDfa::build(re, false).unwrap();
    let min = TerminalDfa::build_with(re, false, true).unwrap();
    // Determinization keeps `a`'s digits apart from `b`'s (8 states);
    // minimized, they are one (5: regex-automata reports a match one byte
    // late, so the state after `c` stays apart from the digits').
    assert!(min.len() < raw.len(), "{} {}", raw.len(), min.len());
    for s in ["a1", "b22", "c", "a", "c1", "ab1", "b", "a12b"] {
        assert_eq!(raw.matches(s.as_bytes()), min.matches(s.as_bytes()), "{s}");
    }
    // Built once per regex, like `new`.
    let key = "(?:x[0-9]+|y[0-9]+|z)";
    assert_eq!(TerminalDfa::new_minimal(key).unwrap().len(), min.len());
    assert_eq!(TerminalDfa::new(key).unwrap().len(), min.len());
}

#[test]
fn literal_dfas_derive_what_their_tables_say() {
    // Literal DFAs write their byte classes and distances down; they must
    // be what reading the table gives, and the regex path must build them.
    let mut rand = xorshift(0x9e37_79b9_7f4a_7c15u64);
    for round in 0..300 {
        let len = 1 + rand(12) as usize;
        // Small alphabets repeat bytes (shared columns), large ones do not.
        let alphabet = if round % 2 == 0 { 3 } else { 256 };
        let bytes: Vec<u8> = (0..len).map(|_| rand(alphabet) as u8).collect();
        let d = TerminalDfa::literal_bytes(&bytes).unwrap();
        assert_eq!(
            *d.byte_classes(),
            super::table::byte_classes(&d.trans),
            "{bytes:?}"
        );
        assert_eq!(
            d.distances_to_match(),
            &super::table::distances_to_match(&d.trans, &d.accepting)[..],
            "{bytes:?}"
        );
        assert_eq!(live_states(&d.trans, &d.accepting), vec![true; len + 1]);
        assert!(d.matches(&bytes) && !d.matches(&bytes[..len - 1]));
    }
    let d = TerminalDfa::new(r#""n\.a\*me""#).unwrap();
    assert!(d.matches(br#""n.a*me""#));
    assert_eq!(*d.byte_classes(), super::table::byte_classes(&d.trans));
    assert!(TerminalDfa::literal_bytes(b"").is_err());
}

#[test]
fn plain_literal_regexes_skip_the_parser_and_match_alike() {
    // Escaped metacharacters are literal; anything else goes to the parser.
    for (regex, yes, no) in [
        (
            r#""first\-name""#,
            &br#""first-name""#[..],
            &b"\"first\\-name\""[..],
        ),
        (r#""a\.b\*""#, br#""a.b*""#, br#""axb*""#),
        ("\"é\"", "\"é\"".as_bytes(), b"\"e\""),
        (r#""a\d""#, br#""a1""#, br#""ad""#),
        (r"a|b", b"a", b"a|b"),
    ] {
        let d = TerminalDfa::new(regex).unwrap();
        assert!(d.matches(yes), "{regex}");
        assert!(!d.matches(no), "{regex}");
    }
}

/// Whether two DFAs accept the same strings: their product, explored from
/// the start pair, never reaches a pair that one accepts and one not.
fn same_language(a: &TerminalDfa, b: &TerminalDfa) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![(0u32, 0u32)];
    while let Some((x, y)) = todo.pop() {
        if !seen.insert((x, y)) {
            continue;
        }
        let accepts = |d: &TerminalDfa, s: u32| s != DEAD && d.is_accepting(s);
        if accepts(a, x) != accepts(b, y) {
            return false;
        }
        for byte in 0..=255u8 {
            let step = |d: &TerminalDfa, s: u32| if s == DEAD { DEAD } else { d.next(s, byte) };
            let pair = (step(a, x), step(b, y));
            if pair != (DEAD, DEAD) {
                todo.push(pair);
            }
        }
    }
    true
}

#[test]
fn literal_alternations_skip_determinizing_and_match_alike() {
    // Random enums over a few bytes (words that are prefixes of others,
    // repeats, escaped metacharacters), against the same language through
    // the parser (a group the parse-free reading does not take).
    let mut rand = xorshift(0x9d2c_5680_1b87_3e4f);
    let alphabet = ["a", "b", "\\-", "\\.", "\\|", "\"", "é"];
    for round in 0..400 {
        let words: Vec<String> = (0..2 + rand(6))
            .map(|_| {
                (0..1 + rand(5))
                    .map(|_| alphabet[rand(7) as usize])
                    .collect()
            })
            .collect();
        let regex = format!("(?:{})", words.join("|"));
        let fast = TerminalDfa::build_with(&regex, false, false).unwrap();
        let parsed = TerminalDfa::build_with(&format!("(?:{regex})"), false, false).unwrap();
        assert!(same_language(&fast, &parsed), "round {round}: {regex}");
        assert!(fast.len() <= parsed.len() + 1, "round {round}: {regex}");
        assert_eq!(
            live_states(&fast.trans, &fast.accepting),
            vec![true; fast.len()]
        );
        assert_eq!(
            *fast.byte_classes(),
            super::table::byte_classes(&fast.trans)
        );
    }
    // Not alternations of literals: through the parser, as before.
    for regex in [r"(?:a|b+)", r"(?:a)|(?:b)", r"(?:\d|a)"] {
        let d = TerminalDfa::new(regex).unwrap();
        assert!(d.matches(b"a") && !d.matches(b"ab"), "{regex}");
    }
    assert_eq!(TerminalDfa::new("(?:a|)"), Err(DfaError::MatchesEmpty));
}

#[test]
fn distances_by_class_equal_distances_by_byte() {
    // Random tables with many classes (a few random bytes per row) and with
    // few (ranges), then real DFAs.
    let mut rand = xorshift(0x51_7cc1_b727_220au64);
    for round in 0..300 {
        let n = 1 + rand(40) as usize;
        let mut trans = vec![DEAD; n * 256];
        let accepting: Vec<bool> = (0..n).map(|_| rand(6) == 0).collect();
        for s in 0..n {
            for _ in 0..rand(4) {
                let (lo, to) = (rand(256) as usize, rand(n as u64) as u32);
                let hi = if round % 2 == 0 {
                    lo
                } else {
                    (lo + rand(40) as usize).min(255)
                };
                trans[s * 256 + lo..=s * 256 + hi].fill(to);
            }
        }
        let classes = super::table::byte_classes(&trans);
        assert_eq!(
            super::table::distances_by_class(&trans, &accepting, &classes),
            super::table::distances_to_match(&trans, &accepting),
            "round {round}"
        );
    }
    for re in [
        r"[a-z]+@[a-z]+\.(com|org)",
        r#""(?:[^"\\]|\\.){2,5}""#,
        r"-?[0-9]+(\.[0-9]+)?",
    ] {
        let d = TerminalDfa::new(re).unwrap();
        assert_eq!(
            d.distances_to_match(),
            &super::table::distances_to_match(&d.trans, &d.accepting)[..],
            "{re}"
        );
    }
}
