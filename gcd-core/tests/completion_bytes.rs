//! The byte-level shortest-completion tables against brute force: the
//! shortest sentence found by breadth-first search over byte strings with
//! the reference recognizer.

mod common;

use gcd_core::compiled::completion::UNREACHABLE;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::lexer::ByteClasses;
use gcd_core::runtime::recognizer::{Recognizer, Status};

/// Most recognizer calls one search makes: a few random grammars (seed
/// 255) are ambiguous enough that the frontier's strings cost seconds
/// each, and the search is given up on them.
const MAX_STATUS_CALLS: usize = 20_000;

/// Length of the shortest sentence, searching up to `max_len` bytes (one
/// byte per byte class suffices: the grammar cannot tell them apart);
/// `Err` where the search gave up.
fn shortest_sentence(g: &CompiledGrammar, max_len: usize) -> Result<Option<usize>, ()> {
    let r = Recognizer::new(g);
    let reps = ByteClasses::new(g.dfas()).representatives;
    let mut frontier = vec![Vec::new()];
    let mut calls = 0;
    for len in 0..=max_len {
        if frontier.iter().any(|s| r.is_complete(s)) {
            return Ok(Some(len));
        }
        let mut next = Vec::new();
        for s in &frontier {
            for &b in &reps {
                calls += 1;
                if calls > MAX_STATUS_CALLS {
                    return Err(());
                }
                let mut t = s.clone();
                t.push(b);
                if r.status(&t).is_viable() {
                    next.push(t);
                }
            }
        }
        next.truncate(20_000);
        frontier = next;
    }
    Ok(None)
}

#[test]
fn rule_costs_bound_the_shortest_sentence() {
    let (mut checked, mut exact, mut gave_up) = (0, 0, 0);
    for seed in 0..1500 {
        let Some(g) = common::random_grammar(seed).compile() else {
            continue;
        };
        let bound = g.completion().min_sentence_bytes(g.grammar());
        assert_ne!(
            bound, UNREACHABLE,
            "seed {seed}: a compiled grammar is productive"
        );
        let truth = match shortest_sentence(&g, 8) {
            Ok(Some(truth)) => truth,
            Ok(None) => {
                assert!(bound > 0, "seed {seed}");
                continue;
            }
            Err(()) => {
                gave_up += 1;
                continue;
            }
        };
        assert!(
            bound as usize <= truth,
            "seed {seed}: table {bound} > shortest sentence {truth}"
        );
        checked += 1;
        exact += (bound as usize == truth) as usize;
        // The shortest sentence is also never refused as `Dead` at the start.
        assert_ne!(Recognizer::new(&g).status(b""), Status::Dead, "seed {seed}");
    }
    eprintln!(
        "shortest sentence: table exact on {exact} of {checked} random grammars \
         (search given up on {gave_up})"
    );
    assert!(checked > 200, "only {checked} grammars checked");
}

#[test]
fn terminal_state_costs_are_exact() {
    // Per terminal the table is exact: the DFA alone decides.
    for seed in 0..400 {
        let Some(g) = common::random_grammar(seed).compile() else {
            continue;
        };
        for (t, dfa) in g.dfas().iter().enumerate() {
            // Brute force: breadth-first over states by bytes.
            for q in 0..dfa.len() as u32 {
                let mut seen = vec![false; dfa.len()];
                let mut layer = vec![q];
                seen[q as usize] = true;
                let mut d = 0;
                let truth = loop {
                    if layer.iter().any(|&s| dfa.is_accepting(s)) {
                        break Some(d);
                    }
                    let mut next = Vec::new();
                    for &s in &layer {
                        for b in 0..=255u8 {
                            let r = dfa.next(s, b);
                            if r != gcd_core::lexer::DEAD && !seen[r as usize] {
                                seen[r as usize] = true;
                                next.push(r);
                            }
                        }
                    }
                    if next.is_empty() {
                        break None;
                    }
                    layer = next;
                    d += 1;
                };
                let table = g.completion().terminal_state[t][q as usize];
                assert_eq!(
                    truth.unwrap_or(UNREACHABLE),
                    table,
                    "seed {seed} terminal {t} state {q}"
                );
            }
        }
    }
}
