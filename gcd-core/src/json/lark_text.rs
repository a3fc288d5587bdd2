//! A shape's grammar as Lark text (gcd's Lark subset), for people to read
//! (`gcd::constrained::grammar_text`) and for error messages. Grammars are
//! built by [`lower`](super::lower), not from this text; a test checks that
//! parsing this text gives the same grammar.

use std::collections::HashMap;
use std::fmt::Write;

/// Writing to a `String` cannot fail.
const WRITE: &str = "writing to a String";

use super::number::{finite_f32_number_regex, finite_number_regex, int_range_regex};
use super::{
    check_pattern_needs_no_escapes, json_quote, json_string_regex, Field, Shape, ShapeError,
    ShapeSet, StringRules, Whitespace, CHAR,
};
use crate::grammar::{Grammar, NtId, RuleKind, Symbol, Terminal, TerminalPattern};

/// The grammar text (gcd's Lark subset) for `root`.
pub fn to_lark(root: &Shape, set: &ShapeSet, ws: Whitespace) -> Result<String, ShapeError> {
    let mut w = LarkWriter {
        set,
        ws,
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
        writeln!(w.rules, "{rule}: {body}").expect(WRITE);
    }
    let mut out = format!("start: {start}\n{}", w.rules);
    writeln!(
        out,
        "_COLON: {}\n_COMMA: {}",
        lark_terminal(&ws.colon()),
        lark_terminal(&ws.comma())
    )
    .expect(WRITE);
    writeln!(
        out,
        "STRING: {}",
        lark_regex(&json_string_regex(&format!("{CHAR}*")))
    )
    .expect(WRITE);
    writeln!(out, "NUMBER: {}", lark_regex(&finite_number_regex())).expect(WRITE);
    if let Some(ignored) = ws.ignored() {
        writeln!(out, "%ignore {}", lark_terminal(&ignored)).expect(WRITE);
    }
    Ok(out)
}

/// `pattern` as a Lark literal or `/regex/`.
fn lark_terminal(pattern: &TerminalPattern) -> String {
    match pattern {
        TerminalPattern::Literal { text, .. } => lark_literal(text),
        TerminalPattern::Regex(re) => lark_regex(re),
        // Lark has no intersection; Rust types never lower to one.
        TerminalPattern::Intersection(_) | TerminalPattern::Combination(_) => pattern.to_string(),
        // Written `<|name|>` in llguidance's Lark, as Display spells it.
        TerminalPattern::Special(_) => pattern.to_string(),
    }
}

/// `re` as a Lark `/regex/`: a `/` inside is escaped.
fn lark_regex(re: &str) -> String {
    format!("/{}/", re.replace('/', "\\/"))
}

struct LarkWriter<'a> {
    set: &'a ShapeSet,
    ws: Whitespace,
    rules: String,
    named: HashMap<String, String>,
    pending: Vec<(String, String)>,
    fresh: usize,
}

