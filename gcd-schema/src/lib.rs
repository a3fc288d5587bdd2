//! JSON Schema → gcd grammars, exactly.
//!
//! [`compile`] turns a schema into a [`CompiledGrammar`] whose language is
//! a subset of the JSON texts (under the chosen [`Whitespace`] policy) that
//! the schema validates: every text the grammar accepts is valid. The
//! subset is exact except for these documented restrictions, each of which
//! only ever *refuses* valid texts:
//!
//! - with [`PropertyOrder::Schema`] (default), object members appear in
//!   schema order (declared properties first, in `properties` order, then
//!   `required` names not declared, then any additional keys), and no key
//!   repeats; where `allOf`, `$ref` or an `anyOf`/`oneOf` branch adds
//!   properties, they come before the schema's own when that keyword is
//!   written before `properties`, else after. [`PropertyOrder::Any`] lifts
//!   this restriction (and refuses unions of object shapes that the first
//!   key cannot tell apart);
//! - with [`Escapes::Canonical`] (default), constrained strings and keys
//!   take one spelling per character (`"\u0061"` is not `"a"` there);
//! - integers with an exponent are accepted only when certainly integral
//!   (`1e5`, `1.5e+52`), and bounded numbers only without an exponent;
//!   `const`/`enum` numbers only as written (plus `.0…`/trailing zeros);
//! - `format: time`/`date-time` leap seconds only in UTC; `hostname`,
//!   `email`, `uri-template`, `duration` and `relative-json-pointer` are
//!   documented subsets of their standards (see [`mod@format`]).
//!
//! Every keyword we cannot enforce is a [`SchemaError`] naming the keyword
//! and the JSON pointer; nothing is silently dropped. Unknown keywords are
//! ignored, as JSON Schema validators ignore them; so are annotations
//! (`title`, `description`, `default`, `examples`, `$comment`, `$id`,
//! `deprecated`, `readOnly`, `writeOnly`, `content*`, …). A `$schema`
//! other than a known draft is an error (it may switch vocabularies).
//!
//! | keyword | support |
//! |---|---|
//! | `type` (incl. arrays), `enum`, `const` | yes; beside other keywords, the values that meet them (an object or array value beside keywords constraining containers: error; several object or array values: error) |
//! | `properties`, `required`, `additionalProperties` (false/true/schema) | yes; `propertyNames`, `dependencies`/`dependent*`: error unless empty/`true` |
//! | `patternProperties` | yes when exact: patterns with constraining schemas must not overlap each other (checked on automata), and no pattern may match a declared or required name unless it matches every key (its schema then applies to all members); else error. Pattern keys take every spelling beside additional keys |
//! | `minProperties` / `maxProperties` | only when implied by `required` / the closed property list, or `minProperties: 1` (no `{}`); else error |
//! | `items` (schema, bool, draft-4 array), `prefixItems`, `additionalItems`, `minItems`, `maxItems` | yes (≤ 1000 positions); `uniqueItems: true`, `contains`: error |
//! | `minLength`, `maxLength` (characters, ≤ 1000), `pattern` (ECMA-262) | yes; `pattern` with a length bound: error; lookaround, backreferences, `\b`: error |
//! | `format` | `date`, `time`, `date-time`, `duration`, `uuid`, `ipv4`, `ipv6`, `hostname`, `email`, `uri`, `uri-reference`, `iri`, `iri-reference`, `uri-template`, `json-pointer`, `relative-json-pointer` (see [`mod@format`]); others (`idn-*`, `regex`, unknown): error |
//! | `minimum`, `maximum`, `exclusive*` (draft-4 booleans too) | integers: exact digit automata; numbers: exact decimal automata (both bounds fractional in one integer interval: error) |
//! | `multipleOf` | `1` (= integer) only; others: error |
//! | `x-gcd-finite: "f32"`/`"f64"` (gcd's, written by [`schema_for`]) | numbers serde_json reads as a finite `f32`/`f64` (gcd-core's finite-float regexes), within any bounds; beside bounds or for integers, without an exponent. `format: "float"`/`"double"` stay annotations |
//! | `anyOf` | union per JSON type; several object branches: union, made LL(1) by gcd-core's left factoring on the first key or a shared tag's value (else error); several array branches: error |
//! | `oneOf` | as `anyOf` when branches are provably disjoint (types, finite value sets, or a required tag property with disjoint values); else error |
//! | `allOf`, `$ref` beside keywords | merged when keywords do not interact (else error) |
//! | `$ref` / `$defs` / `definitions` | local JSON pointers, recursion through arrays/objects; remote refs, `$anchor` refs, `$dynamicRef`: error |
//! | `not` | when its complement is exact: `true`/`{}` (nothing left), `false`, types (not `integer` alone), one `required` name (objects without it), `not`, `anyOf` of these; else error |
//! | `if`/`then`/`else`, `unevaluated*` | error |
//!
//! Types deriving `schemars::JsonSchema` go through [`for_type`] (feature
//! `schemars`, on by default), which makes schemars' numeric formats exact
//! bounds first (integer ranges; finite `f32`/`f64`).
//!
//! Pipeline: `compile` (schema → per-type `node`s, lazily per location)
//! → `emit` (nodes → rules) → gcd-core's LL(1) compiler.

mod compile;
pub(crate) mod decimal;
mod emit;
pub mod error;
pub mod format;
pub(crate) mod language;
pub(crate) mod node;
mod other_keys;
pub(crate) mod pattern;
#[cfg(feature = "schemars")]
pub mod schemars_bridge;
pub(crate) mod spell;
#[cfg(test)]
mod test_util;

