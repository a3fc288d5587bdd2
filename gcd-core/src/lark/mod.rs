//! Lark-subset grammar text format.
//!
//! [`parse`] reads grammar text written in (a subset of) the syntax of
//! [Lark](https://lark-parser.readthedocs.io/en/latest/grammar.html) into a
//! [`GrammarBuilder`]; [`parse_grammar`] also builds it. The `grammar!` macro
//! accepts the same language, so everything here is a plain function of the
//! text.
//!
//! # Supported
//!
//! - The start rule is the rule named `start`. A grammar without one is an
//!   error naming its rules (Lark and llguidance refuse it too), unless the
//!   caller names another with [`GrammarBuilder::start`] before building
//!   (Lark's `start=` option).
//! - Rules `name: alt1 | alt2`. A definition ends at the end of its line,
//!   unless the next non-blank line starts with `|` (as in Lark). Inside
//!   `( )` and `[ ]` line breaks are also allowed (a superset of Lark) as long
//!   as the next line does not start a new definition. `\` at the end of a
//!   line joins it with the next.
//! - Rule modifiers: `?name` ([`RuleKind::InlineSingle`]), `_name`
//!   ([`RuleKind::Hidden`]), `!name` (Lark's keep-all-tokens: the rule's
//!   parse-tree nodes keep anonymous literals and `_HIDDEN` tokens).
//! - Rule priorities `name.2:` are accepted and ignored: they only steer
//!   Lark's LALR/Earley conflict resolution, and gcd's LL(1) tables have no
//!   such choice to make.
//! - Terminals `NAME: ...` and `_NAME: ...` (hidden from parse trees), with a
//!   priority `NAME.2:` (may be negative). A terminal's definition is an
//!   expression over literals, regexes, ranges and other terminals and is
//!   compiled to one regex (regex-automata syntax); referenced terminals are
//!   substituted, and a cycle is an error. A definition that is one plain
//!   literal, or a sequence of plain literals, stays a
//!   [`TerminalPattern::Literal`] (literals win ties against regexes).
//! - In expressions: names, `"literal"`, `"literal"i` (case-insensitive),
//!   `/regex/flags` (flags `i m s x`; `u` and `l` are accepted and dropped),
//!   ranges `"a".."z"`, groups `( )`, optional `[ ]`, the operators `?` `*`
//!   `+`, repetition `item ~ n` and `item ~ n..m` (also llguidance's
//!   `item{n}`, `item{m,n}`, `item{,n}` and `item{m,}`, so its grammars load
//!   unchanged), and an alias `-> name` at the end of a top-level
//!   alternative of a rule. Comments start with `//` or `#`.
//! - Anonymous literals and regexes in rules become [`Expr::Pattern`]s (the
//!   builder shares one terminal per pattern and reuses a named terminal with
//!   the same pattern, as Lark does). An empty literal `""` in a rule means
//!   "nothing" (the empty sequence).
//! - Rule templates `_separated{x, sep}: x (sep x)*`, used as
//!   `_separated{NAME, ","}`: each distinct argument list becomes one rule
//!   named `_separated{NAME,","}` with the template's modifiers. An argument
//!   is one item with its operator (names, literals, regexes, ranges, groups,
//!   other template uses). Expansion is plain macro expansion, memoized by
//!   instance name, so a template may use itself with the same arguments;
//!   an expansion that never ends is a [`DiagnosticKind::TooLarge`].
//! - llguidance's special tokens in rules: `<|eot_id|>` (the token's text;
//!   `<NAME>` also finds a token written `[NAME]`) and `<[128009]>` (by id),
//!   each matching that token id only (see
//!   [`SpecialToken`](crate::grammar::SpecialToken)); resolved when the
//!   grammar is bound. Token sets `<[128000-128010,128020]>` (ids and
//!   inclusive ranges) match one token whose id is in the set: each id is
//!   a special token of its own (so every id must be a special token of
//!   the vocabulary, named once). `<[*]>` and `<[^...]>` are
//!   [`DiagnosticKind::Unsupported`]: llguidance's `<[*]>` is
//!   `<[0-MAX]>`, every id of the vocabulary (ordinary text tokens, the
//!   special tokens and EOS among them), and `<[^...]>` the rest of that
//!   range; both take ordinary text tokens by id, and gcd spells a token
//!   as its text or as one grammar symbol, never both (a token both would
//!   leave two outputs for one step).
//! - llguidance's inline JSON Schemas in rules: `%json { ... }` stands for
//!   the JSON documents the schema validates, and (in `grammar!`) `@Name`
//!   for the JSON of a Rust type deriving `Constrained`. gcd-core compiles
//!   neither: [`parse_with_embeds`] takes what does ([`Embeds`];
//!   `gcd_schema::parse_lark` passes gcd-schema's JSON Schema compiler),
//!   and without it they are errors.
//! - llguidance's `&` (and) and `~` (not) in terminal definitions:
//!   `ID: /[a-z]+/ & ~KEYWORD`. `&` binds tighter than `|` and looser than
//!   a sequence, `~` tighter than any postfix operator (`~A+` is `(~A)+`).
//!   `~X` is every valid UTF-8 string `X` does not match (llguidance's is
//!   every byte string; they agree on text, see
//!   [`RegexCombination`](crate::grammar::RegexCombination)). The result
//!   combines further with `|`, `&` and `~` only: concatenating or
//!   repeating it is a [`DiagnosticKind::Unsupported`] error, and so is
//!   either operator in a rule.
//! - llguidance's structured lexemes `%regex { "substring_chunks": [...] }`,
//!   `{ "substring_words": "..." }` and `{ "substring_chars": "..." }`, in
//!   terminals and rules: every contiguous run of the chunks, the empty
//!   one included (words are cut as llguidance 1.9 cuts them: maximal runs
//!   of word characters, of blanks, of other characters). Other fields,
//!   and the documentation's planned `"type": ...` forms, are
//!   [`DiagnosticKind::Unsupported`].
//! - `%llguidance { ... }` options: `no_forcing` (masks allow every
//!   tokenization either way), `allow_invalid_utf8: false` and
//!   `allow_initial_skip: true` (what gcd does) are accepted; every other
//!   option or value is [`DiagnosticKind::Unsupported`], by name
//!   (llguidance ignores options it does not know).
//! - llguidance's rule attributes (see `attributes.rs`):
//!   - `name[lazy]: ...`: the rule's body, compiled as one terminal, ends
//!     its lexeme at its first match (so `d[lazy]: /[0-9]+/` is one
//!     digit).
//!   - `name[max_tokens=N]: ...`: the body, compiled as one terminal of the
//!     rule's own (`LEXEME__name`, never shared with the same pattern
//!     elsewhere), is capped at N tokens
//!     ([`Hints::lexeme_caps`](crate::grammar::Hints)): gcd's lexeme cap
//!     (`Matcher::set_lexeme_cap`), which every matcher of the grammar
//!     starts with, and which binding refuses when the vocabulary cannot
//!     keep it. llguidance cuts the lexeme off after N tokens wherever it
//!     stands; gcd's masks close it validly within N tokens instead, so
//!     the output stays in the grammar's language.
//!   - `name[temperature=T]: ...`: the same own terminal, with a sampling
//!     temperature the caller reads back (`Grammar::temperature`,
//!     `Matcher::temperature`); the language and the masks are unchanged.
//!   - `name[capture]` / `name[capture="other"]` on any rule: each
//!     derivation's byte range in a finished output, under that name
//!     (`Matcher::captures`, `runtime::tree::captures`), read off the
//!     parse tree; so the rule must show in trees as itself (not `?` or
//!     `_`, no aliases), else it is an error.
//!   - `name[suffix="text"]: ...` (a literal): the body then the text, as
//!     one lazy lexeme (it ends at the first place the body and the text
//!     match), the text kept in the output; `[capture]` then leaves the
//!     text out, and `[stop_capture="other"]` captures the text alone, as
//!     in llguidance. A regex or terminal suffix is
//!     [`DiagnosticKind::Unsupported`] (the capture would have no one end).
//!   - `stop` (a lazy lexeme whose end is generated and then hidden from
//!     the output by backtracking) and unknown attributes are errors naming
//!     them.
//! - `%ignore NAME`, `%ignore "literal"`, `%ignore /regex/` (and any other
//!   terminal expression, compiled to one anonymous ignored terminal).
//! - `%import common.NAME`, `%import common.NAME -> ALIAS`,
//!   `%import common (A, B, C)`: terminals from gcd's own
//!   [`common.lark`](COMMON_LARK), which matches the same languages as Lark's.
//! - Comments `// ...` and `# ...` to the end of the line.
//!
//! As in Lark, terminals that no rule and no `%ignore` uses are left out of
//! the grammar (they may still be used inside other terminals): so helper
//! terminals like Lark's `_STRING_INNER: /.*?/` are fine even though they
//! match the empty string.
//!
//! # Regexes
//!
//! Lark regexes are Python regexes; gcd compiles them with regex-automata.
//! The differences that matter are bridged: `\w` is Python's (letters,
//! numbers and `_`, no combining marks), `\<` `\>` are plain characters
//! (word boundaries in regex-syntax), `\Z` is `\z`, `[` `&&` `--` `~~` inside
//! a character class are literal, a `{` that does not start a repetition is
//! literal. Lazy quantifiers (`*?` `+?` `??` `{n,m}?`) are kept: a terminal
//! whose regex has one ends its lexeme at its first match, as Lark's
//! `re.match` does for `/\/\*(.|\n)*?\*\//` (see [`crate::lexer`]).
//!
//! Lookarounds (`(?=` `(?!` `(?<=` `(?<!`) are compiled into the terminal's
//! DFA and see the lexeme only (see [`crate::lexer::lookaround`]); a
//! lookahead that can look past the lexeme's end gets a warning.
//!
//! Each regex is checked when the grammar is read: syntax errors are
//! [`DiagnosticKind::InvalidRegex`] with the position inside the regex;
//! backreferences, lookarounds nested in lookarounds, and anchors or word
//! boundaries (`^ $ \b \B \A \z`), are
//! [`DiagnosticKind::Unsupported`]. A terminal (or a pattern in a rule) that
//! also matches the empty string is read as llguidance reads it: the lexer
//! takes its non-empty lexemes and each use in a rule becomes optional
//! (`A: /a*/` used as `A` means `A'?` with `A'` matching `a+`: the same
//! strings). An empty literal, or such a pattern with lookaround, is still a
//! [`DiagnosticKind::EmptyMatch`]. A repetition of something that can then
//! be empty (`(A | b)+`) is refused as cyclic when the grammar compiles.
//!
//! # Not supported
//!
//! `%declare`, `%override`, `%extend`, `%import` of anything but `common`:
//! each is a [`DiagnosticKind::Unsupported`] diagnostic that names the
//! construct and its position. Every error carries `line:column` and says what was expected;
//! after an error the parser skips to the next definition and goes on, so one
//! run reports as many problems as it can.

