//! ECMA-262 `pattern` regexes → regexes over JSON string spellings.
//!
//! `pattern` is an unanchored search over the decoded string, in ECMA-262
//! syntax. We rewrite the ECMA-only escapes (`\d \w \s` are ASCII or
//! ECMA-specific; `.` excludes all ECMA line terminators), parse with
//! regex-syntax (which refuses lookaround and backreferences, so those
//! become errors), strip `^`/`$` where they anchor a whole branch, and
//! translate every literal and class to its spellings (see [`crate::spell`]).

use regex_syntax::hir::{Class, Hir, HirKind, Look};

use crate::options::Escapes;
use crate::spell::{char_spelling, class_spelling, JSON_CHAR};

/// Why a pattern cannot be enforced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(pub String);

const ECMA_SPACE: &str =
    r"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// Rewrites ECMA escapes that regex-syntax reads differently.
fn rewrite(p: &str) -> Result<String, PatternError> {
    let mut out = String::new();
    let mut chars = p.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    return Err(PatternError("trailing backslash".into()));
                };
                let (inner, outer): (String, String) = match e {
                    'd' => ("0-9".into(), "[0-9]".into()),
                    'D' => ("[^0-9]".into(), "[^0-9]".into()),
                    'w' => ("0-9A-Za-z_".into(), "[0-9A-Za-z_]".into()),
                    'W' => ("[^0-9A-Za-z_]".into(), "[^0-9A-Za-z_]".into()),
                    's' => (ECMA_SPACE.into(), format!("[{ECMA_SPACE}]")),
                    'S' => (format!("[^{ECMA_SPACE}]"), format!("[^{ECMA_SPACE}]")),
                    'c' | 'k' => return Err(PatternError(format!("unsupported escape \\{e}"))),
                    'b' | 'B' if !in_class => {
                        return Err(PatternError("word boundaries are not supported".into()))
                    }
                    'b' => (r"\x08".into(), String::new()),
                    '0' if !chars.peek().is_some_and(|d| d.is_ascii_digit()) => {
                        (r"\x00".into(), r"\x00".into())
                    }
                    d if d.is_ascii_digit() => {
                        return Err(PatternError("backreferences are not supported".into()))
                    }
                    'u' if chars.peek() == Some(&'{') => {
                        // \u{...} is already regex-syntax's spelling.
                        (r"\x".into(), r"\x".into())
                    }
                    other => {
                        let s = format!("\\{other}");
                        (s.clone(), s)
                    }
                };
                out.push_str(if in_class { &inner } else { &outer });
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.extend(chars.next());
                }
                // A leading ']' is literal in regex-syntax but ends an empty
                // class in ECMA: refuse rather than guess.
                if chars.peek() == Some(&']') {
                    return Err(PatternError("empty character class".into()));
                }
            }
            '[' => out.push_str(r"\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '.' if !in_class => out.push_str(r"[^\n\r\x{2028}\x{2029}]"),
            '&' | '~' | '-' if in_class && chars.peek() == Some(&c) => {
                // `&&` `~~` `--` are set operators in regex-syntax only.
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// `pattern` parsed, with ECMA's escapes rewritten.
fn parse(pattern: &str) -> Result<Hir, PatternError> {
    let src = rewrite(pattern)?;
    regex_syntax::ParserBuilder::new()
        .utf8(true)
        .unicode(true)
        .build()
        .parse(&src)
        .map_err(|e| {
            let msg = e.to_string();
            if msg.contains("look-around") || msg.contains("backreference") {
                PatternError("lookaround and backreferences are not supported".into())
            } else {
                PatternError(format!(
                    "invalid or unsupported regex: {}",
                    msg.lines().last().unwrap_or("")
                ))
            }
        })
}

/// A top-level branch of a pattern: its items, and whether `^` / `$`
/// anchored it at the start / end.
struct Branch<'h> {
    items: Vec<&'h Hir>,
    start: bool,
    end: bool,
}

fn branches(hir: &Hir) -> Vec<Branch<'_>> {
    let branches: Vec<&Hir> = match hir.kind() {
        HirKind::Alternation(xs) => xs.iter().collect(),
        _ => vec![hir],
    };
    let mut out = Vec::new();
    for b in branches {
        let mut items: Vec<&Hir> = match b.kind() {
            HirKind::Concat(xs) => xs.iter().collect(),
            _ => vec![b],
        };
        let mut start = false;
        while items
            .first()
            .is_some_and(|h| matches!(h.kind(), HirKind::Look(Look::Start)))
        {
            items.remove(0);
            start = true;
        }
        let mut end = false;
        while items
            .last()
            .is_some_and(|h| matches!(h.kind(), HirKind::Look(Look::End)))
        {
            items.pop();
            end = true;
        }
        out.push(Branch { items, start, end });
    }
    out
}

