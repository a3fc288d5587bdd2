//! What the fuzz targets check, beyond "no panic": shared with the test
//! that replays every input the fuzzers kept (`tests/fuzz_regressions.rs`),
//! so a crash found once stays a failing test until it is fixed.
//!
//! Each check reads its choices from the input bytes, so one input always
//! takes the same path.

use std::sync::{Arc, OnceLock};

use bitvec::prelude::*;
use gcd_core::{
    BoundGrammar, CompiledGrammar, Config, Lexing, MatchErrorKind, Matcher, Vocabulary,
};

/// Grammar and schema texts longer than this are cut: the fuzzers look
/// for inputs that break invariants, and length alone only slows them.
const MAX_TEXT: usize = 4096;
/// Matcher steps per input.
const STEPS: usize = 24;

/// The input's bytes as choices, 0 once they run out.
pub struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n
    }
}

/// A small vocabulary: every byte as a token (so any continuation can be
/// spelled, and a mask that leads to a dead end is the engine's fault, not
/// the vocabulary's), longer pieces that cross lexeme boundaries, and an
/// EOS token.
pub fn vocab() -> Arc<Vocabulary> {
    static V: OnceLock<Arc<Vocabulary>> = OnceLock::new();
    V.get_or_init(|| {
        let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        for piece in [
            "{\"", "\":", "\",", "\"}", "true", "false", "null", ", ", "  ", "\n  ", "ab", "ba",
            "12", "0.", "e+", "[]", "{}", "a b", "x=", "if", " (", ");", "//", "/*", "*/", "aaa",
        ] {
            tokens.push(piece.as_bytes().to_vec());
        }
        tokens.push("é".as_bytes().to_vec());
        Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"))
    })
    .clone()
}

/// Lark grammar text: compiled with the first byte's configuration; if it
/// compiles, its matcher must keep every invariant of [`matcher_walk`].
pub fn lark_grammar(data: &[u8]) {
    let mut c = Choices(data);
    let flags = c.byte();
    let Ok(text) = std::str::from_utf8(&data[1.min(data.len())..]) else {
        return;
    };
    let text = cut(text);
    let Ok(g) = gcd_core::lark::parse_grammar(text) else {
        return;
    };
    let mut config = Config::default().max_configurations(64);
    if flags & 1 != 0 {
        config = config.lexing(Lexing::Dynamic);
    }
    if flags & 2 != 0 {
        config = config.ll1_only(true);
    }
    if let Ok(compiled) = CompiledGrammar::with_config(&g, &config) {
        let bound = Arc::new(BoundGrammar::new(Arc::new(compiled), vocab()));
        matcher_walk(&bound, &mut c);
    }
}

/// JSON Schema text: if it compiles, its matcher must keep every invariant
/// of [`matcher_walk`].
pub fn json_schema(data: &[u8]) {
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(&data[..data.len().min(MAX_TEXT)])
    else {
        return;
    };
    if let Ok(compiled) = gcd_schema::compile(&schema, &gcd_schema::Options::default()) {
        let bound = Arc::new(BoundGrammar::new(Arc::new(compiled), vocab()));
        // Unbudgeted: budget tables cover every lexer state at once, which
        // made a run take seconds per schema (the other targets budget).
        let seed = serde_json::to_vec(&schema).unwrap_or_default();
        let mut seed = [&[0u8][..], &seed].concat();
        seed.truncate(MAX_TEXT);
        matcher_walk(&bound, &mut Choices(&seed));
    }
}

/// A tokenizer file (`tokenizer.json` or `.tiktoken` by the first byte):
/// loads or fails with an error; a loaded vocabulary answers for every id
/// it has and refuses the first one past it.
pub fn tokenizer_file(data: &[u8]) {
    let Some((&kind, bytes)) = data.split_first() else {
        return;
    };
    let loaded = if kind & 1 == 0 {
        Vocabulary::from_tokenizer_json_bytes(bytes, "fuzz")
    } else {
        Vocabulary::from_tiktoken_bytes(bytes, "fuzz")
    };
    let Ok(v) = loaded else { return };
    for id in 0..v.len() as u32 {
        assert!(
            v.token_bytes(id).is_ok(),
            "token {id} of {} has no bytes",
            v.len()
        );
    }
    assert!(
        v.token_bytes(v.len() as u32).is_err(),
        "an id past the vocabulary has bytes"
    );
    if let Ok(ids) = v.encode("hello, world") {
        assert!(
            ids.iter().all(|&id| (id as usize) < v.len()),
            "encode gave an id past the vocabulary"
        );
        if let Ok(back) = v.decode_bytes(&ids) {
            assert_eq!(back, b"hello, world", "decode(encode(x)) is not x");
        }
    }
}

