//! What the parser produces and the later stages consume: rule and terminal
//! expressions as written ([`Node`]), terminal expressions compiled to one
//! regex ([`Frag`]), and the definitions of a file ([`Parsed`]). Kept apart
//! so the parser, the `common` library, the terminal compiler and the
//! lowering to a builder share one vocabulary without depending on each other.

use crate::error::Span;
use crate::grammar::{RegexCombination, RuleKind, SpecialToken, Temperature, TerminalPattern};

/// Binding strength of a regex fragment: what it may be combined with
/// without parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Prec {
    /// May contain a top-level `|`.
    Alt,
    /// A concatenation or a quantified item: fine inside an alternation or a
    /// concatenation, must be wrapped to be quantified.
    Seq,
    /// One character, class or group: can take a quantifier.
    Atom,
}

/// A compiled terminal expression.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Frag {
    Lit {
        text: String,
        ci: bool,
    },
    Re {
        re: String,
        prec: Prec,
    },
    /// The result of `&` or `~`: no regex spells it, so it can only be
    /// combined further with `|`, `&` and `~` (see [`super::terminals`]).
    Comb(RegexCombination),
}

impl Frag {
    pub(super) fn regex(&self) -> String {
        match self {
            Frag::Lit { text, ci } => TerminalPattern::Literal {
                text: text.clone(),
                case_insensitive: *ci,
            }
            .to_regex(),
            Frag::Re { re, .. } => re.clone(),
            // Never spliced into a regex (the terminal compiler refuses
            // that); the key is no regex, so a slip could not pass unseen.
            Frag::Comb(c) => c.key(),
        }
    }

    /// This fragment as a leaf or branch of a boolean combination.
    pub(super) fn combination(&self) -> RegexCombination {
        match self {
            Frag::Comb(c) => c.clone(),
            f => RegexCombination::Regex(f.regex()),
        }
    }

    fn prec(&self) -> Prec {
        match self {
            Frag::Lit { ci: true, .. } => Prec::Atom,
            Frag::Lit { text, .. } if text.chars().count() == 1 => Prec::Atom,
            Frag::Lit { .. } => Prec::Seq,
            Frag::Re { prec, .. } => *prec,
            Frag::Comb(_) => Prec::Atom,
        }
    }

    /// The regex, wrapped in `(?:...)` when it binds looser than `min`.
    pub(super) fn at(&self, min: Prec) -> String {
        let re = self.regex();
        if self.prec() < min {
            format!("(?:{re})")
        } else {
            re
        }
    }