mod ast;
mod attributes;
pub mod builtin;
mod counts;
mod directives;
mod imports;
mod lexer;
mod libraries;
mod lower;
mod options;
mod parser;
mod regex;
pub(crate) mod source;
mod substring;
mod templates;
mod terminals;
#[cfg(test)]
mod tests;

#[cfg(doc)]
use crate::error::DiagnosticKind;
use crate::error::GrammarError;
#[cfg(doc)]
use crate::grammar::{Expr, RuleKind, TerminalPattern};
use crate::grammar::{Grammar, GrammarBuilder};
use crate::limits::Limits;

use lower::compile;
use parser::parse_text;
use source::Source;

/// gcd's definitions of Lark's `common` terminals, used by `%import common`.
pub const COMMON_LARK: &str = include_str!("common.lark");

/// The text of gcd's `python` terminal library (`%import python.NAME`):
/// Lark's Python terminals (names, strings, numbers, comments), written
/// for gcd.
pub const PYTHON_LARK: &str = include_str!("python.lark");

/// Groups nested deeper than this are an error (keeps recursion bounded).
const MAX_NESTING: usize = 64;
/// Chains of terminals defined in terms of terminals deeper than this are an error.
const MAX_TERMINAL_DEPTH: usize = 100;
/// Terminal compilation recursing deeper than this (groups inside terminals
/// inside terminals...) is an error: keeps the stack bounded.
const MAX_COMPILE_DEPTH: usize = 400;

