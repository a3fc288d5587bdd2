//! Random GBNF grammars, as a structure (for references that interpret
//! it) and as text (for the engines that read it).

use rand::rngs::StdRng;
use rand::Rng;

/// One character: inclusive ranges, possibly negated.
#[derive(Clone, Debug)]
pub struct CharSet {
    pub ranges: Vec<(char, char)>,
    pub negated: bool,
}

impl CharSet {
    pub fn contains(&self, c: char) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= c && c <= b) != self.negated
    }
}

/// A random grammar's expression, printed as GBNF for gcd and interpreted
/// directly by the Earley recognizer.
#[derive(Clone, Debug)]
pub enum E {
    Char(CharSet, &'static str),
    Lit(&'static str),
    Ref(usize),
    Seq(Vec<E>),
    Alt(Vec<E>),
    Rep(Box<E>, u32, Option<u32>),
}

pub const ALPHABET: &[char] = &['a', 'b', 'c', 'é', 'è', '€'];
pub const LITERALS: &[&str] = &["a", "b", "ab", "ba", "é", "è", "€a", ""];

/// Classes of the random grammars; `.` only `with_any` (XGrammar does not
/// read it).
fn classes(with_any: bool) -> Vec<(CharSet, &'static str)> {
    let set = |ranges: &[(char, char)], negated| CharSet {
        ranges: ranges.to_vec(),
        negated,
    };
    let mut out = vec![
        (set(&[('a', 'b')], false), "[a-b]"),
        (set(&[('a', 'a')], true), "[^a]"),
        (set(&[('a', 'c'), ('é', 'é')], false), "[a-cé]"),
        (set(&[('è', 'é')], false), "[è-é]"),
        (set(&[('a', 'b'), ('€', '€')], true), "[^ab€]"),
        (set(&[('b', 'b')], false), "[b]"),
    ];
    if with_any {
        out.push((set(&[], true), "."));
    }
    out
}

fn random_expr(rng: &mut StdRng, rules: usize, depth: u32, with_any: bool) -> E {
    match rng.random_range(0..100) {
        0..=29 => E::Lit(LITERALS[rng.random_range(0..LITERALS.len())]),
        30..=54 => {
            let cs = classes(with_any);
            let (c, text) = cs[rng.random_range(0..cs.len())].clone();
            E::Char(c, text)
        }
        55..=74 => E::Ref(rng.random_range(0..rules)),
        _ if depth > 0 => {
            let alts: Vec<E> = (0..rng.random_range(1..=2))
                .map(|_| random_seq(rng, rules, depth - 1, with_any))
                .collect();
            let group = if alts.len() == 1 {
                alts.into_iter().next().unwrap()
            } else {
                E::Alt(alts)
            };
            let (min, max) = match rng.random_range(0..7) {
                0 => (1, Some(1)),
                1 => (0, None),
                2 => (1, None),
                3 => (0, Some(1)),
                4 => (2, Some(2)),
                5 => (1, Some(3)),
                _ => (2, None),
            };
            E::Rep(Box::new(group), min, max)
        }
        _ => E::Lit(LITERALS[rng.random_range(0..LITERALS.len())]),
    }
}

fn random_seq(rng: &mut StdRng, rules: usize, depth: u32, with_any: bool) -> E {
    E::Seq(
        (0..rng.random_range(1..=3))
            .map(|_| random_expr(rng, rules, depth, with_any))
            .collect(),
    )
}

pub fn gbnf(e: &E, name: &dyn Fn(usize) -> String) -> String {
    match e {
        E::Char(_, text) => text.to_string(),
        E::Lit(s) => format!("\"{s}\""),
        E::Ref(r) => name(*r),
        E::Seq(items) => {
            let parts: Vec<String> = items.iter().map(|i| gbnf(i, name)).collect();
            format!("({})", parts.join(" "))
        }
        E::Alt(alts) => {
            let parts: Vec<String> = alts.iter().map(|i| gbnf(i, name)).collect();
            format!("({})", parts.join(" | "))
        }
        E::Rep(inner, min, max) => {
            let op = match (min, max) {
                (1, Some(1)) => String::new(),
                (0, None) => "*".into(),
                (1, None) => "+".into(),
                (0, Some(1)) => "?".into(),
                (m, Some(n)) if m == n => format!("{{{m}}}"),
                (m, Some(n)) => format!("{{{m},{n}}}"),
                (m, None) => format!("{{{m},}}"),
            };
            format!("{}{op}", gbnf(inner, name))
        }
    }
}

pub fn rule_name(i: usize) -> String {
    if i == 0 {
        "root".into()
    } else {
        format!("r{i}")
    }
}

/// Rules `root`, `r1`.. each with 1-3 alternatives: the structure and
/// its GBNF text.
pub fn random_grammar(rng: &mut StdRng, with_any: bool) -> (Vec<Vec<E>>, String) {
    let n = rng.random_range(1..=3);
    let rules: Vec<Vec<E>> = (0..n)
        .map(|_| {
            (0..rng.random_range(1..=3))
                .map(|_| random_seq(rng, n, 2, with_any))
                .collect()
        })
        .collect();
    let mut text = String::new();
    for (i, alts) in rules.iter().enumerate() {
        let parts: Vec<String> = alts.iter().map(|a| gbnf(a, &rule_name)).collect();
        text += &format!("{} ::= {}\n", rule_name(i), parts.join(" | "));
    }
    (rules, text)
}
