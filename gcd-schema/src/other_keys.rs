//! The DFA of "any object key but the declared names", built directly.
//!
//! [`other_than`](crate::spell::other_than) writes this language as a
//! regex, and determinizing that regex was most of the compile time of a
//! schema with an open object. Its shape lets us build the table without
//! determinizing: walk the trie of the names over decoded characters, each
//! step a small byte trie of the allowed spellings of the next characters.
//! A character unit that leaves those spellings is a character that
//! continues no name: it is finished on the one-character DFA, then any
//! content and the closing quote follow (two regex-automata DFAs, the same
//! for every schema, built once). The regex stays the terminal's
//! definition; the tests check that both accept the same bytes.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use gcd_core::lexer::{ByteClasses, DfaError, TerminalDfa, DEAD};

use crate::options::Escapes;
use crate::spell::{char_forms, class_forms, class_spelling, short_escape, Form, JSON_CHAR};

/// The DFAs shared by every construction under one [`Escapes`] policy.
struct Parts {
    /// One character as a class may spell it (`class_spelling` of all).
    one: TerminalDfa,
    /// Any string content, then the closing quote.
    rest: TerminalDfa,
}

fn parts(esc: Escapes) -> &'static Parts {
    static ANY: OnceLock<Parts> = OnceLock::new();
    static CANONICAL: OnceLock<Parts> = OnceLock::new();
    let cell = match esc {
        Escapes::Any => &ANY,
        Escapes::Canonical => &CANONICAL,
    };
    cell.get_or_init(|| {
        let all = [('\0', '\u{d7ff}'), ('\u{e000}', char::MAX)];
        let one = class_spelling(&all, esc).expect("characters exist");
        let parts = Parts {
            one: TerminalDfa::new(&one).expect("one JSON character"),
            rest: TerminalDfa::new(&format!("{JSON_CHAR}*\"")).expect("JSON string content"),
        };
        // Both end where they first match (the construction relies on it).
        for d in [&parts.one, &parts.rest] {
            let ends = |s: u32| (0..=255u8).all(|b| d.next(s, b) == DEAD);
            assert!((0..d.len() as u32).all(|s| !d.is_accepting(s) || ends(s)));
        }
        parts
    })
}

/// The bytes of one spelling of `c`; `true` marks hex digits, which take
/// either case.
fn spelling(c: char, form: Form) -> Vec<(u8, bool)> {
    match form {
        Form::Raw => c
            .encode_utf8(&mut [0; 4])
            .bytes()
            .map(|b| (b, false))
            .collect(),
        Form::Short => vec![(b'\\', false), (short_escape(c).expect("short"), false)],
        Form::Unicode => {
            let cp = c as u32;
            let units = if cp < 0x10000 {
                vec![cp]
            } else {
                let v = cp - 0x10000;
                vec![0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)]
            };
            let mut out = Vec::new();
            for u in units {
                out.extend([(b'\\', false), (b'u', false)]);
                out.extend(format!("{u:04x}").bytes().map(|b| (b, true)));
            }
            out
        }
    }
}

/// A point inside the spellings: either a character boundary (a node of
/// the names' trie) or partway through one character's spelling.
struct Pos {
    /// Byte → next position, or [`DEAD`] for a spelling refused outright.
    edges: Vec<(u8, u32)>,
    /// State of the one-character DFA on the bytes of the current unit.
    unit: u32,
    /// At a boundary: whether the characters so far are a declared name.
    boundary: Option<bool>,
}

/// Adds one spelling from position `from`, its last byte leading to `to`.
/// Spellings are a prefix-free code, so the last byte is always new.
fn insert(pos: &mut Vec<Pos>, one: &TerminalDfa, from: u32, bytes: &[(u8, bool)], to: u32) {
    let mut at = from as usize;
    for (i, &(b, hex)) in bytes.iter().enumerate() {
        let last = i + 1 == bytes.len();
        if let Some(&(_, next)) = pos[at].edges.iter().find(|e| e.0 == b) {
            debug_assert!(!last && next != DEAD, "spellings are prefix-free");
            at = next as usize;
            continue;
        }
        let next = if last {
            to
        } else {
            let unit = match pos[at].unit {
                DEAD => DEAD,
                u => one.next(u, b),
            };
            pos.push(Pos {
                edges: Vec::new(),
                unit,
                boundary: None,
            });
            pos.len() as u32 - 1
        };
        pos[at].edges.push((b, next));
        if hex && b.is_ascii_alphabetic() {
            pos[at].edges.push((b.to_ascii_uppercase(), next));
        }
        at = next as usize;
    }
}

