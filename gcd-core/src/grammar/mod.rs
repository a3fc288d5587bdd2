//! The grammar IR: terminals, nonterminals and plain productions.
//!
//! Every front end (grammar files, the `grammar!` macro, JSON Schema, the
//! derive) ends here, so the later stages see one small language: a
//! production is a nonterminal and a sequence of symbols, nothing more. The
//! EBNF sugar that people write (`?`, `*`, `+`, groups, alternatives inside
//! groups) is described by [`Expr`] and desugared by [`GrammarBuilder`] into
//! fresh nonterminals, right-recursive so that they stay LL(1).

mod builder;
mod combination;
mod desugar;
mod expr;
mod hints;
mod print;
mod sugar;
mod term_set;

pub use builder::GrammarBuilder;
pub use combination::{RegexCombination, UTF8_TEXT};
pub use expr::{Alternative, Expr};
pub use hints::{CapturePart, Hints, Temperature};
#[cfg(test)]
pub(crate) use print::tests as print_tests;
pub use print::Printer;
pub use term_set::TermSet;

use std::fmt;

use crate::error::Span;

/// Index of a terminal in [`Grammar::terminals`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct TermId(pub u32);

/// Index of a nonterminal in [`Grammar::nonterminals`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct NtId(pub u32);

/// Index of a production in [`Grammar::productions`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct ProdId(pub u32);

impl TermId {
    /// The id as a `usize`, for indexing [`Grammar::terminals`] and
    /// per-terminal tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl NtId {
    /// The id as a `usize`, for indexing [`Grammar::nonterminals`] and
    /// per-rule tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl ProdId {
    /// The id as a `usize`, for indexing [`Grammar::productions`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
/// One item of a production's right-hand side.
pub enum Symbol {
    /// A terminal: one lexeme.
    T(TermId),
    /// A nonterminal: one derivation of that rule.
    N(NtId),
}

/// What a terminal matches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TerminalPattern {
    /// Exact text (ASCII case folded when `case_insensitive`). Literals win
    /// ties against regexes.
    Literal {
        /// The text a lexeme must spell, as its UTF-8 bytes.
        text: String,
        /// Whether letters match in either case (written `(?i:…)` by
        /// [`to_regex`](Self::to_regex)).
        case_insensitive: bool,
    },
    /// A regular expression in regex-automata syntax, matched against the
    /// whole lexeme.
    Regex(String),
    /// The lexemes that every one of these regexes matches (JSON Schema: a
    /// `pattern` within length bounds). Regex text has no intersection, so
    /// the lexer builds the product of their automata.
    Intersection(Vec<String>),
    /// One special token of the vocabulary (`<|im_end|>`), matched as that
    /// token id only, never as its text (see [`SpecialToken`]).
    Special(SpecialToken),
    /// A boolean combination of regexes (Lark terminals with llguidance's
    /// `&` and `~`); the lexer builds the product of their automata. See
    /// [`RegexCombination`] for what `~` complements in.
    Combination(RegexCombination),
}

/// A special token a grammar names: chat formats end a turn or open a call
/// with tokens such as `<|im_end|>` whose text, spelled out in ordinary
/// tokens, is not the same output. Resolved to an id when the grammar is
/// bound to a vocabulary; a vocabulary without it is an error then.
///
/// The lexer sees the `k`-th special token of a grammar as the bytes
/// [`special_bytes(k)`](special_bytes), which start with `0xFF`, a byte no
/// UTF-8 text holds and no terminal regex matches; binding gives the token
/// id exactly those bytes. So the lexer, the token trie, masks, budgets and
/// the reference recognizer treat it as one more literal, unchanged.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum SpecialToken {
    /// By its text in the tokenizer, `<|eot_id|>`. `<NAME>` also finds a
    /// token written `[NAME]` (Mistral's `[TOOL_CALLS]`), as llguidance does.
    Named(String),
    /// By id, written `<[128009]>`.
    Id(u32),
}

impl fmt::Display for SpecialToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecialToken::Named(name) => f.write_str(name),
            SpecialToken::Id(id) => write!(f, "<[{id}]>"),
        }
    }
}

/// The first byte of every special token's lexeme: never part of UTF-8.
pub const SPECIAL_LEAD: u8 = 0xFF;

/// Most special tokens one grammar may name (two bytes of index).
pub const MAX_SPECIAL_TOKENS: usize = 1 << 16;

/// The bytes the lexer reads for the `k`-th special token of a grammar:
/// [`SPECIAL_LEAD`] and `k` in two bytes, big-endian.
pub fn special_bytes(k: u16) -> [u8; 3] {
    let [hi, lo] = k.to_be_bytes();
    [SPECIAL_LEAD, hi, lo]
}

