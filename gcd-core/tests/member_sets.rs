//! Member sets (members in any order, each at most once): the language is
//! exactly the sets of members, checked against a definition written from
//! first principles, and the matcher's masks agree bit for bit with the
//! brute-force reference on random member-set grammars and vocabularies.

mod common;

use std::sync::Arc;

use common::walk::check_walk;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::error::DiagnosticKind;
use gcd_core::grammar::{Expr, GrammarBuilder, TerminalPattern};
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::Vocabulary;

/// `{KEY:0,…}` objects: `keys` with required flags, and repeatable
/// `"x…"` keys if `extra`.
fn object_grammar(keys: &[(&str, bool)], extra: bool, nonempty: bool) -> CompiledGrammar {
    let mut b = GrammarBuilder::new();
    let value = || Expr::regex("[0-9]+");
    let members = keys
        .iter()
        .map(|&(k, req)| {
            let key = Expr::literal(&format!("\"{k}\""));
            (Expr::seq(vec![key, Expr::literal(":"), value()]), req)
        })
        .collect();
    let repeatable = match extra {
        true => vec![Expr::seq(vec![
            Expr::regex("\"x[a-z]*\""),
            Expr::literal(":"),
            value(),
        ])],
        false => vec![],
    };
    b.member_set("members", members, repeatable, Expr::literal(","), nonempty);
    b.rule("start", vec![common::between("{", "members", "}")]);
    b.terminal("WS", TerminalPattern::Regex("[ ]+".into()));
    b.ignore("WS", None);
    CompiledGrammar::new(&b.build().unwrap()).unwrap()
}

/// Every byte as a token, so any text can be fed one byte at a time.
fn byte_vocab() -> Arc<Vocabulary> {
    Arc::new(Vocabulary::from_tokens_with_eos(
        (0..=255u8).map(|b| vec![b]).collect(),
        "</s>",
    ))
}

/// Whether the matcher takes `text` byte by byte and may then end.
fn matcher_accepts(bound: &Arc<BoundGrammar>, text: &str) -> bool {
    let mut m = Matcher::new(bound.clone());
    text.bytes().all(|b| m.advance(b as u32).is_ok()) && m.is_complete()
}

