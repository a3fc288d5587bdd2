//! The token budget: generation always ends complete within N tokens, the
//! budgeted mask is a subset of the plain one, and the estimate is an upper
//! bound on the true fewest tokens (how loose, it prints).

mod common;

use common::budget::{generate, Strategy};

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn compile_random(seed: u64) -> Option<Arc<CompiledGrammar>> {
    let g = common::random_grammar(seed).build()?;
    CompiledGrammar::new(&g).ok().map(Arc::new)
}

/// Random grammars of three kinds in turn (plain, member sets, dynamic
/// lexing) with a random vocabulary each, for seeds below `seeds` whose
/// grammar compiles.
fn plain_member_and_dynamic_grammars(
    seeds: u64,
) -> impl Iterator<Item = (u64, Arc<CompiledGrammar>, Arc<Vocabulary>)> {
    let dynamic = gcd_core::compiled::Config::default().lexing(gcd_core::Lexing::Dynamic);
    (0..seeds).filter_map(move |seed| {
        let c = match seed % 3 {
            0 => compile_random(seed),
            1 => common::random_member_grammar(seed).compile().map(Arc::new),
            _ => common::random_grammar(seed)
                .build()
                .and_then(|g| CompiledGrammar::with_config(&g, &dynamic).ok())
                .map(Arc::new),
        }?;
        let tokens = common::random_vocab(seed, 24);
        Some((
            seed,
            c,
            Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>")),
        ))
    })
}

/// The true fewest tokens to complete, by breadth-first search over tokens
/// (`None` if more than `limit` are needed).
fn exact_min_tokens(m: &Matcher, n_tokens: u32, limit: usize) -> Option<usize> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([(m.clone(), 0usize)]);
    seen.insert(m.state_key());
    while let Some((m, d)) = queue.pop_front() {
        if m.is_complete() {
            return Some(d);
        }
        if d >= limit {
            continue;
        }
        for t in 0..n_tokens {
            let mut next = m.clone();
            if next.advance(t).is_ok() && seen.insert(next.state_key()) {
                queue.push_back((next, d + 1));
            }
        }
    }
    None
}

#[test]
fn budgeted_generation_always_completes_within_budget() {
    let points = budget_holds(compile_random, 150);
    assert!(points > 500);
}

/// The same on grammars with member sets (members in any order), whose
/// budget plans their missing required members.
#[test]
fn budget_holds_with_member_sets() {
    let points = budget_holds(
        |seed| common::random_member_grammar(seed).compile().map(Arc::new),
        80,
    );
    assert!(points > 200);
}

/// The same under dynamic lexing, on random grammars that maximal munch
/// refuses for a lexical hazard: a plan that cuts its text into lexemes at
/// token boundaries is a plan under every cut, so the estimates stay
/// upper bounds.
#[test]
fn budget_holds_with_dynamic_lexing() {
    let dynamic = gcd_core::compiled::Config::default().lexing(gcd_core::Lexing::Dynamic);
    let points = budget_holds(
        |seed| {
            let g = common::random_grammar(seed).build()?;
            let hazard = CompiledGrammar::new(&g)
                .is_err_and(|e| e.kind() == gcd_core::DiagnosticKind::LexicalHazard);
            hazard
                .then(|| CompiledGrammar::with_config(&g, &dynamic).ok())
                .flatten()
                .map(Arc::new)
        },
        150,
    );
    assert!(points > 500);
}

