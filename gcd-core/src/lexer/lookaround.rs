//! Lookaround assertions (`(?=` `(?!` `(?<=` `(?<!`) in terminal regexes.
//!
//! regex-automata has no lookaround, yet within one lexeme an assertion
//! keeps the language regular: it only asks whether the rest of the lexeme
//! starts with (or the part read so far ends with) a string of another
//! regular language. So each assertion becomes a marker byte — `0xF8` and
//! up, which never occur in UTF-8 and so in no match of a Unicode regex —
//! regex-automata determinizes the marked regex, and a subset construction
//! runs it on the real bytes, taking a marker only where its assertion
//! holds: a lookbehind is the state of a `(?s:.)*Y` automaton run from the
//! lexeme's start; a lookahead is an obligation carried along until `Y`
//! matches or dies.
//!
//! An assertion sees the lexeme only. Past the lexeme's end a lookahead
//! sees the end of the text, before its start a lookbehind sees the start of
//! the text. Python's `re.match` would look at the neighbouring text there,
//! so [`sees_past_end`] tells the front end when a lookahead can reach past
//! the end (it warns). Inside the lexeme the two agree.

use rustc_hash::FxHashMap;

use regex_syntax::hir::Hir;

use super::determinize::{raw_table, DfaError, MAX_PRODUCT_STATES};
use super::DEAD;

/// The first marker byte; assertion `k` is `MARKER + k`.
const MARKER: u8 = 0xF8;
/// Assertions one regex may hold (one marker byte each).
pub const MAX_ASSERTIONS: usize = (u8::MAX - MARKER) as usize + 1;

/// One assertion cut out of a regex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assertion {
    /// `(?=` `(?!` (else `(?<=` `(?<!`).
    pub ahead: bool,
    /// `(?!` `(?<!`.
    pub negated: bool,
    /// The asserted regex, wrapped in the flags in force where it stood.
    pub body: String,
}

/// A regex with its assertions cut out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Each assertion replaced by its marker byte (needs `utf8(false)`).
    pub marked: String,
    /// Each assertion replaced by an empty group: the regex's syntax and
    /// properties apart from what the assertions add.
    pub plain: String,
    /// The assertions in the order they occur; assertion `k` is marker
    /// byte `0xF8 + k` in `marked`.
    pub assertions: Vec<Assertion>,
}

/// Cuts the lookaround assertions out of `regex` (regex-syntax dialect).
/// `Ok(None)` when there are none; an error message for what stays out of
/// reach (nested assertions, more than [`MAX_ASSERTIONS`], an unclosed one).
pub fn split(regex: &str) -> Result<Option<Split>, String> {
    let b = regex.as_bytes();
    // Nearly no regex has one, and the scan below allocates per group.
    if !b.windows(3).any(|w| matches!(w, b"(?=" | b"(?!" | b"(?<")) {
        return Ok(None);
    }
    let (mut marked, mut plain) = (String::new(), String::new());
    let mut assertions = Vec::new();
    // The flag groups in force in each open group, innermost group last.
    // The flags in force per open group; the outermost is never popped.
    const OUTER: &str = "the outermost level stays";
    let mut flags: Vec<Vec<&str>> = vec![Vec::new()];
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'[' => i = class_end(b, i),
            b'(' => {
                if let Some((ahead, negated, open)) = assertion_at(b, i) {
                    let end = group_end(b, i).ok_or("a lookaround group is not closed")?;
                    let inner = &regex[i + open..end];
                    if assertion_in(inner.as_bytes()) {
                        return Err("a lookaround inside a lookaround".into());
                    }
                    if assertions.len() == MAX_ASSERTIONS {
                        return Err(format!(
                            "more than {MAX_ASSERTIONS} lookarounds in one regex"
                        ));
                    }
                    let marker = format!("(?-u:\\x{:02X})", MARKER as usize + assertions.len());
                    marked.push_str(&regex[copied..i]);
                    marked.push_str(&marker);
                    plain.push_str(&regex[copied..i]);
                    plain.push_str("(?:)");
                    let mut body = inner.to_string();
                    for f in flags.last().expect(OUTER).iter().rev() {
                        body = format!("(?{f}:{body})");
                    }
                    assertions.push(Assertion {
                        ahead,
                        negated,
                        body,
                    });
                    i = end + 1;
                    copied = i;
                    continue;
                }
                let mut inner = flags.last().expect(OUTER).clone();
                match flag_group(regex, i) {
                    // `(?flags)` changes the rest of the enclosing group.
                    Some((f, false, len)) => {
                        flags.last_mut().expect(OUTER).push(f);
                        i += len;
                        continue;
                    }
                    Some((f, true, len)) => {
                        inner.push(f);
                        flags.push(inner);
                        i += len;
                        continue;
                    }
                    None => flags.push(inner),
                }
                i += 1;
            }
            b')' => {
                if flags.len() > 1 {
                    flags.pop();
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    if assertions.is_empty() {
        return Ok(None);
    }
    marked.push_str(&regex[copied..]);
    plain.push_str(&regex[copied..]);
    Ok(Some(Split {
        marked,
        plain,
        assertions,
    }))
}

/// `regex` with each assertion replaced by an empty group, for checks of
/// its syntax and length (an assertion adds no bytes).
pub fn without_assertions(regex: &str) -> std::borrow::Cow<'_, str> {
    match split(regex) {
        Ok(Some(s)) => s.plain.into(),
        _ => regex.into(),
    }
}

fn assertion_in(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'[' => i = class_end(b, i),
            b'(' if assertion_at(b, i).is_some() => return true,
            _ => i += 1,
        }
    }
    false
}

