//! Real grammars printed as Lark text and read back through gcd's Lark
//! front end: the Lark files and GBNF files of the shared data, and
//! llama.cpp's GBNF test cases. The text must read back and print the
//! same; the grammar read back must accept what the original does, on
//! llama.cpp's passing and failing strings, on outputs sampled from
//! either grammar, and on cut and altered copies of those.

mod common;

use common::byte_fed::ByteFed;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::{Grammar, TerminalPattern};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Reads `g`'s text back; panics unless it prints the same (comments
/// aside: they say what Lark cannot, and are lost).
fn read_back(name: &str, g: &Grammar) -> Grammar {
    let text = g.to_string();
    let back = gcd_core::lark::parse_grammar(&text)
        .unwrap_or_else(|e| panic!("{name}: printed text does not read back: {e}\n{text}"));
    let rules = |t: &str| -> Vec<String> {
        (t.lines())
            .filter(|l| !l.starts_with("//"))
            .map(String::from)
            .collect()
    };
    let (text, again) = (rules(&text), rules(&back.to_string()));
    if let Some((a, b)) = text.iter().zip(&again).find(|(a, b)| a != b) {
        panic!("{name}: reads back otherwise:\n{a}\n{b}");
    }
    assert_eq!(text.len(), again.len(), "{name}");
    back
}

/// A literal or two of `g`, as longer tokens for sampling.
fn pieces(g: &Grammar) -> Vec<String> {
    let mut out: Vec<String> = (g.terminals.iter())
        .filter_map(|t| match &t.pattern {
            TerminalPattern::Literal { text, .. } => Some(text.clone()),
            _ => None,
        })
        .take(20)
        .collect();
    out.push(" ".into());
    out
}

/// Both grammars accept the same of `texts`, of outputs sampled from
/// each, and of cut and altered copies; returns how many were compared.
fn same_language(name: &str, g: &Grammar, back: &Grammar, texts: &[Vec<u8>]) -> usize {
    let (Ok(a), Ok(b)) = (CompiledGrammar::new(g), CompiledGrammar::new(back)) else {
        assert_eq!(
            CompiledGrammar::new(g).is_ok(),
            CompiledGrammar::new(back).is_ok(),
            "{name}: compiles only one way"
        );
        return 0;
    };
    let mut rng = StdRng::seed_from_u64(7);
    let pieces = pieces(g);
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let (a, b) = (
        ByteFed::new(a, &pieces, &mut rng),
        ByteFed::new(b, &pieces, &mut rng),
    );
    let mut all: Vec<Vec<u8>> = texts.to_vec();
    for _ in 0..10 {
        all.extend(a.sample(&mut rng, 4));
        all.extend(b.sample(&mut rng, 4));
    }
    for t in all.clone() {
        all.push(t[..t.len() / 2].to_vec());
        let mut altered = t.clone();
        if let Some(c) = altered.get_mut(t.len() / 3) {
            *c = if *c == b'a' { b'(' } else { b'a' };
        }
        all.push(altered);
    }
    let mut compared = 0;
    for t in &all {
        if let (Some(x), Some(y)) = (a.accepts(t), b.accepts(t)) {
            assert_eq!(x, y, "{name}: {:?}", String::from_utf8_lossy(t));
            compared += 1;
        }
    }
    compared
}

#[test]
fn lark_and_gbnf_files_print_and_read_back() {
    let Some(dir) = gcd_core::shared_data::path("grammars").filter(|d| d.is_dir()) else {
        eprintln!("SKIPPED: no shared grammars");
        return;
    };
    let mut files = Vec::new();
    common::data::lark_files(&dir, &mut files);
    let mut gbnf: Vec<_> = std::fs::read_dir(dir.join("gbnf-llama.cpp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gbnf"))
        .collect();
    gbnf.sort();
    files.extend(gbnf);
    let (mut printed, mut compared) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let g = if path.extension().is_some_and(|e| e == "gbnf") {
            gcd_core::gbnf::parse_grammar(&text)
        } else {
            common::data::parse_lark_file(path, &text)
        };
        let Ok(g) = g else { continue };
        let name = path.display().to_string();
        let back = read_back(&name, &g);
        printed += 1;
        compared += same_language(&name, &g, &back, &[]);
    }
    eprintln!("{printed} files printed and read back; {compared} strings compared");
    assert!(printed >= 30, "{printed}");
}

#[test]
fn llama_cpp_gbnf_cases_print_and_read_back() {
    let Some(path) =
        gcd_core::shared_data::path("grammars/gbnf-llama.cpp/test-grammar-integration.cases.json")
    else {
        eprintln!("SKIPPED: no shared grammars");
        return;
    };
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut printed = 0;
    for case in cases.as_array().unwrap() {
        if case["kind"] != "gbnf" {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let Ok(g) = gcd_core::gbnf::parse_grammar(case["grammar"].as_str().unwrap()) else {
            continue;
        };
        let back = read_back(name, &g);
        let texts: Vec<Vec<u8>> = ["passing", "failing"]
            .iter()
            .flat_map(|k| case[k].as_array().into_iter().flatten())
            .map(|s| s.as_str().unwrap().as_bytes().to_vec())
            .collect();
        same_language(name, &g, &back, &texts);
        printed += 1;
    }
    assert!(printed >= 10, "{printed}");
}
