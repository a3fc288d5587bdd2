//! `#[derive(Constrained)]`: every value serde_json writes for a type is
//! accepted token by token with a real vocabulary, and EOS is allowed at its
//! end; what serde_json would refuse to read is refused.

use std::collections::VecDeque;
use std::sync::Arc;

use gcd::constrained::{compiled, Whitespace};
use gcd::core::bind::BoundGrammar;
use gcd::core::runtime::matcher::Matcher;
use gcd::core::vocab::Vocabulary;
use gcd::Constrained;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

mod derive_types;

use derive_types::*;

fn vocab() -> Arc<Vocabulary> {
    static V: std::sync::OnceLock<Arc<Vocabulary>> = std::sync::OnceLock::new();
    V.get_or_init(|| Arc::new(Vocabulary::o200k_base().unwrap()))
        .clone()
}

fn bound<T: Constrained + 'static>(ws: Whitespace) -> Arc<BoundGrammar> {
    static B: std::sync::Mutex<Vec<(std::any::TypeId, Whitespace, Arc<BoundGrammar>)>> =
        std::sync::Mutex::new(Vec::new());
    let key = std::any::TypeId::of::<T>();
    let mut b = B.lock().unwrap();
    if let Some((_, _, g)) = b.iter().find(|(k, w, _)| *k == key && *w == ws) {
        return g.clone();
    }
    let g = compiled::<T>(ws).unwrap_or_else(|e| panic!("{e}"));
    let g = Arc::new(BoundGrammar::new(g, vocab()));
    b.push((key, ws, g.clone()));
    g
}

/// Feeds `text` token by token; true when every token is allowed and EOS is allowed at the end.
fn accepts<T: Constrained + 'static>(text: &str, ws: Whitespace) -> bool {
    let b = bound::<T>(ws);
    let mut m = Matcher::new(b.clone());
    for t in b.vocab().encode(text).unwrap() {
        if m.advance(t).is_err() {
            return false;
        }
    }
    m.is_complete()
}

fn round_trip<
    T: Constrained + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug + 'static,
>(
    v: &T,
) {
    let compact = serde_json::to_string(v).unwrap();
    assert!(
        accepts::<T>(&compact, Whitespace::Compact),
        "{} refused {compact}",
        std::any::type_name::<T>()
    );
    let pretty = serde_json::to_string_pretty(v).unwrap();
    assert!(
        accepts::<T>(&pretty, Whitespace::Json),
        "{} refused {pretty}",
        std::any::type_name::<T>()
    );
    // Where pretty-printers put whitespace, bounded: the pretty and Python
    // forms pass (no test type nests past depth 19).
    assert!(
        accepts::<T>(&pretty, Whitespace::Capped(40)),
        "{} refused {pretty} under capped whitespace",
        std::any::type_name::<T>()
    );
    let spaced = gcd_cli::pyjson::to_python_json(&serde_json::to_value(v).unwrap());
    assert!(
        accepts::<T>(&spaced, Whitespace::Capped(40)),
        "{} refused {spaced} under capped whitespace",
        std::any::type_name::<T>()
    );
    // Python's separators are exactly the single spaces of `Spaced` (maps with
    // non-string keys aside, which no type here has).
    assert!(
        accepts::<T>(&spaced, Whitespace::Spaced),
        "{} refused {spaced}",
        std::any::type_name::<T>()
    );
}

fn unit() -> impl Strategy<Value = Unit> {
    prop_oneof![Just(Unit::Celsius), Just(Unit::Fahrenheit)]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = any::<i16>().prop_map(|value| Tree {
        value,
        children: vec![],
        next: None,
    });
    leaf.prop_recursive(3, 12, 3, |inner| {
        (
            any::<i16>(),
            prop::collection::vec(inner.clone(), 0..3),
            prop::option::of(inner),
        )
            .prop_map(|(value, children, next)| Tree {
                value,
                children,
                next: next.map(Box::new),
            })
    })
}

