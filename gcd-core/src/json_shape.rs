//! JSON shapes: the typed front ends (`#[derive(Constrained)]`, and JSON
//! Schema) describe the JSON they accept as a [`Shape`], and this module
//! turns shapes into a grammar that is LL(1) by construction.
//!
//! Objects keep a fixed property order (the order serde_json serializes);
//! optional properties are skipped with one token of lookahead because each
//! key is its own literal. Integers get exact digit-level regexes for their
//! ranges, so a `u8` cannot be 300.

use std::collections::HashMap;
use std::fmt::Write;

/// What JSON a value may be written as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    Null,
    Bool,
    /// An integer in `min..=max` (JSON integers only: no fraction, no exponent).
    Integer {
        min: i128,
        max: i128,
    },
    /// A JSON number that is finite as an `f64` (see [`finite_number_regex`]).
    Number,
    /// A JSON number that is finite as an `f32` (see
    /// [`finite_f32_number_regex`]): reading a larger one into an `f32`
    /// fails or gives infinity.
    Number32,
    /// A string of exactly one character.
    Char,
    String(StringRules),
    /// Exactly this JSON text (a unit variant's `"Name"`, a tag value).
    Literal(String),
    Array {
        items: Box<Shape>,
        min_items: usize,
        max_items: Option<usize>,
    },
    /// A fixed-length array of different shapes (Rust tuples).
    Tuple(Vec<Shape>),
    /// An object with arbitrary string keys (HashMap, BTreeMap).
    Map {
        values: Box<Shape>,
    },
    Object(Vec<Field>),
    /// Any one of the shapes; they must be told apart by their first token.
    OneOf(Vec<Shape>),
    /// Objects told apart by a first key `tag` whose string value names the
    /// variant (serde's internally and adjacently tagged enums): for each
    /// variant, its tag value and the fields that follow the tag.
    Tagged {
        tag: String,
        variants: Vec<(String, Vec<Field>)>,
    },
    /// A shape defined in the [`ShapeSet`] under this name (recursion).
    Named(String),
    /// A shape that cannot be enforced, and why (reported by [`to_lark`]).
    Invalid(String),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringRules {
    /// A regex the JSON text of the string (between the quotes) must match.
    pub pattern: Option<String>,
    /// Length bounds, in characters.
    pub min_len: Option<usize>,
    pub max_len: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// Other keys accepted for the field (serde's `alias`).
    pub aliases: Vec<String>,
    pub shape: Shape,
    /// Must be present (else it may be left out).
    pub required: bool,
}

/// Named shapes, so that recursive types refer to themselves by name.
#[derive(Clone, Debug, Default)]
pub struct ShapeSet {
    shapes: Vec<Option<Shape>>,
    index: HashMap<String, usize>,
}

impl ShapeSet {
    pub fn new() -> ShapeSet {
        ShapeSet::default()
    }

    /// Whether `name` is defined or being defined.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Claims `name` before its shape is known, so that a recursive
    /// reference inside it finds the name.
    pub fn reserve(&mut self, name: &str) {
        if !self.contains(name) {
            self.index.insert(name.to_string(), self.shapes.len());
            self.shapes.push(None);
        }
    }

    pub fn define(&mut self, name: &str, shape: Shape) {
        self.reserve(name);
        self.shapes[self.index[name]] = Some(shape);
    }

    pub fn get(&self, name: &str) -> Option<&Shape> {
        self.index.get(name).and_then(|&i| self.shapes[i].as_ref())
    }
}

/// Where whitespace may go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Whitespace {
    /// None at all, as `serde_json::to_string` writes.
    #[default]
    Compact,
    /// Optionally one space after `:` and `,`, as models like to write.
    Spaced,
    /// Any JSON whitespace between tokens.
    Json,
}