/// `(ahead, negated, prefix length)` when an assertion opens at `b[i]`.
fn assertion_at(b: &[u8], i: usize) -> Option<(bool, bool, usize)> {
    match b.get(i..(i + 4).min(b.len()))? {
        [b'(', b'?', b'=', ..] => Some((true, false, 3)),
        [b'(', b'?', b'!', ..] => Some((true, true, 3)),
        [b'(', b'?', b'<', b'='] => Some((false, false, 4)),
        [b'(', b'?', b'<', b'!'] => Some((false, true, 4)),
        _ => None,
    }
}

/// A flag group at `b[i]`: its flags, whether it opens a group (`(?i:`)
/// rather than setting flags for the rest of the enclosing one (`(?i)`),
/// and its length up to the `:` or `)`.
fn flag_group(regex: &str, i: usize) -> Option<(&str, bool, usize)> {
    let b = regex.as_bytes();
    if b.get(i + 1) != Some(&b'?') {
        return None;
    }
    let start = i + 2;
    let mut j = start;
    while j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'-') {
        j += 1;
    }
    let f = &regex[start..j];
    match b.get(j)? {
        b':' => Some((f, true, j + 1 - i)),
        b')' if j > start => Some((f, false, j + 1 - i)),
        _ => None,
    }
}

/// The index just past the class that opens at `b[i]` (a `]` first inside
/// it is literal, nested classes count).
fn class_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if b.get(j) == Some(&b'^') {
        j += 1;
    }
    if b.get(j) == Some(&b']') {
        j += 1;
    }
    let mut depth = 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// The index of the `)` that closes the group opening at `b[i]`.
