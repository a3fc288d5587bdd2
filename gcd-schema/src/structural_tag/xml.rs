//! `json_schema` content in the XML styles: an object's arguments, one
//! element per argument, in the wrappers of [`XmlStyle`]: `qwen_xml`
//! (Qwen3-Coder, Qwen3.5, MiMo: `<parameter=NAME>VALUE</parameter>`),
//! `minimax_xml` (`<parameter name="NAME">VALUE</parameter>`), `glm_xml`
//! (`<arg_key>NAME</arg_key><arg_value>VALUE</arg_value>`) and
//! `deepseek_xml` (`<｜DSML｜parameter name="NAME" string="true|false">VALUE
//! </｜DSML｜parameter>`, `true` for a raw string) and `deepseek_v4_1_xml`
//! (the same with `｜DSML｜ parameter`), and `cohere_xml` (`<cofl:value
//! name="NAME" type="raw|json">VALUE</cofl:value>`, scalars only), and
//! `minimax_m3_xml` (`]<]minimax[>[<NAME>VALUE]<]minimax[>[</NAME>`, no
//! whitespace around any value, scalars only).
//!
//! The language, as XGrammar 0.2.9 builds it for each (its printed grammar
//! and its verdicts agree), with `<parameter=NAME>` standing for the
//! style's opening:
//!
//! - whitespace (`[ \t\n\r]*`) before the first parameter, between
//!   parameters and after the last; the declared properties in schema
//!   order, required ones present, optional ones skippable, no others
//!   (strict mode, see `json.rs`); an object schema without properties
//!   takes any parameters named `[a-zA-Z_][a-zA-Z0-9_]*`, each an XML
//!   string or a JSON array or object;
//! - a plain string (`{"type": "string"}` with annotations only) is its raw
//!   text, anything without `</parameter>`, whitespace included, nothing
//!   escaped;
//! - a string with `enum`/`const` is one of its values raw, and with only
//!   `minLength`/`maxLength` that many characters of any kind, each with
//!   whitespace around it (none in the DeepSeek styles);
//! - every other value is its JSON text (typed by the schema, as in the
//!   `json` style), with whitespace around it: `<parameter=n>\n12\n</parameter>`.
//!
//! Schemas whose values may be strings in other ways (`pattern`, `format`,
//! unions with a string branch, `$ref` to a string) are refused by name:
//! XGrammar writes their raw text through rules gcd has not matched yet.

use gcd_core::grammar::{Expr, TerminalPattern};
use serde_json::{Map, Value};

use super::format::unsupported;
use super::json::Embedding;
use super::style::{XmlStyle, M3};
use super::text::literal;
use super::{json, text};
use crate::SchemaError;

impl XmlStyle {
    /// The closing tag of the argument `name` (MiniMax M3 names it).
    fn close_of(self, name: &str) -> String {
        match self {
            XmlStyle::MinimaxM3 => format!("{M3}</{name}>"),
            _ => self.close().to_string(),
        }
    }

    /// What a raw string may not contain.
    fn raw_stop(self) -> &'static str {
        match self {
            XmlStyle::MinimaxM3 => M3,
            _ => self.close(),
        }
    }

    /// The DeepSeek styles, whose opening says whether the value is raw.
    fn is_deepseek(self) -> bool {
        matches!(self, XmlStyle::Deepseek | XmlStyle::DeepseekV41)
    }

    /// The opening before the value of `name` (an expression: a name
    /// pattern for any parameter), raw or JSON.
    fn open(self, name: Expr, raw: bool) -> Expr {
        let lit = Expr::literal;
        match self {
            XmlStyle::Qwen => Expr::seq(vec![lit("<parameter="), name, lit(">")]),
            XmlStyle::Minimax => Expr::seq(vec![lit("<parameter name=\""), name, lit("\">")]),
            XmlStyle::Glm => Expr::seq(vec![
                lit("<arg_key>"),
                name,
                lit("</arg_key>"),
                ws(),
                lit("<arg_value>"),
            ]),
            XmlStyle::MinimaxM3 => Expr::seq(vec![lit(&format!("{M3}<")), name, lit(">")]),
            XmlStyle::Cohere => Expr::seq(vec![
                lit("<cofl:value name=\""),
                name,
                lit(if raw {
                    "\" type=\"raw\">"
                } else {
                    "\" type=\"json\">"
                }),
            ]),
            XmlStyle::Deepseek | XmlStyle::DeepseekV41 => Expr::seq(vec![
                lit(if self == XmlStyle::Deepseek {
                    "<\u{ff5c}DSML\u{ff5c}parameter name=\""
                } else {
                    "<\u{ff5c}DSML\u{ff5c} parameter name=\""
                }),
                name,
                lit(if raw {
                    "\" string=\"true\">"
                } else {
                    "\" string=\"false\">"
                }),
            ]),
        }
    }
}

/// Keywords that only annotate.
const ANNOTATIONS: [&str; 7] = [
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "$schema",
];

