//! [`Node`]s → grammar rules (gcd-core's [`GrammarBuilder`]).
//!
//! One rule per reachable schema location. With [`PropertyOrder::Any`] an
//! object is a gcd-core member set (members in any order, each once; a
//! union of objects splits on the first key, then a member set of the
//! chosen shape's other properties). Otherwise objects list members in schema
//! order: a member rule at position `i` offers every property that may come
//! next (the next ones up to and including the first required one), each
//! key a terminal matching all spellings of that name, so the choice is
//! LL(1) and keys never clash in the lexer. Extra keys (additionalProperties)
//! come after the declared ones, matched by a terminal that excludes every
//! declared name. Arrays count positions up to `maxItems`/prefix length.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use gcd_core::grammar::{Expr, GrammarBuilder, TerminalPattern};
use gcd_core::lexer::{DfaError, TerminalDfa};

use crate::compile::Compiler;
use crate::error::SchemaError;
use crate::node::{ArrayShape, Id, Node, ObjectShape, Property, Scalar};
use crate::options::{PropertyOrder, Whitespace};
use crate::other_keys::other_keys_dfa;
use crate::spell::{other_than, JSON_CHAR};

/// Object unions with members in any order: at most this many members in
/// all (a shape of n properties has n member sets of n - 1).
const MAX_UNION_MEMBERS: usize = 5000;

/// A scalar's alternatives with its single regexes joined into one (one
/// terminal, flat however many values an `enum` lists); intersections and
/// long strings stay apart.
fn joined_alts(s: &Scalar) -> Vec<Vec<String>> {
    let single = |a: &Vec<String>| a.len() == 1 && chunked_string(&a[0]).is_none();
    let singles: Vec<&str> = s
        .alts
        .iter()
        .filter(|a| single(a))
        .map(|a| a[0].as_str())
        .collect();
    let mut out = match &singles[..] {
        [] => vec![],
        [one] => vec![vec![one.to_string()]],
        many => vec![vec![format!("(?:{})", many.join("|"))]],
    };
    out.extend(s.alts.iter().filter(|a| !single(a)).cloned());
    out
}

/// Characters per lexeme of a long string (see `Emitter::long_string`).
const CHUNK: u64 = 64;

/// A string value with a length bound above this is emitted in chunks,
/// though one DFA could hold up to [`LONG_STRING_ABOVE`](crate::node::LONG_STRING_ABOVE):
/// a bound of 500 is a chain of 12,500 states, built (13 MB of table),
/// lexed and proved before the first mask (7 ms), where the chunks' few
/// terminals are the same in every schema and built once per process.
/// Not lower: a budget's plans spell each chunk with tokens of its own, so
/// chunks cost budgeted outputs tokens, and at 128 MaskBench's valid
/// instances refused under 8 tokens of slack went from 8 to 15 (10 at 256,
/// where the common bounds 255 and 256 stay one DFA, shared by every
/// schema that has them).
const CHUNKED_ABOVE: u64 = 4 * CHUNK;

/// The bounds of a string value that [`Emitter::long_string`] spells.
fn chunked_string(regex: &str) -> Option<(u64, Option<u64>)> {
    crate::node::string_bounds(regex)
        .filter(|&(lo, hi)| lo > CHUNKED_ABOVE || hi.is_some_and(|h| h > CHUNKED_ABOVE))
}

pub struct Emitter<'c, 'a> {
    c: &'c mut Compiler<'a>,
    b: GrammarBuilder,
    comma: Expr,
    colon: Expr,
    ws: Whitespace,
    done: FxHashMap<Id, ()>,
    shapes: FxHashMap<Node, Id>,
    queue: VecDeque<Id>,
    key_terminals: FxHashMap<(String, i32), String>,
    order: PropertyOrder,
}

fn rule(id: Id) -> String {
    format!("v{id}")
}