/// A shape that cannot become an exact grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// The grammar text (gcd's Lark subset) for `root`.
pub fn to_lark(root: &Shape, set: &ShapeSet, ws: Whitespace) -> Result<String, ShapeError> {
    let mut w = LarkWriter {
        set,
        rules: String::new(),
        named: HashMap::new(),
        pending: Vec::new(),
        fresh: 0,
    };
    let start = w.expr(root)?;
    while let Some((name, rule)) = w.pending.pop() {
        let shape = set
            .get(&name)
            .ok_or_else(|| ShapeError(format!("shape `{name}` is used but never defined")))?;
        let body = w.expr(shape)?;
        writeln!(w.rules, "{rule}: {body}").unwrap();
    }
    let mut out = format!("start: {start}\n{}", w.rules);
    let (colon, comma) = match ws {
        Whitespace::Compact | Whitespace::Json => ("\":\"", "\",\""),
        Whitespace::Spaced => ("/: ?/", "/, ?/"),
    };
    writeln!(out, "_COLON: {colon}\n_COMMA: {comma}").unwrap();
    writeln!(out, "STRING: /{}/", json_string_regex(&format!("{CHAR}*"))).unwrap();
    writeln!(out, "NUMBER: /{}/", finite_number_regex()).unwrap();
    if ws == Whitespace::Json {
        out.push_str("%ignore /[ \\t\\n\\r]+/\n");
    }
    Ok(out)
}

/// The regexes that linking `shape` determinizes for `shape` itself (a
/// string pattern and its check, a length-bounded string, an integer
/// range), exactly as they will be asked of
/// [`TerminalDfa::new`](crate::lexer::TerminalDfa::new); the shared
/// `STRING`/`NUMBER` terminals are left out. The derive builds these at
/// compile time.
pub fn regexes_to_prebuild(shape: &Shape) -> Result<Vec<String>, ShapeError> {
    let text = to_lark(shape, &ShapeSet::new(), Whitespace::Compact)?;
    let g = crate::lark::parse_grammar(&text).map_err(|e| ShapeError(e.to_string()))?;
    let mut out: Vec<String> = match shape {
        Shape::String(StringRules {
            pattern: Some(p), ..
        }) => vec![pattern_check_regex(p)],
        _ => Vec::new(),
    };
    out.extend(
        g.terminals
            .iter()
            .filter(|t| t.name.starts_with("__ANON") && !t.pattern.is_literal())
            .map(|t| t.pattern.to_regex()),
    );
    Ok(out)
}

/// What [`check_pattern_needs_no_escapes`] determinizes for `pattern`.
fn pattern_check_regex(pattern: &str) -> String {
    format!("(?:{pattern})")
}

/// One JSON-string character as it may be written: unescaped, an escape, or
/// a surrogate pair (one `char`); unpaired surrogates are refused as serde_json does.
const CHAR: &str = r#"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"#;

fn json_string_regex(content: &str) -> String {
    format!("\"{}\"", content).replace('/', "\\/")
}

struct LarkWriter<'a> {
    set: &'a ShapeSet,
    rules: String,
    named: HashMap<String, String>,
    pending: Vec<(String, String)>,
    fresh: usize,
}

