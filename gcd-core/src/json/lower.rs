//! Shapes → grammar IR, through [`GrammarBuilder`] and [`Expr`]: the path
//! that builds a shape's grammar, with no grammar text in between (people
//! read it through the grammar's printer, [`crate::grammar::Printer`]).
//!
//! An expression is kept as the list of items it would be in Lark text,
//! because items spliced into a sequence flatten into it while a `( … )`
//! group stays one item: so the rules come out as a person would write
//! them, and print back that way.

use std::collections::HashMap;

use super::number::{finite_f32_number_regex, finite_number_regex, int_range_regex};
use super::{
    check_pattern_needs_no_escapes, json_quote, json_string_regex, Field, Shape, ShapeError,
    ShapeSet, StringRules, Whitespace, CHAR,
};
use crate::grammar::{Expr, Grammar, GrammarBuilder, TerminalPattern};

/// The grammar IR for `root`.
pub fn to_grammar(root: &Shape, set: &ShapeSet, ws: Whitespace) -> Result<Grammar, ShapeError> {
    let mut w = IrWriter {
        set,
        ws,
        rules: Vec::new(),
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
        w.rules.push((rule, vec![node(body)]));
    }
    let rules: Vec<(String, Vec<Expr>)> = std::iter::once(("start".to_string(), vec![node(start)]))
        .chain(w.rules)
        .collect();
    // The shared terminals that the rules use.
    let mut b = GrammarBuilder::new();
    for (name, pattern) in [
        ("_COLON", ws.colon()),
        ("_COMMA", ws.comma()),
        (
            "STRING",
            TerminalPattern::Regex(json_string_regex(&format!("{CHAR}*"))),
        ),
        ("NUMBER", TerminalPattern::Regex(finite_number_regex())),
    ] {
        if rules
            .iter()
            .any(|(_, alts)| alts.iter().any(|a| mentions(a, name)))
        {
            b.terminal(name, pattern);
        }
    }
    if let Some(ignored) = ws.ignored() {
        b.ignore_pattern(ignored, None);
    }
    // Types are the program's own, not input: the default limit, as in
    // Lark text (`~` repetitions of long arrays multiply).
    let max = crate::limits::Limits::default().max_rule_expansion;
    for (name, alternatives) in rules {
        if alternatives.iter().any(|a| cost(a) > max) {
            return Err(ShapeError(format!(
                "this alternative of `{name}` expands to more than {max} symbols \
                 (`~` repetitions; the limit `Limits::max_rule_expansion`)"
            )));
        }
        b.rule(&name, alternatives);
    }
    b.build().map_err(|e| ShapeError(e.to_string()))
}

/// The items of an expression, as they would stand in a Lark sequence.
type Items = Vec<Expr>;

/// Whether `e` refers to `name`.
fn mentions(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Name(n, _) => n == name,
        Expr::Pattern(..) => false,
        Expr::Seq(items) | Expr::Alt(items) => items.iter().any(|i| mentions(i, name)),
        Expr::Opt(e) | Expr::Star(e) | Expr::Plus(e) | Expr::Repeat(e, ..) => mentions(e, name),
    }
}

/// A sequence of items as one expression: the item itself when alone.
fn node(mut items: Items) -> Expr {
    if items.len() == 1 {
        items.pop().expect("one item")
    } else {
        Expr::Seq(items)
    }
}

/// `( a | b | … )`: alternatives as one item (`()` is one empty alternative).
fn group(alts: Vec<Items>) -> Expr {
    let mut nodes: Vec<Expr> = alts.into_iter().map(node).collect();
    if nodes.is_empty() {
        Expr::Seq(Vec::new())
    } else if nodes.len() == 1 {
        nodes.pop().expect("one alternative")
    } else {
        Expr::Alt(nodes)
    }
}

/// `text` as a literal item (empty text is nothing).
fn literal(text: &str) -> Expr {
    if text.is_empty() {
        Expr::Seq(Vec::new())
    } else {
        Expr::literal(text)
    }
}

/// Roughly how many symbols desugaring makes of `e` (repeats multiply).
fn cost(e: &Expr) -> u64 {
    match e {
        Expr::Name(..) | Expr::Pattern(..) => 1,
        Expr::Seq(items) | Expr::Alt(items) => {
            items.iter().fold(0u64, |a, i| a.saturating_add(cost(i)))
        }
        Expr::Opt(e) | Expr::Star(e) | Expr::Plus(e) => cost(e).saturating_add(1),
        Expr::Repeat(e, _, max) => cost(e)
            .saturating_mul(u64::from(*max).max(1))
            .saturating_add(u64::from(*max)),
    }
}