/// The spelling regex of `pattern` as a constraint: `None` when every
/// string has a match somewhere. A branch anchored at most at one end whose
/// items can all match the empty string with no assertion
/// (`[\s\S]{0,5000}`, `^a*`, `x?$`) matches at the start or the end of any
/// string; such a pattern constrains nothing, and its automaton (5,000
/// counted repetitions) need not be built.
pub fn constraint(pattern: &str, esc: Escapes) -> Result<Option<String>, PatternError> {
    cached(Use::Constraint, pattern, esc, || {
        let hir = parse(pattern)?;
        let every_string = branches(&hir).iter().any(|b| {
            !(b.start && b.end)
                && b.items.iter().all(|h| {
                    let p = h.properties();
                    p.minimum_len() == Some(0) && p.look_set().is_empty()
                })
        });
        if every_string {
            return Ok(None);
        }
        translate_hir(&hir, esc).map(Some)
    })
}

/// The spelling regex (string content, without quotes) of strings that
/// `pattern` matches somewhere.
pub fn translate(pattern: &str, esc: Escapes) -> Result<String, PatternError> {
    let spelled = cached(Use::Search, pattern, esc, || {
        translate_hir(&parse(pattern)?, esc).map(Some)
    });
    spelled.map(|s| s.expect("a search always has a spelling"))
}

/// Which of the two entry points a cached spelling is for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Use {
    Constraint,
    Search,
}

type Spelled = Result<Option<String>, PatternError>;

/// Spellings by pattern, for the process: formats, dates and identifiers
/// recur across schemas and within one (a pattern per property), and
/// parsing a pattern with Unicode classes then spelling every character's
/// escapes cost a few million instructions each time.
fn cached(use_: Use, pattern: &str, esc: Escapes, spell: impl FnOnce() -> Spelled) -> Spelled {
    use std::sync::{Mutex, OnceLock};
    type Cache = rustc_hash::FxHashMap<(Use, Escapes, String), Spelled>;
    /// Entries before the cache starts again: a bound on memory for a
    /// server that sees endless distinct patterns.
    const MAX_ENTRIES: usize = 4096;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (use_, esc, pattern.to_string());
    // A poisoned lock only means another thread panicked mid-insert; the
    // map itself is still whole.
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return hit.clone();
    }
    let spelled = spell();
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if map.len() >= MAX_ENTRIES {
        map.clear();
    }
    map.insert(key, spelled.clone());
    spelled
}

fn translate_hir(hir: &Hir, esc: Escapes) -> Result<String, PatternError> {
    let any = format!("{JSON_CHAR}*");
    let mut alts = Vec::new();
    for Branch { items, start, end } in branches(hir) {
        // Next to the unanchored side, an item that matches the empty
        // string with no assertion changes nothing: "contains a match of
        // `a[\s\S]{0,5000}`" is "contains `a`". Dropping it spares the
        // automaton its counted repetitions.
        let mut items = &items[..];
        let empty = |h: &&Hir| {
            let p = h.properties();
            p.minimum_len() == Some(0) && p.look_set().is_empty()
        };
        while !end && items.last().is_some_and(empty) {
            items = &items[..items.len() - 1];
        }
        while !start && items.first().is_some_and(empty) {
            items = &items[1..];
        }
        let mut s = String::new();
        if !start {
            s.push_str(&any);
        }
        for h in items {
            s.push_str(&spell(h, esc)?);
        }
        if !end {
            s.push_str(&any);
        }
        alts.push(s);
    }
    Ok(format!("(?:{})", alts.join("|")))
}