fn group_end(b: &[u8], i: usize) -> Option<usize> {
    let (mut depth, mut j) = (0usize, i);
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'[' => {
                j = class_end(b, j);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// A byte table as built by [`raw_table`]: state 0 the start.
struct Table {
    trans: Vec<u32>,
    accepting: Vec<bool>,
}

impl Table {
    fn of(regex: &str) -> Result<Table, DfaError> {
        let hir = parse(regex)?;
        // A counted repetition (a key pattern `[a-z]{1,255}` beside the
        // declared names) as a chain: determinized, it was most of such a
        // schema's first mask.
        let (trans, accepting) = match super::counted::table(&hir)? {
            Some((chain, _, _)) => chain,
            None => raw_table(&hir)?,
        };
        Ok(Table { trans, accepting })
    }

    fn next(&self, q: u32, byte: u8) -> u32 {
        if q == DEAD {
            DEAD
        } else {
            self.trans[q as usize * 256 + byte as usize]
        }
    }

    fn accepts(&self, q: u32) -> bool {
        q != DEAD && self.accepting[q as usize]
    }
}

/// Parses with raw bytes allowed, for the marker bytes.
fn parse(regex: &str) -> Result<Hir, DfaError> {
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(regex)
        .map_err(|e| DfaError::Invalid(e.to_string()))
}

/// One path through the marked automaton: its state and the lookaheads it
/// still owes, as (assertion, state of the assertion's automaton), sorted.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Path {
    at: u32,
    owed: Vec<(u32, u32)>,
}

/// The assertions' automata: for a lookahead its body anchored at the
/// marker, for a lookbehind `(?s:.)*` and its body, run from the start.
struct Checks<'a> {
    assertions: &'a [Assertion],
    tables: Vec<Table>,
}

impl Checks<'_> {
    /// Takes every marker `path` can take here, given the lookbehind
    /// automata's states `behind`, adding the paths to `out`.
    fn close(&self, marked: &Table, path: Path, behind: &[u32], out: &mut Vec<Path>) {
        let mut todo = vec![path];
        while let Some(p) = todo.pop() {
            for (k, a) in self.assertions.iter().enumerate() {
                let next = marked.next(p.at, MARKER + k as u8);
                if next == DEAD {
                    continue;
                }
                let table = &self.tables[k];
                let mut owed = p.owed.clone();
                if a.ahead {
                    if table.accepts(0) {
                        // The body matches the empty string: decided here.
                        if a.negated {
                            continue;
                        }
                    } else {
                        owed.push((k as u32, 0));
                        owed.sort_unstable();
                        owed.dedup();
                    }
                } else if table.accepts(behind[k]) == a.negated {
                    continue;
                }
                let q = Path { at: next, owed };
                if !out.contains(&q) && !todo.contains(&q) {
                    todo.push(q);
                }
            }
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }

    /// `path` after `byte`, or `None` when it dies (its automaton or an
    /// assertion it owes fails).
    fn step(&self, marked: &Table, path: &Path, byte: u8) -> Option<Path> {
        let at = marked.next(path.at, byte);
        if at == DEAD {
            return None;
        }
        let mut owed = Vec::with_capacity(path.owed.len());
        for &(k, q) in &path.owed {
            let a = &self.assertions[k as usize];
            let table = &self.tables[k as usize];
            let q = table.next(q, byte);
            if table.accepts(q) {
                // The body matched: a negative lookahead fails, a positive
                // one is met.
                if a.negated {
                    return None;
                }
            } else if q == DEAD {
                if !a.negated {
                    return None;
                }
            } else {
                owed.push((k, q));
            }
        }
        owed.sort_unstable();
        owed.dedup();
        Some(Path { at, owed })
    }

    /// Whether the lexeme may end on `path`: its automaton matches and it
    /// owes no positive lookahead (the end of the text meets no body).
    fn ends(&self, marked: &Table, path: &Path) -> bool {
        marked.accepts(path.at)
            && path
                .owed
                .iter()
                .all(|&(k, _)| self.assertions[k as usize].negated)
    }
}

