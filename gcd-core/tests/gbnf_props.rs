//! GBNF's language, kept exactly: on random grammars, gcd's verdicts (the
//! reference recognizer over the lowered grammar, with merges and
//! without, and the matcher fed byte by byte) agree with a
//! character-level Earley recognizer written here, which reads the random
//! grammar's own structure and shares nothing with gcd's GBNF reader.
//!
//! The grammars mix what makes maximal munch dangerous: classes that
//! overlap literals, repetitions followed by what they repeat, nullable
//! parts, recursion, `.` and negated classes, and non-ASCII characters
//! whose first bytes coincide (é, è) or that take three bytes (€).

use std::collections::HashSet;
use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::gbnf::{parse_with_options, Options};
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};
use gcd_core::runtime::recognizer::{Recognizer, Status};
use gcd_core::vocab::Vocabulary;
mod common;

use common::gbnf::{random_grammar, CharSet, ALPHABET, E};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

// ---- The reference: a plain CFG over characters and an Earley recognizer.

#[derive(Clone, Debug)]
enum Sym {
    Char(CharSet),
    Nt(usize),
}

struct Cfg {
    /// Per nonterminal, its productions.
    prods: Vec<Vec<Vec<Sym>>>,
    nullable: Vec<bool>,
}

impl Cfg {
    fn new(rules: &[Vec<E>]) -> Cfg {
        let mut cfg = Cfg {
            prods: vec![Vec::new(); rules.len()],
            nullable: Vec::new(),
        };
        for (i, alts) in rules.iter().enumerate() {
            for a in alts {
                let rhs = cfg.seq(a);
                cfg.prods[i].push(rhs);
            }
        }
        cfg.nullable = vec![false; cfg.prods.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for n in 0..cfg.prods.len() {
                if !cfg.nullable[n]
                    && cfg.prods[n].iter().any(|rhs| {
                        rhs.iter()
                            .all(|s| matches!(s, Sym::Nt(m) if cfg.nullable[*m]))
                    })
                {
                    cfg.nullable[n] = true;
                    changed = true;
                }
            }
        }
        cfg
    }

    fn fresh(&mut self, alts: Vec<Vec<Sym>>) -> usize {
        self.prods.push(alts);
        self.prods.len() - 1
    }

    fn seq(&mut self, e: &E) -> Vec<Sym> {
        match e {
            E::Seq(items) => items.iter().flat_map(|i| self.seq(i)).collect(),
            E::Lit(s) => s
                .chars()
                .map(|c| {
                    Sym::Char(CharSet {
                        ranges: vec![(c, c)],
                        negated: false,
                    })
                })
                .collect(),
            E::Char(c, _) => vec![Sym::Char(c.clone())],
            E::Ref(r) => vec![Sym::Nt(*r)],
            E::Alt(alts) => {
                let rhs: Vec<Vec<Sym>> = alts.iter().map(|a| self.seq(a)).collect();
                vec![Sym::Nt(self.fresh(rhs))]
            }
            E::Rep(inner, min, max) => {
                let body = self.seq(inner);
                let mut out = Vec::new();
                for _ in 0..*min {
                    out.extend(body.iter().cloned());
                }
                match max {
                    None => {
                        // S: body S | <empty>
                        let s = self.fresh(Vec::new());
                        let mut rec = body.clone();
                        rec.push(Sym::Nt(s));
                        self.prods[s] = vec![rec, vec![]];
                        out.push(Sym::Nt(s));
                    }
                    Some(max) => {
                        for _ in *min..*max {
                            let opt = self.fresh(vec![body.clone(), vec![]]);
                            out.push(Sym::Nt(opt));
                        }
                    }
                }
                out
            }
        }
    }