impl<'c, 'a> Emitter<'c, 'a> {
    pub fn new(c: &'c mut Compiler<'a>, ws: Whitespace, order: PropertyOrder) -> Self {
        let mut b = GrammarBuilder::new();
        if let Some(ignored) = ws.ignored() {
            b.ignore_pattern(ignored, None);
        }
        Emitter {
            c,
            b,
            comma: Expr::Pattern(ws.comma(), None),
            colon: Expr::Pattern(ws.colon(), None),
            ws,
            done: FxHashMap::default(),
            shapes: FxHashMap::default(),
            queue: VecDeque::new(),
            key_terminals: FxHashMap::default(),
            order,
        }
    }

    fn want(&mut self, id: Id) -> Expr {
        if self.done.insert(id, ()).is_none() {
            self.queue.push_back(id);
        }
        Expr::name(&rule(id))
    }

    /// Emits the rules reachable from `root` and returns the builder.
    pub fn run(mut self, root: Id) -> Result<GrammarBuilder, SchemaError> {
        self.b.rule("start", vec![Expr::name(&rule(root))]);
        self.want(root);
        while let Some(id) = self.queue.pop_front() {
            let n = self.c.node(id)?;
            if n.is_empty() {
                return Err(SchemaError::unsatisfiable(
                    &self.c.pointer(id),
                    "no JSON value matches this schema",
                ));
            }
            // Structurally equal nodes (same parts, same children) share
            // one set of rules.
            if let Some(&same) = self.shapes.get(&n) {
                self.b.rule(&rule(id), vec![Expr::name(&rule(same))]);
                continue;
            }
            self.shapes.insert(n.clone(), id);
            let alts = self.alternatives(id, &n)?;
            if alts.is_empty() {
                return Err(SchemaError::unsatisfiable(
                    &self.c.pointer(id),
                    "no JSON value matches this schema",
                ));
            }
            self.b.rule(&rule(id), alts);
        }
        Ok(self.b)
    }

    /// A key terminal that wins lexer ties by `priority` (pattern keys
    /// over other extra keys), one per (regex, priority).
    fn key_terminal(&mut self, keys: &str, priority: i32) -> Expr {
        let n = self.key_terminals.len();
        let name = self
            .key_terminals
            .entry((keys.to_string(), priority))
            .or_insert_with(|| format!("KEY{n}"))
            .clone();
        if !self.b.has_terminal(&name) {
            let pattern = TerminalPattern::Regex(format!("\"{keys}\""));
            self.b.terminal_full(&name, pattern, priority, None);
        }
        Expr::name(&name)
    }

    /// A bracket with the whitespace the policy puts beside it.
    fn bracket(&self, pattern: TerminalPattern) -> Expr {
        Expr::Pattern(pattern, None)
    }

    fn lit(&self, s: &str) -> Expr {
        Expr::literal(s)
    }

