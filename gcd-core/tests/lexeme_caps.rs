//! Lexeme caps (`Matcher::set_lexeme_cap`): every lexeme of the capped
//! terminal holds at most K tokens, counted by re-lexing the finished
//! output; masks stay inside the plain ones and are never empty before
//! the output is complete, with and without a budget; on a grammar small
//! enough to count by hand, the masks are exactly the expected ones.

mod common;

use std::sync::Arc;

use common::budget::{generate_from, Strategy};
use gcd_core::runtime::matcher::MatchErrorKind;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::runtime::tree::{parse_full, ParseErrorKind};
use gcd_core::{BoundGrammar, CompiledGrammar, Matcher, Vocabulary};

fn compile(src: &str) -> Arc<CompiledGrammar> {
    let g = gcd_core::lark::parse_grammar(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    Arc::new(CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}")))
}

/// The most tokens any lexeme of terminal `name` holds in `m`'s finished
/// output (EOS left out), by the tree parser's lexemes and the tokens'
/// byte ranges; `None` if the output is ambiguous, or too ambiguous for
/// the tree parser (another derivation may cut it otherwise).
fn most_tokens_in_lexeme(m: &Matcher, name: &str) -> Option<usize> {
    let bound = m.bound();
    let g = bound.grammar();
    let vocab = bound.vocab();
    let mut ranges = Vec::new();
    let mut at = 0;
    for &t in m.tokens() {
        if vocab.is_eos(t) {
            continue;
        }
        let len = vocab.token_bytes(t).unwrap().len();
        ranges.push(at..at + len);
        at += len;
    }
    let out = match parse_full(g, m.output()) {
        Ok(out) if out.ambiguous => return None,
        Ok(out) => out,
        Err(e) if e.kind() == ParseErrorKind::TooAmbiguous => return None,
        Err(e) => panic!(
            "finished output does not parse: {e}: {:?}",
            String::from_utf8_lossy(m.output())
        ),
    };
    let lexemes = out
        .lexemes
        .iter()
        .filter(|l| g.grammar().terminals[l.terminal.0 as usize].name == name);
    let held = |l: &gcd_core::runtime::tree::Lexeme| {
        (ranges.iter())
            .filter(|r| r.start < l.span.end && l.span.start < r.end)
            .count()
    };
    Some(lexemes.map(held).max().unwrap_or(0))
}

/// The smallest cap `set_lexeme_cap` takes for terminal `name`, checking
/// that the one below it is refused with its kind.
fn smallest_cap(bound: &Arc<BoundGrammar>, name: &str) -> usize {
    let mut m = Matcher::new(bound.clone());
    let k = (0..64)
        .find(|&k| m.set_lexeme_cap(name, Some(k)).is_ok())
        .expect("some cap below 64 is taken");
    if k > 0 {
        let err = (Matcher::new(bound.clone()).set_lexeme_cap(name, Some(k - 1))).unwrap_err();
        assert_eq!(err.kind(), MatchErrorKind::LexemeCap);
    }
    k
}

/// Random grammars and vocabularies, every non-ignored terminal capped in
/// turn at its smallest cap and a little above, with the smallest budget,
/// a looser one, and one loose enough that mostly the cap binds (a walk
/// needs some budget to end), under three token strategies.
#[test]
fn capped_generation_keeps_every_cap() {
    let (mut runs, mut checked, mut at_cap) = (0, 0, 0);
    let mut seed = 0u64;
    let mut grammars = 0;
    while grammars < 60 {
        seed += 1;
        let Some(c) = common::random_grammar(seed).compile() else {
            continue;
        };
        let c = Arc::new(c);
        let tokens = common::random_vocab(seed, 24);
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        let bound = Arc::new(BoundGrammar::new(c.clone(), vocab));
        if Matcher::new(bound.clone()).min_tokens_to_complete() >= gcd_core::bind::INF as usize {
            continue;
        }
        grammars += 1;
        let reference = Recognizer::new(&c);
        let names: Vec<String> = (c.grammar().terminals.iter().enumerate())
            .filter(|(i, _)| !c.is_ignored(*i as u32))
            .map(|(_, t)| t.name.clone())
            .collect();
        for name in &names {
            let least = smallest_cap(&bound, name);
            for cap in [least, least + 2] {
                let mut capped = Matcher::new(bound.clone());
                capped.set_lexeme_cap(name, Some(cap)).unwrap();
                let min = capped.min_tokens_to_complete();
                for budget in [min, min + 2, min + 12] {
                    for (k, strategy) in [Strategy::Uniform, Strategy::Longest, Strategy::Shortest]
                        .into_iter()
                        .enumerate()
                    {
                        let mut m = capped.clone();
                        m.set_budget(Some(budget)).unwrap();
                        let run_seed = seed * 1000 + cap as u64 * 10 + budget as u64 * 3 + k as u64;
                        let m = generate_from(m, strategy, run_seed, &reference);
                        runs += 1;
                        if let Some(most) = most_tokens_in_lexeme(&m, name) {
                            assert!(
                                most <= cap,
                                "seed {seed}: a lexeme of {name} holds {most} tokens, cap {cap}: {:?}",
                                String::from_utf8_lossy(m.output())
                            );
                            checked += 1;
                            at_cap += usize::from(most == cap && cap > 0);
                        }
                    }
                }
            }
        }
    }
    eprintln!("{runs} capped generations, {checked} re-lexed, {at_cap} with a lexeme at its cap");
    assert!(checked > 1500, "only {checked} outputs re-lexed");
    // The caps bind: generation runs into them, and stops there.
    assert!(at_cap > 200, "only {at_cap} outputs reached a cap");
}

/// `<t>`, text of `a`/`b`, `</t>`, then `!`, on single-byte tokens plus
/// `</t>` and `</t>!` whole. After `<t>` and `j` letters the capped lexeme
/// holds `j` tokens, so with cap `K`: a letter needs `j + 2 <= K` (it and
/// `</t>`), `<` needs `j + 4 <= K` (then `/`, `t`, `>`), `</t>` or
/// `</t>!` need `j + 1 <= K`.
#[test]
fn masks_match_the_count_by_hand() {
    let c = compile("start: \"<t>\" THINK \"!\"\nTHINK: /[ab]*?<\\/t>/");
    let texts = ["<", "t", ">", "/", "a", "b", "!", "</t>", "</t>!", "</s>"];
    let tokens = texts.iter().map(|t| t.as_bytes().to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    let bound = Arc::new(BoundGrammar::new(c, vocab));
    let id = |t: &str| texts.iter().position(|x| *x == t).unwrap() as u32;
    assert_eq!(smallest_cap(&bound, "THINK"), 1);
    for cap in 1..8usize {
        let mut m = Matcher::new(bound.clone());
        m.set_lexeme_cap("THINK", Some(cap)).unwrap();
        for t in ["<", "t", ">"] {
            m.advance(id(t)).unwrap();
        }
        for j in 0..cap {
            let mask = m.compute_mask(texts.len());
            let mut want: Vec<&str> = Vec::new();
            if j + 2 <= cap {
                want.extend(["a", "b"]);
            }
            if j + 4 <= cap {
                want.push("<");
            }
            want.extend(["</t>", "</t>!"]);
            want.sort_by_key(|t| id(t));
            let got: Vec<&str> = mask.iter_ones().map(|i| texts[i]).collect();
            assert_eq!(got, want, "cap {cap}, {j} letters");
            // The plain matcher would take another letter every time.
            let mut plain = Matcher::new(bound.clone());
            for &t in m.tokens() {
                plain.advance(t).unwrap();
            }
            assert!(plain.compute_mask(texts.len())[id("a") as usize]);
            if j + 2 > cap {
                let err = m.clone().advance(id("a")).unwrap_err();
                assert_eq!(err.kind(), MatchErrorKind::TokenNotAllowed);
                break;
            }
            m.advance(id("a")).unwrap();
        }
        // Spelling `</t>` byte by byte takes the tokens the count says.
        let j = m.output().len() - 3;
        if j + 4 <= cap {
            for t in ["<", "/", "t", ">", "!"] {
                m.advance(id(t)).unwrap();
            }
            assert!(m.is_complete());
        }
    }
}

#[test]
fn cap_errors_name_the_problem() {
    let c = compile("start: \"<t>\" THINK \"!\"\nTHINK: /[ab]*?<\\/t>/");
    let texts = ["<t>", "a", "</t>", "!", "</s>"];
    let tokens = texts.iter().map(|t| t.as_bytes().to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    let bound = Arc::new(BoundGrammar::new(c, vocab));
    let mut m = Matcher::new(bound.clone());
    let err = m.set_lexeme_cap("NOPE", Some(3)).unwrap_err();
    assert_eq!(err.kind(), MatchErrorKind::LexemeCap);
    assert!(err.to_string().contains("no terminal NOPE"), "{err}");
    let err = m.set_lexeme_cap("THINK", Some(0)).unwrap_err();
    assert!(err.to_string().contains("too small"), "{err}");
    // Tokens are counted from the first cap on.
    let mut late = m.clone();
    late.advance(0).unwrap();
    let err = late.set_lexeme_cap("THINK", Some(3)).unwrap_err();
    assert!(err.to_string().contains("before the first token"), "{err}");
    // An output that already holds more than a new cap cannot take it.
    m.set_lexeme_cap("THINK", Some(10)).unwrap();
    for t in [0, 1, 1, 1, 1] {
        m.advance(t).unwrap();
    }
    let err = m.set_lexeme_cap("THINK", Some(3)).unwrap_err();
    assert!(err.to_string().contains("cannot keep a cap of 3"), "{err}");
    assert!(
        m.compute_mask(texts.len())[1],
        "a refused cap leaves the matcher as it was"
    );
    m.set_lexeme_cap("THINK", Some(5)).unwrap();
    let mask = m.compute_mask(texts.len());
    assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![2]);
    // Lifting it allows the letters again.
    m.set_lexeme_cap("THINK", None).unwrap();
    assert!(m.compute_mask(texts.len())[1]);
    // With a budget too: the budget error wins when it is the tighter one.
    let mut m = Matcher::new(bound.clone());
    m.set_lexeme_cap("THINK", Some(2)).unwrap();
    assert_eq!(
        m.clone().with_budget(2).unwrap_err().kind(),
        MatchErrorKind::BudgetTooSmall
    );
    let m = m.with_budget(4).unwrap();
    assert_eq!(m.min_tokens_to_complete(), 3);
    // Dynamic lexing has no one place where a lexeme ends.
    let g =
        gcd_core::lark::parse_grammar("start: \"<t>\" THINK \"!\"\nTHINK: /[ab]*?<\\/t>/").unwrap();
    let dynamic = gcd_core::compiled::Config::default().lexing(gcd_core::Lexing::Dynamic);
    let c = Arc::new(CompiledGrammar::with_config(&g, &dynamic).unwrap());
    let tokens = texts.iter().map(|t| t.as_bytes().to_vec()).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(c, vocab)));
    let err = m.set_lexeme_cap("THINK", Some(3)).unwrap_err();
    assert!(err.to_string().contains("dynamic lexing"), "{err}");
}