/// Parses grammar text into a builder (so callers can add more before building).
///
/// Returns every syntax error, unsupported construct and invalid terminal
/// found; problems that need the whole grammar (undefined rules, duplicate
/// rules) are reported by [`GrammarBuilder::build`].
pub fn parse(src: &str) -> Result<GrammarBuilder, GrammarError> {
    parse_with(src, &Limits::default())
}

/// [`parse`] under the given limits (regex length, rule expansion,
/// template instances).
pub fn parse_with(src: &str, limits: &Limits) -> Result<GrammarBuilder, GrammarError> {
    parse_with_embeds(src, limits, &NoEmbeds)
}

/// Grammars that other parts of gcd make and a Lark grammar may stand in
/// for one of its rules: `%json { ... }` (a JSON Schema's documents) and
/// `@Name` (a Rust type deriving `Constrained`, in `grammar!`). gcd-core
/// compiles neither itself: `gcd_schema::parse_lark` gives a JSON Schema
/// compiler, and `grammar!` links the types. Each grammar is embedded
/// under a prefix (see [`GrammarBuilder::embed`]).
pub trait Embeds {
    /// The grammar of `schema`'s JSON documents, or why there is none.
    fn json_schema(&self, schema: &serde_json::Value) -> Result<Grammar, String> {
        let _ = schema;
        Err(
            "`%json { ... }` needs a JSON Schema compiler: read the grammar with \
             `gcd_schema::parse_lark` (or the `gcd` command line), not `gcd_core::lark`"
                .into(),
        )
    }