    fn alternatives(&mut self, id: Id, n: &Node) -> Result<Vec<Expr>, SchemaError> {
        let n = &self.prune_arrays(n)?;
        let mut alts = Vec::new();
        if n.null {
            alts.push(self.lit("null"));
        }
        if n.t {
            alts.push(self.lit("true"));
        }
        if n.f {
            alts.push(self.lit("false"));
        }
        for s in [&n.number, &n.string].into_iter().flatten() {
            for a in &joined_alts(s) {
                if let [re] = &a[..] {
                    if let Some((lo, hi)) = chunked_string(re) {
                        alts.push(self.long_string(lo, hi));
                        continue;
                    }
                }
                let (expr, dfa) = match &a[..] {
                    [re] => (Expr::regex(re), TerminalDfa::new(re)),
                    _ => (
                        Expr::Pattern(TerminalPattern::Intersection(a.clone()), None),
                        TerminalDfa::intersection(a),
                    ),
                };
                // Constraints no spelling meets (`minLength` above
                // `maxLength`, a pattern outside a format) allow nothing.
                if dfa != Err(DfaError::NeverMatches) {
                    alts.push(expr);
                }
            }
        }
        if let Some(a) = &n.array {
            let name = format!("a{id}");
            self.array(&name, a, id)?;
            alts.push(Expr::name(&name));
        }
        // A property whose schema allows nothing may only be absent; an
        // object needing it is impossible.
        let mut objects = Vec::new();
        for o in n.object.iter().chain(&n.more_objects) {
            let mut o = o.clone();
            let mut possible = true;
            let mut keep = Vec::new();
            for p in o.props.drain(..) {
                if self.c.node(p.schema)?.is_empty() {
                    possible &= !p.required;
                } else {
                    keep.push(p);
                }
            }
            o.props = keep;
            // At least one member, and none can come: impossible.
            possible &= !(o.nonempty
                && o.props.is_empty()
                && o.patterns.is_empty()
                && o.additional.is_none());
            if possible {
                objects.push(o);
            }
        }
        let objects = self.shared_keys(objects, id)?;
        if self.order == PropertyOrder::Any && !objects.is_empty() {
            let name = format!("o{id}");
            let body = match &objects[..] {
                [(o, _)] => self.member_set(&format!("{name}_s"), &o.props, o, o.nonempty, &[]),
                _ => self.object_union(&name, &objects),
            };
            self.b.rule(
                &name,
                vec![Expr::seq(vec![
                    self.bracket(self.ws.open('{')),
                    body,
                    self.bracket(self.ws.close('}')),
                ])],
            );
            alts.push(Expr::name(&name));
        } else if !objects.is_empty() {
            // Several object shapes share one rule: their first members sit
            // side by side, so gcd-core's left factoring can split them on
            // the first key (or on a shared tag key's value).
            let mut empty = false;
            let mut first = Vec::new();
            for (k, (o, foreign)) in objects.iter().enumerate() {
                let (e, m0) = self.object(&format!("o{id}_{k}"), o, foreign);
                empty |= e && !o.nonempty;
                first.extend(m0);
            }
            let name = format!("o{id}");
            let mut oalts = Vec::new();
            if empty {
                oalts.push(self.bracket(self.ws.close('}')));
            }
            if !first.is_empty() {
                self.b.rule(&format!("{name}_m0"), first);
                oalts.push(Expr::seq(vec![
                    Expr::name(&format!("{name}_m0")),
                    self.bracket(self.ws.close('}')),
                ]));
            }
            self.b.rule(&format!("{name}_b"), oalts);
            self.b.rule(
                &name,
                vec![Expr::seq(vec![
                    self.bracket(self.ws.open('{')),
                    Expr::name(&format!("{name}_b")),
                ])],
            );
            alts.push(Expr::name(&name));
        }
        Ok(alts)
    }

    /// Items whose schema allows nothing end the array there.
    fn prune_arrays(&mut self, n: &Node) -> Result<Node, SchemaError> {
        let mut n = n.clone();
        if let Some(a) = &mut n.array {
            if let Some(i) = a
                .prefix
                .iter()
                .position(|&p| self.c.node(p).is_ok_and(|x| x.is_empty()))
            {
                a.prefix.truncate(i);
                a.items = None;
            }
            if let Some(it) = a.items {
                if self.c.node(it)?.is_empty() {
                    a.items = None;
                }
            }
            if a.items.is_none() {
                let k = a.prefix.len() as u64;
                a.max = Some(a.max.map_or(k, |m| m.min(k)));
            }
            if a.max.is_some_and(|m| m < a.min) {
                n.array = None;
            }
        }
        Ok(n)
    }

