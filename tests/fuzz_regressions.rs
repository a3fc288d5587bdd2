//! Every input the fuzzers kept (`fuzz/regressions/<target>/`), replayed
//! through the same checks the fuzz targets run (`fuzz/checks.rs`), plus a
//! few hand-made inputs per target so each check runs in the normal suite
//! even before a fuzzer has found anything.

#[path = "../fuzz/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::path::Path;

/// Replays `fuzz/regressions/<target>/*` and `extra` through `check`;
/// returns how many inputs ran.
fn replay(target: &str, check: fn(&[u8]), extra: &[&[u8]]) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut inputs: Vec<Vec<u8>> = extra.iter().map(|e| e.to_vec()).collect();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.is_file()) {
            inputs.push(std::fs::read(&p).unwrap());
        }
    }
    for input in &inputs {
        check(input);
    }
    inputs.len()
}

#[test]
fn lark_grammar_inputs() {
    let n = replay(
        "lark_grammar",
        checks::lark_grammar,
        &[
            b"\x00start: \"a\" b\nb: \"b\"*",
            b"\x00start: x+\nx: NAME | NAME \"=\" NAME\nNAME: /[a-z]+/\n%ignore \" \"",
            b"\x01start: A A\nA: /a+/",
        ],
    );
    assert!(n >= 3);
}

#[test]
fn json_schema_inputs() {
    let n = replay(
        "json_schema",
        checks::json_schema,
        &[
            br#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"enum":["x","y"]}},"required":["a"]}"#,
            br#"{"type":"array","items":{"type":"string","maxLength":3},"maxItems":2}"#,
        ],
    );
    assert!(n >= 2);
}

#[test]
fn tokenizer_file_inputs() {
    let n = replay(
        "tokenizer_file",
        checks::tokenizer_file,
        &[b"\x00{}", b"\x01YQ== 0\nYg== 1\n", b"\x01not base64 at all"],
    );
    assert!(n >= 3);
}

#[test]
fn matcher_ops_inputs() {
    let extra: Vec<Vec<u8>> = (0u8..24)
        .map(|k| {
            (0..200)
                .map(|i: u8| i.wrapping_mul(31).wrapping_add(k * 7))
                .collect()
        })
        .collect();
    let extra: Vec<&[u8]> = extra.iter().map(|v| v.as_slice()).collect();
    let n = replay("matcher_ops", checks::matcher_ops, &extra);
    assert!(n >= 24);
}
