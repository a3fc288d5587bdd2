//! Real schemas' grammars, printed as Lark text and read back through
//! gcd's Lark front end: the text must read back (and print the same),
//! and the grammar read back must accept exactly what the schema's does on
//! MaskBench's own instances, valid and invalid, and on cut and altered
//! copies of them. Grammars whose member sets (free property order) or
//! tight rules Lark cannot spell are only read back, not compared.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::Grammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{to_grammar, Options};

mod common;

/// Whether `text` is a whole sentence of `m`'s grammar, fed byte by byte.
fn accepts(m: &Matcher, text: &[u8]) -> bool {
    let mut m = m.clone();
    text.iter().all(|&b| m.advance(b as u32).is_ok()) && m.is_complete()
}

fn byte_matcher(g: &Grammar) -> Option<Matcher> {
    let c = CompiledGrammar::new(g).ok()?;
    let vocab = Vocabulary::from_tokens_with_eos((0..=255u8).map(|b| vec![b]).collect(), "<eos>");
    Some(Matcher::new(Arc::new(BoundGrammar::new(
        Arc::new(c),
        Arc::new(vocab),
    ))))
}

/// The instances of a MaskBench file as Python writes them (what the
/// default whitespace takes), with a cut and an altered copy of each.
fn texts(file: &serde_json::Value) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for t in file["tests"].as_array().into_iter().flatten() {
        let s = gcd_cli::pyjson::to_python_json(&t["data"]).into_bytes();
        let mut cut = s.clone();
        cut.truncate(s.len() / 2);
        let mut altered = s.clone();
        if let Some(b) = altered.get_mut(s.len() / 3) {
            *b = if *b == b'1' { b'x' } else { b'1' };
        }
        out.extend([s, cut, altered]);
    }
    out
}

#[test]
fn maskbench_grammars_print_and_read_back() {
    let Some(root) = common::shared_data() else {
        eprintln!("skipping: no shared data");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(root.join("maskbench"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut printed, mut compared, mut texts_compared) = (0, 0, 0);
    for path in files.iter().step_by(16) {
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let Ok(g) = to_grammar(&file["schema"], &Options::default()) else {
            continue;
        };
        let name = path.display();
        let text = g.to_string();
        let back = gcd_core::lark::parse_grammar(&text)
            .unwrap_or_else(|e| panic!("{name}: printed text does not read back: {e}"));
        let again = back.to_string();
        // Comments say what Lark cannot (tight rules, member sets): lost.
        let rules = |t: &str| {
            t.lines()
                .filter(|l| !l.starts_with("//"))
                .map(String::from)
                .collect::<Vec<_>>()
        };
        let (text, again) = (rules(&text), rules(&again));
        if let Some((a, b)) = text.iter().zip(&again).find(|(a, b)| a != b) {
            let cut = |s: &str| s.chars().take(400).collect::<String>();
            panic!("{name}: reads back otherwise:\n{}\n{}", cut(a), cut(b));
        }
        assert_eq!(text.len(), again.len(), "{name}");
        printed += 1;
        let spelled = g.member_sets.is_empty() && g.nonterminals.iter().all(|n| !n.tight);
        let (Some(ours), true) = (byte_matcher(&g), spelled) else {
            continue;
        };
        let theirs =
            byte_matcher(&back).unwrap_or_else(|| panic!("{name}: compiles, but not once printed"));
        for t in texts(&file) {
            assert_eq!(
                accepts(&ours, &t),
                accepts(&theirs, &t),
                "{name}: {}",
                String::from_utf8_lossy(&t)
            );
            texts_compared += 1;
        }
        compared += 1;
    }
    eprintln!("{printed} printed and read back, {compared} compared on {texts_compared} texts");
    assert!(printed > 300 && compared > 200, "{printed} {compared}");
}

/// A `%json` rule's schema grammar, embedded in a Lark grammar, prints as
/// plain Lark that reads back as the same language.
#[test]
fn json_rules_print_as_plain_lark() {
    let src = r#"start: "<call>" %json {"type": "object", "properties": {"n": {"type": "integer", "maximum": 300}}, "required": ["n"]} "</call>"
"#;
    let g = gcd_schema::parse_lark(src, &Options::default()).unwrap();
    let text = g.to_string();
    assert!(!text.contains("%json"), "{text}");
    let back = gcd_core::lark::parse_grammar(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(text, back.to_string());
    let (ours, theirs) = (byte_matcher(&g).unwrap(), byte_matcher(&back).unwrap());
    for t in [
        r#"<call>{"n": 300}</call>"#,
        r#"<call>{"n":1}</call>"#,
        r#"<call>{"n": 301}</call>"#,
        r#"<call>{}</call>"#,
        r#"<call>{"n": 3, "m": 1}</call>"#,
    ] {
        assert_eq!(
            accepts(&ours, t.as_bytes()),
            accepts(&theirs, t.as_bytes()),
            "{t}\n{text}"
        );
    }
    assert!(accepts(&theirs, br#"<call>{"n": 300}</call>"#));
}