fn spell(h: &Hir, esc: Escapes) -> Result<String, PatternError> {
    Ok(match h.kind() {
        HirKind::Empty => String::new(),
        HirKind::Literal(l) => {
            let s =
                std::str::from_utf8(&l.0).map_err(|_| PatternError("non-UTF-8 literal".into()))?;
            s.chars().map(|c| char_spelling(c, esc)).collect()
        }
        HirKind::Class(Class::Unicode(c)) => {
            let ranges: Vec<(char, char)> =
                c.ranges().iter().map(|r| (r.start(), r.end())).collect();
            // An empty class matches nothing.
            class_spelling(&ranges, esc).unwrap_or_else(|| "[^\\x00-\\x{10FFFF}]".into())
        }
        HirKind::Class(Class::Bytes(_)) => {
            return Err(PatternError("byte classes are not supported".into()))
        }
        HirKind::Look(_) => {
            return Err(PatternError(
                "anchors are supported only at the start and end of the pattern".into(),
            ))
        }
        HirKind::Repetition(r) => {
            let sub = spell(&r.sub, esc)?;
            match r.max {
                Some(m) => format!("(?:{sub}){{{},{m}}}", r.min),
                None => format!("(?:{sub}){{{},}}", r.min),
            }
        }
        HirKind::Capture(c) => format!("(?:{})", spell(&c.sub, esc)?),
        HirKind::Concat(xs) => xs
            .iter()
            .map(|x| spell(x, esc))
            .collect::<Result<String, _>>()?,
        HirKind::Alternation(xs) => {
            let v = xs
                .iter()
                .map(|x| spell(x, esc))
                .collect::<Result<Vec<_>, _>>()?;
            format!("(?:{})", v.join("|"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::full;

    fn m(p: &str) -> impl Fn(&str) -> bool {
        full(&translate(p, Escapes::Any).unwrap())
    }

    /// Checked against the translated automaton on strings that a
    /// universal pattern must match and a narrower one may miss.
    #[test]
    fn patterns_every_string_matches() {
        let probes = ["", "a", "b", "ab", "ba", "xyz", "\\n", "0"];
        for p in [
            "[\\s\\S]{0,50}",
            "^a*",
            "x?$",
            "",
            "^",
            "$",
            "a|b*",
            "(?:ab)?c*",
            "^.*",
        ] {
            assert_eq!(constraint(p, Escapes::Any), Ok(None), "{p}");
            let f = m(p);
            assert!(probes.iter().all(|s| f(s)), "{p}");
        }
        for p in [
            "^a*$",
            "^$",
            "a",
            "a|b",
            "[\\s\\S]{1,50}",
            "(?m)^x*",
            "x*\\b",
        ] {
            assert_ne!(constraint(p, Escapes::Any), Ok(None), "{p}");
            if let Ok(re) = translate(p, Escapes::Any) {
                let f = full(&re);
                assert!(probes.iter().any(|s| !f(s)), "{p} matches every probe");
            }
        }
    }

    #[test]
    fn unanchored_search_semantics() {
        let f = m("a+b");
        assert!(f("xxaab"));
        assert!(f("ab"));
        assert!(!f("ba"));
        let f = m("^[0-9]{3}$");
        assert!(f("123"));
        assert!(!f("1234"));
        assert!(f(r"\u0031\u00323"));
        let f = m("^a|b$");
        assert!(f("ax"));
        assert!(f("xb"));
        assert!(!f("xa"));
    }

    /// Items that match the empty string next to an unanchored end are
    /// dropped (the same language, without their repetitions); next to an
    /// anchor they stay.
    #[test]
    fn empty_matching_items_at_unanchored_ends_are_dropped() {
        let a = translate("a", Escapes::Any).unwrap();
        for p in [
            "a[\\s\\S]{0,5000}",
            "x*a",
            "(?:ab)?a[0-9]{0,9}",
            "x?a(?:yz)*",
        ] {
            assert_eq!(translate(p, Escapes::Any).unwrap(), a, "{p}");
        }
        let kept = translate("a[0-9]{0,3}$", Escapes::Any).unwrap();
        assert!(kept.contains("{0,3}"), "{kept}");
        let f = m("a[0-9]{0,3}$");
        assert!(f("xa12") && !f("a12345"));
        let f = m("^x*a");
        assert!(f("xxab") && !f("ya"));
    }

    #[test]
    fn ecma_classes_are_ascii() {
        let f = m(r"^\d+$");
        assert!(f("42"));
        assert!(!f("٤٢"));
        let f = m(r"^\w$");
        assert!(!f("é"));
        let f = m(r"^.$");
        assert!(!f(r"\r"));
        assert!(!f(r"\u2028"));
    }

    #[test]
    fn refused() {
        for p in ["(?=a)", "(a)\\1", "\\bword", "a(?!b)", "(?<=x)y", "^a$b"] {
            assert!(translate(p, Escapes::Any).is_err(), "{p}");
        }
    }
}