    /// Earley sets over `chars`; `sets[i]` is empty once the prefix of
    /// length i derives from no sentential form.
    fn earley(&self, chars: &[char]) -> Vec<HashSet<(usize, usize, usize, usize)>> {
        // Item: (nonterminal, production, dot, origin).
        let mut sets: Vec<HashSet<(usize, usize, usize, usize)>> =
            vec![HashSet::new(); chars.len() + 1];
        let mut todo: Vec<(usize, usize, usize, usize)> =
            (0..self.prods[0].len()).map(|p| (0, p, 0, 0)).collect();
        for i in 0..=chars.len() {
            if i > 0 {
                todo = sets[i].iter().copied().collect();
            }
            sets[i].extend(todo.iter().copied());
            while let Some((n, p, dot, origin)) = todo.pop() {
                let rhs = &self.prods[n][p];
                match rhs.get(dot) {
                    Some(Sym::Nt(m)) => {
                        for q in 0..self.prods[*m].len() {
                            let new = (*m, q, 0, i);
                            if sets[i].insert(new) {
                                todo.push(new);
                            }
                        }
                        if self.nullable[*m] {
                            let new = (n, p, dot + 1, origin);
                            if sets[i].insert(new) {
                                todo.push(new);
                            }
                        }
                    }
                    Some(Sym::Char(c)) => {
                        if i < chars.len() && c.contains(chars[i]) {
                            sets[i + 1].insert((n, p, dot + 1, origin));
                        }
                    }
                    None => {
                        let parents: Vec<_> = (sets[origin].iter())
                            .filter(|&&(pn, pp, pd, _)| {
                                matches!(self.prods[pn][pp].get(pd), Some(Sym::Nt(m)) if *m == n)
                            })
                            .copied()
                            .collect();
                        for (pn, pp, pd, po) in parents {
                            let new = (pn, pp, pd + 1, po);
                            if sets[i].insert(new) {
                                todo.push(new);
                            }
                        }
                    }
                }
            }
        }
        sets
    }

    /// Whether every nonterminal derives some string (else an item can
    /// wait forever, and a non-empty Earley set is no valid prefix).
    fn all_productive(&self) -> bool {
        let mut productive = vec![false; self.prods.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for n in 0..self.prods.len() {
                if !productive[n]
                    && self.prods[n].iter().any(|rhs| {
                        rhs.iter()
                            .all(|s| !matches!(s, Sym::Nt(m) if !productive[*m]))
                    })
                {
                    productive[n] = true;
                    changed = true;
                }
            }
        }
        productive.iter().all(|&p| p)
    }

    fn accepts(&self, s: &str) -> bool {
        let chars: Vec<char> = s.chars().collect();
        let sets = self.earley(&chars);
        sets[chars.len()]
            .iter()
            .any(|&(n, p, dot, origin)| n == 0 && origin == 0 && dot == self.prods[0][p].len())
    }

    /// A random sentence, or `None` when the walk runs too deep.
    fn sample(&self, rng: &mut StdRng, n: usize, depth: u32, out: &mut String) -> bool {
        if depth > 12 {
            return false;
        }
        let alts = &self.prods[n];
        let rhs = &alts[rng.random_range(0..alts.len())];
        for s in rhs {
            match s {
                Sym::Nt(m) => {
                    if !self.sample(rng, *m, depth + 1, out) {
                        return false;
                    }
                }
                Sym::Char(c) => {
                    let options: Vec<char> = ALPHABET
                        .iter()
                        .copied()
                        .filter(|&x| c.contains(x))
                        .collect();
                    if options.is_empty() {
                        return false;
                    }
                    out.push(options[rng.random_range(0..options.len())]);
                }
            }
        }
        true
    }
}

/// Samples of the reference grammar, their one-character edits and random
/// strings over the alphabet.
fn strings(cfg: &Cfg, rng: &mut StdRng) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..30 {
        let mut s = String::new();
        if cfg.sample(rng, 0, 0, &mut s) && s.chars().count() <= 12 {
            out.push(s);
        }
    }
    let samples = out.len();
    for i in 0..samples {
        for _ in 0..3 {
            let mut chars: Vec<char> = out[i].chars().collect();
            let at = rng.random_range(0..=chars.len());
            let c = ALPHABET[rng.random_range(0..ALPHABET.len())];
            match rng.random_range(0..3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 => chars.insert(at, c),
                _ if at < chars.len() => chars[at] = c,
                _ => chars.push(c),
            }
            out.push(chars.into_iter().collect());
        }
    }
    for _ in 0..10 {
        let n = rng.random_range(0..6);
        out.push(
            (0..n)
                .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
                .collect(),
        );
    }
    out.sort();
    out.dedup();
    out
}

