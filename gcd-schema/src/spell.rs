//! Regexes over the JSON *spellings* of string content.
//!
//! A schema constrains decoded strings, but the grammar sees bytes, and one
//! character has several spellings (`a`, `\u0061`, `\u0061` in either hex
//! case; `"` only as `\"` or `\u0022`). Every string constraint is therefore
//! translated to a regex over spellings: a literal character becomes the
//! alternation of all its spellings, a class the union of its raw members
//! and their escapes. That keeps `"n\u0061me"` and `"name"` the same key,
//! which exactness requires (else an escaped key could dodge a constraint).
//!
//! With [`Escapes::Canonical`] (the default) constrained strings and keys
//! take only the one canonical spelling per character (raw, or the short
//! escape, or `\u00XX` for other controls — what Python's `json.dumps`
//! and serde_json write): a subset of the language (never a superset), and
//! far smaller automata, which is what binding to a large vocabulary pays
//! for. Unconstrained strings always take every spelling.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::options::Escapes;
use gcd_core::json::number::fixed_range;

/// One JSON string character in any spelling (RFC 8259; unpaired
/// surrogate escapes refused, as serde_json does).
pub const JSON_CHAR: &str = r#"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"#;

/// The short escapes and the characters they stand for.
const SHORT: [(char, &str); 8] = [
    ('"', r#"\\""#),
    ('\\', r"\\\\"),
    ('/', r"\\/"),
    ('\u{8}', r"\\b"),
    ('\u{c}', r"\\f"),
    ('\n', r"\\n"),
    ('\r', r"\\r"),
    ('\t', r"\\t"),
];

fn raw_ok(c: char) -> bool {
    c != '"' && c != '\\' && (c as u32) >= 0x20
}

/// `\uXXXX` for one code unit, hex case-insensitive.
fn unit(u: u32) -> String {
    let mut s = String::from(r"\\u");
    for shift in [12, 8, 4, 0] {
        let ch = char::from_digit((u >> shift) & 0xf, 16).expect("a nibble is a hex digit");
        if ch.is_ascii_alphabetic() {
            s.extend(['[', ch, ch.to_ascii_uppercase(), ']']);
        } else {
            s.push(ch);
        }
    }
    s
}

/// One way of writing a character inside a JSON string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The character itself (UTF-8).
    Raw,
    /// `\"`, `\n`, … (only [`short_escape`] characters).
    Short,
    /// `\uXXXX` (a surrogate pair above U+FFFF), hex in either case.
    Unicode,
}

/// The letter of `c`'s short escape (`n` for a newline), if it has one.
pub fn short_escape(c: char) -> Option<u8> {
    Some(match c {
        '"' => b'"',
        '\\' => b'\\',
        '/' => b'/',
        '\u{8}' => b'b',
        '\u{c}' => b'f',
        '\n' => b'n',
        '\r' => b'r',
        '\t' => b't',
        _ => return None,
    })
}

/// The raw and short-escape forms `c` has.
fn raw_and_short(c: char) -> Vec<Form> {
    let mut forms = Vec::with_capacity(3);
    if raw_ok(c) {
        forms.push(Form::Raw);
    }
    if short_escape(c).is_some() {
        forms.push(Form::Short);
    }
    forms
}

/// The forms [`char_spelling`] allows for `c`.
pub fn char_forms(c: char, esc: Escapes) -> Vec<Form> {
    let mut forms = raw_and_short(c);
    if esc == Escapes::Canonical && !forms.is_empty() {
        // Raw, or the short escape: exactly one canonical spelling.
        forms.truncate(1);
    } else {
        forms.push(Form::Unicode);
    }
    forms
}

/// The forms [`class_spelling`] allows for a member `c` of its class:
/// every raw and short spelling, even with [`Escapes::Canonical`] (`\/`).
pub fn class_forms(c: char, esc: Escapes) -> Vec<Form> {
    let mut forms = raw_and_short(c);
    if esc == Escapes::Any || forms.is_empty() {
        forms.push(Form::Unicode);
    }
    forms
}

/// All spellings of one character.
pub fn char_spelling(c: char, esc: Escapes) -> String {
    let mut alts: Vec<String> = char_forms(c, esc)
        .into_iter()
        .map(|f| match f {
            Form::Raw => regex_syntax::escape(c.encode_utf8(&mut [0; 4])),
            Form::Short => (SHORT.iter().find(|(x, _)| *x == c))
                .expect("char_forms offers Short only for SHORT's characters")
                .1
                .to_string(),
            Form::Unicode => {
                let cp = c as u32;
                if cp < 0x10000 {
                    unit(cp)
                } else {
                    let v = cp - 0x10000;
                    format!("{}{}", unit(0xd800 + (v >> 10)), unit(0xdc00 + (v & 0x3ff)))
                }
            }
        })
        .collect();
    if alts.len() == 1 {
        alts.pop().unwrap_or_default()
    } else {
        format!("(?:{})", alts.join("|"))
    }
}

