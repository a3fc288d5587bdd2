//! Free text as terminals: the regular languages behind `any_text`,
//! `triggered_tags` and `dispatch`.
//!
//! XGrammar runs free text through one automaton over its triggers and
//! excluded strings (its `TagDispatch`), scanning the text and the trigger
//! that ends it as one stream. Its observable language, checked against
//! XGrammar 0.2.9 string by string:
//!
//! - free text with nothing after it in the tag dispatch (the end of the
//!   output, or whatever the enclosing format puts next) contains no
//!   trigger and no excluded string anywhere ([`free_text`]);
//! - text that a trigger ends is cut at the trigger's first occurrence: no
//!   trigger or excluded string may end before the trigger's last byte, and
//!   no excluded string may end with it, because the scan meets an excluded
//!   string that ends at or before the trigger's end first (`a<t` with the
//!   exclusion `a<` and the trigger `<t` is refused, `<t1` as an exclusion
//!   does not refuse `<t1>`, it ends after the trigger) ([`up_to_trigger`]).
//!
//! Each becomes one terminal, a boolean combination of regexes (gcd-core's
//! `&`/`~`, `~` within valid UTF-8), so the scan's rule is the terminal's
//! language and no lexer decision depends on it. The terminals never match
//! the empty string (gcd terminals cannot); the empty text is the caller's
//! `?`.

use gcd_core::grammar::{Expr, RegexCombination, TerminalPattern};

/// The regex that matches exactly `s`.
pub(crate) fn escape(s: &str) -> String {
    regex_syntax::escape(s)
}

/// `(?:a|b|…)` of the escaped strings.
fn any_of(strings: &[String]) -> String {
    let parts: Vec<String> = strings.iter().map(|s| escape(s)).collect();
    format!("(?:{})", parts.join("|"))
}

fn re(r: String) -> RegexCombination {
    RegexCombination::Regex(r)
}

fn not(r: String) -> RegexCombination {
    RegexCombination::Not(Box::new(re(r)))
}

/// Non-empty text in which none of `excluded` occurs, of at most
/// `max_chars` characters.
pub(crate) fn free_text(excluded: &[String], max_chars: Option<u32>) -> TerminalPattern {
    let length = match max_chars {
        Some(n) => format!("(?s:.{{1,{n}}})"),
        None => "(?s:.+)".to_string(),
    };
    if excluded.is_empty() {
        return TerminalPattern::Regex(length);
    }
    TerminalPattern::Combination(RegexCombination::And(vec![
        re(length),
        not(format!("(?s:.*{}.*)", any_of(excluded))),
    ]))
}

/// Text ended by the first occurrence of `trigger`, the trigger included:
/// no string of `stops` (every trigger and every excluded string) ends
/// before its last byte, and none of `excluded` ends with it.
pub(crate) fn up_to_trigger(
    trigger: &str,
    stops: &[String],
    excluded: &[String],
) -> TerminalPattern {
    let mut parts = vec![
        re(format!("(?s:.*){}", escape(trigger))),
        not(format!("(?s:.*{}.+)", any_of(stops))),
    ];
    if !excluded.is_empty() {
        parts.push(not(format!("(?s:.*{})", any_of(excluded))));
    }
    TerminalPattern::Combination(RegexCombination::And(parts))
}

/// Whether some text ended by `trigger` passes the scan: the trigger alone
/// must (every such text ends with it, so an occurrence of a stop inside
/// it, or an excluded string at its end, is in every one). XGrammar then
/// never dispatches on it, so the branch is left out rather than built as
/// a terminal that matches nothing.
pub(crate) fn trigger_reachable(trigger: &str, stops: &[String], excluded: &[String]) -> bool {
    let t = trigger.as_bytes();
    let before_end = &t[..t.len().saturating_sub(1)];
    let inside = |s: &String| {
        let s = s.as_bytes();
        !s.is_empty() && before_end.windows(s.len()).any(|w| w == s)
    };
    !stops.iter().any(inside) && !excluded.iter().any(|e| t.ends_with(e.as_bytes()))
}

/// Exactly `s` (the empty string: the empty sequence; a terminal cannot be
/// empty).
pub(crate) fn literal(s: &str) -> Expr {
    if s.is_empty() {
        Expr::seq(Vec::new())
    } else {
        Expr::literal(s)
    }
}

/// Free text and the end that closes it, as one terminal: `w·e` for an
/// end `e` of `ends`, where `w` contains none of `excluded` (the ends
/// among them). `None` unless that reading is exact and the terminal's
/// matches are prefix-free, so that a lexeme of it ends at the first end
/// (which is what lets a tag's text be lexed without dynamic lexing):
/// every end must be non-empty, and no end may overlap another or itself
/// (a proper suffix of one that is a prefix of another, or one end a
/// suffix of another).
///
/// Exactness: the terminal is `.*E & ~((.*X.*)E)`; with no end a suffix
/// of another, a string ending with an end splits into `w·e` one way, and
/// the second part refuses exactly the `w` that contain an excluded
/// string (a string that crosses into `e` is not in `w`).
pub(crate) fn text_then_end(excluded: &[String], ends: &[String]) -> Option<TerminalPattern> {
    if ends.is_empty() || ends.iter().any(String::is_empty) {
        return None;
    }
    for (i, e) in ends.iter().enumerate() {
        for (j, f) in ends.iter().enumerate() {
            let (e, f) = (e.as_bytes(), f.as_bytes());
            // A proper suffix of `e` that starts `f` (all of `e`, for
            // another end), or `e` a suffix of another end.
            let most = if i == j {
                e.len() - 1
            } else {
                e.len().min(f.len())
            };
            if (1..=most).any(|k| e[e.len() - k..] == f[..k]) || (i != j && f.ends_with(e)) {
                return None;
            }
        }
    }
    let end = any_of(ends);
    let mut parts = vec![re(format!("(?s:.*){end}"))];
    if !excluded.is_empty() {
        parts.push(not(format!("(?s:.*{}.*){end}", any_of(excluded))));
    }
    Some(TerminalPattern::Combination(RegexCombination::And(parts)))
}
