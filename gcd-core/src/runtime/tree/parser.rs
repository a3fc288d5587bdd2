//! The tree parser: the engine's lexing and LL(1) parsing run over a whole
//! input, with a stack of open rule frames beside the parser stack that
//! turns the derivation into the tree shape described in the parent module.

use std::collections::HashMap;
use std::ops::Range;

use super::{Lexeme, LexemeRole, Node, ParseError, ParseErrorKind, ParseOutput};
use crate::compiled::CompiledGrammar;
use crate::grammar::TermSet;
use crate::grammar::{Grammar, NtId, ProdId, RuleKind, Symbol, TermId, Terminal, TerminalPattern};
use crate::lexer::DEAD;
use crate::parser::encode;

/// Whether tokens of terminal `t` appear in parse trees: not for hidden
/// terminals (`_NAME`) nor anonymous literals, as in Lark (a special token
/// written in a rule is one too).
pub fn is_kept_in_tree(grammar: &Grammar, t: TermId) -> bool {
    let term: &Terminal = grammar.terminal(t);
    !(term.hidden
        || term.ignored
        || (term.name.starts_with("__ANON")
            && matches!(
                term.pattern,
                TerminalPattern::Literal { .. } | TerminalPattern::Special(_)
            )))
}

// ---------------------------------------------------------------------------
// The builder.

#[derive(Clone, Copy, Debug)]
enum Work {
    Sym(Symbol),
    /// Closes the innermost open frame.
    Close,
}

/// A piece of a frame's content.
#[derive(Debug)]
enum Item {
    Node(Node),
    /// A token left out of the tree; kept for spans until a node takes it.
    Filtered(Range<usize>),
    /// A finished left-recursion tail: its levels, outermost last.
    Tail {
        tail: NtId,
        levels: Vec<Level>,
    },
}

/// One `A: A α` step of a left-recursion tail: `α`'s content and its alias.
#[derive(Debug)]
struct Level {
    alias: Option<String>,
    items: Vec<Item>,
}

struct Frame {
    /// `None` for the root, which collects the start rule's output.
    nt: Option<NtId>,
    alias: Option<String>,
    /// The production taken was `<empty>`.
    empty: bool,
    items: Vec<Item>,
    /// Where an empty node would sit: the end of the previous lexeme.
    begin: usize,
}

pub(super) struct TreeParser<'g> {
    g: &'g CompiledGrammar,
    input: &'g [u8],
    /// For each tail rule, the rule it continues.
    tail_owner: Vec<Option<NtId>>,
    kept: Vec<bool>,
    work: Vec<Work>,
    frames: Vec<Frame>,
    lexemes: Option<Vec<Lexeme>>,
    prev_end: usize,
    /// On a generalized grammar: the alternative to take at each
    /// conflicting cell still ahead (see [`super::choices`]).
    forced: std::collections::VecDeque<u32>,
    ambiguous: bool,
}

