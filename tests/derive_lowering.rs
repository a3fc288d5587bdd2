//! The derive's grammars are lowered straight to the grammar IR, and
//! `grammar_text` prints that IR: the text must read back through the
//! Lark front end as a grammar that prints the same and compiles alike,
//! so the text shown to people is the grammar in use.

mod derive_types;

use std::collections::{BTreeMap, HashMap};

use derive_types::*;
use gcd::constrained::{grammar_text, Whitespace};
use gcd::core::compiled::CompiledGrammar;
use gcd::core::json::{to_grammar, ShapeSet};
use gcd::core::lark::parse_grammar;
use gcd::Constrained;

fn check<T: Constrained + 'static>() {
    let name = std::any::type_name::<T>();
    for ws in [
        Whitespace::Compact,
        Whitespace::Spaced,
        Whitespace::SingleSpace,
        Whitespace::Json,
    ] {
        let text = grammar_text::<T>(ws).unwrap();
        let from_text = parse_grammar(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let mut set = ShapeSet::new();
        let root = T::shape(&mut set);
        let lowered = to_grammar(&root, &set, ws).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            CompiledGrammar::new(&from_text).is_ok(),
            CompiledGrammar::new(&lowered).is_ok(),
            "{name} {ws:?}"
        );
        assert_eq!(text, lowered.to_string(), "{name} {ws:?}");
        assert_eq!(
            text,
            from_text.to_string(),
            "{name} {ws:?}: reads back otherwise"
        );
    }
}

#[test]
fn lowered_grammars_are_what_grammar_text_reads() {
    check::<Point>();
    check::<Person>();
    check::<ToolCall>();
    check::<Unit>();
    check::<Shape2>();
    check::<External>();
    check::<Untagged>();
    check::<Tree>();
    check::<Wrapper<Point>>();
    check::<Newtype>();
    check::<Tuple3>();
    check::<Meters>();
    check::<Maps>();
    check::<Option<Option<Unit>>>();
    check::<Vec<[f32; 2]>>();
    check::<HashMap<String, (char, bool, ())>>();
    check::<BTreeMap<String, Vec<Tree>>>();
    check::<(u8, i16, u32, i64, u64, String)>();
}
