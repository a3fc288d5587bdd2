//! Grammar snapshots (`CompiledGrammar::to_bytes` / `from_bytes`): what the
//! `grammar!` macro embeds must load back to exactly the tables built at run
//! time, and a damaged snapshot must be an error, never a panic.

mod common;

use gcd_core::lark::builtin::json_compiled;
use gcd_core::lark::parse_grammar;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::{CompiledGrammar, SnapshotError};

fn round_trip(g: &CompiledGrammar) -> CompiledGrammar {
    let bytes = g.to_bytes();
    CompiledGrammar::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn json_and_real_grammars_load_back_equal() {
    let json = json_compiled();
    assert_eq!(round_trip(&json), *json);
    let Some(root) = common::data::shared_data() else {
        return;
    };
    // Each listed file must exist and compile: a renamed or broken file
    // fails here instead of shrinking the check.
    for file in [
        "truncproof/c_subset.lark",
        "truncproof/json_rfc8259.lark",
        "lark-syncode/calc_grammar.lark",
        "lark-syncode/java_grammar.lark",
        "lark-upstream/examples-inline/turtle_dsl--turtle_grammar.lark",
    ] {
        let text = std::fs::read_to_string(root.join("grammars").join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let g = parse_grammar(&text)
            .map_err(|e| e.to_string())
            .and_then(|g| CompiledGrammar::new(&g).map_err(|e| e.to_string()))
            .unwrap_or_else(|e| panic!("{file} does not compile: {e}"));
        let back = round_trip(&g);
        assert_eq!(back, g, "{file}");
        eprintln!("{file}: snapshot {} bytes", g.to_bytes().len());
    }
}

#[test]
fn random_grammars_load_back_equal_and_recognize_alike() {
    let mut checked = 0;
    for seed in 0..1000 {
        let Some(g) = common::random_grammar(seed).compile() else {
            continue;
        };
        let back = round_trip(&g);
        assert_eq!(back, g, "seed {seed}");
        // Equal tables; check behaviour too, on a few inputs.
        let (r1, r2) = (Recognizer::new(&g), Recognizer::new(&back));
        for input in ["", "a", "ab", "(a,b)", "x y", "1 2"] {
            assert_eq!(
                r1.status(input.as_bytes()),
                r2.status(input.as_bytes()),
                "seed {seed} {input:?}"
            );
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} random grammars compiled");
}

#[test]
fn damaged_snapshots_are_errors_not_panics() {
    let g = CompiledGrammar::new(
        &parse_grammar("start: \"(\" NUM (\",\" NUM)* \")\"\nNUM: /[0-9]+/").unwrap(),
    )
    .unwrap();
    let bytes = g.to_bytes();
    assert!(matches!(
        CompiledGrammar::from_bytes(b"{\"not\": 1}"),
        Err(SnapshotError::NotASnapshot)
    ));
    let mut newer = bytes.clone();
    newer[8] = newer[8].wrapping_add(1);
    assert!(matches!(
        CompiledGrammar::from_bytes(&newer),
        Err(SnapshotError::Version { .. })
    ));
    for len in 0..bytes.len() {
        let e = CompiledGrammar::from_bytes(&bytes[..len]).unwrap_err();
        // Past the magic bytes and the version, a short snapshot is corrupt.
        if len >= 12 {
            assert!(
                matches!(e, SnapshotError::Corrupt(_)),
                "truncated to {len}: {e}"
            );
        }
    }
    // Any single damaged byte: either an error or a snapshot that passes the
    // index checks; never a panic.
    let mut errors = 0;
    for i in 12..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            errors += CompiledGrammar::from_bytes(&b).is_err() as usize;
        }
    }
    assert!(errors > 0);
}