/// Checks `count` grammars from `compile`; returns at how many points the
/// estimate was compared with the exact fewest tokens.
fn budget_holds(compile: impl Fn(u64) -> Option<Arc<CompiledGrammar>>, count: usize) -> usize {
    let mut grammars = 0;
    let (mut est_sum, mut exact_sum, mut exact_cases) = (0usize, 0usize, 0usize);
    let mut seed = 0u64;
    while grammars < count {
        seed += 1;
        let Some(c) = compile(seed) else {
            continue;
        };
        let tokens = common::random_vocab(seed, 24);
        let n = tokens.len() as u32;
        let bound = Arc::new(BoundGrammar::new(
            c.clone(),
            Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>")),
        ));
        let m = Matcher::new(bound.clone());
        let min = m.min_tokens_to_complete();
        if min >= gcd_core::bind::INF as usize {
            continue;
        }
        grammars += 1;
        let reference = Recognizer::new(&c);
        // The search stops at the estimate's depth: finding nothing there
        // means the estimate is below the true fewest tokens.
        let exact = exact_min_tokens(&m, n, min).unwrap_or_else(|| {
            panic!("seed {seed}: no completion within the estimate of {min} tokens")
        });
        est_sum += min;
        exact_sum += exact;
        exact_cases += 1;
        assert!(
            Matcher::new(bound.clone())
                .with_budget(min.saturating_sub(1))
                .is_err()
                || min == 0
        );
        // Along a random walk, the estimate stays an upper bound on the truth.
        let mut walk = Matcher::new(bound.clone());
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..6 {
            let est = walk.min_tokens_to_complete();
            let exact = exact_min_tokens(&walk, n, est).unwrap_or_else(|| {
                panic!(
                    "seed {seed}: no completion within the estimate of {est} tokens after {:?}",
                    String::from_utf8_lossy(walk.output())
                )
            });
            est_sum += est;
            exact_sum += exact;
            exact_cases += 1;
            let allowed: Vec<usize> = walk.compute_mask(n as usize).iter_ones().collect();
            if allowed.is_empty() {
                break;
            }
            walk.advance(allowed[rng.random_range(0..allowed.len())] as u32)
                .unwrap();
        }
        for budget in min..min + 4 {
            for (k, strategy) in [Strategy::Uniform, Strategy::Longest, Strategy::Shortest]
                .into_iter()
                .enumerate()
            {
                let used = generate(
                    &bound,
                    budget,
                    strategy,
                    seed * 31 + k as u64 + budget as u64,
                    &reference,
                );
                assert!(used <= budget);
            }
        }
    }
    eprintln!("estimate vs exact fewest tokens at {exact_cases} points: {est_sum} vs {exact_sum} tokens in all");
    exact_cases
}

/// A grammar whose budget tables would pass `MAX_BUDGET_TABLE_BYTES` (the
/// rule table is rules × classes², where terminals are one class when the
/// same bytes extend their lexemes: here each of 1,200 terminals is
/// extended by its own pair of letters, so 100 rules would need about
/// 600 MB) refuses budgets and caps with an error naming the size,
/// quickly, and still masks, binds, snapshots and replays.
#[test]
fn grammars_too_large_for_budget_tables_refuse_budgets() {
    let letters: Vec<char> = ('A'..='Z').chain('a'..='z').collect();
    let pairs: Vec<(char, char)> = (0..letters.len())
        .flat_map(|i| (i + 1..letters.len()).map(move |j| (i, j)))
        .map(|(i, j)| (letters[i], letters[j]))
        .collect();
    let mut src = String::from("start: ");
    src += &(0..100)
        .map(|k| format!("r{k}"))
        .collect::<Vec<_>>()
        .join(" | ");
    src.push('\n');
    for k in 0..100 {
        let names: Vec<String> = (0..12).map(|j| format!("T{k}_{j}")).collect();
        src += &format!("r{k}: {}\n", names.join(" | "));
        for j in 0..12 {
            let (x, y) = pairs[k * 12 + j];
            src += &format!("T{k}_{j}: /k{k}_{j}-[{x}{y}]*/\n");
        }
    }
    let g = gcd_core::lark::parse_grammar(&src).unwrap();
    let c = Arc::new(CompiledGrammar::new(&g).unwrap());
    let tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    let t0 = std::time::Instant::now();
    let bound = Arc::new(BoundGrammar::new(c.clone(), vocab.clone()));
    let why = bound.budget_available().unwrap_err();
    assert!(why.table_bytes() > gcd_core::bind::MAX_BUDGET_TABLE_BYTES);
    assert_eq!(why.grammar_size().0, 1200);
    let message = why.to_string();
    assert!(
        message.contains("MB") && message.contains("1200 terminals"),
        "{message}"
    );
    let mut m = Matcher::new(bound.clone());
    let err = m.set_budget(Some(10)).unwrap_err();
    assert_eq!(
        err.kind(),
        gcd_core::runtime::matcher::MatchErrorKind::BudgetUnavailable
    );
    let name = g.terminals[0].name.clone();
    let err = m.set_lexeme_cap(&name, Some(3)).unwrap_err();
    assert_eq!(
        err.kind(),
        gcd_core::runtime::matcher::MatchErrorKind::BudgetUnavailable
    );
    assert_eq!(m.min_tokens_to_complete(), gcd_core::bind::INF as usize);
    // Unbudgeted masks work; the snapshot has no budget tables and loads.
    for b in b"k42_7-" {
        assert!(m.compute_mask(257)[*b as usize]);
        m.advance(u32::from(*b)).unwrap();
    }
    assert!(m.is_complete());
    let bytes = bound.to_bytes();
    let loaded = BoundGrammar::from_bytes(c, vocab, &bytes).unwrap();
    assert!(loaded.budget_available().is_err());
    assert!(t0.elapsed().as_secs() < 60, "{:?}", t0.elapsed());
}