proptest! {
    // A fixed seed keeps CI deterministic.
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6763_6425),
        ..ProptestConfig::default()
    })]

    #[test]
    fn points_people_and_tools(x: i32, y: i32, name in "\\PC{0,12}", age: u8, nicks in prop::collection::vec("[a-z ]{0,5}", 0..3),
                               email in prop::option::of("[a-z@.]{1,9}"), score in -1e6f64..1e6, query in "\\PC{0,20}",
                               limit in 1u8..=10, city in "[A-Za-z ]{1,10}", u in prop::option::of(unit())) {
        round_trip(&Point { x, y });
        round_trip(&Person { first_name: name, age, nick_names: nicks, email, score, cache: 0 });
        round_trip(&ToolCall::Search { query, limit });
        round_trip(&ToolCall::Weather { city, unit: u });
        round_trip(&ToolCall::Stop);
    }

    #[test]
    fn enums_of_every_representation(r: u16, w: u16, h: u16, n: i64, b: bool, c: char, a: Vec<u8>, k: u32, s in "\\PC{0,8}", l: Vec<bool>) {
        round_trip(&Shape2::Circle { r });
        round_trip(&Shape2::Rect { w, h });
        round_trip(&Shape2::Empty);
        round_trip(&External::Unit);
        round_trip(&External::New(n));
        round_trip(&External::Pair(b, c));
        round_trip(&External::Named { a });
        round_trip(&Untagged::Num(k));
        round_trip(&Untagged::Text(s));
        round_trip(&Untagged::List(l));
    }

    #[test]
    fn recursive_generic_and_tuple_types(t in tree(), p: (i32, i32), q: Vec<(i32, i32)>, v: u64, i: i8, s in "\\PC{0,6}", arr: [u8; 3], m in -1e30f32..1e30) {
        round_trip(&t);
        round_trip(&Wrapper { inner: Point { x: p.0, y: p.1 }, items: q.into_iter().map(|(x, y)| Point { x, y }).collect() });
        round_trip(&Wrapper { inner: v, items: VecDeque::from(vec![v, 0]) });
        round_trip(&Newtype(v));
        round_trip(&Tuple3(i, s, arr));
        round_trip(&Meters { value: m });
    }

    #[test]
    fn maps_and_rules(names in prop::collection::btree_map("\\PC{0,5}", (any::<u8>(), unit()), 0..3),
                      counts in prop::collection::hash_map("[a-z]{0,4}", any::<i64>(), 0..3),
                      code in "[a-z]{2,5}", short in "\\PC{1,4}", few in prop::collection::vec(unit(), 1..=2)) {
        round_trip(&Maps { by_name: names, counts, code, short, few, unit: () });
    }
}

