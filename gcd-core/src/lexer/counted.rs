//! Counted repetitions, `pre item{min,max} post`, built as a chain of
//! copies of the item's automaton instead of determinized.
//!
//! A JSON string with length bounds is this shape (`"` + one JSON
//! character `{0,1000}` + `"`), and determinizing it was the slowest step
//! of compiling a schema: tens of milliseconds for a `maxLength` in the
//! hundreds, most of MaskBench's terminal-DFA time. When the item is
//! prefix-free (a whole item never extends into a longer one) and the byte
//! after the repetition cannot start an item, the automaton needs no
//! subset construction: after `k` items and a part of the next it is in
//! state (k, item state), and only the count is copied.

use regex_syntax::hir::{Hir, HirKind};

use super::determinize::{raw_table, DfaError};
use super::table::{byte_classes, live_states};
use super::DEAD;

/// Repetitions allowing fewer items than this are determinized as usual:
/// the chain pays off only for long ones.
const MIN_COPIES: u32 = 8;

/// Most states of a chain; a longer one is left to the determinizer and its
/// limits, as before.
const MAX_CHAIN_STATES: usize = 1 << 18;

/// A byte table (`state * 256 + byte`) and its accepting states.
type Table = (Vec<u32>, Vec<bool>);

/// Where a chain with an upper bound keeps its counts: state
/// `body + k * item_states + s` has read `k` whole items and is in item
/// state `s` of the next (`s = 0` between items), for `k < max`; at
/// `k = max` only `s = 0` exists; the states from `post_start` on read
/// `post`. A state's behaviour depends on its count only through how many
/// items are left, which is what lets bound tables of one count be
/// derived from another's (`bind/chains.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChainLayout {
    /// The first counted state (after `pre`'s bytes).
    pub body: u32,
    /// States per count: the item automaton's, less its accepting one.
    pub item_states: u32,
    /// Fewest items before `post` may start.
    pub min: u32,
    /// Most items.
    pub max: u32,
    /// The state after `post`'s first byte.
    pub post_start: u32,
    /// Bytes of `post`.
    pub post_len: u32,
}

impl ChainLayout {
    /// `(count, item state)` of chain state `x`; `None` before or after
    /// the repetition.
    pub fn count_of(&self, x: u32) -> Option<(u32, u32)> {
        if x < self.body || x >= self.post_start {
            return None;
        }
        let r = x - self.body;
        Some((r / self.item_states, r % self.item_states))
    }

    /// The state with `count` items read and in item state `s`, if the
    /// chain has it.
    pub fn state(&self, count: u32, s: u32) -> Option<u32> {
        let exists = (count < self.max && s < self.item_states) || (count == self.max && s == 0);
        exists.then(|| self.body + count * self.item_states + s)
    }
}

/// The table of `hir` if it has the shape above, else `None`; with its
/// layout when the repetition has an upper bound, and its byte classes.
pub(super) fn table(
    hir: &Hir,
) -> Result<Option<(Table, Option<ChainLayout>, [u8; 256])>, DfaError> {
    let Some(shape) = Shape::of(hir) else {
        return Ok(None);
    };
    let (raw, raw_accepting) = raw_table(shape.item)?;
    let Some(item) = Item::new(raw, raw_accepting) else {
        return Ok(None);
    };
    if (shape.post.first()).is_some_and(|&b| item.trans[b as usize] != DEAD) {
        return Ok(None);
    }
    let layout = shape.max.map(|max| {
        let body = shape.pre.len() as u32;
        let item_states = item.states as u32;
        ChainLayout {
            body,
            item_states,
            min: shape.min,
            max,
            post_start: body + max * item_states + 1,
            post_len: shape.post.len() as u32,
        }
    });
    Ok(chain(&shape, &item).map(|t| (t, layout, chain_classes(&shape, &item))))
}

/// Bytes the chain treats alike, known from how it is built: those the
/// item's table treats alike (every counted row is an item row renamed),
/// but `pre`'s and `post`'s bytes each apart (their rows read one byte).
/// Reading them off the chain scanned its thousands of rows.
fn chain_classes(shape: &Shape, item: &Item) -> [u8; 256] {
    let own = byte_classes(&item.trans);
    let mut apart = [false; 256];
    for &b in shape.pre.iter().chain(&shape.post) {
        apart[b as usize] = true;
    }
    let alone = |b: u8| {
        if apart[b as usize] {
            u16::from(b) + 1
        } else {
            0
        }
    };
    super::ByteClasses::numbered_by(|b| (own[b as usize], alone(b))).class_of
}

/// `pre item{min,max} post` with literal `pre` and `post`.
struct Shape<'h> {
    pre: Vec<u8>,
    item: &'h Hir,
    min: u32,
    /// `None`: no upper bound.
    max: Option<u32>,
    post: Vec<u8>,
}

