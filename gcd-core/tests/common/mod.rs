//! Random small grammars and vocabularies for the property tests.
#![allow(dead_code)]
pub mod budget;
pub mod byte_fed;
pub mod byte_tokens;
pub mod data;
pub mod gbnf;
pub mod pair;
pub mod walk;

use gcd_core::error::DiagnosticKind;
use gcd_core::grammar::{Expr, Grammar, GrammarBuilder, TerminalPattern};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Regex terminals over a tiny alphabet, chosen so that prefixes, overlaps,
/// multi-byte characters and self-delimiting strings all occur.
const REGEXES: &[&str] = &[
    "[ab]+",
    "a[bc]*",
    "b",
    "(ab|c)",
    "b?a",
    "\"[^\"]*\"",
    "é+",
    "c[aé]",
    "[0-9]+",
    "x|xy",
    "(ab)+",
    // Matches that the next byte may extend ("c", "ca") and matches it
    // cannot ("cb"): closable only by going on, which the lexical check
    // must see.
    "ca*b?",
];
const LITERALS: &[&str] = &[
    "a", "b", "c", "ab", "ba", "(", ")", ",", "é", "x", "xyz", "1",
];

/// A random grammar with 2–5 terminals and 1–4 rules, sometimes with an
/// ignored space terminal.
pub fn random_grammar(seed: u64) -> Grammar_ {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut b = GrammarBuilder::new();
    let n_terms = rng.random_range(2..=5);
    let mut names = Vec::new();
    for i in 0..n_terms {
        let name = format!("T{i}");
        let pattern = if rng.random_bool(0.5) {
            TerminalPattern::Literal {
                text: LITERALS[rng.random_range(0..LITERALS.len())].into(),
                case_insensitive: false,
            }
        } else {
            TerminalPattern::Regex(REGEXES[rng.random_range(0..REGEXES.len())].into())
        };
        // Mostly default priority; sometimes one that overrides the literal-first tie rule.
        let priority = [0, 0, 0, 1, -1][rng.random_range(0..5)];
        b.terminal_full(&name, pattern, priority, None);
        names.push(name);
    }
    let ignored = rng.random_bool(0.4);
    if ignored {
        b.terminal(
            "WS",
            TerminalPattern::Regex(if rng.random_bool(0.5) {
                " +".into()
            } else {
                " ".into()
            }),
        );
        b.ignore("WS", None);
    }
    let n_rules = rng.random_range(1..=4);
    let rule_names: Vec<String> = (0..n_rules)
        .map(|i| {
            if i == 0 {
                "start".to_string()
            } else {
                format!("r{i}")
            }
        })
        .collect();
    for (i, r) in rule_names.iter().enumerate() {
        let n_alts = rng.random_range(1..=3);
        let mut alts = Vec::new();
        for _ in 0..n_alts {
            let len = rng.random_range(0..=3);
            let mut items = Vec::new();
            for _ in 0..len {
                // Later rules only, to keep most grammars productive; sometimes recursion.
                let pick = rng.random_range(0..10);
                let item = if pick < 6 || i + 1 >= n_rules && pick < 9 {
                    Expr::name(&names[rng.random_range(0..names.len())])
                } else if pick < 9 {
                    Expr::name(&rule_names[rng.random_range(i + 1..n_rules)])
                } else {
                    Expr::name(&rule_names[rng.random_range(0..n_rules)])
                };
                let item = match rng.random_range(0..8) {
                    0 => Expr::opt(item),
                    1 => Expr::star(item),
                    2 => Expr::plus(item),
                    _ => item,
                };
                items.push(item);
            }
            alts.push(Expr::seq(items));
        }
        // Keep every rule reachable: the first alternative mentions the next rule.
        if i + 1 < n_rules {
            let next = Expr::name(&rule_names[i + 1]);
            let Expr::Seq(items) = &mut alts[0] else {
                unreachable!()
            };
            items.push(if rng.random_bool(0.5) {
                next
            } else {
                Expr::opt(next)
            });
        }
        b.rule(r, alts);
    }
    Grammar_ { builder: b, seed }
}

pub struct Grammar_ {
    pub builder: GrammarBuilder,
    pub seed: u64,
}