#[test]
fn what_serde_refuses_is_refused() {
    let c = Whitespace::Compact;
    // Integer ranges of the type and of #[constrained(range)].
    assert!(accepts::<Point>(r#"{"x":-2147483648,"y":2147483647}"#, c));
    assert!(!accepts::<Point>(r#"{"x":2147483648,"y":0}"#, c));
    assert!(!accepts::<ToolCall>(
        r#"{"tool":"search","args":{"query":"a","limit":11}}"#,
        c
    ));
    assert!(!accepts::<ToolCall>(
        r#"{"tool":"search","args":{"query":"a","limit":0}}"#,
        c
    ));
    // Required fields, and no unknown ones.
    assert!(!accepts::<Point>(r#"{"x":1}"#, c));
    assert!(!accepts::<Point>(r#"{"x":1,"y":2,"z":3}"#, c));
    // An alias is read as serde reads it.
    let aliased = r#"{"firstName":"A","years":3,"$score":1.5}"#;
    assert!(accepts::<Person>(aliased, c) && serde_json::from_str::<Person>(aliased).is_ok());
    // Optional fields may be left out, as serde reads them.
    assert!(accepts::<Person>(
        r#"{"firstName":"A","age":3,"$score":1.5}"#,
        c
    ));
    assert!(serde_json::from_str::<Person>(r#"{"firstName":"A","age":3,"$score":1.5}"#).is_ok());
    // Rules.
    assert!(!accepts::<Maps>(
        r#"{"by_name":{},"counts":{},"code":"A","short":"x","few":["celsius"],"unit":null}"#,
        c
    ));
    assert!(!accepts::<Maps>(
        r#"{"by_name":{},"counts":{},"code":"ab","short":"xxxxx","few":["celsius"],"unit":null}"#,
        c
    ));
    assert!(!accepts::<Maps>(
        r#"{"by_name":{},"counts":{},"code":"ab","short":"x","few":[],"unit":null}"#,
        c
    ));
    // serde_json reads `-0` as a float, which no integer type takes.
    assert!(
        serde_json::from_str::<u64>("-0").is_err() && serde_json::from_str::<i64>("-0").is_err()
    );
    assert!(!accepts::<Newtype>("-0", c) && !accepts::<Point>(r#"{"x":-0,"y":0}"#, c));
}

/// Each type's grammar is linked once per whitespace policy, and bound once
/// per vocabulary: later uses get the cached value itself.
#[test]
fn each_grammar_is_linked_and_bound_once() {
    let first = compiled::<Point>(Whitespace::Compact).unwrap();
    assert!(Arc::ptr_eq(
        &first,
        &compiled::<Point>(Whitespace::Compact).unwrap()
    ));
    let spaced = compiled::<Point>(Whitespace::Json).unwrap();
    assert!(!Arc::ptr_eq(&first, &spaced), "one cache entry per policy");
    assert!(Arc::ptr_eq(
        &spaced,
        &compiled::<Point>(Whitespace::Json).unwrap()
    ));
    assert!(!Arc::ptr_eq(
        &first,
        &compiled::<Person>(Whitespace::Compact).unwrap()
    ));
    let vocab = vocab();
    let b = gcd::constrained::bound::<Point>(Whitespace::Compact, vocab.clone()).unwrap();
    assert!(Arc::ptr_eq(
        &b,
        &gcd::constrained::bound::<Point>(Whitespace::Compact, vocab).unwrap()
    ));
    assert!(
        Arc::ptr_eq(b.grammar(), &first),
        "binding reuses the linked grammar"
    );
}

#[test]
fn decoder_with_a_budget_always_deserializes() {
    use gcd::Decoder;
    let vocab = vocab();
    for seed in 0..20u64 {
        let mut d = Decoder::<ToolCall>::new(vocab.clone())
            .unwrap()
            .with_budget(40)
            .unwrap();
        let mut logits = vec![0f32; vocab.len()];
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        while !d.matcher().is_finished() {
            for l in logits.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *l = (x % 1000) as f32;
            }
            d.mask_logits(&mut logits);
            let best = (0..logits.len())
                .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
                .unwrap();
            d.advance(best as u32).unwrap();
        }
        let call: ToolCall = d.finish().unwrap();
        assert!(d.matcher().tokens().len() - 1 <= 40, "{call:?}");
    }
}

#[derive(Constrained, Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Ambiguous {
    A { id: u8 },
    B { id: u8 },
}

#[derive(Constrained, Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum TellApartByValue {
    A { id: u8 },
    B { id: String },
}

#[test]
fn ambiguity_is_an_error_at_first_use_naming_the_type() {
    let e = compiled::<Ambiguous>(Whitespace::Compact)
        .unwrap_err()
        .to_string();
    assert!(e.contains("Ambiguous") && e.contains("conflict"), "{e}");
    // Left factoring tells apart objects that differ after a common key.
    assert!(compiled::<TellApartByValue>(Whitespace::Compact).is_ok());
    assert!(accepts::<TellApartByValue>(
        r#"{"id":"x"}"#,
        Whitespace::Compact
    ));
    assert!(accepts::<TellApartByValue>(
        r#"{"id":7}"#,
        Whitespace::Compact
    ));
}

/// `STARTS_WITH` (the basis of the compile-time untagged check) names
/// exactly the first bytes each type's grammar allows.
#[test]
fn starts_with_matches_the_grammar() {
    use gcd::constrained::starts::*;
    fn check<T: Constrained + 'static>(expected: u8) {
        let name = std::any::type_name::<T>();
        assert_eq!(T::STARTS_WITH, expected, "{name}");
        let b = bound::<T>(Whitespace::Compact);
        let m = Matcher::new(b.clone());
        for (bit, first) in [
            (NULL, "n"),
            (BOOL, "t"),
            (NUMBER, "1"),
            (STRING, "\""),
            (ARRAY, "["),
            (OBJECT, "{"),
        ] {
            let tok = b.vocab().encode(first).unwrap();
            assert_eq!(tok.len(), 1);
            let allowed = m.clone().advance(tok[0]).is_ok();
            assert_eq!(allowed, expected & bit != 0, "{name} starting with {first}");
        }
    }
    check::<Point>(OBJECT);
    check::<Unit>(STRING);
    check::<Option<Unit>>(STRING | NULL);
    check::<External>(STRING | OBJECT);
    check::<Shape2>(OBJECT);
    check::<ToolCall>(OBJECT);
    check::<Untagged>(NUMBER | STRING | ARRAY);
    check::<Meters>(NUMBER);
    check::<Newtype>(NUMBER);
    check::<Tuple3>(ARRAY);
    check::<Option<Box<bool>>>(BOOL | NULL);
}

/// A derived type's own shape is const data: keys, aliases, requiredness,
/// tags and field rules are there at compile time, and evaluating it
/// in a `const` proves it.
#[test]
fn own_shape_is_const_data() {
    use gcd::constrained::ShapeDef;
    const PERSON: &ShapeDef = match Person::DEF {
        Some(d) => d,
        None => panic!("derived types define their shape"),
    };
    let ShapeDef::Object(fields) = PERSON else {
        panic!("{PERSON:?}")
    };
    let summary: Vec<_> = fields
        .iter()
        .map(|f| (f.name, f.aliases, f.required))
        .collect();
    assert_eq!(
        summary,
        [
            ("firstName", &[][..], true),
            ("age", &["years"][..], true),
            ("nickNames", &[][..], false),
            ("email", &[][..], false),
            ("$score", &[][..], true),
        ]
    );
    const TOOL: &ShapeDef = match ToolCall::DEF {
        Some(d) => d,
        None => panic!(),
    };
    let ShapeDef::Tagged {
        tag: "tool",
        variants,
    } = TOOL
    else {
        panic!("{TOOL:?}")
    };
    let names: Vec<_> = variants.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["search", "weather", "stop"]);
    let ShapeDef::Object(limit) = &variants[0].1[0].shape else {
        panic!()
    };
    let ShapeDef::Type(t) = &limit[1].shape else {
        panic!()
    };
    assert_eq!((t.field, t.rules.range), ("limit", Some((1, 10))));
    assert!(
        !t.rules.prebuilt.is_empty(),
        "the range's DFA is built at compile time"
    );
    // Types that build their shape in code have no definition.
    assert!(<u8 as Constrained>::DEF.is_none());
}

/// A type whose hand-written `Constrained` says "string" while its
/// `Deserialize` wants a number: the one way `finish` can fail to
/// deserialize, which `#[derive(Constrained)]` never produces.
#[derive(Deserialize, Debug)]
struct Mislabeled(#[allow(dead_code)] u8);

impl Constrained for Mislabeled {
    fn shape(_: &mut gcd::constrained::ShapeSet) -> gcd::constrained::Shape {
        gcd::constrained::Shape::String(Default::default())
    }
}

#[test]
fn decoder_errors_by_kind() {
    use gcd::constrained::ConstraintError;
    use gcd::core::runtime::matcher::MatchErrorKind;
    use gcd::Decoder;
    let vocab = vocab();
    let mut d = Decoder::<Point>::new(vocab.clone()).unwrap();
    let e = d.advance(vocab.len() as u32 + 5).unwrap_err();
    assert!(
        matches!(&e, ConstraintError::Match(m) if m.kind() == MatchErrorKind::TokenOutOfRange),
        "{e}"
    );
    for t in vocab.encode("{\"x\":1").unwrap() {
        d.advance(t).unwrap();
    }
    let e = d.finish().unwrap_err();
    assert!(matches!(e, ConstraintError::Incomplete(6)), "{e}");
    let e = Decoder::<Point>::new(vocab.clone())
        .unwrap()
        .with_budget(2)
        .err()
        .expect("a point needs more than 2 tokens");
    assert!(
        matches!(&e, ConstraintError::Match(m) if m.kind() == MatchErrorKind::BudgetTooSmall),
        "{e}"
    );
    let mut d = Decoder::<Mislabeled>::new(vocab.clone()).unwrap();
    for t in vocab.encode("\"7\"").unwrap() {
        d.advance(t).unwrap();
    }
    let e = d.finish().unwrap_err();
    assert!(matches!(e, ConstraintError::Deserialize(_)), "{e}");
}

#[test]
fn decoder_whitespace_policy() {
    use gcd::Decoder;
    let vocab = vocab();
    let spaced = r#"{ "x": 1, "y": 2 }"#;
    let compact = Decoder::<Point>::new(vocab.clone()).unwrap();
    assert!(!compact.matcher().accepts_bytes(spaced.as_bytes()));
    assert!(compact.matcher().accepts_bytes(br#"{"x":1,"y":2}"#));
    let mut json = Decoder::<Point>::with_whitespace(vocab.clone(), Whitespace::Json).unwrap();
    for t in vocab.encode(spaced).unwrap() {
        json.advance(t).unwrap();
    }
    assert_eq!(json.finish().unwrap(), Point { x: 1, y: 2 });
}

/// `#[constrained(whitespace = ...)]` names the type's policy.
#[derive(Constrained, Deserialize, Serialize, Debug, PartialEq)]
#[constrained(whitespace = "capped")]
struct Pretty {
    name: String,
    tags: Vec<u8>,
}

#[test]
fn the_whitespace_attribute_sets_the_policy() {
    assert_eq!(Pretty::WHITESPACE, Whitespace::Capped(20));
    let v = Pretty {
        name: "x".into(),
        tags: vec![1, 2],
    };
    let pretty = serde_json::to_string_pretty(&v).unwrap();
    let mut d = gcd::Decoder::<Pretty>::new(vocab()).unwrap();
    for t in vocab().encode(&pretty).unwrap() {
        d.advance(t).unwrap();
    }
    assert_eq!(d.finish().unwrap(), v);
    // 21 spaces after `{` is one more than the cap.
    let mut d = gcd::Decoder::<Pretty>::new(vocab()).unwrap();
    let over = format!("{{{}\"name\":\"x\",\"tags\":[]}}", " ".repeat(21));
    let refused = vocab()
        .encode(&over)
        .unwrap()
        .into_iter()
        .any(|t| d.advance(t).is_err());
    assert!(refused, "{over}");
}
