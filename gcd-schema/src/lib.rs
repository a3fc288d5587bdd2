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
//! - integers are plain digits unless [`Integers::Json`] is set; with it,
//!   integers with an exponent are accepted only when certainly integral
//!   (`1e5`, `1.5e+52`), and bounded integers only without an exponent;
//!   `const`/`enum` numbers only as written (plus `.0…`/trailing zeros);
//! - bounded numbers with an exponent only after a mantissa of at least
//!   0.1 and below 1000 (`1e-05`, `2.5E3`, `12.5e3`, `0.5e-3`) or a zero
//!   one, unless the bounds leave the number's sign free;
//! - `format: time`/`date-time` leap seconds only in UTC; `hostname`,
//!   `email`, `uri-template`, `duration` and `relative-json-pointer` are
//!   documented subsets of their standards (see [`mod@format`]).
//!
//! Every keyword we cannot enforce is a [`SchemaError`] naming the keyword
//! and the JSON pointer; nothing is silently dropped. Unknown keywords are
//! ignored, as JSON Schema validators ignore them; so are annotations
//! (`title`, `description`, `default`, `examples`, `$comment`, `$id`,
//! `deprecated`, `readOnly`, `writeOnly`, `content*`, …) and formats no
//! draft defines, which the compiled grammar's warnings list. A `$schema`
//! other than a known draft is an error (it may switch vocabularies).
//!
//! | keyword | support |
//! |---|---|
//! | `type` (incl. arrays), `enum`, `const` | yes; beside other keywords, the values that meet them (an object or array value beside keywords constraining containers: error; several object or array values: error) |
//! | `properties`, `required`, `additionalProperties` (false/true/schema) | yes; `propertyNames`: error unless `true` |
//! | `dependencies`, `dependentRequired`, `dependentSchemas` | as branches of an `anyOf` (the property absent, or present with what it demands), at most 6 per schema; beside `anyOf`: error |
//! | `patternProperties` | yes when exact: patterns with constraining schemas must not overlap each other (checked on automata), else error; a declared or required name a pattern matches meets the pattern's schema too, and the pattern's key terminal leaves it out (a lookahead). Pattern keys take every spelling beside additional keys |
//! | `minProperties` / `maxProperties` | only when implied by `required` / the closed property list, or `minProperties: 1` (no `{}`); else error |
//! | `items` (schema, bool, draft-4 array), `prefixItems`, `additionalItems`, `minItems`, `maxItems` | yes (≤ 1000 positions); `uniqueItems: true`, `contains`: error |
//! | `minLength`, `maxLength` (characters), `pattern` (ECMA-262) | yes; with each other and with `format`, the intersection of their automata (≤ 20,000 states, else error); bounds above 1000 as 64-character chunks (≤ 262,144, without pattern or format); lookaround, backreferences, `\b`: error |
//! | `format` | `date`, `time`, `date-time`, `duration`, `uuid`, `ipv4`, `ipv6`, `hostname`, `email`, `uri`, `uri-reference`, `iri`, `iri-reference`, `uri-template`, `json-pointer`, `relative-json-pointer` (see [`mod@format`]); `idn-*`, `regex`: error; formats no draft defines (`path`, `url`, `byte`, …): annotations, not enforced, listed in [`CompiledGrammar::warnings`] |
//! | `minimum`, `maximum`, `exclusive*` (draft-4 booleans too) | integers: exact digit automata; numbers: exact decimal automata, with an exponent after a mantissa in `[0.1, 1000)` (or any, where the bounds leave the sign free) |
//! | `multipleOf` | `1` (= integer) only; others: error |
//! | `x-gcd-finite: "f32"`/`"f64"` (gcd's, written by [`schema_for`]) | numbers serde_json reads as a finite `f32`/`f64` (gcd-core's finite-float regexes), within any bounds; beside bounds, with an exponent only below `10^31` in magnitude (as bounded numbers); integers without an exponent. `format: "float"`/`"double"` stay annotations |
//! | `anyOf` | union per JSON type; several object branches: union, LL(1) where the first key or a shared tag's value tells them apart, else parsed by forking (gcd-core's generalized parser); several array branches: error |
//! | `oneOf` | as `anyOf` when branches are provably disjoint (types, finite value sets, or a required tag property with disjoint values); object shapes that differ only in their required names: each with the others' extra names absent; else error |
//! | `allOf`, `$ref` beside keywords | merged when keywords do not interact (else error); parts' `properties` and `additionalProperties` (without `patternProperties`): each key meets what each part says of it; two `enum`s: the values both list; two `anyOf`s: a branch per pair (≤ 64) |
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

// Library code never unwraps or panics on what callers pass in: an
// invariant states itself with `expect`, and CI runs clippy with these.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::panic))]
// Every public item says what it is for: a user reads the docs, not the code.
#![deny(missing_docs)]

mod compile;
pub(crate) mod decimal;
mod emit;
pub mod error;
pub mod format;
mod grammar_text;
pub(crate) mod language;
pub(crate) mod node;
mod options;
mod other_keys;
pub(crate) mod pattern;
#[cfg(feature = "schemars")]
pub mod schemars_bridge;
pub(crate) mod spell;
pub mod structural_tag;
#[cfg(test)]
mod test_util;
mod unsatisfiable;
mod x_guidance;

use gcd_core::compiled::CompiledGrammar;
use gcd_core::error::{Diagnostic, DiagnosticKind};
use gcd_core::grammar::Grammar;
use serde_json::Value;