impl<'g> TreeParser<'g> {
    pub(super) fn new(g: &'g CompiledGrammar, input: &'g [u8], record: bool) -> Self {
        let gr = &g.grammar;
        let by_name: HashMap<&str, NtId> = gr
            .nonterminals
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), NtId(i as u32)))
            .collect();
        let mut tail_owner = vec![None; gr.nonterminals.len()];
        for (rule, tail) in g.report.tails() {
            if let (Some(&r), Some(&t)) = (by_name.get(rule), by_name.get(tail)) {
                if r != t {
                    tail_owner[t.index()] = Some(r);
                }
            }
        }
        let kept = (0..gr.terminals.len())
            .map(|t| is_kept_in_tree(gr, TermId(t as u32)))
            .collect();
        TreeParser {
            g,
            input,
            tail_owner,
            kept,
            work: vec![Work::Sym(Symbol::N(gr.start))],
            frames: vec![Frame {
                nt: None,
                alias: None,
                empty: false,
                items: Vec::new(),
                begin: 0,
            }],
            lexemes: record.then(Vec::new),
            prev_end: 0,
            forced: Default::default(),
            ambiguous: false,
        }
    }

    /// The parser stack (symbols only), top first, encoded as in [`crate::parser`].
    fn stack_top_down(&self) -> impl Iterator<Item = u32> + '_ {
        self.work.iter().rev().filter_map(|w| match w {
            Work::Sym(s) => Some(encode(*s)),
            Work::Close => None,
        })
    }

    fn acceptable(&self) -> TermSet {
        self.g.parse.acceptable_top_down(self.stack_top_down())
    }

    pub(super) fn run(mut self) -> Result<ParseOutput, ParseError> {
        let unsupported = if self.g.parse.has_sets() {
            Some("with member lists in any order")
        } else if self.g.lexing() == crate::compiled::Lexing::Dynamic {
            Some("lexed dynamically")
        } else {
            None
        };
        if let Some(why) = unsupported {
            let mut e = self.error(ParseErrorKind::UnsupportedGrammar, 0, None, Vec::new());
            e.found = Some(why.to_string());
            return Err(e);
        }
        if !self.g.is_ll1() {
            let Some(c) = super::choices::choose(self.g, self.input) else {
                return Err(self.error(ParseErrorKind::TooAmbiguous, 0, None, Vec::new()));
            };
            if !c.accepted {
                // Report where the last derivation dies, byte-exact.
                let (at, next) = super::choices::dead_end(self.g, self.input);
                let expected = self.expected_names(&next);
                let kind = if at == self.input.len() {
                    ParseErrorKind::UnexpectedEnd
                } else {
                    ParseErrorKind::UnexpectedByte
                };
                return Err(self.error(kind, at, None, expected));
            }
            self.forced = c.decisions.into();
            self.ambiguous = c.ambiguous;
        }
        let input = self.input;
        let len = input.len();
        let lx = &self.g.lexer;
        let mut i = 0;
        while i < len {
            let top = self.stack_top_down().next();
            let start = self.g.start_state_top_down(top, || self.stack_top_down());
            let mut s = start;
            let mut j = i;
            if s != DEAD {
                while j < len {
                    let next = lx.next(s, input[j]);
                    if next == DEAD {
                        break;
                    }
                    s = next;
                    j += 1;
                }
            }
            if j == i {
                let expected = self.expected_names(&self.acceptable());
                return Err(self.error(ParseErrorKind::UnexpectedByte, i, None, expected));
            }
            let Some(w) = lx.winner(s) else {
                // The terminals this lexeme could still have become.
                let mut alive = TermSet::new(self.g.parse.n_terms);
                for &t in &lx.alive[s as usize] {
                    if !self.g.is_ignored(t) {
                        alive.insert(t as usize);
                    }
                }
                let set = if alive.is_empty() {
                    self.acceptable()
                } else {
                    alive
                };
                let expected = self.expected_names(&set);
                let kind = if j == len {
                    ParseErrorKind::UnexpectedEnd
                } else {
                    ParseErrorKind::InvalidLexeme
                };
                return Err(self.error(kind, j, Some(i..j), expected));
            };
            let role = if self.g.is_ignored(w) {
                LexemeRole::Ignored
            } else {
                let acceptable = self.acceptable();
                if !acceptable.contains(w as usize) || !self.shift(TermId(w), i..j) {
                    let expected = self.expected_names(&acceptable);
                    return Err(self.error(
                        ParseErrorKind::UnexpectedToken,
                        i,
                        Some(i..j),
                        expected,
                    ));
                }
                let in_tree = matches!(
                    self.frames.last().and_then(|f| f.items.last()),
                    Some(Item::Node(Node::Token { .. }))
                );
                if in_tree {
                    LexemeRole::Tree
                } else {
                    LexemeRole::Filtered
                }
            };
            if let Some(l) = &mut self.lexemes {
                l.push(Lexeme {
                    terminal: TermId(w),
                    span: i..j,
                    role,
                });
            }
            i = j;
        }
        if !self.g.parse.accepts_end_top_down(self.stack_top_down()) || !self.finish_at_end() {
            let expected = self.expected_names(&self.acceptable());
            return Err(self.error(ParseErrorKind::UnexpectedEnd, len, None, expected));
        }
        let root = self.frames.pop().expect("the root frame");
        let items = flatten_tails(root.items);
        let tree = if items.iter().filter(|i| matches!(i, Item::Node(_))).count() == 1 {
            items
                .into_iter()
                .find_map(Item::into_node)
                .expect("one node")
        } else {
            let gr = &self.g.grammar;
            rule_node(gr.nonterminal(gr.start).name.clone(), items, 0)
        };
        Ok(ParseOutput {
            tree,
            lexemes: self.lexemes.unwrap_or_default(),
            ambiguous: self.ambiguous,
        })
    }

    /// Whether the innermost rule written by the user (generated frames are
    /// spliced into it) is a Lark `!rule`.
    fn owner_keeps_all_tokens(&self) -> bool {
        let gr = &self.g.grammar;
        self.frames
            .iter()
            .rev()
            .filter_map(|f| f.nt)
            .map(|nt| gr.nonterminal(nt))
            .find(|n| n.kind != RuleKind::Generated)
            .is_some_and(|n| n.keep_all_tokens)
    }

    /// Expands the stack until `t` is on top and pops it into the tree.
    fn shift(&mut self, t: TermId, span: Range<usize>) -> bool {
        let la = t.index();
        loop {
            match self.work.pop() {
                None => return false,
                Some(Work::Close) => self.close(),
                Some(Work::Sym(Symbol::T(x))) => {
                    if x != t {
                        return false;
                    }
                    let item = if self.kept[la] || self.owner_keeps_all_tokens() {
                        let text = String::from_utf8_lossy(&self.input[span.clone()]).into_owned();
                        let terminal = self.g.grammar.terminal(t).name.clone();
                        Item::Node(Node::Token {
                            terminal,
                            text,
                            span: span.clone(),
                        })
                    } else {
                        Item::Filtered(span.clone())
                    };
                    self.frames.last_mut().expect("root frame").items.push(item);
                    self.prev_end = span.end;
                    return true;
                }
                Some(Work::Sym(Symbol::N(a))) => {
                    if !self.open(a, la) {
                        return false;
                    }
                }
            }
        }
    }

    /// Expands what is left with the end of input as lookahead.
    fn finish_at_end(&mut self) -> bool {
        let end = self.g.parse.n_terms;
        loop {
            match self.work.pop() {
                None => return true,
                Some(Work::Close) => self.close(),
                Some(Work::Sym(Symbol::T(_))) => return false,
                Some(Work::Sym(Symbol::N(a))) => {
                    if !self.open(a, end) {
                        return false;
                    }
                }
            }
        }
    }

    fn open(&mut self, a: NtId, lookahead: usize) -> bool {
        let p = match self.g.table.get_all(a, lookahead) {
            [] => return false,
            [p] => ProdId(*p),
            alts => {
                let k = self.forced.pop_front().unwrap_or(0) as usize;
                ProdId(*alts.get(k).unwrap_or(&alts[0]))
            }
        };
        let prod = self.g.grammar.production(p);
        self.frames.push(Frame {
            nt: Some(a),
            alias: prod.alias.clone(),
            empty: prod.rhs.is_empty(),
            items: Vec::new(),
            begin: self.prev_end,
        });
        self.work.push(Work::Close);
        self.work
            .extend(prod.rhs.iter().rev().map(|&s| Work::Sym(s)));
        true
    }

    /// Finishes the innermost frame into its parent.
    fn close(&mut self) {
        let frame = self.frames.pop().expect("a frame per Close");
        let (items, alias) = self.finish(frame);
        let parent = self
            .frames
            .last_mut()
            .expect("the root frame outlives every rule");
        parent.items.extend(items);
        if alias.is_some() {
            parent.alias = alias;
        }
    }

    /// A frame's contribution to its parent, and an alias for the parent
    /// (from a Generated rule's production: it renames the enclosing node).
    fn finish(&self, frame: Frame) -> (Vec<Item>, Option<String>) {
        let nt = frame.nt.expect("only rule frames are closed");
        let gr = &self.g.grammar;
        let mut items = frame.items;
        if self.tail_owner[nt.index()].is_some() {
            // A tail: one level per `α A'`, its own continuation last.
            let cont = match items.last() {
                Some(Item::Tail { tail, .. }) if *tail == nt => match items.pop() {
                    Some(Item::Tail { levels, .. }) => levels,
                    _ => unreachable!(),
                },
                _ => Vec::new(),
            };
            let items = flatten_tails(items);
            let mut levels = Vec::with_capacity(cont.len() + 1);
            if !frame.empty {
                levels.push(Level {
                    alias: frame.alias,
                    items,
                });
            }
            levels.extend(cont);
            return (vec![Item::Tail { tail: nt, levels }], None);
        }
        let levels = match items.last() {
            Some(Item::Tail { tail, .. }) if self.tail_owner[tail.index()] == Some(nt) => {
                match items.pop() {
                    Some(Item::Tail { levels, .. }) => levels,
                    _ => unreachable!(),
                }
            }
            _ => Vec::new(),
        };
        let kind = gr.nonterminal(nt).kind;
        if kind == RuleKind::Generated {
            // Transparent: other rules' tails pass through to the enclosing node.
            for l in levels {
                items.extend(l.items);
            }
            return (items, frame.alias);
        }
        let mut cur = self.build(nt, kind, frame.alias, flatten_tails(items), frame.begin);
        for l in levels {
            cur.extend(l.items);
            cur = self.build(nt, kind, l.alias, cur, frame.begin);
        }
        (cur, None)
    }

    /// The node(s) for rule `nt` with this content.
    fn build(
        &self,
        nt: NtId,
        kind: RuleKind,
        alias: Option<String>,
        items: Vec<Item>,
        begin: usize,
    ) -> Vec<Item> {
        match kind {
            RuleKind::Hidden | RuleKind::Generated => return items,
            RuleKind::InlineSingle
                if alias.is_none()
                    && items.iter().filter(|i| matches!(i, Item::Node(_))).count() == 1 =>
            {
                return items
            }
            _ => {}
        }
        let name = alias.unwrap_or_else(|| self.g.grammar.nonterminal(nt).name.clone());
        vec![Item::Node(rule_node(name, items, begin))]
    }

    fn expected_names(&self, set: &TermSet) -> Vec<String> {
        let gr = &self.g.grammar;
        let n = self.g.parse.n_terms;
        let mut out: Vec<String> = Vec::new();
        for t in set.iter() {
            let name = if t == n {
                "end of input".to_string()
            } else {
                gr.display_symbol(Symbol::T(TermId(t as u32)))
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    fn error(
        &self,
        kind: ParseErrorKind,
        offset: usize,
        lexeme: Option<Range<usize>>,
        expected: Vec<String>,
    ) -> ParseError {
        let input = self.input;
        let line_start = input[..offset]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line = 1 + input[..offset].iter().filter(|&&b| b == b'\n').count();
        let column = 1 + input[line_start..offset]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80)
            .count();
        ParseError {
            kind,
            offset,
            line,
            column,
            found: (offset < input.len()).then(|| describe_at(input, offset)),
            lexeme: lexeme.map(|r| {
                (
                    String::from_utf8_lossy(&input[r.clone()]).into_owned(),
                    r.start,
                )
            }),
            expected,
        }
    }
}

impl Item {
    fn into_node(self) -> Option<Node> {
        match self {
            Item::Node(n) => Some(n),
            _ => None,
        }
    }
}

/// Replaces tails that were not re-associated by their content, in order.
fn flatten_tails(items: Vec<Item>) -> Vec<Item> {
    if !items.iter().any(|i| matches!(i, Item::Tail { .. })) {
        return items;
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Tail { levels, .. } => {
                for l in levels {
                    out.extend(flatten_tails(l.items));
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// A rule node over `items`. Its span runs from its first lexeme to its last
/// one; with none, it is empty at `begin`. Empty children that would sit
/// before the span (in the ignored text before it) move to its start.
fn rule_node(name: String, items: Vec<Item>, begin: usize) -> Node {
    let span = span_of(&items).unwrap_or(begin..begin);
    let children = items
        .into_iter()
        .filter_map(Item::into_node)
        .map(|mut c| {
            if c.span().is_empty() && c.span().start < span.start {
                place_empty(&mut c, span.start);
            }
            c
        })
        .collect();
    Node::Rule {
        name,
        children,
        span,
    }
}

/// Moves an empty node (and its empty descendants) to `at`.
fn place_empty(n: &mut Node, at: usize) {
    match n {
        Node::Rule { children, span, .. } => {
            *span = at..at;
            for c in children {
                place_empty(c, at);
            }
        }
        Node::Token { span, .. } => *span = at..at,
    }
}

/// From the first lexeme to the last one among `items` (empty nodes aside).
fn span_of(items: &[Item]) -> Option<Range<usize>> {
    let mut out: Option<Range<usize>> = None;
    let mut add = |r: Range<usize>| {
        if r.start < r.end {
            out = Some(match out.take() {
                None => r,
                Some(o) => o.start.min(r.start)..o.end.max(r.end),
            });
        }
    };
    for item in items {
        match item {
            Item::Node(n) => add(n.span()),
            Item::Filtered(r) => add(r.clone()),
            Item::Tail { levels, .. } => {
                for l in levels {
                    if let Some(r) = span_of(&l.items) {
                        add(r);
                    }
                }
            }
        }
    }
    out
}

/// The character (or byte) at `offset`, for messages.
fn describe_at(input: &[u8], offset: usize) -> String {
    let rest = &input[offset..input.len().min(offset + 4)];
    let valid = match std::str::from_utf8(rest) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or(""),
    };
    match valid.chars().next() {
        Some(c) => format!("{c:?}"),
        None => format!("byte 0x{:02x}", input[offset]),
    }
}