use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::Grammar;
use serde_json::Value;

pub use error::{SchemaError, SchemaErrorKind};
#[cfg(feature = "schemars")]
pub use schemars_bridge::{for_type, schema_for};

/// Where whitespace may appear between JSON lexemes: gcd-core's policy,
/// shared with `#[derive(Constrained)]`. [`Options::default()`] takes
/// [`Whitespace::Json`].
pub use gcd_core::json::Whitespace;

/// Which spellings of a character constrained strings and object keys
/// accept (unconstrained strings always accept every spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Escapes {
    /// One spelling per character: raw, else the short escape, else
    /// `\u00XX` (what serializers write). A strict subset of what the schema
    /// allows (`"\u0061"` is refused where `"a"` is required), never more,
    /// and much smaller automata.
    #[default]
    Canonical,
    /// Every RFC 8259 spelling, including `\uXXXX` for any character.
    Any,
}

/// The JSON Schema dialect, when the schema's `$schema` does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Draft {
    /// Draft 4: as `Draft7`, and `type: integer` is only numbers written
    /// without a fraction or exponent.
    Draft4,
    /// Drafts 6 and 7: keywords beside `$ref` are ignored.
    Draft7,
    /// 2019-09 and 2020-12: keywords beside `$ref` apply too.
    #[default]
    Draft2020,
}

/// How `type: integer` values may be spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Integers {
    /// Every spelling JSON Schema counts as an integer: `1`, `1.0`, `-0`,
    /// `1e5`.
    #[default]
    Json,
    /// Plain digits only, which is what serde_json reads into a Rust
    /// integer type ([`for_type`] uses this): a subset, never more.
    Plain,
}

/// In which order an object's members may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PropertyOrder {
    /// Declared properties in schema order, extra keys after them: the
    /// model writes fields in the order the schema author chose (a
    /// `reasoning` field before an `answer`), and unions of objects can be
    /// told apart by their first key. Documents in another order are
    /// refused although the schema allows them.
    #[default]
    Schema,
    /// Any order, each key at most once, required ones present: exactly
    /// what the schema allows. Several object shapes in one union are then
    /// refused (nothing tells them apart at the first key).
    Any,
}

/// Compilation options: start from `Options::default()` and chain the
/// setters (`Options::default().properties(PropertyOrder::Any)`). Fields can
/// be read and assigned; new options will join them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// [`Whitespace::Json`] by default: any RFC 8259 whitespace between
    /// lexemes.
    pub whitespace: Whitespace,
    pub properties: PropertyOrder,
    pub escapes: Escapes,
    /// Default dialect; a root `$schema` naming a known draft overrides it.
    pub draft: Draft,
    pub integers: Integers,
    /// Refuse grammars whose contextual lexer needs more states than this
    /// (gcd-core's default limit when `None`). Binding to a vocabulary
    /// costs time and memory per lexer state, so servers may want a cap.
    pub max_lexer_states: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            whitespace: Whitespace::Json,
            properties: PropertyOrder::default(),
            escapes: Escapes::default(),
            draft: Draft::default(),
            integers: Integers::default(),
            max_lexer_states: None,
        }
    }
}

impl Options {
    /// Where whitespace may appear.
    pub fn whitespace(mut self, whitespace: Whitespace) -> Options {
        self.whitespace = whitespace;
        self
    }

    /// In which order object members may come.
    pub fn properties(mut self, properties: PropertyOrder) -> Options {
        self.properties = properties;
        self
    }

    /// Which spellings constrained strings accept.
    pub fn escapes(mut self, escapes: Escapes) -> Options {
        self.escapes = escapes;
        self
    }

    /// The dialect when the schema's `$schema` does not say.
    pub fn draft(mut self, draft: Draft) -> Options {
        self.draft = draft;
        self
    }

    /// How `type: integer` values may be spelled.
    pub fn integers(mut self, integers: Integers) -> Options {
        self.integers = integers;
        self
    }

    /// A cap on the contextual lexer's states.
    pub fn max_lexer_states(mut self, max: usize) -> Options {
        self.max_lexer_states = Some(max);
        self
    }
}

/// The grammar IR of a schema (before gcd-core's LL(1) compilation).
pub fn to_grammar(schema: &Value, options: &Options) -> Result<Grammar, SchemaError> {
    let mut c = compile::Compiler::new(schema, options.escapes, options.draft, options.integers);
    let root = c.root_id();
    let b = emit::Emitter::new(&mut c, options.whitespace, options.properties).run(root)?;
    b.build().map_err(|e| grammar_error(&e))
}

/// Compiles a schema to gcd-core's static tables, ready to bind to a
/// vocabulary.
pub fn compile(schema: &Value, options: &Options) -> Result<CompiledGrammar, SchemaError> {
    let g = to_grammar(schema, options)?;
    let mut config = gcd_core::compiled::Config::default();
    if let Some(n) = options.max_lexer_states {
        config.max_lexer_states = n;
    }
    CompiledGrammar::with_config(&g, &config).map_err(|e| grammar_error(&e))
}

fn grammar_error(e: &gcd_core::error::GrammarError) -> SchemaError {
    let first = e.to_string();
    let first = first.lines().next().unwrap_or("").to_string();
    SchemaError::new(
        SchemaErrorKind::Grammar,
        None,
        "",
        format!("generated grammar rejected by gcd-core: {first}"),
    )
}