/// The budget's per-state lexeme costs, searched breadth first from one
/// state and only as far as the terminals alive there need, equal the
/// shortest token paths over every state's tables relaxed to a fixpoint
/// (what the eager tables computed), whatever order states are asked in.
#[test]
fn lexeme_costs_are_shortest_token_paths() {
    let (mut grammars, mut finite) = (0, 0);
    for seed in 0..300u64 {
        let Some(c) = compile_random(seed) else {
            continue;
        };
        let tokens = common::random_vocab(seed, 24);
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        let want =
            common::budget::reference_lexeme_costs(&BoundGrammar::new(c.clone(), vocab.clone()));
        let lazy = BoundGrammar::new(c.clone(), vocab);
        for q in (0..want.len() as u32).rev() {
            finite += want[q as usize].len();
            assert_eq!(
                lazy.lexeme_costs(q),
                &want[q as usize][..],
                "seed {seed}, state {q}"
            );
        }
        grammars += 1;
    }
    assert!(
        grammars > 100 && finite > 1000,
        "{grammars} grammars, {finite} costs"
    );
}

/// A mask near the budget's limit skips the exact in-lexeme search when
/// the upper bounds fit or the lower bounds do not: so every terminal of
/// the exact row must have a lower bound at most its cost (a missing one
/// would refuse a plan that fits) and an upper bound, where it has one,
/// at least its cost.
#[test]
fn lexeme_cost_bounds_enclose_the_exact_costs() {
    let (mut grammars, mut tight) = (0, 0);
    for seed in 0..300u64 {
        let Some(c) = compile_random(seed) else {
            continue;
        };
        let tokens = common::random_vocab(seed, 24);
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        let b = BoundGrammar::new(c.clone(), vocab);
        for q in 0..c.lexer().num_states() as u32 {
            let lower = b.lexeme_lower_costs(q).collect::<Vec<_>>();
            let upper = b.lexeme_upper_costs(q).to_vec();
            for &(y, exact) in b.lexeme_costs(q) {
                let lo = lower.iter().find(|&&(w, _)| w == y).map(|&(_, d)| d);
                assert!(
                    lo.is_some_and(|lo| lo <= exact),
                    "seed {seed}, state {q}, terminal {y}: lower {lo:?}, exact {exact}"
                );
                if let Some(&(_, up)) = upper.iter().find(|&&(w, _)| w == y) {
                    assert!(up >= exact, "seed {seed}, state {q}, terminal {y}");
                }
                tight += usize::from(lo == Some(exact) && exact > 0);
            }
        }
        grammars += 1;
    }
    assert!(
        grammars > 100 && tight > 500,
        "{grammars} grammars, {tight} tight bounds"
    );
}

