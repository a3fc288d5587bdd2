//! MaskBench protocol on a sample of the corpus (every 200th file, GPT-2
//! vocabulary for speed), members in any order as `gcd maskbench` runs it:
//! every compiled schema must be handled exactly.

use std::sync::Arc;

use gcd_cli::maskbench::{category, run, Config, Report};
use gcd_core::vocab::Vocabulary;

/// Runs every `stride`-th file with the GPT-2 vocabulary, checking that
/// every compiled schema is handled exactly and that at least `min`
/// schemas ran, half of them passing.
fn run_exact(stride: usize, budget_slack: Option<usize>, min: usize) -> Option<Report> {
    let root = gcd_core::shared_data::root()?;
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(root.join("tokenizers/gpt2/tokenizer.json")).unwrap(),
    );
    let cfg = Config {
        budget_slack,
        data: root.join("maskbench"),
        stride,
        options: gcd_schema::Options::default()
            .whitespace(gcd_schema::Whitespace::Json)
            .integers(gcd_schema::Integers::Json)
            .properties(gcd_schema::PropertyOrder::Any),
    };
    let r = run(&cfg, vocab, &mut |_, _| {}).unwrap();
    print!("{}{}", r.summary(), r.breakdown());
    for f in &r.failures {
        println!("FAIL {f}");
    }
    assert_eq!(r.invalid_accepted, 0);
    assert_eq!(r.validation_err, 0);
    assert!(
        r.schemas >= min && r.pass * 2 >= r.schemas,
        "{} of {} passed",
        r.pass,
        r.schemas
    );
    Some(r)
}

#[test]
fn sample_is_exact() {
    let Some(r) = run_exact(200, None, 40) else {
        return;
    };
    assert_eq!(r.summary().lines().count(), 4);
    assert!(r.summary().contains(&format!(
        "kept as annotations (no draft defines them): {}",
        r.annotated
    )));
    // `gcd maskbench --json` says the same as the text lines.
    let j = r.to_json();
    assert_eq!(j["pass"].as_u64(), Some(r.pass as u64));
    assert_eq!(j["compile_errors"].as_array().unwrap().len(), r.compile_err);
    assert_eq!(j["tbm_us"]["n"].as_u64(), Some(r.tbm_us.len() as u64));
    let tbm = r.tbm();
    assert!(r.summary().contains(&format!("p99={:.1}", tbm.p99)));
    assert_eq!(j["tbm_us"]["p99"].as_f64(), Some(tbm.p99));
    let passed: u64 = j["categories"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c["pass"].as_u64().unwrap())
        .sum();
    assert_eq!(passed, r.pass as u64);
    // Every compiled schema reports the tables its binding built.
    assert_eq!(r.table_bytes.len(), r.schemas - r.compile_err);
    assert!(r.table_bytes.iter().all(|&b| b > 0.0));
    assert_eq!(
        j["bound_table_bytes"]["n"].as_u64(),
        Some(r.table_bytes.len() as u64)
    );
    assert!(r.breakdown().contains("bound_table_kB p50="));
    // The slowest masks are the tail of TBM, slowest first, each named.
    let slow = &r.slowest_masks;
    assert_eq!(
        slow.len(),
        r.tbm_us.len().min(gcd_cli::maskbench::SLOWEST_KEPT)
    );
    assert_eq!(slow[0].us, tbm.max);
    assert!(slow.windows(2).all(|w| w[0].us >= w[1].us));
    let last = slow.last().unwrap().us;
    assert!(r.tbm_us.iter().filter(|&&t| t > last).count() < slow.len());
    assert!(slow
        .iter()
        .all(|m| m.at.contains(".json#") && m.at.contains('@')));
    assert!(r.slowest().contains(&slow[0].at));
}

/// Under a budget of each instance's length plus a few tokens, replays
/// stay exact (the budgeted mask agrees with advancing, invalid instances
/// are still refused), and a valid instance refused is one the plain mask
/// accepts, counted as the budget's.
#[test]
fn sample_is_exact_under_a_budget() {
    let Some(r) = run_exact(400, Some(4), 20) else {
        return;
    };
    assert!(r.summary().contains(&format!(
        "valid instances the budget refused (plain masks accept them): {};",
        r.budget_refused
    )));
    assert_eq!(
        r.to_json()["budget_refused"].as_u64(),
        Some(r.budget_refused as u64)
    );
}

#[test]
fn categories_from_file_names() {
    assert_eq!(category("Github_easy---o1234.json"), "Github_easy");
    assert_eq!(category("BFCL_java_11.json"), "BFCL_java");
    assert_eq!(category("Glaiveai2K---calc_95c5.json"), "Glaiveai2K");
}

/// Instances keep their numbers as written: a 38-digit id under
/// `minimum: 1` is an integer, not `6.75e37` (needs no shared data).
#[test]
fn big_integers_are_replayed_as_written() {
    let dir = std::env::temp_dir().join(format!("gcd-maskbench-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Handwritten---big_id.json"),
        r#"{"schema": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}},
            "tests": [
              {"data": {"id": 67529227447270605635015986019561131887}, "valid": true},
              {"data": {"id": 1.5}, "valid": false}
            ]}"#,
    )
    .unwrap();
    let cfg = Config {
        budget_slack: None,
        data: dir.clone(),
        stride: 1,
        options: gcd_schema::Options::default()
            .whitespace(gcd_schema::Whitespace::Json)
            .integers(gcd_schema::Integers::Json)
            .properties(gcd_schema::PropertyOrder::Any),
    };
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let r = run(&cfg, vocab, &mut |_, _| {}).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((r.schemas, r.pass), (1, 1), "{:?}", r.failures);
    assert_eq!((r.validation_err, r.invalid_accepted), (0, 0));
}