impl<'h> Shape<'h> {
    fn of(hir: &'h Hir) -> Option<Shape<'h>> {
        let parts = match hir.kind() {
            HirKind::Concat(parts) => &parts[..],
            _ => std::slice::from_ref(hir),
        };
        let at = parts
            .iter()
            .position(|p| matches!(p.kind(), HirKind::Repetition(_)))?;
        let HirKind::Repetition(rep) = parts[at].kind() else {
            return None;
        };
        let literal = |ps: &[Hir]| -> Option<Vec<u8>> {
            let mut bytes = Vec::new();
            for p in ps {
                match p.kind() {
                    HirKind::Literal(lit) => bytes.extend_from_slice(&lit.0),
                    _ => return None,
                }
            }
            Some(bytes)
        };
        let long = rep.max.unwrap_or(rep.min) >= MIN_COPIES;
        if !rep.greedy || !long || rep.max.is_some_and(|m| m < rep.min) {
            return None;
        }
        Some(Shape {
            pre: literal(&parts[..at])?,
            item: &rep.sub,
            min: rep.min,
            max: rep.max,
            post: literal(&parts[at + 1..])?,
        })
    }
}

/// A prefix-free item's automaton: live states only, renumbered so that
/// the non-accepting ones come first (the start, 0, among them) and every
/// accepting one is `done`, an item just completed.
struct Item {
    /// `states * 256` entries over the non-accepting states; a transition
    /// to `done` completes the item.
    trans: Vec<u32>,
    states: usize,
    done: u32,
}

impl Item {
    fn new(raw: Vec<u32>, accepting: Vec<bool>) -> Option<Item> {
        let live = live_states(&raw, &accepting);
        if !live[0] || accepting[0] {
            return None;
        }
        let n = accepting.len();
        let mut id = vec![DEAD; n];
        let mut states = 0u32;
        for s in 0..n {
            if live[s] && !accepting[s] {
                id[s] = states;
                states += 1;
            }
        }
        let done = states;
        let mut trans = Vec::with_capacity(states as usize * 256);
        for s in 0..n {
            if accepting[s] {
                // Prefix-free: nothing live after a whole item.
                let row = &raw[s * 256..(s + 1) * 256];
                if row.iter().any(|&t| t != DEAD && live[t as usize]) {
                    return None;
                }
            }
            if id[s] == DEAD {
                continue;
            }
            trans.extend(raw[s * 256..(s + 1) * 256].iter().map(|&t| match t {
                DEAD => DEAD,
                t if accepting[t as usize] => done,
                t => id[t as usize],
            }));
        }
        Some(Item {
            trans,
            states: states as usize,
            done,
        })
    }
}

/// The chain: `pre`'s bytes, then per count `k` a copy of the item's
/// states, then `post`'s bytes. Without an upper bound the copy at count
/// `min` loops into itself.
///
/// Every state of the chain is live (the item's are, and each count can
/// go on to `post`), which [`build_with`](super::TerminalDfa) relies on.
/// Rows are written once, in order: with `done` numbered right after the
/// item's states, the copy at count `k` is the item's table shifted by
/// `k`'s first state, and a completed item lands on the next count's
/// start. A `maxLength` of 500 is ten thousand rows, so this loop is
/// the chain's cost.
fn chain(shape: &Shape, item: &Item) -> Option<Table> {
    let last = shape.max.unwrap_or(shape.min) as usize;
    // At a bound that stops counting only the boundary is reachable: no
    // item starts there, so its other states would be dead rows.
    let last_states = match shape.max {
        Some(_) => 1,
        None => item.states,
    };
    let body = shape.pre.len();
    let post_start = body + last * item.states + last_states;
    let n = post_start + shape.post.len();
    if n > MAX_CHAIN_STATES {
        return None;
    }
    debug_assert_eq!(item.done as usize, item.states);
    let mut trans: Vec<u32> = Vec::with_capacity(n * 256);
    let dead_row = [DEAD; 256];
    for (i, &b) in shape.pre.iter().enumerate() {
        trans.extend_from_slice(&dead_row);
        trans[i * 256 + b as usize] = (i + 1) as u32;
    }
    let at = |k: usize, s: usize| (body + k * item.states + s) as u32;
    for k in 0..=last {
        let base = at(k, 0);
        match shape.max {
            // The bound: one boundary row, no item starts.
            Some(_) if k == last => trans.extend_from_slice(&dead_row),
            // Past an open bound a completed item starts the same count again.
            None if k == last => trans.extend(item.trans.iter().map(|&t| match t {
                DEAD => DEAD,
                t if t == item.done => base,
                t => t + base,
            })),
            // `t + base`, `DEAD` kept: branch-free, so the copy vectorizes.
            _ => trans.extend(
                (item.trans.iter())
                    .map(|&t| t.wrapping_add(base & u32::from(t != DEAD).wrapping_neg())),
            ),
        }
    }
    for _ in 0..shape.post.len() {
        trans.extend_from_slice(&dead_row);
    }
    debug_assert_eq!(trans.len(), n * 256);
    let mut accepting = vec![false; n];
    for k in shape.min as usize..=last {
        let boundary = at(k, 0) as usize;
        match shape.post.first() {
            None => accepting[boundary] = true,
            Some(&b) => trans[boundary * 256 + b as usize] = post_start as u32,
        }
    }
    // After `j` bytes of `post`: state `post_start + j - 1`.
    for (j, &b) in shape.post.iter().enumerate().skip(1) {
        trans[(post_start + j - 1) * 256 + b as usize] = (post_start + j) as u32;
    }
    if !shape.post.is_empty() {
        accepting[n - 1] = true;
    }
    Some((trans, accepting))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two byte tables match the same strings: a search of pairs of
    /// states (either may be dead) for one that accepts where the other
    /// does not.
    fn same_language(a: &(Vec<u32>, Vec<bool>), b: &(Vec<u32>, Vec<bool>)) -> bool {
        let accepts = |t: &(Vec<u32>, Vec<bool>), s: u32| s != DEAD && t.1[s as usize];
        let next = |t: &(Vec<u32>, Vec<bool>), s: u32, byte: usize| match s {
            DEAD => DEAD,
            s => t.0[s as usize * 256 + byte],
        };
        let mut seen = std::collections::HashSet::from([(0u32, 0u32)]);
        let mut todo = vec![(0u32, 0u32)];
        while let Some((x, y)) = todo.pop() {
            if accepts(a, x) != accepts(b, y) {
                return false;
            }
            for byte in 0..256 {
                let pair = (next(a, x, byte), next(b, y, byte));
                if pair != (DEAD, DEAD) && seen.insert(pair) {
                    todo.push(pair);
                }
            }
        }
        true
    }

    fn hir(regex: &str) -> Hir {
        regex_syntax::Parser::new()
            .parse(regex)
            .expect("a valid regex")
    }

    const JSON_CHAR: &str = r#"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"#;

    /// The classes a chain is built with put bytes together only where
    /// every row treats them alike, `pre`'s and `post`'s bytes included
    /// where the item's classes would hold them with others.
    #[test]
    fn chain_classes_treat_their_bytes_alike() {
        for re in [
            "x[a-z]{10,20};",
            "ab(?:[0-9]|q){9,}c",
            r#""[^"\\]{8,40}""#,
            "m(?:[a-z]|-[a-z]){8,12};",
        ] {
            let ((trans, _), _, classes) = table(&hir(re)).expect("no error").expect("chained");
            assert!(super::super::table::treat_alike(&trans, &classes), "{re}");
        }
    }

    #[test]
    fn chains_match_the_determinized_language() {
        let items = [
            JSON_CHAR,
            "[a-z]",
            "(?:ab|cd)",
            r"\p{L}",
            "(?:x|yz)",
            "[0-9a-f]{2}",
        ];
        let bounds = ["{8}", "{8,}", "{0,9}", "{3,12}", "{20,40}", "{10,}"];
        let ends = [("", ""), ("\"", "\""), ("ab", ""), ("", "!"), ("<<", ">>")];
        let mut chained = 0;
        for item in items {
            for bound in bounds {
                for (pre, post) in ends {
                    let re = format!("{pre}(?:{item}){bound}{post}");
                    let h = hir(&re);
                    let reference = raw_table(&h).expect("determinizes");
                    match table(&h).expect("no error").map(|(t, _, _)| t) {
                        Some(chain) => {
                            chained += 1;
                            assert!(same_language(&chain, &reference), "{re}");
                        }
                        None => {
                            // The one reason these fall back: `post` could
                            // continue the repetition.
                            let (t, _) = raw_table(&hir(item)).expect("determinizes");
                            let first = post.as_bytes().first().copied();
                            assert!(first.is_some_and(|b| t[b as usize] != DEAD), "{re}");
                        }
                    }
                }
            }
        }
        assert!(chained >= 120, "{chained} chained");
    }

    #[test]
    fn other_shapes_are_left_to_the_determinizer() {
        for re in [
            // An item that extends into a longer one.
            "(?:a|ab){10}c",
            // The byte after the repetition could start an item.
            "\"(?:[^x]){10}\"",
            // An item that matches the empty string.
            "(?:a?){10}",
            // Too short to pay off; lazy; not literal around it.
            "a{3}",
            "(?:ab){10,20}?",
            "[0-9](?:ab){10}",
        ] {
            assert!(table(&hir(re)).expect("no error").is_none(), "{re}");
        }
    }

    #[test]
    fn a_long_json_string_is_chained() {
        let re = format!("\"{JSON_CHAR}{{0,1000}}\"");
        let ((trans, accepting), _, _) = table(&hir(&re)).expect("no error").expect("chained");
        assert_eq!(trans.len(), accepting.len() * 256);
        assert!(same_language(
            &(trans, accepting),
            &raw_table(&hir(&re)).expect("determinizes")
        ));
    }
}