impl Grammar_ {
    pub fn build(&self) -> Option<Grammar> {
        self.builder.build().ok()
    }

    /// The compiled grammar, when it builds and is LL(1) without hazards.
    #[allow(dead_code)]
    pub fn compile(&self) -> Option<gcd_core::compiled::CompiledGrammar> {
        gcd_core::compiled::CompiledGrammar::new(&self.build()?).ok()
    }
}

/// A random grammar around one or two member sets (members in any order):
/// `start: "(" S ")"`, members `KEY val` with keys drawn from quoted names
/// that share prefixes, some required, sometimes repeatable `"x…"` keys,
/// values that may nest the sets or a union of them (`x either y`). Over `random_vocab`'s alphabet.
pub fn random_member_grammar(seed: u64) -> Grammar_ {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5e75);
    let mut b = GrammarBuilder::new();
    const KEYS: &[&str] = &["\"a\"", "\"b\"", "\"ab\"", "\"ba\"", "\"c\"", "\"\""];
    let n_sets = rng.random_range(1..=2);
    for s in 0..n_sets {
        let n = rng.random_range(1..=4);
        let mut keys: Vec<&str> = KEYS.to_vec();
        let mut members = Vec::new();
        for _ in 0..n {
            let k = keys.remove(rng.random_range(0..keys.len()));
            let member = Expr::seq(vec![Expr::literal(k), Expr::name("val")]);
            members.push((member, rng.random_bool(0.35)));
        }
        let mut repeatable = Vec::new();
        if rng.random_bool(0.35) {
            repeatable.push(Expr::seq(vec![
                Expr::regex("\"x[abc]*\""),
                Expr::name("val"),
            ]));
        }
        let nonempty = rng.random_bool(0.2);
        b.member_set(
            &format!("set{s}"),
            members,
            repeatable,
            Expr::literal(","),
            nonempty,
        );
    }
    let mut vals = vec![Expr::literal("0"), Expr::regex("1+")];
    for s in 0..n_sets {
        if rng.random_bool(0.6) {
            vals.push(between("(", &format!("set{s}"), ")"));
        }
    }
    // A union of the sets under one bracket: the parser forks between
    // sets whose closing bracket is already on the stack below the fork.
    if n_sets == 2 && rng.random_bool(0.5) {
        b.rule("either", vec![Expr::name("set0"), Expr::name("set1")]);
        vals.push(between("x", "either", "y"));
    }
    b.rule("val", vals);
    b.rule("start", vec![between("(", "set0", ")")]);
    b.start("start");
    if rng.random_bool(0.5) {
        b.terminal("WS", TerminalPattern::Regex(" +".into()));
        b.ignore("WS", None);
    }
    Grammar_ { builder: b, seed }
}

/// `open rule close`, literals around a rule.
pub fn between(open: &str, rule: &str, close: &str) -> Expr {
    Expr::seq(vec![
        Expr::literal(open),
        Expr::name(rule),
        Expr::literal(close),
    ])
}

/// A random vocabulary over the bytes the grammars use: single bytes, all
/// pieces of 'é', and multi-byte tokens that span terminals.
pub fn random_vocab(seed: u64, size: usize) -> Vec<Vec<u8>> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let alphabet: &[u8] = b"abcxyz01(),\" \xc3\xa9";
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    // Every single byte of the alphabet, so every string can be spelled.
    for &b in alphabet {
        tokens.push(vec![b]);
    }
    tokens.push("é".as_bytes().to_vec());
    while tokens.len() < size {
        let len = rng.random_range(2..=4);
        let t: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())])
            .collect();
        if !tokens.contains(&t) {
            tokens.push(t);
        }
    }
    tokens
}

/// That the Lark source `src` is refused, its first diagnostic of `kind`
/// saying `says`, at a span on `line` (any line for `None`).
pub fn assert_refused(src: &str, kind: DiagnosticKind, says: &str, line: Option<u32>) {
    let e = gcd_core::lark::parse_grammar(src).unwrap_err();
    let d = &e.diagnostics()[0];
    assert_eq!(d.kind, kind, "{src}: {e}");
    assert!(d.message.contains(says), "{src}: {e}");
    let at = d.span.map(|s| s.start.line);
    assert!(at.is_some() && (line.is_none() || at == line), "{src}: {e}");
}