    pub(super) fn into_pattern(self) -> TerminalPattern {
        match self {
            Frag::Lit { text, ci } => TerminalPattern::Literal {
                text,
                case_insensitive: ci,
            },
            Frag::Re { re, .. } => TerminalPattern::Regex(re),
            Frag::Comb(c) => TerminalPattern::Combination(c),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct ReLit {
    /// The regex in regex-automata syntax, flags applied; `None` when invalid
    /// (already reported).
    pub(super) re: Option<String>,
    pub(super) prec: Prec,
    pub(super) matches_empty: bool,
    /// As written, for messages.
    pub(super) text: String,
    pub(super) span: Span,
}

/// An expression as written. `Template(name, args, span)` is a template use
/// `name{arg, ...}`, which [`super::templates`] replaces by the name of its
/// instance before lowering.
#[derive(Clone, Debug)]
pub(super) enum Node {
    Name(String, Span),
    Lit {
        text: String,
        ci: bool,
        span: Span,
    },
    Re(Box<ReLit>),
    Range {
        lo: char,
        hi: char,
        span: Span,
    },
    /// `<|im_end|>` or `<[128009]>`: one special token of the vocabulary.
    Special(SpecialToken, Span),
    /// `<[128000-128010,128020]>`: one token whose id is in these ranges
    /// (see [`super::lexer`]); each id is a special token of its own.
    TokenSet(Vec<(u32, u32)>, Span),
    /// `%json { ... }`: the language of a JSON Schema, as a rule.
    Json(Box<serde_json::Value>, Span),
    /// `@Name` (in `grammar!`): the JSON of a Rust type, as a rule.
    TypeRef(String, Span),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Opt(Box<Node>),
    Star(Box<Node>),
    Plus(Box<Node>),
    Repeat(Box<Node>, u32, u32),
    Template(String, Vec<Node>, Span),
    /// `A & B` (llguidance, terminals only): the strings both match.
    And(Vec<Node>, Span),
    /// `~A` (llguidance, terminals only): the UTF-8 strings `A` does not
    /// match.
    Not(Box<Node>, Span),
}

impl Node {
    /// The expressions directly inside this one (a template use's
    /// arguments included): what the walks that only read descend into.
    pub(super) fn parts(&self) -> &[Node] {
        match self {
            Node::Seq(items)
            | Node::Alt(items)
            | Node::Template(_, items, _)
            | Node::And(items, _) => items,
            Node::Opt(e)
            | Node::Star(e)
            | Node::Plus(e)
            | Node::Repeat(e, ..)
            | Node::Not(e, _) => std::slice::from_ref(&**e),
            Node::Name(..)
            | Node::Lit { .. }
            | Node::Re(_)
            | Node::Range { .. }
            | Node::Special(..)
            | Node::TokenSet(..)
            | Node::Json(..)
            | Node::TypeRef(..) => &[],
        }
    }

    /// [`parts`](Self::parts), to rewrite in place (the walks that
    /// instantiate templates and relocate imports).
    pub(super) fn parts_mut(&mut self) -> &mut [Node] {
        match self {
            Node::Seq(items)
            | Node::Alt(items)
            | Node::Template(_, items, _)
            | Node::And(items, _) => items,
            Node::Opt(e)
            | Node::Star(e)
            | Node::Plus(e)
            | Node::Repeat(e, ..)
            | Node::Not(e, _) => std::slice::from_mut(&mut **e),
            Node::Name(..)
            | Node::Lit { .. }
            | Node::Re(_)
            | Node::Range { .. }
            | Node::Special(..)
            | Node::TokenSet(..)
            | Node::Json(..)
            | Node::TypeRef(..) => &mut [],
        }
    }

    pub(super) fn names<'n>(&'n self, out: &mut Vec<&'n str>) {
        if let Node::Name(n, _) = self {
            out.push(n);
        }
        self.parts().iter().for_each(|p| p.names(out));
    }

    /// Roughly how many symbols the builder makes of this (repeats multiply).
    pub(super) fn cost(&self) -> u64 {
        match self {
            Node::Name(..)
            | Node::Lit { .. }
            | Node::Re(_)
            | Node::Range { .. }
            | Node::Special(..)
            | Node::Json(..)
            | Node::TypeRef(..)
            | Node::Template(..) => 1,
            Node::TokenSet(ranges, _) => {
                ranges.iter().map(|&(lo, hi)| u64::from(hi - lo) + 1).sum()
            }
            Node::Seq(items) | Node::Alt(items) | Node::And(items, _) => {
                items.iter().fold(0u64, |a, i| a.saturating_add(i.cost()))
            }
            Node::Opt(e) | Node::Star(e) | Node::Plus(e) | Node::Not(e, _) => {
                e.cost().saturating_add(1)
            }
            Node::Repeat(e, _, max) => e
                .cost()
                .saturating_mul(u64::from(*max).max(1))
                .saturating_add(u64::from(*max)),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct ParsedAlt {
    pub(super) node: Node,
    pub(super) alias: Option<(String, Span)>,
    pub(super) span: Span,
}

#[derive(Clone, Debug)]
pub(super) enum TermBody {
    Expr(Node),
    Imported(Frag),
}

#[derive(Clone, Debug)]
pub(super) struct TermDef {
    pub(super) name: String,
    pub(super) body: TermBody,
    pub(super) span: Span,
    pub(super) priority: i32,
}

#[derive(Clone, Debug)]
pub(super) struct RuleDef {
    pub(super) name: String,
    pub(super) kind: RuleKind,
    pub(super) keep_all_tokens: bool,
    /// llguidance's rule attributes (see [`super::attributes`]).
    pub(super) attrs: RuleAttributes,
    pub(super) alts: Vec<ParsedAlt>,
    pub(super) span: Span,
}

/// A rule template `name{param, ...}: ...`: a rule whose alternatives
/// mention the parameters, instantiated once per distinct argument list.
#[derive(Clone, Debug)]
pub(super) struct TemplateDef {
    pub(super) rule: RuleDef,
    pub(super) params: Vec<(String, Span)>,
}

#[derive(Clone, Debug)]
pub(super) struct IgnoreDef {
    pub(super) node: Node,
    pub(super) span: Span,
}

/// `%import .csv.start -> csv__start` or `%import module (A, b)`: what
/// another grammar file gives this one (resolved by [`super::imports`]).
#[derive(Clone, Debug)]
pub(super) struct ModuleImport {
    /// The dotted path of the module (`csv`, `sub.csv`).
    pub(super) module: String,
    /// Written with a leading `.`: a file beside this grammar.
    pub(super) relative: bool,
    /// (name in the module, where it is written here, name it gets here)
    pub(super) items: Vec<(String, Span, String)>,
    pub(super) span: Span,
}

#[derive(Default)]
pub(super) struct Parsed {
    pub(super) terms: Vec<TermDef>,
    pub(super) rules: Vec<RuleDef>,
    pub(super) templates: Vec<TemplateDef>,
    pub(super) ignores: Vec<IgnoreDef>,
    pub(super) imports: Vec<ModuleImport>,
}

/// What the attributes of one rule ask for, as far as gcd honours them.
#[derive(Clone, Debug, Default)]
pub(super) struct RuleAttributes {
    /// `[lazy]`: the rule's body is one lexeme, ended at its first match.
    pub(super) lazy: bool,
    /// `[max_tokens=N]`: the rule's body is one lexeme, capped at N tokens.
    pub(super) max_tokens: Option<(u32, Span)>,
    /// `[temperature=T]`: the rule's body is one lexeme, sampled at T.
    pub(super) temperature: Option<(Temperature, Span)>,
    /// `[capture]` / `[capture="name"]`: the name the rule's text is
    /// captured under.
    pub(super) capture: Option<(String, Span)>,
    /// `[suffix="text"]`: the rule's body is one lazy lexeme that ends
    /// with this text, which the rule's own capture leaves out.
    pub(super) suffix: Option<(String, Span)>,
    /// `[stop_capture="name"]`: the name the suffix is captured under.
    pub(super) stop_capture: Option<(String, Span)>,
}

impl RuleAttributes {
    /// Whether the rule's body must be one lexeme (a terminal).
    pub(super) fn one_lexeme(&self) -> bool {
        self.lazy
            || self.max_tokens.is_some()
            || self.temperature.is_some()
            || self.suffix.is_some()
    }

    /// Whether the lexeme needs a terminal of its own, which a cap or a
    /// temperature is attached to.
    pub(super) fn own_terminal(&self) -> bool {
        self.max_tokens.is_some() || self.temperature.is_some()
    }

    /// The attributes that make the body one lexeme, as written
    /// (`[lazy, max_tokens]`), for messages.
    pub(super) fn lexeme_names(&self) -> String {
        let names: Vec<&str> = [
            (self.lazy, "lazy"),
            (self.max_tokens.is_some(), "max_tokens"),
            (self.temperature.is_some(), "temperature"),
            (self.suffix.is_some(), "suffix"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect();
        format!("`[{}]`", names.join(", "))
    }
}