impl TerminalPattern {
    /// Whether this is a [`Literal`](Self::Literal) (or a special token, a
    /// literal of its own bytes), which wins a tie of equal priority against
    /// a regex.
    pub fn is_literal(&self) -> bool {
        matches!(
            self,
            TerminalPattern::Literal { .. } | TerminalPattern::Special(_)
        )
    }

    /// The pattern as a regex in regex-automata syntax. Regex text has no
    /// intersection: an intersection's regexes come joined by `(?&)`, which
    /// no regex parser accepts (it is also the key under which
    /// [`TerminalDfa::intersection`](crate::lexer::TerminalDfa::intersection)
    /// caches the product). A special token has no regex either: it gives
    /// its name, which no regex parser reads as that token.
    pub fn to_regex(&self) -> String {
        match self {
            TerminalPattern::Literal {
                text,
                case_insensitive,
            } => {
                let escaped = regex_syntax::escape(text);
                if *case_insensitive {
                    format!("(?i:{escaped})")
                } else {
                    escaped
                }
            }
            TerminalPattern::Regex(r) => r.clone(),
            TerminalPattern::Intersection(rs) => rs.join("(?&)"),
            TerminalPattern::Special(t) => t.to_string(),
            TerminalPattern::Combination(c) => c.key(),
        }
    }
}

impl fmt::Display for TerminalPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TerminalPattern::Literal {
                text,
                case_insensitive,
            } => {
                write!(f, "{text:?}{}", if *case_insensitive { "i" } else { "" })
            }
            TerminalPattern::Regex(r) => write!(f, "/{r}/"),
            TerminalPattern::Intersection(rs) => {
                let parts: Vec<String> = rs.iter().map(|r| format!("/{r}/")).collect();
                write!(f, "{}", parts.join(" & "))
            }
            TerminalPattern::Special(t) => write!(f, "{t}"),
            TerminalPattern::Combination(c) => write!(f, "{c}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
/// A terminal: the lexemes one pattern matches, and how the lexer and
/// parse trees treat them.
pub struct Terminal {
    /// Declared name; a pattern written in place in a rule is named
    /// `__ANON_…`.
    pub name: String,
    /// What the terminal's lexemes are.
    pub pattern: TerminalPattern,
    /// Higher wins a tie between terminals matching the same lexeme.
    pub priority: i32,
    /// Matched between any two lexemes and dropped (whitespace, comments).
    pub ignored: bool,
    /// Lark `_NAME`: matched but left out of parse trees.
    pub hidden: bool,
    /// Where the terminal is defined or first written in the source text;
    /// `None` when the grammar was not built from text.
    pub span: Option<Span>,
}

/// How a nonterminal shows in parse trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RuleKind {
    /// A node named after the rule.
    Normal,
    /// Lark `?rule`: replaced by its child when it has exactly one.
    InlineSingle,
    /// Lark `_rule`: always replaced by its children.
    Hidden,
    /// Made by desugaring or a transform: always replaced by its children.
    Generated,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
/// A rule: what is known about a nonterminal apart from its productions.
pub struct Nonterminal {
    /// Declared name; rules made by desugaring or a transform are named
    /// after the rule they came from (`owner__star3`).
    pub name: String,
    /// How the rule shows in parse trees.
    pub kind: RuleKind,
    /// Lark `!rule`: its parse-tree nodes keep the tokens that are otherwise
    /// left out (anonymous literals, `_HIDDEN` terminals).
    pub keep_all_tokens: bool,
    /// No ignored terminal before a lexeme that starts while this rule is
    /// the parser's next symbol (see [`GrammarBuilder::tight`]).
    pub tight: bool,
    /// Where the rule is defined in the source text (for a generated rule,
    /// the alternative that made it); `None` when not built from text.
    pub span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
/// One alternative of a rule, with EBNF already desugared: a plain
/// sequence of symbols.
pub struct Production {
    /// The rule this production derives.
    pub lhs: NtId,
    /// The symbols, in order; empty for a production of the empty string.
    pub rhs: Vec<Symbol>,
    /// Lark `-> name`: the parse tree node takes this name.
    pub alias: Option<String>,
    /// Where the alternative is written in the source text; `None` when
    /// not built from text.
    pub span: Option<Span>,
}

/// A context-free grammar over terminals with plain productions.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Grammar {
    /// Every terminal, indexed by [`TermId`].
    pub terminals: Vec<Terminal>,
    /// Every rule, indexed by [`NtId`].
    pub nonterminals: Vec<Nonterminal>,
    /// Every production, indexed by [`ProdId`]. A rule's productions are
    /// in declaration order but need not be adjacent.
    pub productions: Vec<Production>,
    /// The rule a sentence derives from.
    pub start: NtId,
    /// Lists whose members come in any order (see [`MemberSet`]).
    #[serde(default)]
    pub member_sets: Vec<MemberSet>,
    /// Lexeme caps, temperatures and captures: not part of the language
    /// (see [`Hints`]).
    #[serde(default)]
    pub hints: Hints,
}

/// A list whose members may come in any order, each at most once, some of
/// them required: a JSON object's properties when their order is free.
///
/// A context-free grammar would need a rule per subset of members, so the
/// parser keeps the set of members used so far on its stack instead (see
/// `parser`). The rules `list`, `more` and `next` still have
/// productions, an over-approximation in which members repeat and none is
/// required (`list: m more | … | <empty>`, `more: SEP next | <empty>`,
/// `next: m more | …`): FIRST/FOLLOW sets, the LL(1) check and the
/// lexer's candidate sets are computed from them, and the parser narrows
/// them exactly at run time. The transforms never rewrite these three rules.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemberSet {
    /// The whole list, as other rules use it.
    pub list: NtId,
    /// After a member: the separator and another member, or the end.
    pub more: NtId,
    /// After the separator: one more member.
    pub next: NtId,
    /// Members that may come at most once, and whether each is required.
    pub members: Vec<(NtId, bool)>,
    /// Members that may come any number of times (extra keys).
    pub repeatable: Vec<NtId>,
    /// The terminal written between two members (a JSON object's comma).
    pub separator: TermId,
    /// At least one member, even when none is required.
    pub nonempty: bool,
}

