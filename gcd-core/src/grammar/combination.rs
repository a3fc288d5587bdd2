//! Boolean combinations of regular languages: llguidance's `&` (and) and
//! `~` (not) in Lark terminal definitions, `ID: /[a-z]+/ & ~KEYWORD`.
//!
//! Regex text has neither operator, so a combination stays a tree of
//! regexes until the lexer builds one product automaton of its leaves
//! (`lexer::TerminalDfa::combination`), whose states accept where the
//! tree's formula holds for the leaves' verdicts.
//!
//! `~` is the complement among valid UTF-8 strings, not among all byte
//! strings as in llguidance: a lexeme is text (and gcd lexes a special
//! token as bytes no UTF-8 text holds, which a byte-level complement would
//! match). The two agree on every valid UTF-8 string, so llguidance's own
//! advice, `/(?s:.*)/ & ~X`, means the same in both.

use std::fmt;

/// A boolean combination of regexes (regex-automata syntax).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RegexCombination {
    /// The strings the regex matches (whole-lexeme match).
    Regex(String),
    /// The strings every part matches.
    And(Vec<RegexCombination>),
    /// The strings some part matches.
    Or(Vec<RegexCombination>),
    /// The valid UTF-8 strings the part does not match.
    Not(Box<RegexCombination>),
}

/// The regex of every valid UTF-8 string: the universe `~` complements in.
pub const UTF8_TEXT: &str = "(?s:.*)";

impl RegexCombination {
    /// The regexes at the leaves, left to right, each once.
    pub fn leaves(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            RegexCombination::Regex(r) => {
                if !out.contains(&r.as_str()) {
                    out.push(r);
                }
            }
            RegexCombination::And(parts) | RegexCombination::Or(parts) => {
                parts.iter().for_each(|p| p.collect_leaves(out))
            }
            RegexCombination::Not(p) => p.collect_leaves(out),
        }
    }

    /// Whether a `~` occurs anywhere (then the result is limited to UTF-8
    /// text).
    pub fn has_not(&self) -> bool {
        match self {
            RegexCombination::Regex(_) => false,
            RegexCombination::And(parts) | RegexCombination::Or(parts) => {
                parts.iter().any(Self::has_not)
            }
            RegexCombination::Not(_) => true,
        }
    }

    /// The formula in three-valued (Kleene) logic: `verdict(leaf)` is
    /// `Some(v)` where the leaf's verdict is known, `None` where it may
    /// still go either way. `Some(false)` means false whatever the unknown
    /// leaves turn out to be, so an automaton state can be dropped there.
    pub fn eval(&self, verdict: &impl Fn(&str) -> Option<bool>) -> Option<bool> {
        match self {
            RegexCombination::Regex(r) => verdict(r),
            RegexCombination::And(parts) => {
                let mut all = Some(true);
                for p in parts {
                    match p.eval(verdict) {
                        Some(false) => return Some(false),
                        None => all = None,
                        Some(true) => {}
                    }
                }
                all
            }
            RegexCombination::Or(parts) => {
                let mut any = Some(false);
                for p in parts {
                    match p.eval(verdict) {
                        Some(true) => return Some(true),
                        None => any = None,
                        Some(false) => {}
                    }
                }
                any
            }
            RegexCombination::Not(p) => p.eval(verdict).map(|v| !v),
        }
    }

    /// A key no regex parser reads (it starts with `(?bool)`) and no other
    /// combination spells: the cache key of its automaton.
    pub fn key(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        format!("(?bool){json}")
    }
}

impl fmt::Display for RegexCombination {
    /// In Lark's spelling, fully parenthesized.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, parts: &[RegexCombination], op: &str| {
            f.write_str("(")?;
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    f.write_str(op)?;
                }
                write!(f, "{p}")?;
            }
            f.write_str(")")
        };
        match self {
            RegexCombination::Regex(r) => write!(f, "/{r}/"),
            RegexCombination::And(parts) => join(f, parts, " & "),
            RegexCombination::Or(parts) => join(f, parts, " | "),
            RegexCombination::Not(p) => write!(f, "~{p}"),
        }
    }
}