impl LarkWriter<'_> {
    /// An opening bracket with the whitespace the policy allows after it.
    fn open(&self, c: char) -> String {
        lark_terminal(&self.ws.open(c))
    }

    /// A closing bracket with the whitespace the policy allows before it.
    fn close(&self, c: char) -> String {
        lark_terminal(&self.ws.close(c))
    }

    fn fresh(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}_{}", self.fresh)
    }

    fn rule(&mut self, what: &str, body: String) -> String {
        let name = self.fresh(what);
        writeln!(self.rules, "{name}: {body}").expect(WRITE);
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
                lark_regex(&int_range_regex(*min, *max))
            }
            Shape::Number => "NUMBER".into(),
            Shape::Number32 => lark_regex(&finite_f32_number_regex()),
            Shape::Char => lark_regex(&json_string_regex(CHAR)),
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
                        max_items.unwrap_or_default()
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
                format!("{}{inner} {}", self.open('['), self.close(']'))
            }
            Shape::Tuple(items) => {
                let parts = items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                if parts.is_empty() {
                    format!("{} {}", self.open('['), self.close(']'))
                } else {
                    format!(
                        "{} {} {}",
                        self.open('['),
                        parts.join(" _COMMA "),
                        self.close(']')
                    )
                }
            }
            Shape::Map { values } => {
                let v = self.expr(values)?;
                let entry = self.rule("entry", format!("STRING _COLON {v}"));
                format!(
                    "{} [{entry} (_COMMA {entry})*] {}",
                    self.open('{'),
                    self.close('}')
                )
            }
            Shape::Object(fields) => {
                let (inside, _) = self.fields(fields, false)?;
                format!("{} {inside} {}", self.open('{'), self.close('}'))
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
                format!(
                    "{} {key} _COLON ({}) {}",
                    self.open('{'),
                    alts.join(" | "),
                    self.close('}')
                )
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
                        hi.unwrap_or_default()
                    )));
                }
                match hi {
                    Some(h) => format!("{CHAR}{{{lo},{h}}}"),
                    None => format!("{CHAR}{{{lo},}}"),
                }
            }
        };
        Ok(lark_regex(&json_string_regex(&content)))
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
                    writeln!(body, "{}: {text}", pick(i)).expect(WRITE);
                    work.extend(next.into_iter().map(|j| (false, j)));
                }
            } else if !std::mem::replace(&mut afters[i], true) {
                writeln!(body, "{}: {}", after(i), after_body(i)).expect(WRITE);
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

/// `text` as a Lark literal.
fn lark_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => write!(out, "\\u{:04x}", c as u32).expect(WRITE),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether the text [`to_lark`] prints for `root` reads back (through the
/// Lark front end) as `lowered`, the grammar [`to_grammar`](super::to_grammar)
/// builds: same terminals, same named rules, same productions with generated
/// rules expanded. The two writers are kept apart on purpose, so each checks
/// the other (gcd's tests call this for every shape construct and every
/// derive test type).
#[doc(hidden)]
pub fn lark_text_reads_back(
    root: &Shape,
    set: &ShapeSet,
    ws: Whitespace,
    lowered: &Grammar,
) -> Result<(), String> {
    let text = to_lark(root, set, ws).map_err(|e| e.0)?;
    let parsed = crate::lark::parse_grammar(&text).map_err(|e| format!("{e}\n{text}"))?;
    let (a, b) = (normalized(parsed, true), normalized(lowered.clone(), false));
    if a != b {
        return Err(format!(
            "printed text and lowered grammar differ:\n{a:?}\n{b:?}\n{text}"
        ));
    }
    Ok(())
}

/// `g`'s rules other than those desugaring generated, each production
/// written out with generated rules expanded in place (Lark text shares
/// fewer generated rules, as its sugar carries source spans), and its
/// terminals without spans, regexes as the IR writes them (Lark text
/// escapes `/`).
fn normalized(g: Grammar, from_lark: bool) -> (Vec<Terminal>, Vec<(String, Vec<String>)>) {
    fn canon(g: &Grammar, s: Symbol, stack: &mut Vec<NtId>) -> String {
        match s {
            Symbol::T(t) => g.terminal(t).name.clone(),
            Symbol::N(n) if g.nonterminal(n).kind != RuleKind::Generated => {
                g.nonterminal(n).name.clone()
            }
            Symbol::N(n) => {
                if let Some(depth) = stack.iter().rposition(|&m| m == n) {
                    return format!("^{}", stack.len() - depth);
                }
                stack.push(n);
                let alts: Vec<String> = g
                    .productions_of(n)
                    .map(|(_, p)| rhs(g, &p.rhs, stack))
                    .collect();
                stack.pop();
                format!("({})", alts.join(" | "))
            }
        }
    }
    fn rhs(g: &Grammar, rhs: &[Symbol], stack: &mut Vec<NtId>) -> String {
        let parts: Vec<String> = rhs.iter().map(|&s| canon(g, s, stack)).collect();
        parts.join(" ")
    }
    let rules = (0..g.nonterminals.len() as u32)
        .map(NtId)
        .filter(|&n| g.nonterminal(n).kind != RuleKind::Generated)
        .map(|n| {
            let alts = g
                .productions_of(n)
                .map(|(_, p)| rhs(&g, &p.rhs, &mut Vec::new()))
                .collect();
            (g.nonterminal(n).name.clone(), alts)
        })
        .collect();
    let mut terminals = g.terminals;
    for t in &mut terminals {
        t.span = None;
        if let (true, TerminalPattern::Regex(re)) = (from_lark, &mut t.pattern) {
            *re = re.replace("\\/", "/");
        }
    }
    (terminals, rules)
}
