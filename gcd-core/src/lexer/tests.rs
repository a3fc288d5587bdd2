use super::dfa::live_states;
use super::*;
use crate::grammar::TermSet;

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
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rand = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
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
    let each: Vec<TerminalDfa> = parts.iter().map(|r| TerminalDfa::new(r).unwrap()).collect();
    // Every string over a small alphabet up to length 5, against the parts.
    let mut strings = vec![Vec::new()];
    for _ in 0..5 {
        let longer: Vec<Vec<u8>> = (strings.iter())
            .flat_map(|s| {
                b"abdz\n".iter().map(move |&b| {
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
    let big = [r"[ab]*a[ab]{13}".to_string(), r"[ab]{1,40}".to_string()];
    assert_eq!(
        TerminalDfa::intersection(&big),
        Err(DfaError::TooLarge(dfa::MAX_INTERSECTION_STATES))
    );
}
