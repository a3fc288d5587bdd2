//! `json_schema` content in the `json` style: the schema compiled by this
//! crate, under the choices that give XGrammar's language.
//!
//! XGrammar compiles a structural tag's schemas in its strict mode, with
//! any JSON whitespace between a value's tokens and none around the value,
//! every RFC 8259 escape in free strings but object keys and `enum`/`const`
//! strings spelled exactly as written, and integers as plain digits. So:
//!
//! - [`strict`] writes strict mode into the schema: an object schema that
//!   lists `properties` and says nothing of other keys takes
//!   `additionalProperties: false` (an object schema without `properties`
//!   still takes any keys, as in XGrammar), and `prefixItems` without
//!   `items` takes `items: false`; a string with `minLength` or
//!   `maxLength` (and no `pattern` or `format`) takes no escapes, as
//!   XGrammar writes it;
//! - the value is compiled with [`Whitespace::Within`],
//!   [`Escapes::Canonical`] (every spelling in unconstrained strings, one
//!   for keys and listed values) and [`Integers::Plain`], in schema property order
//!   ([`PropertyOrder::Schema`], as XGrammar without `any_order`); only the
//!   caller's limits are kept.

use gcd_core::grammar::{Expr, Grammar, GrammarBuilder};
use serde_json::Value;

use crate::{Escapes, Integers, Options, PropertyOrder, SchemaError, Whitespace};

/// The options a structural tag's schemas compile with: XGrammar's
/// choices, the caller's limits.
pub(crate) fn xgrammar_options(options: &Options) -> Options {
    Options::default()
        .whitespace(Whitespace::Within)
        .escapes(Escapes::Canonical)
        .integers(Integers::Plain)
        .properties(PropertyOrder::Schema)
        .draft(options.draft)
        .limits(options.limits.clone())
}

/// Strings of characters that JSON spells without an escape.
const UNESCAPED: &str = "^[^\"\\\\\\u0000-\\u001f]*$";

/// The schema as XGrammar's strict mode reads it.
pub(crate) fn strict(schema: &Value) -> Value {
    let mut out = schema.clone();
    make_strict(&mut out, false);
    out
}

/// [`strict`], for values written as JSON text: length-bounded strings
/// also take no escapes. (The XML styles write such a string raw.)
fn strict_json(schema: &Value) -> Value {
    let mut out = schema.clone();
    make_strict(&mut out, true);
    out
}

fn make_strict(v: &mut Value, json_text: bool) {
    match v {
        Value::Object(m) => {
            let lists_properties = m
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty());
            if lists_properties
                && !m.contains_key("additionalProperties")
                && !m.contains_key("unevaluatedProperties")
                && !m.contains_key("patternProperties")
            {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            if m.contains_key("prefixItems")
                && !m.contains_key("items")
                && !m.contains_key("unevaluatedItems")
            {
                m.insert("items".into(), Value::Bool(false));
            }
            // XGrammar writes a length-bounded string without escapes
            // (`"\""` is refused under `maxLength`): with canonical
            // escapes, a string of characters that need none is that.
            let bounded = m.contains_key("minLength") || m.contains_key("maxLength");
            let is_string = m.get("type") == Some(&Value::String("string".into()));
            if json_text
                && bounded
                && is_string
                && !m.contains_key("pattern")
                && !m.contains_key("format")
            {
                m.insert("pattern".into(), Value::String(UNESCAPED.into()));
            }
            // Keys whose values are data, not schemas.
            for (k, child) in m.iter_mut() {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    make_strict(child, json_text);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| make_strict(x, json_text)),
        _ => {}
    }
}

/// The grammar of the JSON values `schema` (strict) allows.
pub(crate) fn value_grammar(schema: &Value, options: &Options) -> Result<Grammar, SchemaError> {
    crate::to_grammar(&strict_json(schema), &xgrammar_options(options))
}

/// Embeds `g` in `b` under a fresh prefix and names its start rule.
pub(crate) fn embed(b: &mut GrammarBuilder, prefix: &str, g: &Grammar) -> Expr {
    Expr::name(&b.embed(prefix, g, None))
}

/// A schema error inside a format: the format's pointer (`at`, the
/// schema's place in the tag) goes before the schema's own.
pub(crate) fn within_schema(at: &str, e: SchemaError) -> SchemaError {
    e.under(at)
}

/// Where embedded schemas go: the grammar being built, and the options
/// schemas compile with.
pub(crate) struct Embedding<'a> {
    pub(crate) builder: &'a mut GrammarBuilder,
    pub(crate) options: &'a Options,
}

impl Embedding<'_> {
    /// The values of `schema` as rules under `prefix`, its errors placed
    /// at `at`.
    pub(crate) fn schema(
        &mut self,
        prefix: &str,
        schema: &Value,
        at: &str,
    ) -> Result<Expr, SchemaError> {
        let g = value_grammar(schema, self.options).map_err(|e| within_schema(at, e))?;
        Ok(embed(self.builder, prefix, &g))
    }
}