impl LarkWriter<'_> {
    fn fresh(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}_{}", self.fresh)
    }

    fn rule(&mut self, what: &str, body: String) -> String {
        let name = self.fresh(what);
        writeln!(self.rules, "{name}: {body}").unwrap();
        name
    }

    fn expr(&mut self, s: &Shape) -> Result<String, ShapeError> {
        Ok(match s {
            Shape::Null => "\"null\"".into(),
            Shape::Bool => "(\"true\" | \"false\")".into(),
            Shape::Integer { min, max } => {
                if min > max {
                    return Err(ShapeError(format!("empty integer range {min}..={max}")));
                }
                format!("/{}/", int_range_regex(*min, *max))
            }
            Shape::Number => "NUMBER".into(),
            Shape::Number32 => format!("/{}/", finite_f32_number_regex()),
            Shape::Char => format!("/{}/", json_string_regex(CHAR)),
            Shape::String(rules) => self.string(rules)?,
            Shape::Literal(text) => lark_literal(text),
            Shape::Array {
                items,
                min_items,
                max_items,
            } => {
                if max_items.is_some_and(|m| m < *min_items) {
                    return Err(ShapeError(format!(
                        "min_items {min_items} > max_items {}",
                        max_items.unwrap()
                    )));
                }
                let item = self.expr(items)?;
                let body = match (*min_items, *max_items) {
                    (0, Some(0)) => String::new(),
                    (0, None) => format!("[{item} (_COMMA {item})*]"),
                    (0, Some(m)) => format!("[{item} (_COMMA {item}) ~ 0..{}]", m - 1),
                    (n, None) => format!("{item} (_COMMA {item}) ~ {} (_COMMA {item})*", n - 1),
                    (n, Some(m)) => format!("{item} (_COMMA {item}) ~ {}..{}", n - 1, m - 1),
                };
                let inner = if body.is_empty() {
                    String::new()
                } else {
                    format!(" {}", self.rule("items", body))
                };
                format!("\"[\"{inner} \"]\"")
            }
            Shape::Tuple(items) => {
                let parts = items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                if parts.is_empty() {
                    "\"[\" \"]\"".to_string()
                } else {
                    format!("\"[\" {} \"]\"", parts.join(" _COMMA "))
                }
            }
            Shape::Map { values } => {
                let v = self.expr(values)?;
                let entry = self.rule("entry", format!("STRING _COLON {v}"));
                format!("\"{{\" [{entry} (_COMMA {entry})*] \"}}\"")
            }
            Shape::Object(fields) => {
                let (inside, _) = self.fields(fields, false)?;
                format!("\"{{\" {inside} \"}}\"")
            }
            Shape::Tagged { tag, variants } => {
                let mut alts = Vec::new();
                let mut seen = std::collections::HashSet::new();
                for (value, fields) in variants {
                    if !seen.insert(value) {
                        return Err(ShapeError(format!(
                            "two variants are both tagged `{value}`"
                        )));
                    }
                    if fields.iter().any(|f| &f.name == tag) {
                        return Err(ShapeError(format!(
                            "variant `{value}` has a field named like the tag `{tag}`"
                        )));
                    }
                    let (_, after) = self.fields(fields, true)?;
                    alts.push(format!("{} {after}", lark_literal(&json_quote(value))));
                }
                let key = lark_literal(&json_quote(tag));
                format!("\"{{\" {key} _COLON ({}) \"}}\"", alts.join(" | "))
            }
            Shape::Invalid(why) => return Err(ShapeError(why.clone())),
            Shape::OneOf(alts) => {
                let parts = alts
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("({})", parts.join(" | "))
            }
            Shape::Named(name) => {
                if let Some(rule) = self.named.get(name) {
                    rule.clone()
                } else {
                    if self.set.get(name).is_none() && !self.set.contains(name) {
                        return Err(ShapeError(format!(
                            "shape `{name}` is used but never defined"
                        )));
                    }
                    let rule = self.fresh("named");
                    self.named.insert(name.clone(), rule.clone());
                    self.pending.push((name.clone(), rule.clone()));
                    rule
                }
            }
        })
    }

    fn string(&mut self, rules: &StringRules) -> Result<String, ShapeError> {
        let content = match (&rules.pattern, rules.min_len, rules.max_len) {
            (None, None, None) => return Ok("STRING".into()),
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(ShapeError(
                    "a pattern together with min_len/max_len is not supported".into(),
                ))
            }
            (Some(p), None, None) => {
                check_pattern_needs_no_escapes(p)?;
                format!("(?:{p})")
            }
            (None, lo, hi) => {
                let lo = lo.unwrap_or(0);
                if hi.is_some_and(|h| h < lo) {
                    return Err(ShapeError(format!(
                        "min_len {lo} > max_len {}",
                        hi.unwrap()
                    )));
                }
                match hi {
                    Some(h) => format!("{CHAR}{{{lo},{h}}}"),
                    None => format!("{CHAR}{{{lo},}}"),
                }
            }
        };
        Ok(format!("/{}/", json_string_regex(&content)))
    }

    /// Rules for `fields` in order inside braces: what may be written first
    /// (nothing yet written), and what may follow after something was
    /// written already (an internal tag).
    fn fields(
        &mut self,
        fields: &[Field],
        after_lead: bool,
    ) -> Result<(String, String), ShapeError> {
        let mut seen = std::collections::HashSet::new();
        for name in fields
            .iter()
            .flat_map(|f| std::iter::once(&f.name).chain(&f.aliases))
        {
            if !seen.insert(name) {
                return Err(ShapeError(format!("two fields are both named `{name}`")));
            }
        }
        let values = fields
            .iter()
            .map(|f| self.expr(&f.shape))
            .collect::<Result<Vec<_>, _>>()?;
        let keys: Vec<String> = fields
            .iter()
            .map(|f| {
                let names: Vec<String> = std::iter::once(&f.name)
                    .chain(&f.aliases)
                    .map(|n| lark_literal(&json_quote(n)))
                    .collect();
                if names.len() == 1 {
                    names[0].clone()
                } else {
                    format!("({})", names.join(" | "))
                }
            })
            .collect();
        let n = fields.len();
        let id = self.fresh("obj");
        let after = |j: usize| format!("{id}_after{j}");
        let pick = |i: usize| format!("{id}_pick{i}");
        let first_required = |i: usize| (i..n).find(|&k| fields[k].required);
        // Emit only the rules reachable from where the object starts.
        let pick_body = |i: usize| {
            // pick(i): write one of the fields i..=next required one.
            let last = first_required(i).unwrap_or(n - 1);
            let alts: Vec<String> = (i..=last)
                .map(|m| format!("{} _COLON {} {}", keys[m], values[m], after(m + 1)))
                .collect();
            (
                alts.join(" | "),
                (i..=last).map(|m| m + 1).collect::<Vec<_>>(),
            )
        };
        let after_body = |j: usize| match (j < n, first_required(j).is_some()) {
            (false, _) => String::new(),
            (true, true) => format!("_COMMA {}", pick(j)),
            (true, false) => format!("[_COMMA {}]", pick(j)),
        };
        let (mut picks, mut afters) = (vec![false; n], vec![false; n + 1]);
        let mut work: Vec<(bool, usize)> = Vec::new();
        if after_lead {
            work.push((false, 0));
        } else if n > 0 {
            work.push((true, 0));
        }
        let mut body = String::new();
        while let Some((is_pick, i)) = work.pop() {
            if is_pick {
                if !std::mem::replace(&mut picks[i], true) {
                    let (text, next) = pick_body(i);
                    writeln!(body, "{}: {text}", pick(i)).unwrap();
                    work.extend(next.into_iter().map(|j| (false, j)));
                }
            } else if !std::mem::replace(&mut afters[i], true) {
                writeln!(body, "{}: {}", after(i), after_body(i)).unwrap();
                if i < n {
                    work.push((true, i));
                }
            }
        }
        self.rules.push_str(&body);
        let first = match (n, first_required(0)) {
            (0, _) => String::new(),
            (_, None) => format!("[{}]", pick(0)),
            (_, Some(_)) => pick(0),
        };
        Ok((first, after(0)))
    }
}

