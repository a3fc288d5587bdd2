//! Nullable, productive, FIRST and FOLLOW against their definitions,
//! applied in rounds until nothing changes. The library computes them in
//! one pass over strongly connected components (linear in the grammar);
//! rounds are the slow, obviously right form.
mod common;

use gcd_core::analysis::{self, Sets};
use gcd_core::grammar::{Expr, Grammar, GrammarBuilder, Symbol, TermSet, TerminalPattern};

struct Naive {
    nullable: Vec<bool>,
    productive: Vec<bool>,
    first: Vec<TermSet>,
    follow: Vec<TermSet>,
}

fn naive(g: &Grammar) -> Naive {
    let (nts, n) = (g.nonterminals.len(), g.terminals.len());
    let mut nullable = vec![false; nts];
    let mut productive = vec![false; nts];
    let mut first = vec![TermSet::new(n); nts];
    let mut follow = vec![TermSet::new(n); nts];
    follow[g.start.index()].insert(n);
    let mut changed = true;
    while changed {
        changed = false;
        for p in &g.productions {
            let a = p.lhs.index();
            let all_nullable =
                (p.rhs.iter()).all(|s| matches!(s, Symbol::N(m) if nullable[m.index()]));
            let all_productive = p.rhs.iter().all(|s| match s {
                Symbol::T(_) => true,
                Symbol::N(m) => productive[m.index()],
            });
            changed |= all_nullable && !std::mem::replace(&mut nullable[a], true);
            changed |= all_productive && !std::mem::replace(&mut productive[a], true);
            // FIRST of the rhs, and FIRST of each suffix into FOLLOW.
            for (i, s) in p.rhs.iter().enumerate() {
                let mut rest = TermSet::new(n);
                let mut rest_nullable = true;
                for r in &p.rhs[i + 1..] {
                    match r {
                        Symbol::T(t) => {
                            rest.insert(t.index());
                            rest_nullable = false;
                        }
                        Symbol::N(m) => {
                            rest.union_with(&first[m.index()]);
                            rest_nullable = nullable[m.index()];
                        }
                    }
                    if !rest_nullable {
                        break;
                    }
                }
                if let Symbol::N(m) = s {
                    if rest_nullable {
                        let f = follow[a].clone();
                        rest.union_with(&f);
                    }
                    changed |= follow[m.index()].union_with(&rest);
                }
            }
            let mut head = TermSet::new(n);
            for s in &p.rhs {
                match s {
                    Symbol::T(t) => {
                        head.insert(t.index());
                        break;
                    }
                    Symbol::N(m) => {
                        head.union_with(&first[m.index()]);
                        if !nullable[m.index()] {
                            break;
                        }
                    }
                }
            }
            changed |= first[a].union_with(&head);
        }
    }
    Naive {
        nullable,
        productive,
        first,
        follow,
    }
}

fn check(g: &Grammar, what: &str) {
    let sets = Sets::new(g);
    let want = naive(g);
    assert_eq!(sets.nullable, want.nullable, "nullable of {what}");
    assert_eq!(
        analysis::productive(g),
        want.productive,
        "productive of {what}"
    );
    assert_eq!(sets.first, want.first, "FIRST of {what}");
    assert_eq!(sets.follow, want.follow, "FOLLOW of {what}");
}

#[test]
fn random_grammars_agree_with_rounds() {
    let mut checked = 0;
    for seed in 0..3000 {
        if let Some(g) = common::random_grammar(seed).build() {
            check(&g, &format!("random grammar {seed}"));
            checked += 1;
        }
    }
    assert!(checked > 2000, "only {checked} random grammars built");
}

/// Chains declared against the direction sets flow in, with cycles and
/// nullable links: the shapes where a single pass in declaration order
/// would stop short.
#[test]
fn chains_and_cycles_agree_with_rounds() {
    for (len, cycle_every) in [(40, 0), (40, 7), (25, 3), (60, 11)] {
        let mut b = GrammarBuilder::new();
        for i in 0..len {
            b.terminal(&format!("T{i}"), TerminalPattern::Regex(format!("x{i}y")));
        }
        b.rule("start", vec![Expr::name("r0")]);
        for i in (0..len).rev() {
            let next = if i + 1 < len {
                Expr::opt(Expr::name(&format!("r{}", i + 1)))
            } else {
                Expr::seq(vec![])
            };
            let mut alts = vec![
                Expr::seq(vec![next.clone(), Expr::name(&format!("T{i}"))]),
                Expr::seq(vec![Expr::name(&format!("T{i}")), next]),
            ];
            if cycle_every > 0 && i % cycle_every == 0 && i >= cycle_every {
                alts.push(Expr::seq(vec![
                    Expr::name(&format!("r{}", i - cycle_every)),
                    Expr::name(&format!("T{i}")),
                ]));
            }
            b.rule(&format!("r{i}"), alts);
        }
        let g = b.build().expect("the chain builds");
        check(&g, &format!("chain of {len}, cycles every {cycle_every}"));
    }
}

/// Shortest derivations in bytes (settled cheapest first in the library)
/// against relaxing every production until nothing changes.
#[test]
fn shortest_derivations_agree_with_rounds() {
    const UNREACHABLE: u32 = u32::MAX;
    let mut checked = 0;
    for seed in 0..2000 {
        let Some(c) = common::random_grammar(seed).compile() else {
            continue;
        };
        let (g, sc) = (c.grammar(), c.completion());
        let mut rule = vec![UNREACHABLE; g.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                let cost = p.rhs.iter().try_fold(0u32, |acc, s| {
                    let c = match *s {
                        Symbol::T(t) => sc.terminal_state[t.index()][0],
                        Symbol::N(n) => rule[n.index()],
                    };
                    (c != UNREACHABLE).then(|| acc.saturating_add(c))
                });
                if let Some(c) = cost.filter(|&c| c < rule[p.lhs.index()]) {
                    rule[p.lhs.index()] = c;
                    changed = true;
                }
            }
        }
        assert_eq!(sc.rule, rule, "random grammar {seed}");
        checked += 1;
    }
    assert!(checked > 500, "only {checked} random grammars compiled");
}
