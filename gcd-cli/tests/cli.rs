//! The `gcd` binary: exit codes and output of its subcommands.

use std::path::PathBuf;
use std::process::Command;

fn gcd(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcd"))
        .args(args)
        .output()
        .expect("gcd runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcd-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn check_reports_rewrites_and_conflicts() {
    let ok = temp_file(
        "arith.lark",
        "start: expr\nexpr: expr \"+\" term | term\nterm: NUMBER\n%import common.NUMBER\n",
    );
    let (code, out, _) = gcd(&["check", ok.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("removed direct left recursion in `expr`"),
        "{out}"
    );
    assert!(out.contains("LL(1): ok"), "{out}");

    let bad = temp_file(
        "bad.lark",
        "start: a | b\na: \"x\" \"y\"\nb: \"x\" \"z\" | c\nc: \"x\"\n",
    );
    // Not LL(1): usable with forks, its conflict named as a note...
    let (code, out, _) = gcd(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("generalized: ok, 1 LL(1) conflict(s)"),
        "{out}"
    );
    assert!(
        out.contains("warning: LL(1) conflict in rule `start`: on lookahead `\"x\"`"),
        "{out}"
    );
    // ...and refused when LL(1) is asked for.
    let (code, out, _) = gcd(&["check", "--ll1", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("not usable"), "{out}");
    assert!(
        out.contains("error: LL(1) conflict in rule `start`"),
        "{out}"
    );

    // An unused rule is a warning, and an error under --ll1.
    let unused = temp_file("unused.lark", "start: \"a\"\norphan: \"b\"\n");
    let (code, out, _) = gcd(&["check", unused.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("2:1: warning: rule `orphan` cannot be reached from the start rule `start`"),
        "{out}"
    );
    assert!(out.contains("LL(1): ok"), "{out}");
    let (code, out, _) = gcd(&["check", "--ll1", unused.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error: rule `orphan`"), "{out}");

    let undefined = temp_file("undef.lark", "start: foo\n");
    let (code, out, _) = gcd(&["check", undefined.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("1:8") && out.contains("`foo`"), "{out}");
}

#[test]
fn replay_accepts_json_and_rejects_broken_json() {
    let good = temp_file("good.json", "{\"a\": [1, 2, {\"b\": null}], \"c\": \"é\"}");
    let bad = temp_file("bad.json", "{\"a\": [1, 2,]}");
    let (code, out, _) = gcd(&[
        "replay",
        "--grammar",
        "json",
        "--tokenizer",
        "cl100k",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("good.json: ok\n"), "{out}");
    assert!(out.contains("peak live configurations 1"), "{out}");
    let (code, out, _) = gcd(&[
        "replay",
        "--tokenizer",
        "cl100k",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("rejected at token"), "{out}");
    let (code, out, _) = gcd(&[
        "replay",
        "--tokenizer",
        "cl100k",
        "--expect-reject",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn sample_prints_json_lines() {
    let (code, out, _) = gcd(&[
        "sample",
        "--tokenizer",
        "cl100k",
        "--count",
        "4",
        "--seed",
        "3",
        "--max-tokens",
        "32",
    ]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for l in &lines {
        assert!(l["tokens"].as_u64().unwrap() <= 32);
        if l["complete"].as_bool().unwrap() {
            // RFC 8259 JSON; serde_json accepts it unless a number exceeds f64.
            let text = l["text"].as_str().unwrap();
            if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
                assert!(
                    e.to_string().starts_with("number out of range"),
                    "{text}: {e}"
                );
            }
        }
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let junk = temp_file("junk.json", "{\"not\": \"a tokenizer\"}");
    let (code, _, err) = gcd(&["sample", "--tokenizer", junk.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("junk.json"), "{err}");
    let (code, _, err) = gcd(&["sample", "--grammar", "/nonexistent.lark"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent.lark"), "{err}");
}

#[test]
fn json_schemas_load_and_report_what_only_annotates() {
    let schema = temp_file(
        "annotated-schema.json",
        r#"{"type": "object", "properties": {"file": {"type": "string", "format": "path", "maxLength": 8}},
            "required": ["file"], "additionalProperties": false}"#,
    );
    let schema = schema.to_str().unwrap();
    let (code, out, _) = gcd(&["check", schema]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("JSON Schema ok"), "{out}");
    assert!(
        out.contains("format \"path\" at /properties/file") && out.contains("not enforced"),
        "{out}"
    );
    // Samples from it are objects with one short `file` string.
    let (code, out, err) = gcd(&[
        "sample",
        "--grammar",
        schema,
        "--count",
        "3",
        "--budget",
        "30",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("format \"path\""), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for line in lines {
        let sample: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(sample["complete"], true, "{line}");
        let value: serde_json::Value =
            serde_json::from_str(sample["text"].as_str().unwrap()).unwrap();
        let file = value["file"].as_str().expect("a string");
        assert!(file.chars().count() <= 8, "{line}");
        assert_eq!(value.as_object().unwrap().len(), 1, "{line}");
    }
    // A schema we cannot enforce is unusable, with the keyword named.
    let bad = temp_file(
        "unenforceable-schema.json",
        r#"{"type": "string", "format": "idn-email"}"#,
    );
    let (code, out, _) = gcd(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("format"), "{out}");
}