/// Budget tables index previous lexemes by classes of terminals that plan
/// alike; with one class per terminal (what they were before) every
/// estimate and every budgeted mask along random walks is the same, on
/// plain, member-set and dynamically lexed random grammars.
#[test]
fn merged_previous_classes_plan_like_one_class_per_terminal() {
    let (mut grammars, mut points) = (0, 0);
    for (seed, c, vocab) in plain_member_and_dynamic_grammars(240) {
        if let Some(k) = common::budget::plans_like_one_class_per_terminal(&c, &vocab, seed) {
            grammars += 1;
            points += k;
        }
    }
    assert!(
        grammars > 100 && points > 600,
        "{grammars} grammars, {points} points"
    );
}

/// A fresh binding decides budgeted masks by upper-bound tables that read
/// no token tables, and builds the exact ones only when a decision needs
/// them: every budgeted mask along random walks is the one a binding with
/// the exact tables gives, tight budgets and roomy ones, on plain,
/// member-set and dynamically lexed random grammars; and roomy budgets
/// mostly finish without the exact tables.
#[test]
fn budgets_decided_by_bounds_mask_like_the_exact_tables() {
    let (mut grammars, mut points, mut never_exact) = (0, 0, 0);
    for (seed, c, vocab) in plain_member_and_dynamic_grammars(240) {
        let width = vocab.len();
        let exact = Arc::new(BoundGrammar::new(c.clone(), vocab.clone()));
        let min = Matcher::new(exact.clone()).min_tokens_to_complete();
        if min >= gcd_core::bind::INF as usize {
            continue;
        }
        grammars += 1;
        exact.budget();
        // Too small a budget is refused on a fresh binding too.
        if min > 0 {
            let fresh = Arc::new(BoundGrammar::new(c.clone(), vocab.clone()));
            let err = Matcher::new(fresh).with_budget(min - 1).unwrap_err();
            assert_eq!(
                err.kind(),
                gcd_core::runtime::matcher::MatchErrorKind::BudgetTooSmall
            );
        }
        for (k, budget) in [min, min + 1, min + 3, 2 * min + 8, 400]
            .into_iter()
            .enumerate()
        {
            let fresh = Arc::new(BoundGrammar::new(c.clone(), vocab.clone()));
            let mut a = Matcher::new(fresh.clone()).with_budget(budget).unwrap();
            let mut b = Matcher::new(exact.clone()).with_budget(budget).unwrap();
            let mut rng = StdRng::seed_from_u64(seed * 7 + k as u64);
            loop {
                let (ma, mb) = (a.compute_mask(width), b.compute_mask(width));
                assert_eq!(
                    ma,
                    mb,
                    "seed {seed}, budget {budget}: masks differ after {:?}",
                    String::from_utf8_lossy(b.output())
                );
                points += 1;
                let allowed: Vec<usize> = mb.iter_ones().collect();
                if allowed.is_empty() || a.is_finished() {
                    break;
                }
                let t = allowed[rng.random_range(0..allowed.len())] as u32;
                a.advance(t).unwrap();
                b.advance(t).unwrap();
                if a.is_finished() {
                    break;
                }
            }
            if budget == 400 && fresh.budget_if_built().is_none() {
                never_exact += 1;
            }
        }
    }
    eprintln!(
        "{grammars} grammars, {points} masks, {never_exact} roomy budgets without exact tables"
    );
    assert!(
        grammars > 100 && points > 2000 && never_exact * 2 > grammars,
        "{grammars} grammars, {points} masks, {never_exact} roomy budgets without exact tables"
    );
}