/// What a state of the output table stands for.
#[derive(Clone, Copy)]
enum Kind {
    Start,
    At(u32),
    /// Inside a character that continues no name (one-character DFA state).
    Leaving(u32),
    /// After it: the rest of the string (rest-DFA state).
    Rest(u32),
    End,
}

/// The DFA of `"` + `other_than(names, esc)` + `"`.
pub fn other_keys_dfa(names: &[&str], esc: Escapes) -> Result<TerminalDfa, DfaError> {
    if names.is_empty() {
        return TerminalDfa::new(&format!("\"{JSON_CHAR}*\""));
    }
    let Parts { one, rest } = parts(esc);
    // The names' trie over characters; node i is position i.
    let mut trie: Vec<(bool, BTreeMap<char, u32>)> = vec![(false, BTreeMap::new())];
    for name in names {
        let mut v = 0;
        for c in name.chars() {
            let next = trie.len() as u32;
            v = *trie[v].1.entry(c).or_insert(next) as usize;
            if v == next as usize {
                trie.push((false, BTreeMap::new()));
            }
        }
        trie[v].0 = true;
    }
    let mut pos: Vec<Pos> = trie
        .iter()
        .map(|(name, _)| Pos {
            edges: Vec::new(),
            unit: 0,
            boundary: Some(*name),
        })
        .collect();
    for (v, (_, kids)) in trie.iter().enumerate() {
        for (&c, &w) in kids {
            // A child's spellings step into the trie; the other ways a
            // class could write it (`\/` when canonical) are refused, as
            // leaving the trie with it would be.
            let step = char_forms(c, esc);
            let mut all = class_forms(c, esc);
            all.extend(
                step.iter()
                    .filter(|f| !all.contains(f))
                    .copied()
                    .collect::<Vec<_>>(),
            );
            for f in all {
                let to = if step.contains(&f) { w } else { DEAD };
                insert(&mut pos, one, v as u32, &spelling(c, f), to);
            }
        }
    }

    // Output states: start, the positions, end, then the rest on demand.
    let mut t = Table {
        kinds: vec![Kind::Start],
        leaving: vec![DEAD; one.len()],
        rest: vec![DEAD; rest.len()],
        leave_rows: vec![None; one.len()],
    };
    t.kinds.extend((0..pos.len() as u32).map(Kind::At));
    let end = t.kinds.len() as u32;
    t.kinds.push(Kind::End);
    let at_id = |p: u32| if p == DEAD { DEAD } else { p + 1 };
    let mut trans: Vec<u32> = Vec::with_capacity(t.kinds.len() * 256);
    let mut accepting = Vec::with_capacity(t.kinds.len());
    let mut i = 0;
    while i < t.kinds.len() {
        let mut row = [DEAD; 256];
        let acc = match t.kinds[i] {
            Kind::Start => {
                row[b'"' as usize] = at_id(0);
                false
            }
            Kind::At(p) => {
                let p = &pos[p as usize];
                if p.unit != DEAD {
                    t.leave(one, p.unit, &mut row);
                }
                if let Some(name) = p.boundary {
                    row[b'"' as usize] = if name { DEAD } else { end };
                }
                for &(b, to) in &p.edges {
                    row[b as usize] = at_id(to);
                }
                false
            }
            Kind::Leaving(u) => {
                t.leave(one, u, &mut row);
                false
            }
            Kind::Rest(x) => {
                for b in 0..=255u8 {
                    let n = rest.next(x, b);
                    row[b as usize] = match n {
                        DEAD => DEAD,
                        // The closing quote: nothing follows, as after a name's.
                        n if rest.is_accepting(n) => end,
                        n => t.id(Kind::Rest(n)),
                    };
                }
                false
            }
            Kind::End => true,
        };
        trans.extend_from_slice(&row);
        accepting.push(acc);
        i += 1;
    }
    TerminalDfa::from_tables_with_classes(trans, accepting, classes(one, rest, &pos))
}

/// Bytes the table treats alike, known from how it is built: those alike
/// in both shared DFAs (every other row copies or maps theirs), except the
/// quote and the bytes that spell a name's characters, each its own.
fn classes(one: &TerminalDfa, rest: &TerminalDfa, pos: &[Pos]) -> [u8; 256] {
    let mut own = [false; 256];
    own[b'"' as usize] = true;
    for &(b, _) in pos.iter().flat_map(|p| &p.edges) {
        own[b as usize] = true;
    }
    let (one, rest) = (one.byte_classes(), rest.byte_classes());
    let alone = |b: u8| if own[b as usize] { u16::from(b) + 1 } else { 0 };
    ByteClasses::numbered_by(|b| (one[b as usize], rest[b as usize], alone(b))).class_of
}