/// All sequences of up to `len` items from `pool`.
fn sequences<'a>(pool: &[&'a str], len: usize) -> Vec<Vec<&'a str>> {
    let mut out = vec![vec![]];
    let mut last = vec![vec![]];
    for _ in 0..len {
        let mut next = Vec::new();
        for s in &last {
            for &p in pool {
                let mut t: Vec<&str> = s.clone();
                t.push(p);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        last = next;
    }
    out
}

#[test]
fn language_is_every_order_of_distinct_members_with_the_required_ones() {
    let keys = [("a", true), ("b", false), ("ab", false)];
    for (extra, nonempty) in [(false, false), (true, false), (false, true), (true, true)] {
        let g = Arc::new(object_grammar(&keys, extra, nonempty));
        let reference = Recognizer::new(&g);
        let bound = Arc::new(BoundGrammar::new(g.clone(), byte_vocab()));
        let pool = ["a", "b", "ab", "x", "xab"];
        let mut accepted = 0;
        for seq in sequences(&pool, 4) {
            let named: Vec<&str> = seq
                .iter()
                .copied()
                .filter(|k| !k.starts_with('x'))
                .collect();
            let mut distinct = named.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let expected = distinct.len() == named.len()
                && named.contains(&"a")
                && (extra || named.len() == seq.len())
                && (!nonempty || !seq.is_empty());
            let body: Vec<String> = seq.iter().map(|k| format!("\"{k}\":1")).collect();
            for sep in [",", " , "] {
                let text = format!("{{{}}}", body.join(sep));
                assert_eq!(
                    reference.is_complete(text.as_bytes()),
                    expected,
                    "reference on {text} (extra {extra}, nonempty {nonempty})"
                );
                assert_eq!(
                    matcher_accepts(&bound, &text),
                    expected,
                    "matcher on {text}"
                );
            }
            accepted += expected as usize;
        }
        assert!(accepted > 10, "{accepted} accepted");
    }
}

#[test]
fn sets_wider_than_one_data_word() {
    let names: Vec<String> = (0..70).map(|i| format!("k{i}")).collect();
    let keys: Vec<(&str, bool)> = (names.iter())
        .enumerate()
        .map(|(i, n)| (n.as_str(), i == 3 || i == 35 || i == 69))
        .collect();
    let g = Arc::new(object_grammar(&keys, false, false));
    let bound = Arc::new(BoundGrammar::new(g.clone(), byte_vocab()));
    let reference = Recognizer::new(&g);
    let text = |ids: &[usize]| {
        let body: Vec<String> = ids.iter().map(|i| format!("\"k{i}\":{i}")).collect();
        format!("{{{}}}", body.join(","))
    };
    let all_reversed: Vec<usize> = (0..70).rev().collect();
    let cases: [(Vec<usize>, bool); 6] = [
        (all_reversed, true),
        (vec![69, 35, 3], true),
        (vec![35, 3, 69, 40, 64], true),
        (vec![35, 3], false),
        (vec![69, 35, 3, 35], false),
        (vec![64, 69, 35, 3, 64], false),
    ];
    for (ids, expected) in cases {
        let t = text(&ids);
        assert_eq!(
            reference.is_complete(t.as_bytes()),
            expected,
            "reference on {t}"
        );
        assert_eq!(matcher_accepts(&bound, &t), expected, "matcher on {t}");
    }
    // After every member but k64, only k64 (or the end) may follow a comma.
    let ids: Vec<usize> = (0..70).filter(|&i| i != 64).collect();
    let prefix = text(&ids);
    let prefix = format!("{},\"", &prefix[..prefix.len() - 1]);
    let mut m = Matcher::new(bound.clone());
    for b in prefix.bytes() {
        m.advance(b as u32).unwrap();
    }
    let mask = m.compute_mask(257);
    let allowed: Vec<usize> = mask.iter_ones().collect();
    assert_eq!(allowed, vec![b'k' as usize]);
}

#[test]
fn budget_plans_complete_the_required_members() {
    let g = Arc::new(object_grammar(
        &[("a", false), ("b", true), ("c", true)],
        true,
        false,
    ));
    let bound = Arc::new(BoundGrammar::new(g.clone(), byte_vocab()));
    let m = Matcher::new(bound.clone());
    // `{"b":0,"c":0}` is the shortest sentence: 13 bytes.
    assert_eq!(m.min_tokens_to_complete(), 13);
    let mut m = m;
    for b in "{\"c\":0,\"a\":1".bytes() {
        m.advance(b as u32).unwrap();
    }
    // `,"b":0}` still needed.
    assert_eq!(m.min_tokens_to_complete(), 7);
}

#[test]
fn keys_that_lex_into_each_other_are_refused() {
    // `a` matches where `ab` is still possible: refusing a used `a` would
    // change where lexemes end, so the set is unsound and refused.
    let mut b = GrammarBuilder::new();
    let members = vec![
        (
            Expr::seq(vec![Expr::literal("a"), Expr::literal("0")]),
            false,
        ),
        (
            Expr::seq(vec![Expr::literal("ab"), Expr::literal("0")]),
            false,
        ),
    ];
    b.member_set("m", members, vec![], Expr::literal(","), false);
    b.rule("start", vec![common::between("(", "m", ")")]);
    b.start("start");
    let err = CompiledGrammar::new(&b.build().unwrap()).unwrap_err();
    assert_eq!(err.kind(), DiagnosticKind::LexicalHazard, "{err}");
}

#[test]
fn a_set_without_members_is_an_error() {
    let mut b = GrammarBuilder::new();
    b.member_set("m", vec![], vec![], Expr::literal(","), false);
    b.rule("start", vec![common::between("(", "m", ")")]);
    let err = b.build().unwrap_err();
    assert!(err.to_string().contains("no members"), "{err}");
}

#[test]
fn random_member_set_masks_equal_reference() {
    masks_equal_reference_on(0..400, 200, 5000);
}

/// Long, new seeds: `cargo test --release -p gcd-core --test member_sets -- --ignored`.
#[test]
#[ignore]
fn random_member_set_masks_equal_reference_fuzz() {
    masks_equal_reference_on(1_000..21_000, 10_000, 200_000);
}

fn masks_equal_reference_on(seeds: std::ops::Range<u64>, min_grammars: usize, min_masks: usize) {
    let (mut grammars, mut masks, mut forked) = (0, 0, 0);
    for seed in seeds {
        let Some(c) = common::random_member_grammar(seed).compile() else {
            continue;
        };
        let c = Arc::new(c);
        forked += !c.is_ll1() as usize;
        assert!(!c.grammar().member_sets.is_empty());
        for k in 0..3 {
            let tokens = common::random_vocab(seed * 7 + k, 24 + 8 * k as usize);
            masks += check_walk(c.clone(), tokens, seed + k, 14);
        }
        grammars += 1;
    }
    println!("{grammars} member-set grammars ({forked} forking around their sets), {masks} masks compared");
    assert!(
        grammars > min_grammars && masks > min_masks && forked > min_grammars / 10,
        "{grammars} grammars ({forked} forking), {masks} masks"
    );
}

/// Every random member-set grammar compiles: an unused second set is a
/// warning, and two sets behind the same `(` are told apart by forking.
#[test]
fn random_member_set_grammars_compile() {
    let mut why = std::collections::BTreeMap::new();
    for seed in 0..400u64 {
        let g = common::random_member_grammar(seed).build().unwrap();
        let key = match CompiledGrammar::new(&g) {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("{:?}", e.kind()),
        };
        *why.entry(key).or_insert(0) += 1;
    }
    println!("{why:?}");
    assert_eq!(why.get("ok"), Some(&400), "{why:?}");
}