    fn array(&mut self, name: &str, a: &ArrayShape, id: Id) -> Result<(), SchemaError> {
        let k = a.prefix.len() as u64;
        let elem = |s: &mut Self, i: u64| -> Option<Expr> {
            if i < k {
                Some(s.want(a.prefix[i as usize]))
            } else {
                a.items.map(|x| s.want(x))
            }
        };
        let open = self.bracket(self.ws.open('['));
        let close = self.bracket(self.ws.close(']'));
        let last = a.max.unwrap_or(k.max(a.min));
        // The rule count grows with the positions spelled out.
        let max = self.c.limits.max_array_positions;
        if a.min.max(last) > max {
            return Err(SchemaError::unsupported(
                if a.min > max { "minItems" } else { "maxItems" },
                &self.c.pointer(id),
                format!(
                    "more than {max} array positions (the limit `Limits::max_array_positions`)"
                ),
            ));
        }
        // t{i}: the rest after i elements (only if an element can come).
        let tail = |i: u64| format!("{name}_t{i}");
        let first = if a.max == Some(0) {
            None
        } else {
            elem(self, 0)
        };
        let mut i = 1;
        while first.is_some() {
            let can_stop = i >= a.min;
            let more = if a.max.is_some_and(|m| i >= m) {
                None
            } else {
                elem(self, i)
            };
            if a.max.is_none() && i >= k && i >= a.min {
                // Unbounded homogeneous tail.
                let body = match more {
                    Some(e) => Expr::star(Expr::seq(vec![self.comma.clone(), e])),
                    None => Expr::seq(vec![]),
                };
                self.b.rule(&tail(i), vec![body]);
                break;
            }
            let mut alts = Vec::new();
            if let Some(e) = more.clone() {
                alts.push(Expr::seq(vec![
                    self.comma.clone(),
                    e,
                    Expr::name(&tail(i + 1)),
                ]));
            }
            if can_stop || more.is_none() {
                alts.push(Expr::seq(vec![]));
            }
            self.b.rule(&tail(i), alts);
            if more.is_none() {
                break;
            }
            i += 1;
        }
        // Factored by hand (`[` then `]` or the elements): keeps gcd-core's
        // left factoring out of it, which is costly on large grammars.
        let mut alts = Vec::new();
        if a.min == 0 {
            alts.push(close.clone());
        }
        if let Some(e0) = first {
            alts.push(Expr::seq(vec![e0, Expr::name(&tail(1)), close]));
        }
        let body = format!("{name}_b");
        self.b.rule(&body, alts);
        self.b
            .rule(name, vec![Expr::seq(vec![open, Expr::name(&body)])]);
        Ok(())
    }

    /// `props` of an object shape in any order (gcd-core's member set),
    /// each at most once, and `o`'s extra keys any number of times.
    fn member_set(
        &mut self,
        set: &str,
        props: &[Property],
        o: &ObjectShape,
        nonempty: bool,
        foreign: &[String],
    ) -> Expr {
        let members: Vec<_> = (props.iter())
            .map(|p| (self.member(&p.name, p.schema), p.required))
            .collect();
        let mut repeatable: Vec<_> = (self.extra_keys(o).iter())
            .map(|(k, a)| self.keyed_member(k, *a))
            .collect();
        // Extra keys that another shape of a union declares: their own
        // literal terminals (see `shared_keys`).
        if let Some(a) = o.additional {
            for name in foreign {
                repeatable.push(self.member(name, a));
            }
        }
        if members.is_empty() && repeatable.is_empty() {
            return Expr::seq(vec![]); // only `{}`
        }
        let comma = self.comma.clone();
        self.b.member_set(set, members, repeatable, comma, nonempty);
        Expr::name(set)
    }

    /// `"name": value`.
    fn member(&mut self, name: &str, schema: Id) -> Expr {
        let key = Expr::regex(&crate::spell::quoted(name, self.c.esc));
        self.keyed_member(&key, schema)
    }

    /// `KEY: value` for a key terminal.
    fn keyed_member(&mut self, key: &Expr, schema: Id) -> Expr {
        let v = self.want(schema);
        Expr::seq(vec![key.clone(), self.colon.clone(), v])
    }