pub use error::{SchemaError, SchemaErrorKind};
pub use grammar_text::{GrammarFormat, GrammarReader};
pub use options::{
    Draft, Escapes, Integers, Limits, Options, PropertyOrder, Whitespace, DEFAULT_WHITESPACE,
};
#[cfg(feature = "schemars")]
pub use schemars_bridge::{for_type, schema_for};
pub use structural_tag::{
    lower_structural_tag, structural_tag, structural_tag_config, structural_tag_to_grammar,
    GivenArguments, LoweredTag,
};

/// The grammar IR of a schema (before gcd-core's LL(1) compilation).
pub fn to_grammar(schema: &Value, options: &Options) -> Result<Grammar, SchemaError> {
    lower(schema, options).map(|(g, _)| g)
}

/// Reads a grammar in gcd's Lark dialect whose `%json { ... }` rules are
/// JSON Schemas, each compiled with `options` and embedded as a rule (the
/// typed part of a chat format: `call: "<tool_call>" %json {...}
/// "</tool_call>"`). Under `Whitespace::Json` an embedded value takes
/// any whitespace between its own tokens ([`Whitespace::Within`]), and
/// none around it: whitespace ignored between lexemes would apply to the
/// whole grammar.
pub fn parse_lark(src: &str, options: &Options) -> Result<Grammar, gcd_core::error::GrammarError> {
    gcd_core::lark::parse_with_embeds(src, &options.limits, options)?.build()
}

impl gcd_core::lark::Embeds for Options {
    fn json_schema(&self, schema: &Value) -> Result<Grammar, String> {
        let within;
        let options = match self.whitespace {
            Whitespace::Json => {
                within = self.clone().whitespace(Whitespace::Within);
                &within
            }
            _ => self,
        };
        to_grammar(schema, options).map_err(|e| e.to_string())
    }
}

/// The grammar IR and the annotations that were not enforced.
fn lower(schema: &Value, options: &Options) -> Result<(Grammar, Vec<Diagnostic>), SchemaError> {
    use gcd_core::counters::{timed, Stage};
    timed(Stage::SchemaToIr, || lower_now(schema, options))
}

fn lower_now(schema: &Value, options: &Options) -> Result<(Grammar, Vec<Diagnostic>), SchemaError> {
    check_depth(schema, options.limits.max_schema_depth)?;
    let options = &x_guidance::apply(schema, options)?;
    let mut c = compile::Compiler::new(schema, options.escapes, options.draft, options.integers);
    c.limits = options.limits.clone();
    let root = c.root_id();
    let b = emit::Emitter::new(&mut c, options.whitespace, options.properties).run(root)?;
    let g = b.build().map_err(grammar_error)?;
    let ignored = (c.ignored_formats.take().into_iter())
        .map(|(ptr, f)| {
            let at = if ptr.is_empty() { "the root" } else { &ptr };
            Diagnostic::new(
                DiagnosticKind::Annotation,
                None,
                format!("format {f:?} at {at} is not a standard format: kept as an annotation, not enforced"),
            )
        })
        .collect();
    Ok((g, ignored))
}

/// Compiles a schema to gcd-core's static tables, ready to bind to a
/// vocabulary. What the schema says that only annotates and was not
/// enforced (formats no draft defines) is in the result's
/// [`warnings`](CompiledGrammar::warnings).
pub fn compile(schema: &Value, options: &Options) -> Result<CompiledGrammar, SchemaError> {
    let (g, ignored) = lower(schema, options)
        .map_err(|e| unsatisfiable::explain(schema, &|doc| lower(doc, options).is_ok(), e))?;
    let config = gcd_core::compiled::Config::default().limits(options.limits.clone());
    let mut compiled = CompiledGrammar::with_config(&g, &config).map_err(grammar_error)?;
    for d in ignored {
        compiled.add_warning(d);
    }
    Ok(compiled)
}

/// Refuses a schema document nested deeper than `max` objects and arrays,
/// naming where: measured without recursion, so any depth is measured
/// safely and fast.
fn check_depth(schema: &Value, max: usize) -> Result<(), SchemaError> {
    // Depth-first: `path` holds the keys from the root to the node last
    // taken off the stack, which are its ancestors' and its own.
    let mut stack: Vec<(&Value, usize, String)> = vec![(schema, 1, String::new())];
    let mut path: Vec<String> = Vec::new();
    while let Some((v, depth, key)) = stack.pop() {
        if depth > 1 {
            path.truncate(depth - 2);
            path.push(key);
        }
        if depth > max {
            let pointer: String = (path.iter())
                .map(|k| format!("/{}", k.replace('~', "~0").replace('/', "~1")))
                .collect();
            return Err(SchemaError::new(
                SchemaErrorKind::TooLarge,
                None,
                &pointer,
                format!(
                    "the schema nests objects and arrays more than {max} deep \
                     (the limit `Limits::max_schema_depth`)"
                ),
            ));
        }
        match v {
            Value::Object(m) => stack.extend(m.iter().map(|(k, c)| (c, depth + 1, k.clone()))),
            Value::Array(a) => stack.extend(
                a.iter()
                    .enumerate()
                    .map(|(i, c)| (c, depth + 1, i.to_string())),
            ),
            _ => {}
        }
    }
    Ok(())
}

/// gcd-core refused the grammar a schema lowered to. The message keeps the
/// first line, which names the problem; the whole error, every diagnostic
/// with its span, is the [`source`](std::error::Error::source).
fn grammar_error(e: gcd_core::error::GrammarError) -> SchemaError {
    let first = e.to_string();
    let first = first.lines().next().unwrap_or("").to_string();
    SchemaError::new(
        SchemaErrorKind::Grammar,
        None,
        "",
        format!("generated grammar rejected by gcd-core: {first}"),
    )
    .caused_by(e)
}
