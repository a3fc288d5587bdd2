//! Special tokens named in a grammar (`<|end|>`, `<[7]>`): matched as that
//! token id only, never as its text, checked against the reference
//! recognizer, under budgets, and on the real Llama-3 tokenizer.

mod common;

use std::sync::Arc;

use common::budget::{generate, Strategy};
use common::walk::check_walk_in;
use gcd_core::grammar::SpecialToken;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::VocabErrorKind;
use gcd_core::{BoundGrammar, CompiledGrammar, Matcher, Vocabulary};

fn compile(src: &str) -> Arc<CompiledGrammar> {
    let g = gcd_core::lark::parse_grammar(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    Arc::new(CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}")))
}

/// Single bytes, a few words, the text `<|end|>` spelled as ordinary
/// tokens (one whole, one in pieces), a byte `0xFF` token, and special
/// tokens `<|end|>` (5), `<|call|>` (6), `[TOOL_CALLS]` (7), `</s>` (8, EOS).
fn vocab() -> Vocabulary {
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let mut kinds_special = Vec::new();
    for t in ["a", "b", " ", "{", "}"] {
        tokens.push(t.into());
    }
    for t in ["<|end|>", "<|call|>", "[TOOL_CALLS]", "</s>"] {
        kinds_special.push(tokens.len() as u32);
        tokens.push(t.into());
    }
    for t in [
        "<|end|>", "<|", "end", "|>", "ab", "a{", "}b", "\u{ff}", "a\u{ff}",
    ] {
        tokens.push(t.into());
    }
    tokens.push(vec![0xFF]);
    tokens.push(vec![b'a', 0xFF, 0, 0]);
    Vocabulary::from_tokens_with_special(tokens, &kinds_special, &[8])
}

const GRAMMARS: &[&str] = &[
    "start: \"a\"+ <|end|>",
    "start: (\"a\" | \"b\")* <|call|> \"{\" \"a\"* \"}\" <|end|>",
    "start: <|call|>? WORD (\" \" WORD)* <|end|>\nWORD: /[ab]+/",
    "start: x+ <TOOL_CALLS>? <[5]>\nx: \"a\" <[6]> | \"b\"",
    // A special token inside a lexeme's continuation: `ab` may end at it.
    "start: /[ab]+/ (<|end|> /[ab]+/)* <|call|>",
];

#[test]
fn masks_equal_reference() {
    let vocab = Arc::new(vocab());
    let mut masks = 0;
    for src in GRAMMARS {
        let c = compile(src);
        for seed in 0..12 {
            masks += check_walk_in(c.clone(), vocab.clone(), seed, 10);
        }
    }
    assert!(masks > 300, "only {masks} masks checked");
}

#[test]
fn the_text_of_a_special_token_is_not_the_token() {
    let bound = Arc::new(BoundGrammar::try_new(compile(GRAMMARS[0]), Arc::new(vocab())).unwrap());
    let mut m = Matcher::new(bound.clone());
    m.advance(0).unwrap();
    let mask = m.compute_mask(bound.vocab().len());
    assert!(mask[5], "the special token is allowed after `a`");
    for spelled in [9, 10] {
        assert!(
            !mask[spelled],
            "token {spelled} spells the text, not the token"
        );
    }
    assert!(
        !mask[6] && !mask[7] && !mask[8],
        "other special tokens and EOS are not"
    );
    m.advance(5).unwrap();
    assert!(m.is_complete());
    assert_eq!(bound.vocab().render(m.output()), "a<|end|>");
    // Special tokens stay forbidden where the grammar does not name them.
    let fresh = Matcher::new(bound.clone()).compute_mask(bound.vocab().len());
    assert_eq!(fresh.iter_ones().collect::<Vec<_>>(), vec![0]);
}

#[test]
fn a_named_eos_token_is_grammar_text_there() {
    // `</s>` is EOS; named by the grammar it ends the sentence as text and
    // is allowed nowhere else.
    let bound =
        BoundGrammar::try_new(compile("start: \"a\" <[8]> \"b\""), Arc::new(vocab())).unwrap();
    assert!(bound.vocab().eos_ids().is_empty());
    let mut m = Matcher::new(Arc::new(bound));
    m.advance(0).unwrap();
    m.advance(8).unwrap();
    assert!(!m.is_complete());
    m.advance(1).unwrap();
    assert!(m.is_complete());
}

#[test]
fn unknown_or_ordinary_tokens_are_errors_naming_them() {
    let v = Arc::new(vocab());
    for (src, says) in [
        ("start: <|nope|>", "no special token <|nope|>"),
        ("start: <[0]>", "token 0 is ordinary text (\"a\")"),
        ("start: <[99]>", "id 99 is out of range"),
        ("start: <ab>", "no special token <ab>"),
        ("start: <[5]> <|end|>", "names token 5 twice"),
    ] {
        let e = BoundGrammar::try_new(compile(src), v.clone()).unwrap_err();
        assert_eq!(e.kind(), VocabErrorKind::SpecialToken, "{src}: {e}");
        assert!(e.to_string().contains(says), "{src}: {e}");
    }
    // An ordinary token whose text is the name: say to write a literal.
    let mut tokens: Vec<Vec<u8>> = vec![b"<tool_call>".to_vec()];
    tokens.push(b"x".to_vec());
    let v = Arc::new(Vocabulary::from_tokens(tokens, vec![]));
    let e = BoundGrammar::try_new(compile("start: <tool_call>"), v).unwrap_err();
    assert!(
        e.to_string()
            .contains("write it as the literal \"<tool_call>\""),
        "{e}"
    );
}

#[test]
fn grammar_text_errors() {
    for (src, says) in [
        (
            "T: <|end|>\nstart: T",
            "terminal `T` cannot use special token <|end|>",
        ),
        ("start: <|end |>", "no blank before its `>`"),
        // Sets of ids are `tests/token_sets.rs`'; a name is no id.
        ("start: <[x]>", "needs a number, or a set of them"),
        ("start: <>", "`<>` names no special token"),
    ] {
        let e = gcd_core::lark::parse_grammar(src).unwrap_err().to_string();
        assert!(e.contains(says), "{src}: {e}");
    }
}

#[test]
fn budgets_from_the_minimum_up_complete() {
    let v = Arc::new(vocab());
    for src in GRAMMARS {
        let c = compile(src);
        let bound = Arc::new(BoundGrammar::try_new(c.clone(), v.clone()).unwrap());
        let reference = Recognizer::new(&c);
        let least = Matcher::new(bound.clone()).min_tokens_to_complete();
        for budget in least..least + 6 {
            for (seed, strategy) in [Strategy::Uniform, Strategy::Longest, Strategy::Shortest]
                .into_iter()
                .enumerate()
            {
                let used = generate(&bound, budget, strategy, seed as u64, &reference);
                assert!(
                    used <= budget,
                    "{src}: {used} tokens over a budget of {budget}"
                );
            }
        }
        assert!(Matcher::new(bound).with_budget(least - 1).is_err(), "{src}");
    }
}

#[test]
fn llama3_turn_ends_with_eot_id() {
    let Some(data) = common::data::shared_data() else {
        return;
    };
    let vocab =
        Vocabulary::from_tokenizer_json(data.join("tokenizers/llama3/tokenizer.json")).unwrap();
    let eot = vocab
        .special_token_id(&SpecialToken::Named("<|eot_id|>".into()))
        .unwrap();
    // Plain text spells the name in ordinary tokens.
    assert!(vocab.encode("<|eot_id|>").unwrap().len() > 1);
    let src = "start: <|start_header_id|>? CALL <|eot_id|>\nCALL: /[a-z]+\\(\\)/";
    let bound = Arc::new(BoundGrammar::try_new(compile(src), Arc::new(vocab)).unwrap());
    let v = bound.vocab();
    let mut m = Matcher::new(bound.clone());
    for id in v.encode("run()").unwrap() {
        m.advance(id).unwrap();
    }
    let mask = m.compute_mask(v.len());
    let allowed: Vec<u32> = mask.iter_ones().map(|i| i as u32).collect();
    assert_eq!(
        allowed,
        vec![eot],
        "only <|eot_id|> may follow a whole call"
    );
    m.advance(eot).unwrap();
    assert!(m.is_complete());
    let shown = v.render(m.output());
    assert_eq!(shown, "run()<|eot_id|>");
    // Bound, the vocabulary encodes the name as the token: output replays.
    assert_eq!(v.encode(&shown).unwrap(), m.tokens());
    // Llama-3 ends generation at <|eot_id|>; named by the grammar it is
    // text, and the other end tokens end the output.
    assert!(!v.is_eos(eot) && !v.eos_ids().is_empty());
    assert!(m
        .compute_mask(v.len())
        .iter_ones()
        .all(|t| v.is_eos(t as u32)));
}

#[test]
fn a_vocabulary_bound_for_one_grammar_binds_another_as_the_tokenizer_has_it() {
    let first = BoundGrammar::try_new(compile(GRAMMARS[1]), Arc::new(vocab())).unwrap();
    let derived = first.vocab().clone();
    assert_eq!(
        derived
            .special_symbols()
            .map(|(id, _)| id)
            .collect::<Vec<_>>(),
        vec![6, 5]
    );
    // Another grammar naming other tokens, and one naming none.
    let second = BoundGrammar::try_new(compile(GRAMMARS[0]), derived.clone()).unwrap();
    let mut m = Matcher::new(Arc::new(second));
    m.advance(0).unwrap();
    m.advance(5).unwrap();
    assert_eq!(m.text(), "a<|end|>");
    let plain = BoundGrammar::try_new(compile("start: \"a\""), derived).unwrap();
    assert_eq!(plain.vocab().fingerprint(), vocab().fingerprint());
    assert_eq!(plain.vocab().eos_ids(), &[8]);
}