/// The output states made so far, and those of the shared DFAs by state.
struct Table {
    kinds: Vec<Kind>,
    leaving: Vec<u32>,
    rest: Vec<u32>,
    leave_rows: Vec<Option<Box<[u32; 256]>>>,
}

impl Table {
    /// The output state of a shared-DFA state, made on first use.
    fn id(&mut self, k: Kind) -> u32 {
        let slot = match k {
            Kind::Leaving(u) => &mut self.leaving[u as usize],
            Kind::Rest(x) => &mut self.rest[x as usize],
            _ => unreachable!("only shared-DFA states are made on demand"),
        };
        if *slot == DEAD {
            *slot = self.kinds.len() as u32;
            self.kinds.push(k);
        }
        *slot
    }

    /// Fills `row` with the steps of a character that continues no name,
    /// from one-character DFA state `u`: on its last byte the rest begins.
    /// Rows are kept by `u` (every boundary shares one).
    fn leave(&mut self, one: &TerminalDfa, u: u32, row: &mut [u32; 256]) {
        if let Some(done) = &self.leave_rows[u as usize] {
            *row = **done;
            return;
        }
        for b in 0..=255u8 {
            let n = one.next(u, b);
            if n != DEAD {
                row[b as usize] = self.id(if one.is_accepting(n) {
                    Kind::Rest(0)
                } else {
                    Kind::Leaving(n)
                });
            }
        }
        self.leave_rows[u as usize] = Some(Box::new(*row));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, VecDeque};

    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use regex_automata::dfa::{dense, Automaton, StartKind};
    use regex_automata::util::start;
    use regex_automata::{Anchored, MatchKind};

    use super::*;
    use crate::spell::other_than;

    fn regex(names: &[&str], esc: Escapes) -> String {
        format!("\"{}\"", other_than(names, esc))
    }

    /// regex-automata's own DFA of the regex (not gcd-core's read-out of
    /// it, nor its cache, which emit fills with our tables).
    fn reference(re: &str) -> dense::DFA<Vec<u32>> {
        dense::Builder::new()
            .configure(
                dense::DFA::config()
                    .match_kind(MatchKind::All)
                    .start_kind(StartKind::Anchored),
            )
            .build(re)
            .unwrap()
    }