    /// The object shapes of one value, each with the names it takes as
    /// extra keys through their own literals. All shapes lex their first
    /// key in the context they share before the parser forks, where two
    /// different key terminals matching one key would tie and the lexer
    /// would pick one shape for it. So with several shapes every name some
    /// shape declares (a `false` one too, as `not: {required: [..]}`
    /// makes) lexes as its literal, every "any other key" excludes them all
    /// (one terminal for all shapes), and a shape that takes such a name
    /// as an extra key gets a member for that literal. Pattern keys cannot
    /// be rewritten that way: a union where they overlap another shape's
    /// keys is refused.
    fn shared_keys(
        &mut self,
        objects: Vec<ObjectShape>,
        id: Id,
    ) -> Result<Vec<(ObjectShape, Vec<String>)>, SchemaError> {
        if objects.len() < 2 {
            return Ok(objects.into_iter().map(|o| (o, Vec::new())).collect());
        }
        let mut seen = std::collections::HashSet::new();
        let keys: Vec<String> = (objects.iter())
            .flat_map(|o| o.props.iter().map(|p| &p.name).chain(&o.reserved))
            .filter(|k| seen.insert(k.as_str()))
            .cloned()
            .collect();
        let mut out = Vec::new();
        for mut o in objects {
            let mut foreign = Vec::new();
            if o.additional.is_some() && o.patterns.is_empty() {
                foreign = (keys.iter())
                    .filter(|k| !o.reserved.contains(k))
                    .cloned()
                    .collect();
                o.reserved.extend(foreign.iter().cloned());
            }
            out.push((o, foreign));
        }
        if out.iter().any(|(o, _)| !o.patterns.is_empty()) {
            self.check_pattern_keys_apart(&out, id)?;
        }
        Ok(out)
    }

