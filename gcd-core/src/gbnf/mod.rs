//! GBNF, llama.cpp's grammar format, read with its own meaning.
//!
//! [`parse`] reads GBNF text into a [`GrammarBuilder`]; [`parse_grammar`]
//! also builds it. The start rule is `root`.
//!
//! # Why a lowering of its own
//!
//! GBNF has no lexer: a grammar's language is the set of strings its rules
//! derive character by character, whitespace included, and any derivation
//! will do. gcd lexes by contextual maximal munch, so writing each GBNF
//! literal as a terminal would change the language: with `root ::= [a-z]+
//! "x"?` lowered to `/[a-z]+/ "x"?`, nothing would be wrong, but with
//! `root ::= [a-z]+ [a-z]` the one `[a-z]+` lexeme would swallow the last
//! letter and no string would be accepted. So the lowering keeps the
//! character level as its reference:
//!
//! - Every character step (a literal's character, a class, `.`) is one
//!   terminal per *atom*: the classes of the grammar are cut into disjoint
//!   pieces (`atoms`), so each character has exactly one terminal, a
//!   lexeme is one character, and the parser, forking where the grammar is
//!   ambiguous, decides between derivations as GBNF does. This alone is
//!   exact.
//! - Character-level terminals make every character a lexeme boundary,
//!   which makes masks slow, so maximal runs of regular items (no
//!   recursive rule among what they use; such rules are inlined) are
//!   merged into one terminal each (`lower`) — but only where it provably
//!   keeps the language: after compiling, every merged terminal must have
//!   no rival candidate sharing a first byte and no follower whose first
//!   byte extends one of its matches (`merge`, where the argument is
//!   spelled out). A merge that fails is split into its items, then into
//!   characters, and the grammar is compiled again.
//!
//! The test `tests/gbnf_props.rs` compares the result with a
//! character-level recognizer on random grammars, and
//! `tests/gbnf_oracle.rs` with XGrammar's GBNF engine.
//!
//! # The dialect
//!
//! As llama.cpp's `grammars/README.md` documents and its parser reads:
//!
//! - Rules `name ::= alternatives`; names of letters, digits, `-` (and
//!   `_`, as XGrammar allows). A rule ends at the end of its line, except
//!   inside `( )` and after `|` or `::=`. Comments `#` to the end of the
//!   line.
//! - Literals `"..."`, classes `[a-z0-9_]`, negated classes `[^"\\]`, `.`
//!   (any one character, line breaks included), with escapes `\xHH`,
//!   `\uHHHH`, `\UHHHHHHHH`, `\t`, `\n`, `\r`, `\\`, `\"`, `\[`, `\]`,
//!   `\-`. In a class, `-` first or last is itself. `""` and an empty
//!   alternative match the empty string.
//! - Rule references, groups `( )`, alternation `|`, and after an item
//!   `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` and `{,n}` (= `{0,n}`).
//! - Strings are UTF-8 text: a byte sequence that is not UTF-8 is never
//!   accepted.
//!
//! Errors, each with its position: syntax (an unterminated literal or
//! class, an unknown escape, an empty class or range, a repetition with
//! nothing before it or its maximum below its minimum), a rule defined
//! twice (llama.cpp keeps the last; here it is an error), a reference to
//! an undefined rule, no `root`, and sizes past [`Limits`]
//! (`max_rule_expansion` for written-out repetitions). Token references
//! (`<...>`, newer llama.cpp) are refused by name. Left recursion, which
//! llama.cpp refuses, is accepted: gcd's transforms remove it.

mod ast;
mod atoms;
mod lower;
mod merge;
mod parser;
mod regular;
mod resolve;
#[cfg(test)]
mod tests;

pub use merge::MergeReport;

use crate::error::GrammarError;
use crate::grammar::{Grammar, GrammarBuilder};
use crate::lark::source::Source;
use crate::limits::Limits;

/// How [`parse_with_options`] lowers a grammar.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Options {
    /// Limits on the grammar's size, also used by the compiles that check
    /// merges.
    pub limits: Limits,
    /// Merge runs of characters into larger terminals where that keeps the
    /// language (the default); off, every character is its own lexeme
    /// (slower masks, the same language).
    pub merge: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            limits: Limits::default(),
            merge: true,
        }
    }
}

/// Reads GBNF text into a builder whose start rule is `root`.
pub fn parse(src: &str) -> Result<GrammarBuilder, GrammarError> {
    parse_with(src, &Limits::default())
}

/// [`parse`] under the given limits.
pub fn parse_with(src: &str, limits: &Limits) -> Result<GrammarBuilder, GrammarError> {
    let options = Options {
        limits: limits.clone(),
        ..Options::default()
    };
    Ok(parse_with_options(src, &options)?.0)
}

/// [`parse`] with the lowering's options, and what the merging did.
pub fn parse_with_options(
    src: &str,
    options: &Options,
) -> Result<(GrammarBuilder, MergeReport), GrammarError> {
    let source = Source::new(src);
    let rules = parser::parse_rules(&source)?;
    let resolved = resolve::resolve(rules, &options.limits)?;
    let mut classes = Vec::new();
    for rule in &resolved.rules {
        collect_classes(&rule.body, &mut classes);
    }
    let alphabet = atoms::Alphabet::new(classes);
    merge::lower_exact(&resolved, &alphabet, &options.limits, options.merge)
}

fn collect_classes<'n>(node: &'n ast::Node, out: &mut Vec<&'n regex_syntax::hir::ClassUnicode>) {
    match &node.kind {
        ast::NodeKind::Char(class) => out.push(class),
        ast::NodeKind::Ref(_) => {}
        ast::NodeKind::Seq(items) | ast::NodeKind::Alt(items) => {
            for item in items {
                collect_classes(item, out);
            }
        }
        ast::NodeKind::Repeat { item, .. } => collect_classes(item, out),
    }
}

/// [`parse`], then [`GrammarBuilder::build`].
pub fn parse_grammar(src: &str) -> Result<Grammar, GrammarError> {
    parse(src)?.build()
}

/// [`parse_with`], then [`GrammarBuilder::build`].
pub fn parse_grammar_with(src: &str, limits: &Limits) -> Result<Grammar, GrammarError> {
    parse_with(src, limits)?.build()
}