    /// A byte string that one accepts and the other does not, if any: a
    /// breadth-first walk of the product, so equality is proved, not sampled.
    fn difference(ours: &TerminalDfa, re: &str) -> Option<Vec<u8>> {
        let dfa = reference(re);
        let s0 = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .unwrap();
        let accepts = |t| dfa.is_match_state(dfa.next_eoi_state(t));
        let mut seen: HashMap<(u32, _), Vec<u8>> = HashMap::from([((0u32, s0), vec![])]);
        let mut queue = VecDeque::from([(0u32, s0)]);
        while let Some((q, t)) = queue.pop_front() {
            let path = seen[&(q, t)].clone();
            let ours_acc = q != DEAD && ours.is_accepting(q);
            if ours_acc != accepts(t) {
                return Some(path);
            }
            for b in 0..=255u8 {
                let nq = if q == DEAD { DEAD } else { ours.next(q, b) };
                let nt = dfa.next_state(t, b);
                if dfa.is_dead_state(nt) {
                    // Ours must be dead too: its states all reach a match.
                    if nq != DEAD {
                        let mut w = path.clone();
                        w.push(b);
                        return Some(w);
                    }
                    continue;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry((nq, nt)) {
                    let mut w = path.clone();
                    w.push(b);
                    e.insert(w);
                    queue.push_back((nq, nt));
                }
            }
        }
        None
    }

    /// Characters that stress the spellings: prefixes of each other's
    /// UTF-8 and `\u` forms, short escapes, controls, surrogate pairs.
    const POOL: &[char] = &[
        'a',
        'b',
        'n',
        'u',
        'e',
        'E',
        '0',
        '/',
        '"',
        '\\',
        '\n',
        '\t',
        '\u{1}',
        '\u{b}',
        '\u{1f}',
        '\u{7f}',
        'é',
        'è',
        'ī',
        '€',
        '\u{2028}',
        '\u{fffd}',
        '😀',
        '😁',
        '\u{10ffff}',
    ];

    fn random_names(rng: &mut StdRng) -> Vec<String> {
        let n = rng.random_range(1..=5);
        let mut names: Vec<String> = Vec::new();
        for _ in 0..n {
            // Often a prefix or an extension of an earlier name.
            let mut s: String = match names.len() {
                0 => String::new(),
                k if rng.random_bool(0.5) => {
                    let base: Vec<char> = names[rng.random_range(0..k)].chars().collect();
                    base[..rng.random_range(0..=base.len())].iter().collect()
                }
                _ => String::new(),
            };
            for _ in 0..rng.random_range(0..=3) {
                s.push(POOL[rng.random_range(0..POOL.len())]);
            }
            names.push(s);
        }
        names
    }

    /// Some spelling of `c` in `form`, hex in random case.
    fn spell_random(c: char, form: Form, rng: &mut StdRng) -> Vec<u8> {
        spelling(c, form)
            .into_iter()
            .map(|(b, hex)| {
                if hex && rng.random_bool(0.5) {
                    b.to_ascii_uppercase()
                } else {
                    b
                }
            })
            .collect()
    }

    fn spell_any(c: char, rng: &mut StdRng) -> Vec<u8> {
        let forms = class_forms(c, Escapes::Any);
        spell_random(c, forms[rng.random_range(0..forms.len())], rng)
    }

    /// Quoted strings near the names: their spellings in every form,
    /// prefixes, extensions, cuts inside a character, stray bytes.
    fn probes(names: &[String], rng: &mut StdRng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for _ in 0..200 {
            let mut chars: Vec<char> = if names.is_empty() || rng.random_bool(0.1) {
                Vec::new()
            } else {
                names[rng.random_range(0..names.len())].chars().collect()
            };
            match rng.random_range(0..4) {
                0 => chars.truncate(rng.random_range(0..=chars.len())),
                1 => chars.push(POOL[rng.random_range(0..POOL.len())]),
                _ => {}
            }
            let mut body: Vec<u8> = chars.iter().flat_map(|&c| spell_any(c, rng)).collect();
            if rng.random_bool(0.2) && !body.is_empty() {
                match rng.random_range(0..3) {
                    0 => body.truncate(rng.random_range(0..body.len())),
                    1 => {
                        let i = rng.random_range(0..body.len());
                        body[i] = b"\"\\u0aAfF\xc3\xa9\xed\xa0\x80x"[rng.random_range(0..14)];
                    }
                    _ => body.insert(rng.random_range(0..=body.len()), b'\\'),
                }
            }
            let mut s = vec![b'"'];
            s.extend(body);
            if rng.random_bool(0.9) {
                s.push(b'"');
            }
            out.push(s);
        }
        out
    }

    fn check(names: &[&str], esc: Escapes, rng: &mut StdRng) {
        let re = regex(names, esc);
        let ours = other_keys_dfa(names, esc).unwrap();
        if let Some(w) = difference(&ours, &re) {
            panic!(
                "{names:?} {esc:?}: {:?} accepted by {} only",
                String::from_utf8_lossy(&w),
                if ours.matches(&w) {
                    "ours"
                } else {
                    "the regex"
                }
            );
        }
        let m = regex_automata::dfa::regex::Regex::new(&format!("^(?:{re})$")).unwrap();
        let owned: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        for p in probes(&owned, rng) {
            assert_eq!(
                ours.matches(&p),
                m.is_match(&p[..]),
                "{names:?} {esc:?} {p:?}"
            );
        }
        // As small as what determinizing the regex gives (same key policy).
        let theirs = TerminalDfa::new(&format!("(?:{re})")).unwrap();
        assert!(
            ours.len() <= theirs.len(),
            "{names:?} {esc:?}: {} states, the regex's DFA {}",
            ours.len(),
            theirs.len()
        );
    }

    #[test]
    fn same_language_as_the_regex() {
        let mut rng = StdRng::seed_from_u64(7);
        let fixed: &[&[&str]] = &[
            &[""],
            &["a"],
            &["", "a", "ab", "abc"],
            &["name", "n", "age"],
            &["/", "a/b", "\\/"],
            &["\"", "\\", "\u{1}", "\n", "\u{1f}x"],
            &["é", "è", "€uro", "😀", "😁x", "\u{10ffff}"],
            &["u0061", "\\u0061"],
        ];
        for esc in [Escapes::Canonical, Escapes::Any] {
            for names in fixed {
                check(names, esc, &mut rng);
            }
            for _ in 0..150 {
                let names = random_names(&mut rng);
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                check(&names, esc, &mut rng);
            }
        }
    }

    #[test]
    fn no_names_is_any_string() {
        let d = other_keys_dfa(&[], Escapes::Canonical).unwrap();
        assert!(d.matches(br#""""#) && d.matches(br#""\u0061""#));
    }
}