impl MemberSet {
    /// Whether `n` is one of the three rules whose productions only
    /// approximate the list.
    pub fn is_own_rule(&self, n: NtId) -> bool {
        n == self.list || n == self.more || n == self.next
    }
}

impl Grammar {
    /// The most tokens one lexeme of terminal `t` may hold, when the
    /// grammar caps it (llguidance's `[max_tokens=N]`).
    pub fn lexeme_cap(&self, t: TermId) -> Option<u32> {
        let caps = &self.hints.lexeme_caps;
        caps.binary_search_by_key(&t, |c| c.0)
            .ok()
            .map(|i| caps[i].1)
    }

    /// The sampling temperature the grammar gives terminal `t`'s lexemes
    /// (llguidance's `[temperature=T]`), if any. It changes no mask.
    pub fn temperature(&self, t: TermId) -> Option<f32> {
        let temps = &self.hints.temperatures;
        (temps.binary_search_by_key(&t, |c| c.0).ok()).map(|i| temps[i].1.get())
    }

    /// The special tokens the grammar names, in terminal order: the `k`-th
    /// one is read by the lexer as [`special_bytes(k)`](special_bytes).
    pub fn special_tokens(&self) -> impl Iterator<Item = &SpecialToken> + '_ {
        self.terminals.iter().filter_map(|t| match &t.pattern {
            TerminalPattern::Special(s) => Some(s),
            _ => None,
        })
    }

    /// Per rule: whether it is a [`MemberSet`]'s own rule (rewritten by no
    /// transform).
    pub fn member_set_rules(&self) -> Vec<bool> {
        let mut own = vec![false; self.nonterminals.len()];
        for m in &self.member_sets {
            for n in [m.list, m.more, m.next] {
                own[n.index()] = true;
            }
        }
        own
    }

    /// Terminal `t`. Panics if `t` is not a terminal of this grammar.
    pub fn terminal(&self, t: TermId) -> &Terminal {
        &self.terminals[t.index()]
    }

    /// Rule `n`. Panics if `n` is not a rule of this grammar.
    pub fn nonterminal(&self, n: NtId) -> &Nonterminal {
        &self.nonterminals[n.index()]
    }

    /// Production `p`. Panics if `p` is not a production of this grammar.
    pub fn production(&self, p: ProdId) -> &Production {
        &self.productions[p.index()]
    }

    /// Every rule's productions in declaration order, indexed by rule: one
    /// pass, for analyses that visit many rules (`productions_of` scans
    /// every production each time).
    pub fn productions_by_rule(&self) -> Vec<Vec<ProdId>> {
        let mut by_rule = vec![Vec::new(); self.nonterminals.len()];
        for (i, p) in self.productions.iter().enumerate() {
            by_rule[p.lhs.index()].push(ProdId(i as u32));
        }
        by_rule
    }

    /// Productions of `n`, in declaration order.
    pub fn productions_of(&self, n: NtId) -> impl Iterator<Item = (ProdId, &Production)> {
        self.productions
            .iter()
            .enumerate()
            .filter(move |(_, p)| p.lhs == n)
            .map(|(i, p)| (ProdId(i as u32), p))
    }

    /// The declared name of a terminal or rule (`__ANON_…` for an anonymous
    /// literal; [`display_symbol`](Self::display_symbol) shows its text).
    pub fn symbol_name(&self, s: Symbol) -> &str {
        match s {
            Symbol::T(t) => &self.terminal(t).name,
            Symbol::N(n) => &self.nonterminal(n).name,
        }
    }

    /// `lhs: a B c` for messages.
    pub fn display_production(&self, p: ProdId) -> String {
        let prod = self.production(p);
        let mut s = format!("{}:", self.nonterminal(prod.lhs).name);
        if prod.rhs.is_empty() {
            s.push_str(" <empty>");
        }
        for sym in &prod.rhs {
            s.push(' ');
            s.push_str(&self.display_symbol(*sym));
        }
        s
    }

    /// A terminal's name, or its pattern when it is an anonymous literal.
    pub fn display_symbol(&self, s: Symbol) -> String {
        match s {
            Symbol::T(t) => {
                let term = self.terminal(t);
                match &term.pattern {
                    TerminalPattern::Literal { .. } | TerminalPattern::Special(_)
                        if term.name.starts_with("__ANON") =>
                    {
                        term.pattern.to_string()
                    }
                    _ => term.name.clone(),
                }
            }
            Symbol::N(n) => self.nonterminal(n).name.clone(),
        }
    }

    /// Terminals sorted by how they win ties: priority, then literals before
    /// regexes, then declaration order. Index 0 wins.
    pub fn terminal_rank(&self) -> Vec<u32> {
        let mut order: Vec<usize> = (0..self.terminals.len()).collect();
        order.sort_by_key(|&i| {
            let t = &self.terminals[i];
            (std::cmp::Reverse(t.priority), !t.pattern.is_literal(), i)
        });
        let mut rank = vec![0u32; order.len()];
        for (r, i) in order.into_iter().enumerate() {
            rank[i] = r as u32;
        }
        rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiled::CompiledGrammar;
    use crate::error::{Diagnostic, DiagnosticKind};
    use crate::lark;
    use crate::runtime::recognizer::Recognizer;

    #[test]
    fn repeating_an_optional_part_is_not_cyclic() {
        for text in [
            "start: [\"a\" \",\"]* \"b\"",
            "start: (\"a\"? | \"c\")+ \"b\"",
            "start: (\"a\"*)* \"b\"",
        ] {
            let g = lark::parse_grammar(text).unwrap();
            let c = CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{text}: {e}"));
            let r = Recognizer::new(&c);
            assert!(r.is_complete(b"b"), "{text}");
            assert!(!r.is_complete(b""), "{text}");
        }
        let c = CompiledGrammar::new(&lark::parse_grammar("start: [\"a\" \",\"]* \"b\"").unwrap())
            .unwrap();
        let r = Recognizer::new(&c);
        assert!(r.is_complete(b"a,a,b"));
        assert!(!r.is_complete(b"a,ab"));
    }

    /// `grammar! { start: a  a "x" }` (a definition of `a` missing its `:`)
    /// reads as `start: a a "x"`: one error for `a`, with the second use as
    /// a note that says what may be missing.
    #[test]
    fn an_undefined_name_is_one_error_with_its_other_uses_as_notes() {
        let mut b = GrammarBuilder::new();
        b.rule(
            "start",
            vec![Expr::seq(vec![
                Expr::name("a"),
                Expr::name("a"),
                Expr::literal("x"),
            ])],
        );
        let e = b.build().unwrap_err();
        let undefined: Vec<&Diagnostic> = (e.diagnostics().iter())
            .filter(|d| d.kind == DiagnosticKind::Undefined)
            .collect();
        assert_eq!(undefined.len(), 1, "{e}");
        assert_eq!(undefined[0].notes.len(), 1, "{e}");
        assert!(undefined[0].notes[0].1.contains("needs a `:`"), "{e}");
    }

    #[test]
    fn builder_collects_every_error() {
        let mut b = GrammarBuilder::new();
        b.terminal("A", TerminalPattern::Regex("a".into()));
        b.terminal("A", TerminalPattern::Regex("b".into()));
        b.rule(
            "start",
            vec![Expr::seq(vec![
                Expr::name("A"),
                Expr::name("missing"),
                Expr::name("MISSING"),
            ])],
        );
        b.ignore("NOPE", None);
        let e = b.build().unwrap_err();
        let kinds: Vec<_> = e.diagnostics().iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds
                .iter()
                .filter(|k| **k == DiagnosticKind::Duplicate)
                .count(),
            1,
            "{e}"
        );
        assert_eq!(
            kinds
                .iter()
                .filter(|k| **k == DiagnosticKind::Undefined)
                .count(),
            3,
            "{e}"
        );
        assert!(
            e.to_string().contains("rule `missing`")
                && e.to_string().contains("terminal `MISSING`"),
            "{e}"
        );
    }
}