/// Fixed grammars (deterministic, generalized and ambiguous, dynamically
/// lexed), each bound once; the input picks one and drives its matcher.
pub fn matcher_ops(data: &[u8]) {
    static BOUND: OnceLock<Vec<Arc<BoundGrammar>>> = OnceLock::new();
    let bound = BOUND.get_or_init(|| {
        let json = include_str!("../gcd-core/src/lark/json.lark");
        let ambiguous = r#"
            start: expr
            expr: expr "+" expr | expr "*" expr | "(" expr ")" | NUMBER | NAME "(" [expr ("," expr)*] ")" | NAME
            NAME: /[a-z]+/
            NUMBER: /[0-9]+/
            %ignore " "
        "#;
        let dynamic = r#"
            start: item+
            item: WORD | WORD "=" WORD
            WORD: /[a-z]+/
            %ignore /[ \n]+/
        "#;
        [(json, Lexing::MaximalMunch), (ambiguous, Lexing::MaximalMunch), (dynamic, Lexing::Dynamic)]
            .into_iter()
            .map(|(text, lexing)| {
                let g = gcd_core::lark::parse_grammar(text).expect("fixed grammar parses");
                let config = Config::default().lexing(lexing);
                let compiled = CompiledGrammar::with_config(&g, &config).expect("fixed grammar compiles");
                Arc::new(BoundGrammar::new(Arc::new(compiled), vocab()))
            })
            .collect()
    });
    let mut c = Choices(data);
    let which = c.below(bound.len());
    matcher_walk(&bound[which], &mut c);
}

/// Drives a matcher by `c`'s choices: allowed tokens, refused ones (in
/// range and past the vocabulary), rollbacks, forks, budgets. Checks that
/// every mask equals a fresh replay of the tokens so far, that a refused
/// token changes nothing, that a rollback restores the earlier mask, and
/// that an allowed token never leads to a dead end (under a budget too).
pub fn matcher_walk(bound: &Arc<BoundGrammar>, c: &mut Choices) {
    let width = bound.vocab().len();
    let mut m = Matcher::new(bound.clone());
    if c.byte() & 1 == 1 {
        let min = m.min_tokens_to_complete();
        if min < 64 {
            let extra = c.below(6);
            m = m
                .with_budget(min + extra)
                .expect("a budget at or above the minimum is accepted");
        }
    }
    let mut history: Vec<BitVec<u64, Lsb0>> = Vec::new();
    for _ in 0..STEPS {
        let mask = m.compute_mask(width);
        assert_eq!(
            mask,
            replayed(bound, &m).compute_mask(width),
            "mask differs from a fresh replay of {:?}",
            m.tokens()
        );
        history.truncate(m.tokens().len());
        history.push(mask.clone());
        let allowed: Vec<u32> = mask.iter_ones().map(|t| t as u32).collect();
        if allowed.is_empty() {
            assert!(
                m.is_finished(),
                "no token allowed after {:?}",
                String::from_utf8_lossy(m.output())
            );
            return;
        }
        match c.byte() % 8 {
            // A refused token, in range or past it: an error, no change.
            0 => {
                let t = match mask.iter_zeros().nth(c.below(width)) {
                    Some(t) if c.byte() & 1 == 0 => t as u32,
                    _ => width as u32 + c.byte() as u32,
                };
                let before = m.tokens().to_vec();
                assert!(
                    m.advance(t).is_err(),
                    "token {t} is not in the mask but was accepted"
                );
                assert_eq!(m.tokens(), before, "a refused token changed the matcher");
                assert_eq!(
                    m.compute_mask(width),
                    mask,
                    "a refused token changed the mask"
                );
            }
            // Roll back a few tokens: the mask then was this one.
            1 if !m.tokens().is_empty() => {
                let n = 1 + c.below(m.tokens().len());
                m.rollback(n)
                    .expect("rolling back no further than the start works");
                let at = m.tokens().len();
                assert_eq!(
                    m.compute_mask(width),
                    history[at],
                    "rollback({n}) did not restore the mask"
                );
            }
            // A fork goes its own way; the original is untouched.
            2 => {
                let mut fork = m.clone();
                let t = allowed[c.below(allowed.len())];
                if !accepted(fork.advance(t)) {
                    return;
                }
                assert_eq!(
                    m.compute_mask(width),
                    mask,
                    "advancing a fork changed the original"
                );
            }
            _ => {
                let t = allowed[c.below(allowed.len())];
                if !accepted(m.advance(t)) {
                    return;
                }
                if !m.is_finished() {
                    let next = m.compute_mask(width);
                    assert!(
                        next.any(),
                        "token {t} was allowed but leads to a dead end after {:?}",
                        String::from_utf8_lossy(m.output())
                    );
                }
            }
        }
    }
}

/// Whether a token from the mask was taken: it must be, unless the
/// grammar's ambiguity passed the cap on live configurations, which is a
/// clear error by design.
fn accepted(r: Result<(), gcd_core::MatchError>) -> bool {
    match r {
        Ok(()) => true,
        Err(e) if e.kind() == MatchErrorKind::TooManyConfigurations => false,
        Err(e) => panic!("a token in the mask was refused: {e}"),
    }
}

/// A fresh matcher with `m`'s budget, fed `m`'s tokens.
fn replayed(bound: &Arc<BoundGrammar>, m: &Matcher) -> Matcher {
    let mut fresh = Matcher::new(bound.clone());
    if let Some(n) = m.budget() {
        fresh = fresh
            .with_budget(n)
            .expect("the same budget is accepted again");
    }
    for &t in m.tokens() {
        fresh.advance(t).expect("replaying accepted tokens works");
    }
    fresh
}

fn cut(text: &str) -> &str {
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