/// All spellings of a string's content (without the quotes).
pub fn string_spelling(s: &str, esc: Escapes) -> String {
    s.chars().map(|c| char_spelling(c, esc)).collect()
}

/// A quoted JSON string whose decoded value is exactly `s`.
pub fn quoted(s: &str, esc: Escapes) -> String {
    format!("\"{}\"", string_spelling(s, esc))
}

/// Appends `\\u` and the hex digits of a code unit in `[lo, hi]`.
/// Memoized: the same few ranges recur in every class.
fn hex_range_into(out: &mut String, lo: u32, hi: u32) {
    thread_local! {
        static MEMO: RefCell<FxHashMap<(u32, u32), String>> = RefCell::default();
    }
    out.push_str(r"\\u");
    MEMO.with_borrow_mut(|memo| {
        if memo.len() > 4096 {
            memo.clear();
        }
        out.push_str(
            memo.entry((lo, hi))
                .or_insert_with(|| fixed_range(lo as u128, hi as u128, 4, 16)),
        )
    });
}

/// All spellings of any character in the (sorted, disjoint) ranges.
/// `None` when no character is in them.
pub fn class_spelling(ranges: &[(char, char)], esc: Escapes) -> Option<String> {
    // Written into one buffer, hex ranges memoized: other keys' regexes
    // take a class per trie node, and allocating made them slow to write.
    let mut out = String::from("(?:");
    let mut alts = 0;
    // Raw members: the ranges without controls, '"' (0x22) and '\' (0x5c).
    let mut raw = String::new();
    let mut piece = |x: u32, y: u32| {
        if x <= y {
            let _ = write!(raw, "\\x{{{x:x}}}-\\x{{{y:x}}}");
        }
    };
    for &(a, b) in ranges {
        let (mut x, b) = ((a as u32).max(0x20), b as u32);
        for bad in [0x22u32, 0x5c] {
            if x <= bad && bad <= b {
                piece(x, bad - 1);
                x = bad + 1;
            }
        }
        piece(x, b);
    }
    if !raw.is_empty() {
        alt(&mut out, &mut alts);
        out.push('[');
        out.push_str(&raw);
        out.push(']');
    }
    escapes_into(ranges, esc, &mut out, &mut alts);
    if alts == 0 {
        return None;
    }
    out.push(')');
    Some(out)
}

/// Starts an alternative in a group that has `alts` of them so far.
fn alt(out: &mut String, alts: &mut usize) {
    if *alts > 0 {
        out.push('|');
    }
    *alts += 1;
}

/// The escaped spellings of the characters in `ranges`, as alternatives.
fn escapes_into(ranges: &[(char, char)], esc: Escapes, out: &mut String, alts: &mut usize) {
    let mut alt = |out: &mut String| alt(out, alts);
    // Short escapes.
    for (c, e) in SHORT {
        if ranges.iter().any(|&(a, b)| a <= c && c <= b) {
            alt(out);
            out.push_str(e);
        }
    }
    if esc == Escapes::Canonical {
        // Controls without a short escape are written \u00XX: one hex
        // range per run of them (a class per control made other keys'
        // regexes long, and writing them out cost more than their DFA).
        for &(a, b) in ranges {
            let mut run: Option<(u32, u32)> = None;
            for c in (a as u32)..=(b as u32).min(0x1f) + 1 {
                let plain =
                    c <= (b as u32).min(0x1f) && short_escape(char::from(c as u8)).is_none();
                match (plain, run) {
                    (true, Some((lo, _))) => run = Some((lo, c)),
                    (true, None) => run = Some((c, c)),
                    (false, Some((lo, hi))) => {
                        alt(out);
                        hex_range_into(out, lo, hi);
                        run = None;
                    }
                    (false, None) => {}
                }
            }
        }
    } else {
        // \u escapes: BMP without surrogates, and surrogate pairs.
        for &(a, b) in ranges {
            let (a, b) = (a as u32, b as u32);
            for (x, y) in [(a, b.min(0xd7ff)), (a.max(0xe000), b.min(0xffff))] {
                if x <= y {
                    alt(out);
                    hex_range_into(out, x, y);
                }
            }
            let (x, y) = (a.max(0x10000), b);
            if x <= y {
                let (x, y) = (x - 0x10000, y - 0x10000);
                let (hx, lx) = (0xd800 + (x >> 10), 0xdc00 + (x & 0x3ff));
                let (hy, ly) = (0xd800 + (y >> 10), 0xdc00 + (y & 0x3ff));
                alt(out);
                out.push_str(&unit(hx));
                if hx == hy {
                    hex_range_into(out, lx, ly);
                } else {
                    hex_range_into(out, lx, 0xdfff);
                    if hx + 1 < hy {
                        alt(out);
                        hex_range_into(out, hx + 1, hy - 1);
                        hex_range_into(out, 0xdc00, 0xdfff);
                    }
                    alt(out);
                    out.push_str(&unit(hy));
                    hex_range_into(out, 0xdc00, ly);
                }
            }
        }
    }
}