/// The table of `split`'s language, as [`raw_table`] gives one (state 0
/// the start, every state reachable), and whether some match ends while a
/// lookahead still looks past it.
pub(super) fn table(split: &Split) -> Result<(Vec<u32>, Vec<bool>, bool), DfaError> {
    let marked = Table::of(&split.marked)?;
    let mut tables = Vec::with_capacity(split.assertions.len());
    for a in &split.assertions {
        tables.push(if a.ahead {
            Table::of(&a.body)?
        } else {
            Table::of(&format!("(?s-u:.)*(?:{})", a.body))?
        });
    }
    let checks = Checks {
        assertions: &split.assertions,
        tables,
    };
    let mut behind0 = vec![0u32; split.assertions.len()];
    for (k, a) in split.assertions.iter().enumerate() {
        if a.ahead {
            behind0[k] = DEAD;
        }
    }
    let mut start = Vec::new();
    checks.close(
        &marked,
        Path {
            at: 0,
            owed: Vec::new(),
        },
        &behind0,
        &mut start,
    );
    start.sort_unstable();

    type State = (Vec<u32>, Vec<Path>);
    let mut index: FxHashMap<State, u32> = FxHashMap::default();
    let mut states: Vec<State> = vec![(behind0, start)];
    index.insert(states[0].clone(), 0);
    let (mut trans, mut accepting) = (Vec::new(), Vec::new());
    let mut past_end = false;
    // Bytes every automaton here treats alike step every state alike, so
    // each state steps once per class (a few dozen) instead of per byte.
    let classes = byte_classes(std::iter::once(&marked).chain(&checks.tables));
    let mut first_of_class = [u8::MAX; 256];
    for b in (0..=255u8).rev() {
        first_of_class[classes[b as usize] as usize] = b;
    }
    let mut by_class = vec![DEAD; 256];
    let mut i = 0;
    while i < states.len() {
        let (behind, paths) = states[i].clone();
        let ends: Vec<&Path> = paths.iter().filter(|p| checks.ends(&marked, p)).collect();
        accepting.push(!ends.is_empty());
        past_end |= ends.iter().any(|p| !p.owed.is_empty());
        for byte in 0..=255u8 {
            // Unicode regexes match no byte from the markers on.
            if byte >= MARKER {
                trans.push(DEAD);
                continue;
            }
            let class = classes[byte as usize] as usize;
            if first_of_class[class] < byte {
                trans.push(by_class[class]);
                continue;
            }
            let next_behind: Vec<u32> = behind
                .iter()
                .enumerate()
                .map(|(k, &q)| {
                    if split.assertions[k].ahead {
                        DEAD
                    } else {
                        checks.tables[k].next(q, byte)
                    }
                })
                .collect();
            let mut next = Vec::new();
            for p in &paths {
                if let Some(q) = checks.step(&marked, p, byte) {
                    checks.close(&marked, q, &next_behind, &mut next);
                }
            }
            if next.is_empty() {
                by_class[class] = DEAD;
                trans.push(DEAD);
                continue;
            }
            next.sort_unstable();
            let key = (next_behind, next);
            let id = match index.get(&key) {
                Some(&id) => id,
                None if states.len() >= MAX_PRODUCT_STATES => {
                    return Err(DfaError::TooLarge(MAX_PRODUCT_STATES))
                }
                None => {
                    let id = states.len() as u32;
                    index.insert(key.clone(), id);
                    states.push(key);
                    id
                }
            };
            by_class[class] = id;
            trans.push(id);
        }
        i += 1;
    }
    Ok((trans, accepting, past_end))
}

/// Each byte's class: bytes share one when every state of every table
/// takes them to the same state. Classes are numbered in order of their
/// first byte.
fn byte_classes<'t>(tables: impl Iterator<Item = &'t Table>) -> [u8; 256] {
    let mut class_of = [0u8; 256];
    for t in tables {
        // Refine by this table's columns: a byte's new class is its old one
        // paired with its column.
        let states = t.accepting.len();
        let mut seen: rustc_hash::FxHashMap<(u8, Vec<u32>), u8> = Default::default();
        let mut next = [0u8; 256];
        for b in 0..256 {
            let column = (0..states).map(|q| t.trans[q * 256 + b]).collect();
            let n = seen.len() as u8;
            next[b] = *seen.entry((class_of[b], column)).or_insert(n);
        }
        class_of = next;
    }
    class_of
}

/// Whether a lookahead in `regex` can reach past the end of a lexeme (where
/// gcd sees the end of the text and Python's `re` the text that follows).
pub fn sees_past_end(regex: &str) -> bool {
    match split(regex) {
        Ok(Some(s)) => table(&s).is_ok_and(|(_, _, past)| past),
        _ => false,
    }
}
