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

/// Runs `gcd` and parses its stdout as one JSON value.
fn json(args: &[&str]) -> (i32, serde_json::Value) {
    let (code, out, _) = gcd(args);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    (code, v)
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcd-cli-{}", std::process::id()));
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
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
fn check_json_gives_one_object_for_tools() {
    let bad = temp_file(
        "bad_json.lark",
        "start: a | b\na: \"x\" \"y\"\nb: \"x\" \"z\" | c\nc: \"x\"\n",
    );
    let (code, v) = json(&["check", "--json", bad.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(v["verdict"], "generalized", "{v}");
    assert_eq!(v["conflicts"].as_array().unwrap().len(), 1, "{v}");
    assert!(v["shortest_sentence_bytes"].as_u64().unwrap() >= 1, "{v}");
    let (code, v) = json(&["check", "--json", "--ll1", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(v["verdict"], "unusable", "{v}");
    assert!(
        v["errors"][0].as_str().unwrap().contains("LL(1) conflict"),
        "{v}"
    );
    let broken = temp_file("broken.lark", "start: foo\n");
    let (code, v) = json(&["check", "--json", broken.to_str().unwrap()]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("unusable")), "{v}");
    assert!(v["errors"][0].as_str().unwrap().contains("`foo`"), "{v}");
    let schema = temp_file(
        "s.json",
        r#"{"type": "object", "properties": {"a": {"type": "integer"}}}"#,
    );
    let (code, v) = json(&["check", "--json", schema.to_str().unwrap()]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("ll1")), "{v}");
    let schema = temp_file("bad_s.json", r#"{"type": "nothing"}"#);
    let (code, v) = json(&["check", "--json", schema.to_str().unwrap()]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("unusable")), "{v}");
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
        let tokens = l["tokens"].as_u64().unwrap();
        assert!(tokens <= 32);
        if l["complete"].as_bool().unwrap() {
            parses_as_json(l["text"].as_str().unwrap());
        } else {
            // Without a budget only the token limit stops a sample early.
            assert_eq!(tokens, 32, "{l}");
        }
    }
}

/// RFC 8259 JSON; serde_json accepts it unless a number exceeds f64.
fn parses_as_json(text: &str) {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        assert!(
            e.to_string().starts_with("number out of range"),
            "{text}: {e}"
        );
    }
}

#[test]
fn sample_under_a_budget_always_completes() {
    let (code, out, err) = gcd(&[
        "sample",
        "--tokenizer",
        "cl100k",
        "--count",
        "6",
        "--seed",
        "11",
        "--budget",
        "12",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6, "{out}");
    for l in &lines {
        assert_eq!(l["complete"], true, "{l}");
        assert!(l["tokens"].as_u64().unwrap() <= 12, "{l}");
        parses_as_json(l["text"].as_str().unwrap());
    }
    // A budget below the minimum is refused, naming both numbers.
    let one = temp_file("two_words.lark", "start: \"hello\" \" world\" \"!\"\n");
    let (code, _, err) = gcd(&[
        "sample",
        "--grammar",
        one.to_str().unwrap(),
        "--tokenizer",
        "cl100k",
        "--budget",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("budget of 1"), "{err}");
}

#[test]
fn budget_prints_the_fewest_tokens() {
    // Any JSON value can be one token ("0"); a fixed word is one token too.
    let (code, out, err) = gcd(&["budget", "--tokenizer", "cl100k"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "minimum budget: 1 tokens");
    let hello = temp_file("hello.lark", "start: \"hello\"\n");
    let (code, out, _) = gcd(&[
        "budget",
        "--grammar",
        hello.to_str().unwrap(),
        "--tokenizer",
        "cl100k",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "minimum budget: 1 tokens");
}

/// `--lexing dynamic` takes a grammar maximal munch refuses (the first
/// `A` would swallow every `a`), and samples from it stay complete under
/// a budget.
#[test]
fn dynamic_lexing_takes_what_maximal_munch_refuses() {
    let runs = temp_file("runs.lark", "start: A \",\" A A\nA: /a+/\n");
    let path = runs.to_str().unwrap();
    let (code, out, _) = gcd(&["check", path]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("maximal munch merges") && out.contains("--lexing dynamic"),
        "{out}"
    );
    let (code, out, err) = gcd(&["check", "--lexing", "dynamic", path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("LL(1): ok, lexed dynamically"), "{out}");
    let (code, out, err) = gcd(&[
        "budget",
        "--lexing",
        "dynamic",
        "--grammar",
        path,
        "--tokenizer",
        "cl100k",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "minimum budget: 4 tokens");
    let (code, out, err) = gcd(&[
        "sample",
        "--lexing",
        "dynamic",
        "--grammar",
        path,
        "--tokenizer",
        "cl100k",
        "--count",
        "5",
        "--budget",
        "6",
    ]);
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        let l: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(l["complete"], true, "{l}");
        let text = l["text"].as_str().unwrap();
        let (first, rest) = text.split_once(',').unwrap();
        assert!(!first.is_empty() && rest.len() >= 2, "{text:?}");
        assert!(
            first.chars().chain(rest.chars()).all(|c| c == 'a'),
            "{text:?}"
        );
    }
}

/// A folder of two MaskBench files: one schema that compiles, with a valid
/// and an invalid instance, and one that uses a format gcd cannot enforce.
fn maskbench_dir(tag: &str) -> PathBuf {
    let a = temp_file(
        &format!("{tag}/a.json"),
        r#"{"description": "", "meta": {}, "schema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
           "tests": [{"description": "ok", "valid": true, "data": {"a": 12}},
                     {"description": "string", "valid": false, "data": {"a": "x"}}]}"#,
    );
    temp_file(
        &format!("{tag}/b.json"),
        r#"{"description": "", "meta": {}, "schema": {"type": "string", "format": "idn-email"},
           "tests": [{"description": "ok", "valid": true, "data": "a@b.c"}]}"#,
    );
    a.parent().unwrap().to_path_buf()
}

#[test]
fn maskbench_counts_pass_refusals_and_invalid_instances() {
    let dir = maskbench_dir("maskbench");
    let (code, out, err) = gcd(&[
        "maskbench",
        "--tokenizer",
        "cl100k",
        "--data",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("schemas=2 pass=1 compile_err=1 validation_err=0 invalid_accepted=0"),
        "{out}"
    );
    assert!(out.contains("TBM_us avg="), "{out}");
    assert!(
        err.contains("REFUSED") && err.contains("idn-email"),
        "{err}"
    );
}

#[test]
fn bench_replays_every_instance() {
    let dir = maskbench_dir("bench");
    let (code, out, err) = gcd(&[
        "bench",
        "--tokenizer",
        "cl100k",
        "--data",
        dir.to_str().unwrap(),
    ]);
    // Every instance is JSON, so the JSON grammar takes all three.
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("replayed 3 documents (0 rejected)"), "{out}");
    assert!(out.contains("bind: first mask after"), "{out}");
    let strict = temp_file("int_only.lark", "start: INT\n%import common.INT\n");
    let (code, out, _) = gcd(&[
        "bench",
        "--grammar",
        strict.to_str().unwrap(),
        "--tokenizer",
        "cl100k",
        "--data",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "objects and strings are not integers: {out}");
    assert!(out.contains("replayed 3 documents (3 rejected)"), "{out}");
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

#[test]
fn json_flag_gives_one_object_per_command_and_errors_as_objects() {
    let good = temp_file("j_good.json", "{\"a\": [1, {\"b\": null}]}");
    let bad = temp_file("j_bad.json", "{\"a\": [1,]}");
    let (code, v) = json(&[
        "replay",
        "--json",
        "--tokenizer",
        "cl100k",
        "--passes",
        "2",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["files"][0]["accepted"], true, "{v}");
    assert_eq!(v["files"][1]["accepted"], false, "{v}");
    assert!(
        v["files"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("rejected at token"),
        "{v}"
    );
    assert_eq!(v["passes"].as_array().unwrap().len(), 2, "{v}");
    // Both files' masks, up to the rejected token of the second.
    assert!(v["passes"][1]["masks_us"]["n"].as_u64().unwrap() > 5, "{v}");
    assert_eq!(v["as_expected"], false, "{v}");

    // The global flag goes before or after the subcommand.
    let (code, v) = json(&["--json", "budget", "--tokenizer", "cl100k"]);
    assert_eq!((code, v["min_tokens"].as_u64()), (0, Some(1)), "{v}");

    let (code, v) = json(&[
        "batch",
        "--json",
        "--tokenizer",
        "cl100k",
        "--walks",
        "4",
        "--budget",
        "8",
        "--sizes",
        "1,2",
    ]);
    assert_eq!(code, 0, "{v}");
    let sizes: Vec<u64> = v["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["batch"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [1, 2], "{v}");
    assert!(v["masks_per_pass"].as_u64().unwrap() >= 4, "{v}");

    // Errors: one object naming the problem, exit code 2, nothing else on stdout.
    let (code, v) = json(&["budget", "--json", "--grammar", "no/such/grammar.lark"]);
    assert_eq!(code, 2, "{v}");
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.contains("no such file") && msg.contains("built-in"),
        "{msg}"
    );
    let (code, v) = json(&["batch", "--json", "--sizes", "0"]);
    assert_eq!(code, 2, "{v}");
    assert!(v["error"].as_str().unwrap().contains("--sizes"), "{v}");
}

#[test]
fn special_tokens_and_inline_schemas_sample_and_replay() {
    let grammar = temp_file(
        "chat.lark",
        "start: \"<think>\" /[a-z ]{1,12}/ \"</think>\" call <|endofprompt|>\n\
         call: \"<tool_call>\" %json {\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}, \
         \"required\": [\"n\"], \"additionalProperties\": false} \"</tool_call>\"\n",
    );
    let g = grammar.to_str().unwrap();
    let (code, out, err) = gcd(&[
        "sample",
        "--grammar",
        g,
        "--tokenizer",
        "o200k",
        "--count",
        "3",
        "--budget",
        "30",
    ]);
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        let l: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = l["text"].as_str().unwrap();
        assert!(l["complete"].as_bool().unwrap(), "{l}");
        assert!(
            text.starts_with("<think>") && text.ends_with("</tool_call><|endofprompt|>"),
            "{text}"
        );
        let call = text
            .split("<tool_call>")
            .nth(1)
            .unwrap()
            .trim_end_matches("</tool_call><|endofprompt|>");
        let v: serde_json::Value = serde_json::from_str(call).unwrap();
        assert!(
            v["n"].is_i64() && v.as_object().unwrap().len() == 1,
            "{call}"
        );
        // The sampled text replays: the name encodes as the special token.
        let file = temp_file("chat.txt", text);
        let (code, out, err) = gcd(&[
            "replay",
            "--grammar",
            g,
            "--tokenizer",
            "o200k",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{text}: {out}{err}");
    }
    let missing = temp_file("missing.lark", "start: \"a\" <|im_end|>\n");
    let (code, _, err) = gcd(&[
        "sample",
        "--grammar",
        missing.to_str().unwrap(),
        "--tokenizer",
        "o200k",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no special token <|im_end|>"), "{err}");
}

/// `--cap THINK=K`: random o200k tokens seldom write `</think>`, so without
/// the cap 40 tokens end mid-reasoning; with it every output closes and
/// ends, within `<think>`'s tokens (7 at most, one per byte), K, and
/// `ok`'s (2).
#[test]
fn sample_caps_a_lexeme() {
    let grammar = temp_file(
        "think.lark",
        "start: \"<think>\" THINK \"ok\"\nTHINK: /(?s:.)*?<\\/think>/\n",
    );
    let g = grammar.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "sample",
            "--grammar",
            g,
            "--tokenizer",
            "o200k",
            "--count",
            "4",
            "--max-tokens",
            "40",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = gcd(&args);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let plain = run(&[]);
    assert!(
        plain.iter().all(|l| !l["complete"].as_bool().unwrap()),
        "{plain:?}"
    );
    for l in run(&["--cap", "THINK=6"]) {
        assert!(l["complete"].as_bool().unwrap(), "{l}");
        assert!(l["tokens"].as_u64().unwrap() <= 7 + 6 + 2, "{l}");
        assert!(l["text"].as_str().unwrap().ends_with("</think>ok"), "{l}");
    }
    let (code, _, err) = gcd(&[
        "sample",
        "--grammar",
        g,
        "--tokenizer",
        "o200k",
        "--cap",
        "THINK",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("expected TERMINAL=K"), "{err}");
}

#[test]
fn a_grammar_without_start_needs_start_given() {
    let g = temp_file(
        "no_start.lark",
        "item: WORD\nlist: item (\",\" item)*\nWORD: /[a-z]+/\n",
    );
    let (code, out, err) = gcd(&["check", g.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        (out.clone() + &err).contains("no rule named `start`"),
        "{out}{err}"
    );
    let (code, out, err) = gcd(&["--start", "list", "check", g.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn check_accepts_gives_each_file_s_verdict() {
    let whole = temp_file("whole.json", "{\"a\": [1, 2]}");
    let prefix = temp_file("prefix.json", "{\"a\": [1, 2");
    let bad = temp_file("bad.json", "{\"a\": [1,\n 2}]");
    let files = [
        whole.to_str().unwrap(),
        prefix.to_str().unwrap(),
        bad.to_str().unwrap(),
    ];
    let (code, out, err) = gcd(&[&["check", "json", "--accepts"][..], &files].concat());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("whole.json: accepted (13 bytes)"), "{out}");
    assert!(out.contains("prefix.json: prefix (11 bytes)"), "{out}");
    assert!(
        out.contains("bad.json: rejected at byte offset 12 (line 2, column 3)"),
        "{out}"
    );
    let (code, v) = json(&["--json", "check", "json", "--accepts", files[2]]);
    assert_eq!(code, 1);
    assert_eq!(v[0]["verdict"], "rejected");
    assert_eq!(
        (v[0]["at"]["line"].as_u64(), v[0]["at"]["column"].as_u64()),
        (Some(2), Some(3))
    );
    let (code, out, _) = gcd(&["check", "json", "--accepts", files[0]]);
    assert_eq!(code, 0, "{out}");
}

/// `[max_tokens=N]` counts tokens and leaves the language alone: a
/// document is checked against the language, however long its lexeme.
#[test]
fn check_accepts_ignores_a_grammars_lexeme_caps() {
    let g = temp_file(
        "capped.lark",
        "start: \"<\" w \">\"\nw[max_tokens=2]: /a+/\n",
    );
    let long = temp_file("long.txt", "<aaaaaaaa>");
    let bad = temp_file("bad.txt", "<ab>");
    let (code, out, err) = gcd(&[
        "check",
        g.to_str().unwrap(),
        "--accepts",
        long.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("accepted (10 bytes)"), "{out}");
    let (code, out, err) = gcd(&[
        "check",
        g.to_str().unwrap(),
        "--accepts",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
}

#[test]
fn gbnf_grammars_load_by_extension_or_format() {
    let text = "root ::= item (\",\" item)*\nitem ::= [a-z]+ | \"é\"\n";
    let by_ext = temp_file("list.gbnf", text);
    let by_flag = temp_file("list.txt", text);
    let yes = temp_file("yes.txt", "ab,é,c");
    let no = temp_file("no.txt", "ab,,c");
    let (code, out, err) = gcd(&["check", by_ext.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ok"), "{out}");
    // Read as Lark, the same text is a syntax error.
    let (code, out, _) = gcd(&["check", by_flag.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let (code, out, err) = gcd(&["check", "--format", "gbnf", by_flag.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    for (file, want) in [(&yes, 0), (&no, 1)] {
        let (code, out, err) = gcd(&[
            "check",
            "--format",
            "gbnf",
            by_flag.to_str().unwrap(),
            "--accepts",
            file.to_str().unwrap(),
        ]);
        assert_eq!(code, want, "{out}{err}");
    }
    let bad = temp_file("bad.gbnf", "root ::= \"a\" missing\n");
    let (code, out, _) = gcd(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("1:14") && out.contains("rule `missing` is used in `root`"),
        "{out}"
    );
}

#[test]
fn structural_tags_sample_and_check() {
    let tag = r#"{"type": "structural_tag", "format": {"type": "triggered_tags",
        "triggers": ["<tool_call>"], "at_least_one": true, "stop_after_first": true,
        "tags": [{"type": "tag", "begin": "<tool_call>", "end": "</tool_call>",
            "content": {"type": "json_schema", "json_schema": {"type": "object",
                "properties": {"q": {"type": "string"}}, "required": ["q"]}}}]}}"#;
    let file = temp_file("tag.json", tag);
    let (code, out, err) = gcd(&[
        "sample",
        "--structural-tag",
        file.to_str().unwrap(),
        "--tokenizer",
        "cl100k",
        "--count",
        "3",
        "--budget",
        "24",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    for line in out.lines() {
        let l: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(l["complete"].as_bool().unwrap(), "{l}");
        let text = l["text"].as_str().unwrap();
        let inner = (text.strip_prefix("<tool_call>"))
            .and_then(|t| t.strip_suffix("</tool_call>"))
            .unwrap_or_else(|| panic!("{text}"));
        let v: serde_json::Value = serde_json::from_str(inner).unwrap();
        assert!(v["q"].is_string(), "{text}");
    }
    let yes = temp_file("call.txt", "<tool_call>{\"q\": \"x\"}</tool_call>");
    let no = temp_file("nocall.txt", "hello");
    for (f, want) in [(&yes, 0), (&no, 1)] {
        let (code, out, err) = gcd(&[
            "check",
            "--format",
            "structural-tag",
            file.to_str().unwrap(),
            "--accepts",
            f.to_str().unwrap(),
        ]);
        assert_eq!(code, want, "{out}{err}");
    }
    let bad = temp_file(
        "bad_tag.json",
        r#"{"type": "structural_tag", "format": {"type": "any_tokens"}}"#,
    );
    let (code, out, err) = gcd(&["sample", "--structural-tag", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("\"any_tokens\" is not supported"), "{err}");
}

#[test]
fn check_print_shows_the_grammar_as_lark_text_that_reads_back() {
    let schema = temp_file(
        "print-schema.json",
        r#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}},
            "required": ["n"], "additionalProperties": false}"#,
    );
    let (code, out, err) = gcd(&["check", "--print", schema.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("start: "), "{out}");
    assert!(out.contains(r#"/"n"/"#), "{out}");
    // What was printed is a grammar `check` reads, and prints alike.
    let printed = temp_file("print-schema.lark", &out);
    let (code, again, err) = gcd(&["check", "--print", printed.to_str().unwrap()]);
    assert_eq!((code, again.as_str()), (0, out.as_str()), "{err}");
    let (code, v) = json(&["check", "--print", "--json", "json"]);
    assert_eq!(code, 0);
    assert!(v["lark"].as_str().unwrap().contains("%ignore WS"), "{v}");
}