    /// Refuses a union with pattern keys where two shapes' key terminals
    /// differ but match a common key (see `shared_keys`): a shape with
    /// patterns keeps its own "any other key", so its patterns and that
    /// terminal are checked against every key terminal of the others.
    fn check_pattern_keys_apart(
        &mut self,
        shapes: &[(ObjectShape, Vec<String>)],
        id: Id,
    ) -> Result<(), SchemaError> {
        let esc = self.c.esc;
        // Per shape, its key terminals: (regex, DFA, whether it spells one
        // name; two names never overlap). The DFAs come from the cache the
        // terminals will be compiled from.
        let keys = |o: &ObjectShape, foreign: &[String]| {
            let mut keys = Vec::new();
            for k in o.props.iter().map(|p| &p.name).chain(foreign) {
                let re = crate::spell::quoted(k, esc);
                keys.push((TerminalDfa::new(&re), re, true));
            }
            for p in &o.patterns {
                let re = format!("\"{}\"", p.keys);
                keys.push((TerminalDfa::new(&re), re, false));
            }
            if o.additional.is_some() {
                let names: Vec<&str> = o.reserved.iter().map(String::as_str).collect();
                let re = format!("\"{}\"", other_than(&names, esc));
                let dfa = TerminalDfa::new_with(&re, || other_keys_dfa(&names, esc));
                keys.push((dfa, re, false));
            }
            keys
        };
        let keys: Vec<_> = shapes.iter().map(|(o, foreign)| keys(o, foreign)).collect();
        for (i, (a, _)) in shapes.iter().enumerate() {
            if a.patterns.is_empty() {
                continue;
            }
            for (j, other) in keys.iter().enumerate() {
                if i == j {
                    continue;
                }
                for (da, ra, name_a) in &keys[i] {
                    for (db, rb, name_b) in other {
                        if ra == rb || (*name_a && *name_b) {
                            continue;
                        }
                        // A DFA that cannot be built (too large) counts as
                        // overlapping; one that matches nothing does not.
                        let overlap = match (da, db) {
                            (Ok(da), Ok(db)) => da.overlaps(db),
                            (Err(DfaError::NeverMatches), _) | (_, Err(DfaError::NeverMatches)) => {
                                false
                            }
                            _ => true,
                        };
                        if overlap {
                            return Err(SchemaError::unsupported(
                                "patternProperties",
                                &self.c.pointer(id),
                                "object branches of a union whose keys overlap where one \
                                 branch has pattern keys"
                                    .to_string(),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Several object shapes with members in any order. When the first key
    /// tells the shape (declared by that shape only, no extra keys
    /// anywhere), each shape's alternatives start with their own first key
    /// and the grammar stays LL(1); that grows with the square of a
    /// shape's property count. Otherwise each shape is its own member set
    /// and the parser forks at the first key until the shapes part.
    fn object_union(&mut self, name: &str, objects: &[(ObjectShape, Vec<String>)]) -> Expr {
        let mut owner: FxHashMap<&str, usize> = FxHashMap::default();
        let mut size = 0;
        let mut by_first_key = true;
        for (i, (o, _)) in objects.iter().enumerate() {
            by_first_key &= o.additional.is_none() && o.patterns.is_empty();
            for p in &o.props {
                by_first_key &= !owner.insert(&p.name, i).is_some_and(|j| j != i);
            }
            size += o.props.len() * o.props.len();
        }
        if !by_first_key || size > MAX_UNION_MEMBERS {
            let alts = (objects.iter().enumerate())
                .map(|(i, (o, foreign))| {
                    self.member_set(&format!("{name}_{i}_s"), &o.props, o, o.nonempty, foreign)
                })
                .collect();
            let body = format!("{name}_b");
            self.b.rule(&body, alts);
            return Expr::name(&body);
        }
        let mut alts = Vec::new();
        if objects
            .iter()
            .any(|(o, _)| !o.nonempty && !o.props.iter().any(|p| p.required))
        {
            alts.push(Expr::seq(vec![]));
        }
        for (i, (o, _)) in objects.iter().enumerate() {
            for (k, first) in o.props.iter().enumerate() {
                let mut others = o.props.clone();
                others.remove(k);
                let rest = format!("{name}_{i}_{k}");
                let mut rest_alts = Vec::new();
                if !others.is_empty() {
                    let set = self.member_set(&format!("{rest}_s"), &others, o, true, &[]);
                    rest_alts.push(Expr::seq(vec![self.comma.clone(), set]));
                }
                if !others.iter().any(|p| p.required) {
                    rest_alts.push(Expr::seq(vec![]));
                }
                self.b.rule(&rest, rest_alts);
                let member = self.member(&first.name, first.schema);
                alts.push(Expr::seq(vec![member, Expr::name(&rest)]));
            }
        }
        let body = format!("{name}_b");
        self.b.rule(&body, alts);
        Expr::name(&body)
    }

    /// A JSON string of `lo..=hi` characters (no upper bound for `None`),
    /// too long for one terminal's DFA: below [`CHUNK`] characters one
    /// lexeme; else the quote and [`CHUNK`] characters, then chunks of
    /// [`CHUNK`] counted by a chain of tight rules (no whitespace between
    /// chunks), then the last few characters with the closing quote.
    /// Maximal munch splits any string the one way: a lexeme ends only at
    /// the chunk size or at the quote. Rules grow with `hi / CHUNK`.
    fn long_string(&mut self, lo: u64, hi: Option<u64>) -> Expr {
        let name = format!("ls{lo}_{}", hi.map_or("n".to_string(), |h| h.to_string()));
        if self.b.has_rule(&name) {
            return Expr::name(&name);
        }
        let chars = |a: u64, b: u64| format!("{JSON_CHAR}{{{a},{b}}}");
        let step = |c: u64| format!("{name}_{c}");
        let mut top = Vec::new();
        let short_hi = hi.map_or(CHUNK - 1, |h| h.min(CHUNK - 1));
        if lo <= short_hi {
            top.push(Expr::regex(&format!("\"{}\"", chars(lo, short_hi))));
        }
        if hi.is_none_or(|h| h >= CHUNK) {
            // Rule `c`: `CHUNK * (c + 1)` characters read.
            let last = match hi {
                Some(h) => h / CHUNK - 1,
                None => lo.div_ceil(CHUNK),
            };
            for c in 0..=last {
                let done = CHUNK * (c + 1);
                let mut alts = Vec::new();
                if hi.is_none_or(|h| done + CHUNK <= h) {
                    let next = if c == last { c } else { c + 1 };
                    alts.push(Expr::seq(vec![
                        Expr::regex(&chars(CHUNK, CHUNK)),
                        Expr::name(&step(next)),
                    ]));
                }
                let (a, b) = (
                    lo.saturating_sub(done),
                    hi.map_or(CHUNK - 1, |h| (h - done).min(CHUNK - 1)),
                );
                if a <= b {
                    alts.push(Expr::regex(&format!("{}\"", chars(a, b))));
                }
                self.b.rule(&step(c), alts);
                self.b.tight(&step(c));
            }
            top.push(Expr::seq(vec![
                Expr::regex(&format!("\"{}", chars(CHUNK, CHUNK))),
                Expr::name(&step(0)),
            ]));
        }
        self.b.rule(&name, top);
        Expr::name(&name)
    }

    /// Extra keys' terminals and value schemas: each pattern's, then any
    /// other key's (additionalProperties).
    fn extra_keys(&mut self, o: &ObjectShape) -> Vec<(Expr, Id)> {
        let esc = self.c.esc;
        let mut extras: Vec<(Expr, Id)> = Vec::new();
        for p in &o.patterns {
            extras.push((self.key_terminal(&p.keys, p.priority), p.schema));
        }
        if let Some(a) = o.additional {
            let names: Vec<&str> = o.reserved.iter().map(String::as_str).collect();
            let regex = format!("\"{}\"", other_than(&names, esc));
            // Determinizing this regex was most of a schema's compile time;
            // its table is built directly and cached under the regex.
            let _ = TerminalDfa::new_with(&regex, || other_keys_dfa(&names, esc));
            extras.push((Expr::regex(&regex), a));
        }
        extras
    }

    /// Emits an object shape's member rules; returns whether `{}` is
    /// allowed and the alternatives of its first member.
    #[allow(clippy::needless_range_loop)] // positions index several tables
    fn object(&mut self, name: &str, o: &ObjectShape, foreign: &[String]) -> (bool, Vec<Expr>) {
        let n = o.props.len();
        let mut extras = self.extra_keys(o);
        // Extra keys that another shape of a union declares: their own
        // literal terminals (see `shared_keys`).
        if let Some(a) = o.additional {
            for name in foreign {
                extras.push((Expr::regex(&crate::spell::quoted(name, self.c.esc)), a));
            }
        }
        let m = |i: usize| format!("{name}_m{i}");
        let t = |i: usize| format!("{name}_t{i}");
        let x = format!("{name}_x");
        let req_from: Vec<bool> = (0..=n)
            .map(|i| o.props[i..].iter().any(|p| p.required))
            .collect();
        let comma = self.comma.clone();
        let mut first = Vec::new();
        for i in 0..=n {
            // m{i}: one member chosen among the properties from position i
            // on. m0 lists every candidate (so unions of objects can be
            // factored on the first key); later ones chain `KEY_i ... |
            // m{i+1}` — LL(1) because keys are disjoint, and linear in size.
            let mut alts = Vec::new();
            for j in i..n {
                let p = &o.props[j];
                let member = self.member(&p.name, p.schema);
                alts.push(Expr::seq(vec![member, Expr::name(&t(j + 1))]));
                if p.required {
                    break;
                }
                if i > 0 {
                    // m{n} exists only when extra keys are allowed.
                    if j + 1 < n || !extras.is_empty() {
                        alts.push(Expr::name(&m(j + 1)));
                    }
                    break;
                }
            }
            let chained = i > 0 && i < n && !o.props[i].required;
            if !req_from[i] && !chained {
                for (k, a) in &extras {
                    let member = self.keyed_member(k, *a);
                    alts.push(Expr::seq(vec![member, Expr::name(&x)]));
                }
            }
            let has_m = !alts.is_empty();
            if i == 0 {
                first = alts;
                continue;
            }
            if has_m {
                self.b.rule(&m(i), alts);
            }
            // t{i}: after some member, before position i.
            let mut talts = Vec::new();
            if has_m {
                talts.push(Expr::seq(vec![comma.clone(), Expr::name(&m(i))]));
            }
            if !req_from[i] {
                talts.push(Expr::seq(vec![]));
            }
            self.b.rule(&t(i), talts);
        }
        if !extras.is_empty() {
            let mut one = Vec::new();
            for (k, a) in &extras {
                one.push(self.keyed_member(k, *a));
            }
            let member = Expr::seq(vec![comma.clone(), Expr::alt(one)]);
            self.b.rule(&x, vec![Expr::star(member)]);
        }
        (!req_from[0], first)
    }
}