/// Refuses patterns that could match `"`, `\` or control characters, whose
/// JSON text would be an escape the pattern does not describe.
fn check_pattern_needs_no_escapes(pattern: &str) -> Result<(), ShapeError> {
    let dfa = crate::lexer::TerminalDfa::new(&pattern_check_regex(pattern))
        .or_else(|e| match e {
            crate::lexer::DfaError::MatchesEmpty => {
                crate::lexer::TerminalDfa::new(&format!("(?:{pattern})x"))
            }
            other => Err(other),
        })
        .map_err(|e| ShapeError(format!("pattern `{pattern}`: {e:?}")))?;
    let bad = (0..dfa.len() as u32).any(|s| {
        (0u8..0x20)
            .chain([b'"', b'\\'])
            .any(|b| dfa.next(s, b) != crate::lexer::DEAD)
    });
    if bad {
        return Err(ShapeError(format!(
            "pattern `{pattern}` can match `\"`, `\\` or control characters, which JSON escapes; exclude them"
        )));
    }
    Ok(())
}

/// `s` as a JSON string.
pub fn json_quote(s: &str) -> String {
    serde_json::to_string(s).expect("a str serializes")
}

/// `text` as a Lark literal.
fn lark_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => write!(out, "\\u{:04x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON numbers that serde_json reads as a finite `f64`, so that reading a
/// float can never fail with "number out of range". "Finite" is not a
/// regular property of the text in general (it weighs the digit count
/// against the exponent), so this is a regular subset: every number with at
/// most 308 integer digits and no positive exponent, every number with a
/// negative exponent, and with a positive exponent `k` integer digits
/// (k <= 17) and an exponent up to `308 - k`, plus the one-digit mantissas
/// up to `1.7976931348623157e308` (`f64::MAX`). That covers everything
/// serde_json writes for a finite float (at most 17 significant digits,
/// scientific beyond 1e16); it refuses some exotic spellings serde_json
/// would accept, such as `17e307` or a 400-digit integer.
pub fn finite_number_regex() -> String {
    // f64::MAX = 1.7976931348623157e308.
    finite_float_regex(308, 17, (b'1', "7976931348623157"))
}

/// Like [`finite_number_regex`], for `f32` (`f32::MAX` =
/// `3.4028235e38`, and serde_json writes at most 9 significant digits):
/// at most 38 integer digits without a positive exponent, any negative
/// exponent, `k <= 9` integer digits with an exponent up to `38 - k`, and
/// one-digit mantissas up to `3.4028235e38`.
pub fn finite_f32_number_regex() -> String {
    finite_float_regex(38, 9, (b'3', "4028235"))
}

/// The regular subset of finite floats described at
/// [`finite_number_regex`], for a type whose largest value is
/// `lead.max_fraction × 10^max_exp` and whose shortest spellings have at
/// most `digits` significant digits.
fn finite_float_regex(max_exp: usize, digits: usize, (lead, max_fraction): (u8, &str)) -> String {
    let frac = r"(?:\.[0-9]+)?";
    let mut alts = vec![format!(
        r"(?:0|[1-9][0-9]{{0,{}}}){frac}(?:[eE]-[0-9]+)?",
        max_exp - 1
    )];
    for k in 1..=digits {
        let int = if k == 1 {
            "[0-9]".to_string()
        } else {
            format!("[1-9][0-9]{{{}}}", k - 1)
        };
        let exp = int_range_regex(0, (max_exp - k) as i128);
        alts.push(format!(r"{int}{frac}[eE]\+?0*{exp}"));
    }
    // Mantissas with one integer digit up to the largest value, at `max_exp`.
    let top = format!(r"{}(?:\.{})?", lead as char, fraction_at_most(max_fraction));
    let mantissa = if lead > b'1' {
        format!("(?:[0-{}]{frac}|{top})", (lead - 1) as char)
    } else {
        top
    };
    alts.push(format!(r"{mantissa}[eE]\+?0*{max_exp}"));
    format!("-?(?:{})", alts.join("|"))
}

/// Digit strings `d` with `0.d <= 0.c` (non-empty).
fn fraction_at_most(c: &str) -> String {
    let c = c.as_bytes();
    let mut alts = Vec::new();
    for i in 0..c.len() {
        let prefix = std::str::from_utf8(&c[..i]).expect("digits");
        if c[i] > b'0' {
            alts.push(format!("{prefix}[0-{}][0-9]*", (c[i] - 1) as char));
        }
        if i > 0 {
            alts.push(prefix.to_string());
        }
    }
    alts.push(format!("{}0*", std::str::from_utf8(c).expect("digits")));
    format!("(?:{})", alts.join("|"))
}

/// A regex for the decimal integers in `lo..=hi`, as JSON writes them: no
/// leading zeros, `-` only on negatives (serde_json reads `-0` as a float,
/// which no integer type accepts).
pub fn int_range_regex(lo: i128, hi: i128) -> String {
    assert!(lo <= hi);
    let mut alts = Vec::new();
    if hi >= 0 {
        alts.extend(nonneg(lo.max(0) as u128, hi as u128));
    }
    if lo < 0 {
        let a = if hi < 0 { hi.unsigned_abs() } else { 1 };
        alts.extend(
            nonneg(a, lo.unsigned_abs())
                .into_iter()
                .map(|p| format!("-{p}")),
        );
    }
    format!("(?:{})", alts.join("|"))
}

fn nonneg(a: u128, b: u128) -> Vec<String> {
    let digits = |x: u128| x.to_string().len();
    let mut out = Vec::new();
    for len in digits(a)..=digits(b) {
        let floor = if len == 1 {
            0
        } else {
            10u128.pow(len as u32 - 1)
        };
        let ceil = 10u128.checked_pow(len as u32).map_or(u128::MAX, |p| p - 1);
        let (l, h) = (a.max(floor), b.min(ceil));
        if l <= h {
            out.extend(same_len(&l.to_string(), &h.to_string()));
        }
    }
    out
}

/// Patterns for the digit strings of one length between `lo` and `hi`.
fn same_len(lo: &str, hi: &str) -> Vec<String> {
    if lo == hi {
        return vec![lo.to_string()];
    }
    let (l0, h0) = (lo.as_bytes()[0] - b'0', hi.as_bytes()[0] - b'0');
    let n = lo.len() - 1;
    let any = |k: usize| {
        if k == 0 {
            String::new()
        } else {
            format!("[0-9]{{{k}}}")
        }
    };
    if n == 0 {
        return vec![format!("[{l0}-{h0}]")];
    }
    if l0 == h0 {
        return same_len(&lo[1..], &hi[1..])
            .into_iter()
            .map(|p| format!("{l0}{p}"))
            .collect();
    }
    let mut out = Vec::new();
    let (lo_rest, hi_rest) = (&lo[1..], &hi[1..]);
    let (full_lo, full_hi) = (
        lo_rest.bytes().all(|c| c == b'0'),
        hi_rest.bytes().all(|c| c == b'9'),
    );
    let mid_lo = if full_lo { l0 } else { l0 + 1 };
    let mid_hi = if full_hi { h0 } else { h0 - 1 };
    if !full_lo {
        out.extend(
            same_len(lo_rest, &"9".repeat(n))
                .into_iter()
                .map(|p| format!("{l0}{p}")),
        );
    }
    if mid_lo < mid_hi {
        out.push(format!("[{mid_lo}-{mid_hi}]{}", any(n)));
    } else if mid_lo == mid_hi {
        out.push(format!("{mid_lo}{}", any(n)));
    }
    if !full_hi {
        out.extend(
            same_len(&"0".repeat(n), hi_rest)
                .into_iter()
                .map(|p| format!("{h0}{p}")),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::meta::Regex;

    fn matches(re: &Regex, s: &str) -> bool {
        re.find(s)
            .is_some_and(|m| m.start() == 0 && m.end() == s.len())
    }

    #[test]
    fn finite_f32_numbers_cover_what_serde_json_writes() {
        let re = Regex::new(&format!("^(?:{})$", finite_f32_number_regex())).unwrap();
        let mut x = 0x9E37_79B9u32;
        let mut floats = vec![f32::MAX, f32::MIN, f32::MIN_POSITIVE, 1e38, 1e16, 0.1, -0.0];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            floats.push(f32::from_bits(x));
        }
        for f in floats.into_iter().filter(|f| f.is_finite()) {
            let text = serde_json::to_string(&f).unwrap();
            assert!(matches(&re, &text), "{text}");
        }
        for (text, ok) in [
            ("3.4028235e38", true),
            ("3.4028236e38", false),
            ("3.5e38", false),
            ("1e39", false),
            ("340282356779733661637539395458142568448", false),
            ("99999999999999999999999999999999999999", true),
            ("123456789e29", true),
            ("123456789e30", false),
            ("2.99e+38", true),
            ("1e-999", true),
        ] {
            assert_eq!(matches(&re, text), ok, "{text}");
            if ok {
                let v = serde_json::from_str::<f32>(text);
                assert!(v.as_ref().is_ok_and(|v| v.is_finite()), "{text}: {v:?}");
            }
        }
    }

    #[test]
    fn finite_numbers_cover_what_serde_json_writes() {
        let re = Regex::new(&format!("^(?:{})$", finite_number_regex())).unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut floats = vec![
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            1e308,
            1e16,
            1e15,
            0.1,
            -0.0,
            123456.789,
        ];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            floats.push(f64::from_bits(x));
        }
        for f in floats.into_iter().filter(|f| f.is_finite()) {
            let text = serde_json::to_string(&f).unwrap();
            assert!(matches(&re, &text), "{text}");
        }
        for (text, ok) in [
            ("1e308", true),
            ("1.7976931348623157e308", true),
            ("1.7976931348623158e308", false),
            ("1.8e308", false),
            ("2e308", false),
            ("1e309", false),
            ("10e306", true),
            ("0.5e-999", true),
            ("12345678901234567e291", true),
            ("12345678901234567e292", false),
        ] {
            assert_eq!(matches(&re, text), ok, "{text}");
            if ok {
                assert!(serde_json::from_str::<f64>(text).is_ok(), "{text}");
            }
        }
        for bad in ["1e400", "-1e309", "9e308"] {
            assert!(
                serde_json::from_str::<f64>(bad).is_err() && !matches(&re, bad),
                "{bad}"
            );
        }
    }

    #[test]
    fn integer_ranges_are_exact() {
        let ranges: &[(i128, i128)] = &[
            (0, 255),
            (1, 10),
            (-128, 127),
            (0, 0),
            (-5, -1),
            (7, 7),
            (99, 101),
            (-1000, 1000),
            (123, 4567),
            (0, 9),
            (10, 99),
            (-32768, 32767),
            (19, 21),
            (100, 100),
            (-100, -99),
        ];
        for &(lo, hi) in ranges {
            let re = Regex::new(&format!("^{}$", int_range_regex(lo, hi))).unwrap();
            for x in (lo - 50).max(-40000)..=(hi + 50).min(40000) {
                assert_eq!(
                    matches(&re, &x.to_string()),
                    (lo..=hi).contains(&x),
                    "{x} in {lo}..={hi}"
                );
            }
            assert!(!matches(&re, "01") && !matches(&re, "+1") && !matches(&re, "1.0"));
            assert!(!matches(&re, "-0"));
        }
        for (lo, hi) in [(i64::MIN as i128, i64::MAX as i128), (0, u64::MAX as i128)] {
            let re = Regex::new(&format!("^{}$", int_range_regex(lo, hi))).unwrap();
            for x in [lo, hi, lo + 1, hi - 1, 0] {
                assert!(matches(&re, &x.to_string()), "{x}");
            }
            assert!(!matches(&re, &(hi + 1).to_string()) && !matches(&re, &(lo - 1).to_string()));
        }
    }
}

#[cfg(test)]
mod grammar_tests {
    use super::*;
    use crate::compiled::CompiledGrammar;
    use crate::lark::parse_grammar;
    use crate::runtime::recognizer::Recognizer;

    fn compile(shape: &Shape, set: &ShapeSet, ws: Whitespace) -> CompiledGrammar {
        let text = to_lark(shape, set, ws).unwrap();
        let g = parse_grammar(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn field(name: &str, shape: Shape, required: bool) -> Field {
        Field {
            name: name.into(),
            aliases: Vec::new(),
            shape,
            required,
        }
    }

    #[test]
    fn objects_with_optional_fields() {
        let shape = Shape::Object(vec![
            field("a", Shape::Integer { min: 0, max: 255 }, false),
            field("b", Shape::Bool, true),
            field("c", Shape::String(StringRules::default()), false),
            field("d", Shape::Null, false),
        ]);
        let g = compile(&shape, &ShapeSet::new(), Whitespace::Compact);
        let r = Recognizer::new(&g);
        for ok in [
            r#"{"b":true}"#,
            r#"{"a":255,"b":false}"#,
            r#"{"b":true,"d":null}"#,
            r#"{"a":0,"b":true,"c":"x","d":null}"#,
        ] {
            assert!(r.is_complete(ok.as_bytes()), "{ok}");
        }
        for bad in [
            r#"{}"#,
            r#"{"a":256,"b":true}"#,
            r#"{"b":true,"a":1}"#,
            r#"{"b":true,}"#,
            r#"{"a":1}"#,
            r#"{ "b":true}"#,
        ] {
            assert!(!r.is_complete(bad.as_bytes()), "{bad}");
        }
        let g = compile(&shape, &ShapeSet::new(), Whitespace::Spaced);
        assert!(Recognizer::new(&g).is_complete(br#"{"a": 1, "b": true}"#));
        let g = compile(&shape, &ShapeSet::new(), Whitespace::Json);
        assert!(Recognizer::new(&g).is_complete(b"{ \"a\" :1 ,\n \"b\": true }"));
    }

    #[test]
    fn tagged_recursive_and_collections() {
        let mut set = ShapeSet::new();
        set.define(
            "Tree",
            Shape::Tagged {
                tag: "kind".into(),
                variants: vec![
                    (
                        "leaf".into(),
                        vec![field("value", Shape::Integer { min: -5, max: 5 }, true)],
                    ),
                    (
                        "node".into(),
                        vec![field(
                            "children",
                            Shape::Array {
                                items: Box::new(Shape::Named("Tree".into())),
                                min_items: 1,
                                max_items: Some(3),
                            },
                            true,
                        )],
                    ),
                    ("empty".into(), vec![]),
                ],
            },
        );
        let g = compile(&Shape::Named("Tree".into()), &set, Whitespace::Compact);
        let r = Recognizer::new(&g);
        assert!(r.is_complete(
            br#"{"kind":"node","children":[{"kind":"leaf","value":-5},{"kind":"empty"}]}"#
        ));
        assert!(!r.is_complete(br#"{"kind":"node","children":[]}"#));
        assert!(!r.is_complete(br#"{"kind":"leaf","value":6}"#));
        let map = Shape::Map {
            values: Box::new(Shape::Tuple(vec![Shape::Char, Shape::Number])),
        };
        let g = compile(&map, &ShapeSet::new(), Whitespace::Compact);
        let r = Recognizer::new(&g);
        assert!(r.is_complete(br#"{"x":["a",1.5e3],"y":["\u00e9",-0]}"#));
        assert!(!r.is_complete(br#"{"x":["ab",1]}"#));
    }
}
