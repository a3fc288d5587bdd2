//! Budgeted generation as the tests run it: random or adversarial token
//! choices under a budget, checked at every step.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy, Debug)]
pub enum Strategy {
    Uniform,
    Longest,
    Shortest,
}

/// Runs one budgeted generation; returns the number of tokens used.
pub fn generate(
    bound: &Arc<BoundGrammar>,
    budget: usize,
    strategy: Strategy,
    seed: u64,
    reference: &Recognizer,
) -> usize {
    let m = Matcher::new(bound.clone()).with_budget(budget).unwrap();
    let m = generate_from(m, strategy, seed, reference);
    assert!(m.tokens().len() - 1 <= budget);
    m.tokens().len() - 1
}

/// Runs one generation from `m` (fresh, with its budget and caps set) to
/// EOS, checking every mask against the plain matcher's and that it is
/// never empty before the output is complete; returns the finished matcher.
pub fn generate_from(
    mut m: Matcher,
    strategy: Strategy,
    seed: u64,
    reference: &Recognizer,
) -> Matcher {
    let bound = m.bound().clone();
    let vocab = bound.vocab();
    let width = vocab.len();
    let eos = vocab.eos_ids()[0];
    let budget = m.budget().unwrap_or(usize::MAX);
    let mut plain = Matcher::new(bound.clone());
    let mut rng = StdRng::seed_from_u64(seed);
    loop {
        let mask = m.compute_mask(width);
        let unbudgeted = plain.compute_mask(width);
        for i in mask.iter_ones() {
            assert!(
                unbudgeted[i],
                "budgeted mask allows {i}, the plain one does not"
            );
        }
        let mut allowed: Vec<u32> = mask
            .iter_ones()
            .map(|i| i as u32)
            .filter(|&i| i != eos)
            .collect();
        if allowed.is_empty() {
            assert!(
                mask[eos as usize],
                "empty mask before completion after {:?}",
                String::from_utf8_lossy(m.output())
            );
            break;
        }
        // Adversarial choices never stop early on their own.
        let len = |t: &u32| vocab.token_bytes(*t).unwrap().len();
        let t = match strategy {
            Strategy::Uniform => allowed[rng.random_range(0..allowed.len())],
            Strategy::Longest => {
                allowed.sort_by_key(|t| std::cmp::Reverse(len(t)));
                allowed[rng.random_range(0..allowed.len().min(2))]
            }
            Strategy::Shortest => {
                allowed.sort_by_key(len);
                allowed[rng.random_range(0..allowed.len().min(2))]
            }
        };
        m.advance(t).unwrap();
        plain.advance(t).unwrap();
        assert!(m.tokens().len() <= budget);
        // Rolling back restores the budgeted mask exactly.
        let mut back = m.clone();
        back.rollback(1).unwrap();
        assert_eq!(back.compute_mask(width), mask);
    }
    assert!(
        reference.is_complete(m.output()),
        "ended incomplete: {:?}",
        String::from_utf8_lossy(m.output())
    );
    m.advance(eos).unwrap();
    m
}

/// Per lexer state of `bound`'s grammar (maximal munch), the budget's
/// in-lexeme costs as the eager tables computed them: shortest paths over
/// every state's within-lexeme tokens, relaxed until nothing changes.
/// `(terminal, tokens)` for every terminal some path ends as, sorted.
#[allow(dead_code)]
pub fn reference_lexeme_costs(bound: &BoundGrammar) -> Vec<Vec<(u32, u32)>> {
    let inf = gcd_core::bind::INF;
    let c = bound.grammar();
    let lx = c.lexer();
    let n = lx.num_states();
    let t = c.grammar().terminals.len();
    let mut cost = vec![inf; n * t];
    for q in 0..n {
        if let Some(w) = lx.winner(q as u32) {
            cost[q * t + w as usize] = 0;
        }
    }
    let edges: Vec<Vec<u32>> = (0..n as u32)
        .map(|q| {
            bound
                .state(q)
                .within_by_end
                .iter()
                .map(|(e, _)| *e)
                .collect()
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for q in 0..n {
            for &e in &edges[q] {
                for y in 0..t {
                    let through = (cost[e as usize * t + y] + 1).min(inf);
                    if through < cost[q * t + y] {
                        cost[q * t + y] = through;
                        changed = true;
                    }
                }
            }
        }
    }
    (0..n)
        .map(|q| {
            (0..t)
                .filter(|&y| cost[q * t + y] < inf)
                .map(|y| (y as u32, cost[q * t + y]))
                .collect()
        })
        .collect()
}

/// Along a random walk of up to 8 tokens over `c` bound to `vocab`, the
/// budget's estimates and budgeted masks (at the estimate and 1 and 3
/// above) are the same whether its tables merge previous lexemes that plan
/// alike or keep one class per terminal. Returns the points compared, or
/// `None` when the grammar has no budget tables.
#[allow(dead_code)]
pub fn plans_like_one_class_per_terminal(
    c: &Arc<gcd_core::compiled::CompiledGrammar>,
    vocab: &Arc<gcd_core::vocab::Vocabulary>,
    seed: u64,
) -> Option<usize> {
    let n = vocab.len();
    let merged = Arc::new(BoundGrammar::new(c.clone(), vocab.clone()));
    let mut each = BoundGrammar::new(c.clone(), vocab.clone());
    each.set_merged_budget_classes(false);
    if merged.budget_available().is_err() {
        return None;
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut a, mut b) = (Matcher::new(merged), Matcher::new(Arc::new(each)));
    let mut points = 0;
    for _ in 0..8 {
        let est = a.min_tokens_to_complete();
        assert_eq!(est, b.min_tokens_to_complete(), "seed {seed}");
        points += 1;
        if est < gcd_core::bind::INF as usize {
            for extra in [0, 1, 3] {
                let mask = |m: &Matcher| {
                    let mut m = m.clone();
                    m.set_budget(Some(m.tokens().len() + est + extra)).unwrap();
                    m.compute_mask(n)
                };
                assert_eq!(mask(&a), mask(&b), "seed {seed}, budget +{extra}");
            }
        }
        let allowed: Vec<usize> = a.compute_mask(n).iter_ones().collect();
        let Some(&t) = allowed.get(rng.random_range(0..allowed.len().max(1))) else {
            break;
        };
        if a.advance(t as u32).is_err() {
            break;
        }
        b.advance(t as u32).unwrap();
    }
    Some(points)
}