fn compile(text: &str, merge: bool) -> Option<(CompiledGrammar, bool)> {
    let options = {
        let mut o = Options::default();
        o.merge = merge;
        o
    };
    let (b, report) = parse_with_options(text, &options).unwrap_or_else(|e| panic!("{text}{e}"));
    let g = b.build().unwrap_or_else(|e| panic!("{text}{e}"));
    // gcd may refuse a grammar (no finite sentence, ambiguity that grows
    // without bound): that is its own tests' business.
    CompiledGrammar::new(&g)
        .ok()
        .map(|c| (c, report.merged_terminals > 0))
}

/// Whether the matcher, fed `s` byte by byte, ends complete; `None` past
/// the configuration cap.
fn matcher_accepts(bound: &Arc<BoundGrammar>, s: &[u8]) -> Option<bool> {
    let mut m = Matcher::new(bound.clone());
    for &b in s {
        match m.advance(b as u32) {
            Ok(()) => {}
            Err(e) if e.kind() == MatchErrorKind::TooManyConfigurations => return None,
            Err(_) => return Some(false),
        }
    }
    Some(m.is_complete())
}

#[test]
fn gbnf_lowering_keeps_the_character_level_language() {
    let (mut grammars, mut with_merges, mut compared, mut accepted, mut prefixes) = (0, 0, 0, 0, 0);
    let bytes: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(bytes, "</s>"));
    for seed in 0..300u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (rules, text) = random_grammar(&mut rng, true);
        let cfg = Cfg::new(&rules);
        let Some((merged, has_merges)) = compile(&text, true) else {
            continue;
        };
        let (chars, _) = compile(&text, false)
            .unwrap_or_else(|| panic!("compiles merged but not per character:\n{text}"));
        grammars += 1;
        with_merges += usize::from(has_merges);
        let bound = Arc::new(BoundGrammar::new(Arc::new(merged.clone()), vocab.clone()));
        let (rm, rc) = (Recognizer::new(&merged), Recognizer::new(&chars));
        for s in strings(&cfg, &mut rng) {
            // Ambiguous grammars may hold too many derivations to follow.
            if !rm.follows_within(s.as_bytes(), 200) || !rc.follows_within(s.as_bytes(), 200) {
                continue;
            }
            let want = cfg.accepts(&s);
            let got = rm.is_complete(s.as_bytes());
            assert_eq!(
                got, want,
                "{s:?}: gcd (merged) {got}, reference {want}\n{text}"
            );
            let got = rc.is_complete(s.as_bytes());
            assert_eq!(
                got, want,
                "{s:?}: gcd (per character) {got}, reference {want}\n{text}"
            );
            if let Some(got) = matcher_accepts(&bound, s.as_bytes()) {
                assert_eq!(got, want, "{s:?}: matcher {got}, reference {want}\n{text}");
            }
            compared += 1;
            accepted += usize::from(want);
            // Valid prefixes at character boundaries: the Earley set is
            // non-empty exactly when some completion exists (every
            // nonterminal of a grammar gcd compiles derives a sentence).
            if !cfg.all_productive() {
                continue;
            }
            let chars_of: Vec<char> = s.chars().collect();
            let sets = cfg.earley(&chars_of);
            for (k, (i, _)) in s.char_indices().enumerate().skip(1) {
                let want = !sets[k].is_empty();
                let status = rm.status(&s.as_bytes()[..i]);
                if status == Status::Unknown {
                    continue;
                }
                let got = status.is_viable();
                assert_eq!(
                    got,
                    want,
                    "prefix {:?}: gcd {got}, reference {want}\n{text}",
                    &s[..i]
                );
                prefixes += 1;
            }
        }
    }
    eprintln!(
        "{grammars} grammars ({with_merges} with merged terminals), {compared} strings \
         ({accepted} in the language), {prefixes} prefixes"
    );
    assert!(
        grammars >= 200 && with_merges >= 100 && compared >= 5000 && accepted >= 1000,
        "{grammars} {with_merges} {compared} {accepted}"
    );
}