    /// The grammar of the JSON that Rust type `name` reads, or why there
    /// is none.
    fn rust_type(&self, name: &str) -> Result<Grammar, String> {
        Err(format!(
            "`@{name}` stands for a Rust type deriving `Constrained`: only `grammar!` links types"
        ))
    }

    /// The text of the grammar file that `%import .module` (`relative`) or
    /// `%import module` names (`module` dotted, as written), or why there
    /// is none. `common` and `python` are built in (their terminals);
    /// [`FileImports`] reads relative imports from a directory.
    fn module(&self, module: &str, relative: bool) -> Result<String, String> {
        Err(match relative {
            true => format!(
                "`%import .{module}`: relative imports name a grammar file beside this one, \
                 so the grammar must be read from its file (the `gcd` command line does; in \
                 Rust, `lark::FileImports`)"
            ),
            false => format!(
                "`%import {module}` is not supported: only the terminal libraries `common` and \
                 `python` are built in (other grammars are imported from a file beside this one: \
                 `%import .{module}`)"
            ),
        })
    }
}

/// Embeds nothing: `%json` and `@Name` are errors.
struct NoEmbeds;
impl Embeds for NoEmbeds {}

/// [`Embeds`] that read relative imports (`%import .csv.start`) from the
/// files of one directory (`csv.lark`; `sub/csv.lark` for `.sub.csv`),
/// and leave the rest to `inner`.
pub struct FileImports<'a> {
    /// Where the importing grammar's file is.
    pub dir: std::path::PathBuf,
    /// What makes `%json`, `@Name` and other imports.
    pub inner: &'a dyn Embeds,
}

impl Embeds for FileImports<'_> {
    fn json_schema(&self, schema: &serde_json::Value) -> Result<Grammar, String> {
        self.inner.json_schema(schema)
    }

    fn rust_type(&self, name: &str) -> Result<Grammar, String> {
        self.inner.rust_type(name)
    }

    fn module(&self, module: &str, relative: bool) -> Result<String, String> {
        if !relative {
            return self.inner.module(module, relative);
        }
        let mut path = self.dir.clone();
        path.extend(module.split('.'));
        path.set_extension("lark");
        std::fs::read_to_string(&path)
            .map_err(|e| format!("`%import .{module}`: cannot read {}: {e}", path.display()))
    }
}

/// [`parse_with`], with `%json { ... }` and `@Name` rules made by `embeds`.
pub fn parse_with_embeds(
    src: &str,
    limits: &Limits,
    embeds: &dyn Embeds,
) -> Result<GrammarBuilder, GrammarError> {
    let source = Source::new(src);
    let (mut out, mut diags) = parse_text(&source);
    imports::resolve(&mut out, &mut diags, embeds);
    let out = templates::expand(out, &mut diags, limits);
    compile(out, diags, limits, embeds)
}

/// [`parse`], then [`GrammarBuilder::build`].
pub fn parse_grammar(src: &str) -> Result<Grammar, GrammarError> {
    parse(src)?.build()
}

/// [`parse_with`], then [`GrammarBuilder::build`].
pub fn parse_grammar_with(src: &str, limits: &Limits) -> Result<Grammar, GrammarError> {
    parse_with(src, limits)?.build()
}