fn ws() -> Expr {
    Expr::opt(Expr::regex("[ \\t\\n\\r]+"))
}

/// Raw text up to the closing tag (possibly empty).
fn raw_string(style: XmlStyle) -> Expr {
    Expr::opt(Expr::Pattern(
        text::free_text(&[style.raw_stop().to_string()], None),
        None,
    ))
}

impl XmlStyle {
    fn name(self) -> &'static str {
        match self {
            XmlStyle::Qwen => "qwen_xml",
            XmlStyle::Minimax => "minimax_xml",
            XmlStyle::Glm => "glm_xml",
            XmlStyle::Deepseek => "deepseek_xml",
            XmlStyle::DeepseekV41 => "deepseek_v4_1_xml",
            XmlStyle::Cohere => "cohere_xml",
            XmlStyle::MinimaxM3 => "minimax_m3_xml",
        }
    }
}

/// The arguments of `schema` in the XML of `style`.
pub(crate) fn lower(
    lw: &mut Embedding<'_>,
    style: XmlStyle,
    prefix: &str,
    schema: &Value,
    at: &str,
) -> Result<Expr, SchemaError> {
    let at = format!("{at}/json_schema");
    let schema = json::strict(schema);
    let obj = match &schema {
        Value::Bool(true) => return generic_object(lw, style, prefix, &at),
        Value::Object(m) => m,
        _ => {
            return Err(unsupported(
                &at,
                format!(
                    "{} needs an object schema (its arguments are an object's properties)",
                    style.name()
                ),
            ))
        }
    };
    for (k, v) in obj {
        let fine = match k.as_str() {
            "type" => v == "object",
            "properties" | "required" | "$defs" | "definitions" => true,
            "additionalProperties" => v == &Value::Bool(false) || !obj.contains_key("properties"),
            k => ANNOTATIONS.contains(&k),
        };
        if !fine {
            return Err(unsupported(
                &format!("{at}/{k}"),
                format!(
                    "{} does not support {k:?} = {v} on the arguments' schema yet",
                    style.name()
                ),
            ));
        }
    }
    let properties = match obj.get("properties").and_then(Value::as_object) {
        Some(p) if !p.is_empty() => p,
        _ => {
            if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
                // No parameter at all.
                return Ok(ws());
            }
            return generic_object(lw, style, prefix, &at);
        }
    };
    let required: Vec<&str> = (obj.get("required").and_then(Value::as_array))
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(r) = required.iter().find(|r| !properties.contains_key(**r)) {
        return Err(unsupported(
            &format!("{at}/required"),
            format!(
                "{}: the required {r:?} is not a declared property",
                style.name()
            ),
        ));
    }
    let defs: Map<String, Value> = ["$defs", "definitions"]
        .iter()
        .filter_map(|k| obj.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let mut items = vec![ws()];
    for (i, (name, sub)) in properties.iter().enumerate() {
        let p_at = format!("{at}/properties/{name}");
        if matches!(style, XmlStyle::Cohere | XmlStyle::MinimaxM3)
            && name.contains(['&', '<', '>', '"', '[', ']'])
        {
            return Err(unsupported(
                &p_at,
                format!(
                    "{}: a property name with an XML special character is not supported yet",
                    style.name()
                ),
            ));
        }
        let (value, raw) = value(lw, style, &format!("{prefix}_{i}"), sub, &defs, &p_at)?;
        let param = Expr::seq(vec![
            style.open(Expr::literal(name), raw),
            value,
            Expr::literal(&style.close_of(name)),
            ws(),
        ]);
        items.push(if required.contains(&name.as_str()) {
            param
        } else {
            Expr::opt(param)
        });
    }
    Ok(Expr::seq(items))
}

/// Any parameters: what XGrammar's `xml_object` takes.
fn generic_object(
    lw: &mut Embedding<'_>,
    style: XmlStyle,
    prefix: &str,
    at: &str,
) -> Result<Expr, SchemaError> {
    let name = || Expr::regex("[a-zA-Z_][a-zA-Z0-9_]*");
    if matches!(style, XmlStyle::Cohere | XmlStyle::MinimaxM3) {
        return Err(unsupported(
            at,
            format!(
                "{}: arguments without declared properties are not supported yet",
                style.name()
            ),
        ));
    }
    if style.is_deepseek() {
        // A raw string, or any other JSON value.
        let other = embed_json(
            lw,
            &format!("{prefix}_val"),
            &serde_json::json!({"type": ["number", "boolean", "null", "array", "object"]}),
            at,
        )?;
        let param = Expr::alt(vec![
            Expr::seq(vec![style.open(name(), true), raw_string(style)]),
            Expr::seq(vec![style.open(name(), false), ws(), other, ws()]),
        ]);
        let param = Expr::seq(vec![param, Expr::literal(style.close()), ws()]);
        return Ok(Expr::seq(vec![ws(), Expr::star(param)]));
    }
    let array = embed_json(
        lw,
        &format!("{prefix}_arr"),
        &serde_json::json!({"type": "array"}),
        at,
    )?;
    let object = embed_json(
        lw,
        &format!("{prefix}_obj"),
        &serde_json::json!({"type": "object"}),
        at,
    )?;
    let value = Expr::alt(vec![
        raw_string(style),
        Expr::seq(vec![ws(), array, ws()]),
        Expr::seq(vec![ws(), object, ws()]),
    ]);
    let param = Expr::seq(vec![
        style.open(name(), true),
        value,
        Expr::literal(style.close()),
        ws(),
    ]);
    Ok(Expr::seq(vec![ws(), Expr::star(param)]))
}