struct IrWriter<'a> {
    set: &'a ShapeSet,
    ws: Whitespace,
    rules: Vec<(String, Vec<Expr>)>,
    named: HashMap<String, String>,
    pending: Vec<(String, String)>,
    fresh: usize,
}

impl IrWriter<'_> {
    /// An opening bracket with the whitespace the policy allows after it.
    fn open(&self, c: char) -> Expr {
        Expr::Pattern(self.ws.open(c), None)
    }

    /// A closing bracket with the whitespace the policy allows before it.
    fn close(&self, c: char) -> Expr {
        Expr::Pattern(self.ws.close(c), None)
    }

    fn fresh(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}_{}", self.fresh)
    }

    fn rule(&mut self, what: &str, body: Items) -> String {
        let name = self.fresh(what);
        self.rules.push((name.clone(), vec![node(body)]));
        name
    }

    fn expr(&mut self, s: &Shape) -> Result<Items, ShapeError> {
        Ok(match s {
            Shape::Null => vec![literal("null")],
            Shape::Bool => vec![group(vec![vec![literal("true")], vec![literal("false")]])],
            Shape::Integer { min, max } => {
                if min > max {
                    return Err(ShapeError(format!("empty integer range {min}..={max}")));
                }
                vec![Expr::regex(&int_range_regex(*min, *max))]
            }
            Shape::Number => vec![Expr::name("NUMBER")],
            Shape::Number32 => vec![Expr::regex(&finite_f32_number_regex())],
            Shape::Char => vec![Expr::regex(&json_string_regex(CHAR))],
            Shape::String(rules) => vec![self.string(rules)?],
            Shape::Literal(text) => vec![literal(text)],
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
                let comma = Expr::name("_COMMA");
                // `(_COMMA item)`
                let more = || group(vec![[vec![comma.clone()], item.clone()].concat()]);
                let then = |tail: Vec<Expr>| [item.clone(), tail].concat();
                let body = match (*min_items, *max_items) {
                    (0, Some(0)) => None,
                    (0, None) => Some(vec![Expr::opt(group(vec![then(vec![Expr::star(more())])]))]),
                    (0, Some(m)) => Some(vec![Expr::opt(group(vec![then(vec![Expr::Repeat(
                        Box::new(more()),
                        0,
                        repeat_count(m - 1)?,
                    )])]))]),
                    (n, None) => {
                        let n = repeat_count(n - 1)?;
                        Some(then(vec![
                            Expr::Repeat(Box::new(more()), n, n),
                            Expr::star(more()),
                        ]))
                    }
                    (n, Some(m)) => Some(then(vec![Expr::Repeat(
                        Box::new(more()),
                        repeat_count(n - 1)?,
                        repeat_count(m - 1)?,
                    )])),
                };
                let mut out = vec![self.open('[')];
                if let Some(body) = body {
                    out.push(Expr::name(&self.rule("items", body)));
                }
                out.push(self.close(']'));
                out
            }
            Shape::Tuple(items) => {
                let parts = items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut out = vec![self.open('[')];
                for (k, part) in parts.into_iter().enumerate() {
                    if k > 0 {
                        out.push(Expr::name("_COMMA"));
                    }
                    out.extend(part);
                }
                out.push(self.close(']'));
                out
            }
            Shape::Map { values } => {
                let v = self.expr(values)?;
                let colon = Expr::name("_COLON");
                let entry = self.rule("entry", [vec![Expr::name("STRING"), colon], v].concat());
                let comma = Expr::name("_COMMA");
                vec![
                    self.open('{'),
                    Expr::opt(group(vec![vec![
                        Expr::name(&entry),
                        Expr::star(group(vec![vec![comma, Expr::name(&entry)]])),
                    ]])),
                    self.close('}'),
                ]
            }
            Shape::Object(fields) => {
                let (inside, _) = self.fields(fields, false)?;
                [vec![self.open('{')], inside, vec![self.close('}')]].concat()
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
                    alts.push(vec![literal(&json_quote(value)), Expr::name(&after)]);
                }
                let key = literal(&json_quote(tag));
                let colon = Expr::name("_COLON");
                vec![self.open('{'), key, colon, group(alts), self.close('}')]
            }
            Shape::Invalid(why) => return Err(ShapeError(why.clone())),
            Shape::OneOf(alts) => {
                let parts = alts
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>, _>>()?;
                vec![group(parts)]
            }
            Shape::Named(name) => {
                if let Some(rule) = self.named.get(name) {
                    vec![Expr::name(rule)]
                } else {
                    if self.set.get(name).is_none() && !self.set.contains(name) {
                        return Err(ShapeError(format!(
                            "shape `{name}` is used but never defined"
                        )));
                    }
                    let rule = self.fresh("named");
                    self.named.insert(name.clone(), rule.clone());
                    self.pending.push((name.clone(), rule.clone()));
                    vec![Expr::name(&rule)]
                }
            }
        })
    }

    fn string(&mut self, rules: &StringRules) -> Result<Expr, ShapeError> {
        let content = match (&rules.pattern, rules.min_len, rules.max_len) {
            (None, None, None) => return Ok(Expr::name("STRING")),
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
        Ok(Expr::regex(&json_string_regex(&content)))
    }

    /// Rules for `fields` in order inside braces: what may be written first
    /// (nothing yet written), and what may follow after something was
    /// written already (an internal tag).
    fn fields(
        &mut self,
        fields: &[Field],
        after_lead: bool,
    ) -> Result<(Items, String), ShapeError> {
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
        let keys: Vec<Expr> = fields
            .iter()
            .map(|f| {
                let names: Vec<Items> = std::iter::once(&f.name)
                    .chain(&f.aliases)
                    .map(|n| vec![literal(&json_quote(n))])
                    .collect();
                group(names)
            })
            .collect();
        let n = fields.len();
        let id = self.fresh("obj");
        let after = |j: usize| format!("{id}_after{j}");
        let pick = |i: usize| format!("{id}_pick{i}");
        let first_required = |i: usize| (i..n).find(|&k| fields[k].required);
        let colon = Expr::name("_COLON");
        // Emit only the rules reachable from where the object starts.
        let pick_body = |i: usize| {
            // pick(i): write one of the fields i..=next required one.
            let last = first_required(i).unwrap_or(n - 1);
            let alts: Vec<Expr> = (i..=last)
                .map(|m| {
                    let colon = colon.clone();
                    let items = [
                        vec![keys[m].clone(), colon],
                        values[m].clone(),
                        vec![Expr::name(&after(m + 1))],
                    ]
                    .concat();
                    node(items)
                })
                .collect();
            (alts, (i..=last).map(|m| m + 1).collect::<Vec<_>>())
        };
        let after_body = |j: usize| match (j < n, first_required(j).is_some()) {
            (false, _) => Expr::Seq(Vec::new()),
            (true, true) => Expr::Seq(vec![Expr::name("_COMMA"), Expr::name(&pick(j))]),
            (true, false) => Expr::opt(Expr::Seq(vec![Expr::name("_COMMA"), Expr::name(&pick(j))])),
        };
        let (mut picks, mut afters) = (vec![false; n], vec![false; n + 1]);
        let mut work: Vec<(bool, usize)> = Vec::new();
        if after_lead {
            work.push((false, 0));
        } else if n > 0 {
            work.push((true, 0));
        }
        let mut body = Vec::new();
        while let Some((is_pick, i)) = work.pop() {
            if is_pick {
                if !std::mem::replace(&mut picks[i], true) {
                    let (alts, next) = pick_body(i);
                    body.push((pick(i), alts));
                    work.extend(next.into_iter().map(|j| (false, j)));
                }
            } else if !std::mem::replace(&mut afters[i], true) {
                body.push((after(i), vec![after_body(i)]));
                if i < n {
                    work.push((true, i));
                }
            }
        }
        self.rules.extend(body);
        let first = match (n, first_required(0)) {
            (0, _) => Vec::new(),
            (_, None) => vec![Expr::opt(Expr::name(&pick(0)))],
            (_, Some(_)) => vec![Expr::name(&pick(0))],
        };
        Ok((first, after(0)))
    }
}

/// A `~` repetition count.
fn repeat_count(n: usize) -> Result<u32, ShapeError> {
    u32::try_from(n).map_err(|_| ShapeError(format!("{n} repetitions are too many")))
}