/// [`class_spelling`] of every character but `kids` (sorted, distinct),
/// written into `out`; `false` when that is no character. With
/// [`Escapes::Canonical`] and kids that are neither controls nor short
/// escapes (nearly every name) the raw members are one negated class and
/// the escapes those of every character: other keys' regexes take one such
/// class per trie node, and writing the ranges out was a fifth of a
/// typical schema's compile.
fn complement_into(kids: &[char], esc: Escapes, out: &mut String) -> bool {
    let plain = |c: char| raw_ok(c) && short_escape(c).is_none();
    if esc == Escapes::Canonical && kids.iter().all(|&c| plain(c)) {
        static ESCAPES: OnceLock<String> = OnceLock::new();
        let escapes = ESCAPES.get_or_init(|| {
            let mut s = String::new();
            let all = [('\0', '\u{d7ff}'), ('\u{e000}', char::MAX)];
            escapes_into(&all, Escapes::Canonical, &mut s, &mut 1);
            s
        });
        out.push_str(r#"(?:[^\x00-\x1f"\\"#);
        for &c in kids {
            let _ = write!(out, "\\x{{{:x}}}", c as u32);
        }
        out.push(']');
        out.push_str(escapes);
        out.push(')');
        return true;
    }
    let mut ranges = Vec::new();
    let mut from = 0u32;
    for &c in kids {
        let c = c as u32;
        if c > from {
            ranges.push((from, c - 1));
        }
        from = c + 1;
    }
    ranges.push((from, 0x10ffff));
    let ranges: Vec<(char, char)> = ranges
        .into_iter()
        // Skip the surrogate gap, which `char` cannot hold.
        .flat_map(|(a, b)| [(a, b.min(0xd7ff)), (a.max(0xe000), b)])
        .filter(|(a, b)| a <= b)
        .filter_map(|(a, b)| Some((char::from_u32(a)?, char::from_u32(b)?)))
        .collect();
    match class_spelling(&ranges, esc) {
        Some(c) => {
            out.push_str(&c);
            true
        }
        None => false,
    }
}

/// Content spellings of every string *not* in `names` (without quotes):
/// the keys an object may add beside its declared properties. Built from
/// the trie of `names`: either the string leaves the trie at some
/// character (then anything may follow: one shared tail, which keeps the
/// automaton small), or it ends inside the trie at a node that is no name.
pub fn other_than(names: &[&str], esc: Escapes) -> String {
    if names.is_empty() {
        return format!("{JSON_CHAR}*");
    }
    let chars: Vec<Vec<char>> = names.iter().map(|s| s.chars().collect()).collect();
    let idx: Vec<usize> = (0..chars.len()).collect();
    // Written into one buffer: returning each subtree's text made every
    // level copy everything below it (quadratic in the names' length).
    let mut out = String::new();
    let mut alts = Alts::open(&mut out);
    let mark = alts.next(&mut out);
    let ok = diverge(&chars, &idx, 0, esc, &mut out);
    if ok {
        out.push_str(JSON_CHAR);
        out.push('*');
    }
    alts.keep(ok, mark, &mut out);
    let mark = alts.next(&mut out);
    let ok = inner_end(&chars, &idx, 0, esc, &mut out);
    alts.keep(ok, mark, &mut out);
    if !alts.close(&mut out) {
        out.push_str("(?:)");
    }
    out
}

/// Writes `(?:a|b|…)` into a buffer one alternative at a time; an
/// alternative that turns out empty is rolled back.
struct Alts {
    start: usize,
    any: bool,
}

impl Alts {
    fn open(out: &mut String) -> Alts {
        let start = out.len();
        out.push_str("(?:");
        Alts { start, any: false }
    }

    /// Starts an alternative; the mark to roll back to.
    fn next(&self, out: &mut String) -> usize {
        let mark = out.len();
        if self.any {
            out.push('|');
        }
        mark
    }

    fn keep(&mut self, ok: bool, mark: usize, out: &mut String) {
        if ok {
            self.any = true;
        } else {
            out.truncate(mark);
        }
    }

    /// Closes the group, or removes it when no alternative was kept.
    fn close(self, out: &mut String) -> bool {
        if self.any {
            out.push(')');
        } else {
            out.truncate(self.start);
        }
        self.any
    }
}

fn children(names: &[Vec<char>], live: &[usize], depth: usize) -> Vec<(char, Vec<usize>)> {
    let mut next: Vec<char> = live
        .iter()
        .filter_map(|&i| names[i].get(depth).copied())
        .collect();
    next.sort();
    next.dedup();
    next.into_iter()
        .map(|c| {
            (
                c,
                live.iter()
                    .copied()
                    .filter(|&i| names[i].get(depth) == Some(&c))
                    .collect(),
            )
        })
        .collect()
}

/// A path inside the trie, then one character that continues no name.
fn diverge(
    names: &[Vec<char>],
    live: &[usize],
    depth: usize,
    esc: Escapes,
    out: &mut String,
) -> bool {
    let kids = children(names, live, depth);
    let mut alts = Alts::open(out);
    let mark = alts.next(out);
    let chars: Vec<char> = kids.iter().map(|(c, _)| *c).collect();
    let some = complement_into(&chars, esc, out);
    alts.keep(some, mark, out);
    for (c, sub) in &kids {
        let mark = alts.next(out);
        out.push_str(&char_spelling(*c, esc));
        let ok = diverge(names, sub, depth + 1, esc, out);
        alts.keep(ok, mark, out);
    }
    alts.close(out)
}

/// Paths that end inside the trie at a node which is not a name.
fn inner_end(
    names: &[Vec<char>],
    live: &[usize],
    depth: usize,
    esc: Escapes,
    out: &mut String,
) -> bool {
    let mut alts = Alts::open(out);
    if !live.iter().any(|&i| names[i].len() == depth) {
        // The empty alternative: the string ends here.
        let mark = alts.next(out);
        alts.keep(true, mark, out);
    }
    for (c, sub) in children(names, live, depth) {
        let mark = alts.next(out);
        out.push_str(&char_spelling(c, esc));
        let ok = inner_end(names, &sub, depth + 1, esc, out);
        alts.keep(ok, mark, out);
    }
    alts.close(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::full;

    #[test]
    fn spellings_of_one_string() {
        let m = full(&quoted("a\"é😀", Escapes::Any));
        assert!(m(r#""a\"é😀""#));
        assert!(m(r#""\u0061\u0022\u00E9\ud83d\uDE00""#));
        assert!(!m(r#""a"é😀""#));
        assert!(!m(r#""b\"é😀""#));
    }

    #[test]
    fn other_keys_exclude_every_spelling() {
        let m = full(&format!(
            "\"{}\"",
            other_than(&["name", "n", "age"], Escapes::Any)
        ));
        for ok in [
            r#""""#,
            r#""na""#,
            r#""names""#,
            r#""x""#,
            r#""nam\u0065s""#,
            r#""\n""#,
        ] {
            assert!(m(ok), "{ok}");
        }
        for bad in [
            r#""name""#,
            r#""n\u0061me""#,
            r#""n""#,
            r#""\u006E""#,
            r#""age""#,
        ] {
            assert!(!m(bad), "{bad}");
        }
        // Excluding the empty string.
        let m = full(&format!("\"{}\"", other_than(&[""], Escapes::Any)));
        assert!(!m(r#""""#));
        assert!(m(r#""a""#));
    }

    #[test]
    fn canonical_spellings_are_a_subset() {
        let m = full(&quoted("a\"\n\u{1}é", Escapes::Canonical));
        assert!(m(r#""a\"\n\u0001é""#));
        assert!(!m(r#""\u0061\"\n\u0001é""#));
        let m = full(&format!(
            "\"{}\"",
            other_than(&["name"], Escapes::Canonical)
        ));
        assert!(!m(r#""name""#));
        assert!(
            !m(r#""n\u0061me""#),
            "non-canonical spelling of a declared name"
        );
        assert!(m(r#""nam""#));
        assert!(m(r#""x\u0061""#), "after diverging, any spelling");
    }

    #[test]
    fn class_spelling_covers_escapes() {
        let m = full(&class_spelling(&[('\n', '\n'), ('a', 'c')], Escapes::Any).unwrap());
        for ok in [r"\n", r"\u000a", "a", r"\u0062", "c"] {
            assert!(m(ok), "{ok}");
        }
        for bad in ["\n", "d", r"\u0064"] {
            assert!(!m(bad), "{bad}");
        }
    }
}