/// A constrained raw string as XGrammar writes it in `style`: with
/// whitespace around it, except in the DeepSeek styles (whose
/// `string="true"` values are the text alone) and MiniMax M3.
fn pad(style: XmlStyle, e: Expr) -> Expr {
    if style.is_deepseek() || style == XmlStyle::MinimaxM3 {
        e
    } else {
        Expr::seq(vec![ws(), e, ws()])
    }
}

/// One parameter's value, and whether it is a raw string.
fn value(
    lw: &mut Embedding<'_>,
    style: XmlStyle,
    prefix: &str,
    sub: &Value,
    defs: &Map<String, Value>,
    at: &str,
) -> Result<(Expr, bool), SchemaError> {
    let sn = style.name();
    let Some(m) = sub.as_object() else {
        return Err(unsupported(
            at,
            format!("{sn}: a boolean property schema is not supported yet"),
        ));
    };
    let constrained_string = |what: &str| {
        unsupported(
            at,
            format!("{sn}: a string parameter with {what} is not supported yet"),
        )
    };
    let constraining: Vec<&str> = (m.keys())
        .map(String::as_str)
        .filter(|k| !ANNOTATIONS.contains(k))
        .collect();
    let ty = m.get("type");
    let types: Vec<&str> = match ty {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let values: Option<Vec<&Value>> = match (m.get("enum"), m.get("const")) {
        (Some(Value::Array(a)), None) => Some(a.iter().collect()),
        (None, Some(c)) => Some(vec![c]),
        _ => None,
    };
    // One of listed values: raw if all are strings, JSON if none is.
    if let Some(values) = &values {
        let strings: Vec<&str> = values.iter().filter_map(|v| v.as_str()).collect();
        if strings.len() == values.len() && !strings.is_empty() {
            let extra = constraining
                .iter()
                .find(|k| !matches!(**k, "type" | "enum" | "const"));
            if let Some(k) = extra {
                return Err(unsupported(
                    at,
                    format!("{sn}: {k:?} beside a string enum is not supported yet"),
                ));
            }
            let alts = strings.iter().map(|s| literal(s)).collect();
            return Ok((pad(style, Expr::alt(alts)), true));
        }
        if !strings.is_empty() {
            return Err(unsupported(
                at,
                format!("{sn}: an enum mixing strings and other values is not supported yet"),
            ));
        }
    } else if types == ["string"] {
        let mut min = 0u64;
        let mut max = None;
        for k in &constraining {
            match *k {
                "type" => {}
                "minLength" => min = m.get("minLength").and_then(Value::as_u64).unwrap_or(0),
                "maxLength" => max = m.get("maxLength").and_then(Value::as_u64),
                k => return Err(constrained_string(&format!("{k:?}"))),
            }
        }
        if min == 0 && max.is_none() {
            return Ok((raw_string(style), true));
        }
        let max = max.map(|n| n.to_string()).unwrap_or_default();
        if min == 0 && max == "0" {
            return Ok((pad(style, Expr::seq(Vec::new())), true));
        }
        let chars = Expr::Pattern(
            TerminalPattern::Regex(format!("(?s:.{{{},{max}}})", min.max(1))),
            None,
        );
        let chars = if min == 0 { Expr::opt(chars) } else { chars };
        return Ok((pad(style, chars), true));
    } else {
        let may_be_string = types.is_empty() || types.contains(&"string");
        if may_be_string {
            return Err(unsupported(
                at,
                format!("{sn}: a parameter that may be a string other than by \"type\": \"string\" (no type, a union, a $ref) is not supported yet"),
            ));
        }
    }
    if matches!(style, XmlStyle::Cohere | XmlStyle::MinimaxM3)
        && (types.is_empty() || types.iter().any(|t| matches!(*t, "object" | "array")))
    {
        return Err(unsupported(
            at,
            format!(
                "{sn}: object and array parameters (written as nested elements) are not supported yet"
            ),
        ));
    }
    let mut schema = m.clone();
    schema.extend(defs.clone());
    let v = embed_json(lw, prefix, &Value::Object(schema), at)?;
    if style == XmlStyle::MinimaxM3 {
        return Ok((v, false));
    }
    Ok((Expr::seq(vec![ws(), v, ws()]), false))
}

fn embed_json(
    lw: &mut Embedding<'_>,
    prefix: &str,
    schema: &Value,
    at: &str,
) -> Result<Expr, SchemaError> {
    lw.schema(prefix, schema, at)
}
