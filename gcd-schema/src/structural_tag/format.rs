//! The structural tag's JSON read into a tree of [`Format`]s, checked as
//! XGrammar's own reader checks it: every field's JSON type, the kinds by
//! their `type` name, and no field this reader does not know (a field it
//! ignored could be a constraint it silently failed to enforce).
//!
//! Kinds that need token ids (`token`, `exclude_token`, `any_tokens`,
//! `token_triggered_tags`, `token_dispatch`) and content styles other than
//! `json` and the XML styles of `xml.rs` are refused here, by name: they are XGrammar
//! formats gcd does not honour yet, not malformed input.

use serde_json::{Map, Value};

use super::style::XmlStyle;
use crate::SchemaError;

/// One format of a structural tag, as XGrammar's `structural_tag.py`
/// defines it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Format {
    /// `const_string`: exactly `value`.
    Const(String),
    /// `json_schema` (and the deprecated `qwen_xml_parameter`).
    Json(JsonFormat),
    /// `regex`: a whole match of `pattern`.
    Regex(String),
    /// `grammar` with `syntax: "ebnf"`: XGrammar's EBNF, read as GBNF.
    Grammar(String),
    /// `any_text`: any text without the excluded strings, at most
    /// `max_chars` characters.
    AnyText {
        excludes: Vec<String>,
        max_chars: Option<u32>,
    },
    /// `sequence`: the elements one after another.
    Sequence(Vec<Format>),
    /// `or`: one of the elements.
    Or(Vec<Format>),
    /// `tag`: `begin`, the content, one of the `end` strings.
    Tag(Tag),
    /// `triggered_tags`: free text in which each trigger opens a tag.
    Triggered(Triggered),
    /// `tags_with_separator`: tags separated by `separator`, nothing else.
    Separated {
        tags: Vec<Tag>,
        separator: String,
        at_least_one: bool,
        stop_after_first: bool,
    },
    /// `dispatch`: free text in which each pattern is followed by its format.
    Dispatch {
        rules: Vec<(String, Format)>,
        repeat: bool,
        excludes: Vec<String>,
    },
    /// `optional`, `star`, `plus`, `repeat`: the content between `min` and
    /// `max` times (`None`: unbounded).
    Repeat {
        content: Box<Format>,
        min: u32,
        max: Option<u32>,
    },
}

/// A `tag`: begin and end strings around a content.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tag {
    pub begin: String,
    pub content: Box<Format>,
    /// One or more; any of them ends the tag.
    pub end: Vec<String>,
}

/// A `triggered_tags` format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Triggered {
    pub triggers: Vec<String>,
    pub tags: Vec<Tag>,
    pub at_least_one: bool,
    pub stop_after_first: bool,
    pub excludes: Vec<String>,
}

/// How a `json_schema` content is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// The JSON text of the value.
    Json,
    /// One XML element per argument (`qwen_xml`, `minimax_xml`,
    /// `glm_xml`, `deepseek_xml`).
    Xml(XmlStyle),
}

/// A `json_schema` format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct JsonFormat {
    pub schema: Value,
    pub style: Style,
}

/// Reads the whole structural tag: `{"type": "structural_tag", "format":
/// {...}}`, or the older `{"type": "structural_tag", "structures": [...],
/// "triggers": [...]}` of vLLM's examples (each structure `{"begin",
/// "schema", "end"}`), which XGrammar reads as `triggered_tags` of
/// `json_schema` tags.
pub(crate) fn read_structural_tag(v: &Value) -> Result<Format, SchemaError> {
    let obj = object(v, "")?;
    match obj.get("type") {
        Some(Value::String(t)) if t == "structural_tag" => {}
        Some(other) => {
            return Err(invalid(
                "/type",
                format!("a structural tag's \"type\" must be \"structural_tag\", not {other}"),
            ))
        }
        None => {
            return Err(invalid(
                "",
                "a structural tag needs \"type\": \"structural_tag\"",
            ))
        }
    }
    if obj.contains_key("structures") || obj.contains_key("triggers") {
        known_fields(obj, "", &["type", "structures", "triggers"])?;
        return read_legacy(obj);
    }
    known_fields(obj, "", &["type", "format"])?;
    let f = obj
        .get("format")
        .ok_or_else(|| invalid("", "a structural tag needs a \"format\""))?;
    read_format(f, "/format")
}

/// The older form: triggers and `{begin, schema, end}` structures.
fn read_legacy(obj: &Map<String, Value>) -> Result<Format, SchemaError> {
    let triggers = strings(obj.get("triggers"), "/triggers")?;
    let structures = match obj.get("structures") {
        Some(Value::Array(a)) => a,
        _ => return Err(invalid("/structures", "\"structures\" must be an array")),
    };
    let mut tags = Vec::new();
    for (i, s) in structures.iter().enumerate() {
        let at = format!("/structures/{i}");
        let o = object(s, &at)?;
        known_fields(o, &at, &["begin", "schema", "end"])?;
        let schema = match o.get("schema") {
            // XGrammar takes a schema given as JSON text too.
            Some(Value::String(text)) => serde_json::from_str(text).map_err(|e| {
                invalid(
                    &format!("{at}/schema"),
                    format!("the schema text is not JSON: {e}"),
                )
            })?,
            Some(v) => v.clone(),
            None => return Err(invalid(&at, "a structure needs a \"schema\"")),
        };
        tags.push(Tag {
            begin: string(o.get("begin"), &format!("{at}/begin"))?,
            content: Box::new(Format::Json(JsonFormat {
                schema,
                style: Style::Json,
            })),
            end: vec![string(o.get("end"), &format!("{at}/end"))?],
        });
    }
    Ok(Format::Triggered(Triggered {
        triggers,
        tags,
        at_least_one: false,
        stop_after_first: false,
        excludes: Vec::new(),
    }))
}

/// Reads one format at `at` (a JSON pointer, for errors).
pub(crate) fn read_format(v: &Value, at: &str) -> Result<Format, SchemaError> {
    let obj = object(v, at)?;
    let kind = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        _ => return Err(invalid(at, "a format needs a string \"type\"")),
    };
    let field = |name: &str| format!("{at}/{name}");
    let f = match kind {
        "const_string" => {
            known_fields(obj, at, &["type", "value"])?;
            Format::Const(string(obj.get("value"), &field("value"))?)
        }
        "json_schema" | "qwen_xml_parameter" => {
            let legacy = kind == "qwen_xml_parameter";
            if legacy {
                known_fields(obj, at, &["type", "json_schema"])?;
            } else {
                known_fields(
                    obj,
                    at,
                    &[
                        "type",
                        "json_schema",
                        "style",
                        "any_order",
                        "max_whitespace_cnt",
                        "excludes",
                    ],
                )?;
            }
            let schema = obj
                .get("json_schema")
                .cloned()
                .ok_or_else(|| invalid(at, "a json_schema format needs \"json_schema\""))?;
            if !schema.is_object() && !schema.is_boolean() {
                return Err(invalid(
                    &field("json_schema"),
                    "\"json_schema\" must be an object or a boolean",
                ));
            }
            let style = if legacy {
                Style::Xml(XmlStyle::Qwen)
            } else {
                match obj.get("style") {
                    None => Style::Json,
                    Some(Value::String(s)) if s == "json" => Style::Json,
                    Some(Value::String(s)) if s == "qwen_xml" => Style::Xml(XmlStyle::Qwen),
                    Some(Value::String(s)) if s == "minimax_xml" => Style::Xml(XmlStyle::Minimax),
                    Some(Value::String(s)) if s == "glm_xml" => Style::Xml(XmlStyle::Glm),
                    Some(Value::String(s)) if s == "deepseek_xml" => {
                        Style::Xml(XmlStyle::Deepseek)
                    }
                    Some(Value::String(s)) if s == "deepseek_v4_1_xml" => {
                        Style::Xml(XmlStyle::DeepseekV41)
                    }
                    Some(Value::String(s)) if s == "cohere_xml" => Style::Xml(XmlStyle::Cohere),
                    Some(Value::String(s)) if s == "minimax_m3_xml" => {
                        Style::Xml(XmlStyle::MinimaxM3)
                    }
                    Some(Value::String(s)) => {
                        return Err(unsupported(
                            &field("style"),
                            format!(
                                "json_schema style {s:?} is not supported yet (gcd reads \"json\", \"qwen_xml\", \"minimax_xml\", \"glm_xml\", \"deepseek_xml\", \"deepseek_v4_1_xml\", \"cohere_xml\" and \"minimax_m3_xml\")"
                            ),
                        ))
                    }
                    Some(_) => return Err(invalid(&field("style"), "\"style\" must be a string")),
                }
            };
            if boolean(obj.get("any_order"), &field("any_order"))? {
                return Err(unsupported(
                    &field("any_order"),
                    "json_schema \"any_order\": true is not supported yet",
                ));
            }
            if !matches!(obj.get("max_whitespace_cnt"), None | Some(Value::Null)) {
                return Err(unsupported(
                    &field("max_whitespace_cnt"),
                    "json_schema \"max_whitespace_cnt\" is not supported yet (only null)",
                ));
            }
            if !strings(obj.get("excludes"), &field("excludes"))?.is_empty() {
                return Err(unsupported(
                    &field("excludes"),
                    "json_schema \"excludes\" is not supported yet (only [])",
                ));
            }
            Format::Json(JsonFormat { schema, style })
        }
        "regex" => {
            known_fields(obj, at, &["type", "pattern"])?;
            Format::Regex(string(obj.get("pattern"), &field("pattern"))?)
        }
        "grammar" => {
            known_fields(obj, at, &["type", "grammar", "syntax"])?;
            match obj.get("syntax") {
                None => {}
                Some(Value::String(s)) if s == "ebnf" => {}
                Some(Value::String(s)) if s == "lark" => {
                    return Err(unsupported(
                        &field("syntax"),
                        "grammar syntax \"lark\" is not supported yet (XGrammar reads Lark without a lexer, gcd with one); write it as \"ebnf\"",
                    ))
                }
                Some(other) => {
                    return Err(invalid(
                        &field("syntax"),
                        format!("grammar \"syntax\" must be \"ebnf\" or \"lark\", not {other}"),
                    ))
                }
            }
            Format::Grammar(string(obj.get("grammar"), &field("grammar"))?)
        }
        "any_text" => {
            known_fields(obj, at, &["type", "excludes", "max_tokens", "max_chars"])?;
            if !matches!(obj.get("max_tokens"), None | Some(Value::Null)) {
                return Err(unsupported(
                    &field("max_tokens"),
                    "any_text \"max_tokens\" is not supported yet: a cap on one region's tokens is a lexeme cap, which gcd sets on the matcher (Matcher::set_lexeme_cap), not in the grammar",
                ));
            }
            Format::AnyText {
                excludes: nonempty_strings(obj.get("excludes"), &field("excludes"))?,
                max_chars: count(obj.get("max_chars"), &field("max_chars"))?,
            }
        }
        "sequence" | "or" => {
            known_fields(obj, at, &["type", "elements"])?;
            let elements = formats(obj.get("elements"), &field("elements"))?;
            if elements.is_empty() {
                return Err(invalid(
                    &field("elements"),
                    format!("a {kind} needs at least one element"),
                ));
            }
            if kind == "sequence" {
                Format::Sequence(elements)
            } else {
                Format::Or(elements)
            }
        }
        "tag" => Format::Tag(read_tag(obj, at)?),
        "triggered_tags" => {
            known_fields(
                obj,
                at,
                &[
                    "type",
                    "triggers",
                    "tags",
                    "at_least_one",
                    "stop_after_first",
                    "excludes",
                ],
            )?;
            let triggers = strings(obj.get("triggers"), &field("triggers"))?;
            if triggers.is_empty() || triggers.iter().any(String::is_empty) {
                return Err(invalid(
                    &field("triggers"),
                    "triggered_tags needs at least one trigger, none empty",
                ));
            }
            Format::Triggered(Triggered {
                triggers,
                tags: tags(obj.get("tags"), &field("tags"))?,
                at_least_one: boolean(obj.get("at_least_one"), &field("at_least_one"))?,
                stop_after_first: boolean(
                    obj.get("stop_after_first"),
                    &field("stop_after_first"),
                )?,
                excludes: nonempty_strings(obj.get("excludes"), &field("excludes"))?,
            })
        }
        "tags_with_separator" => {
            known_fields(
                obj,
                at,
                &["type", "tags", "separator", "at_least_one", "stop_after_first"],
            )?;
            Format::Separated {
                tags: tags(obj.get("tags"), &field("tags"))?,
                separator: string(obj.get("separator"), &field("separator"))?,
                at_least_one: boolean(obj.get("at_least_one"), &field("at_least_one"))?,
                stop_after_first: boolean(
                    obj.get("stop_after_first"),
                    &field("stop_after_first"),
                )?,
            }
        }
        "dispatch" => {
            known_fields(obj, at, &["type", "rules", "loop", "excludes"])?;
            let rules = match obj.get("rules") {
                Some(Value::Array(a)) => a,
                _ => return Err(invalid(&field("rules"), "\"rules\" must be an array")),
            };
            let mut out = Vec::new();
            for (i, r) in rules.iter().enumerate() {
                let at = format!("{at}/rules/{i}");
                match r.as_array().map(Vec::as_slice) {
                    Some([Value::String(p), f]) if !p.is_empty() => {
                        out.push((p.clone(), read_format(f, &format!("{at}/1"))?))
                    }
                    _ => {
                        return Err(invalid(
                            &at,
                            "a dispatch rule is [non-empty pattern string, format]",
                        ))
                    }
                }
            }
            if out.is_empty() {
                return Err(invalid(&field("rules"), "dispatch needs at least one rule"));
            }
            Format::Dispatch {
                rules: out,
                repeat: match obj.get("loop") {
                    None => true,
                    v => boolean(v, &field("loop"))?,
                },
                excludes: nonempty_strings(obj.get("excludes"), &field("excludes"))?,
            }
        }
        "optional" | "star" | "plus" => {
            known_fields(obj, at, &["type", "content"])?;
            let content = obj
                .get("content")
                .ok_or_else(|| invalid(at, format!("{kind} needs a \"content\"")))?;
            let (min, max) = match kind {
                "optional" => (0, Some(1)),
                "star" => (0, None),
                _ => (1, None),
            };
            Format::Repeat {
                content: Box::new(read_format(content, &field("content"))?),
                min,
                max,
            }
        }
        "repeat" => {
            known_fields(obj, at, &["type", "content", "min", "max"])?;
            let content = obj
                .get("content")
                .ok_or_else(|| invalid(at, "repeat needs a \"content\""))?;
            let min = count(obj.get("min"), &field("min"))?
                .ok_or_else(|| invalid(at, "repeat needs \"min\""))?;
            let max = match obj.get("max") {
                Some(v) if v.as_i64() == Some(-1) => None,
                Some(v) => Some(
                    count(Some(v), &field("max"))?
                        .ok_or_else(|| invalid(&field("max"), "\"max\" must be -1 or a count"))?,
                ),
                None => return Err(invalid(at, "repeat needs \"max\" (-1 for unbounded)")),
            };
            if max.is_some_and(|m| m < min) {
                return Err(invalid(at, format!("repeat \"max\" {max:?} is below \"min\" {min}")));
            }
            Format::Repeat {
                content: Box::new(read_format(content, &field("content"))?),
                min,
                max,
            }
        }
        "token" | "exclude_token" | "any_tokens" | "token_triggered_tags" | "token_dispatch" => {
            return Err(unsupported(
                at,
                format!(
                    "format {kind:?} is not supported yet: it matches token ids, and gcd's structural tags are read as text"
                ),
            ))
        }
        other => {
            return Err(invalid(
                &field("type"),
                format!("unknown format type {other:?}"),
            ))
        }
    };
    Ok(f)
}

/// A `tag` object (a format of its own, or an item of a tag list).
fn read_tag(obj: &Map<String, Value>, at: &str) -> Result<Tag, SchemaError> {
    known_fields(obj, at, &["type", "begin", "content", "end"])?;
    let field = |name: &str| format!("{at}/{name}");
    let begin = match obj.get("begin") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(_)) => return Err(token_marker(&field("begin"))),
        _ => {
            return Err(invalid(
                &field("begin"),
                "a tag's \"begin\" must be a string",
            ))
        }
    };
    let end = match obj.get("end") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) if !a.is_empty() => strings(obj.get("end"), &field("end"))?,
        Some(Value::Object(_)) => return Err(token_marker(&field("end"))),
        _ => {
            return Err(invalid(
                &field("end"),
                "a tag's \"end\" must be a string or a non-empty array of strings",
            ))
        }
    };
    let content = obj
        .get("content")
        .ok_or_else(|| invalid(at, "a tag needs a \"content\""))?;
    Ok(Tag {
        begin,
        content: Box::new(read_format(content, &field("content"))?),
        end,
    })
}

fn token_marker(at: &str) -> SchemaError {
    unsupported(
        at,
        "a tag's begin or end as a token format is not supported yet (gcd's structural tags are read as text)",
    )
}

fn tags(v: Option<&Value>, at: &str) -> Result<Vec<Tag>, SchemaError> {
    let a = match v {
        Some(Value::Array(a)) => a,
        _ => return Err(invalid(at, "\"tags\" must be an array of tags")),
    };
    let mut out = Vec::new();
    for (i, t) in a.iter().enumerate() {
        let at = format!("{at}/{i}");
        let o = object(t, &at)?;
        match o.get("type") {
            None => {}
            Some(Value::String(s)) if s == "tag" => {}
            Some(_) => return Err(invalid(&at, "each of \"tags\" must be a tag")),
        }
        out.push(read_tag(o, &at)?);
    }
    if out.is_empty() {
        return Err(invalid(at, "\"tags\" needs at least one tag"));
    }
    Ok(out)
}

fn formats(v: Option<&Value>, at: &str) -> Result<Vec<Format>, SchemaError> {
    match v {
        Some(Value::Array(a)) => (a.iter().enumerate())
            .map(|(i, f)| read_format(f, &format!("{at}/{i}")))
            .collect(),
        _ => Err(invalid(at, "\"elements\" must be an array of formats")),
    }
}

fn object<'v>(v: &'v Value, at: &str) -> Result<&'v Map<String, Value>, SchemaError> {
    v.as_object()
        .ok_or_else(|| invalid(at, format!("expected a JSON object, found {v}")))
}

/// Refuses a field this reader does not know.
fn known_fields(obj: &Map<String, Value>, at: &str, known: &[&str]) -> Result<(), SchemaError> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(invalid(
            &format!("{at}/{k}"),
            format!("unknown field {k:?} (this format has {})", known.join(", ")),
        )),
        None => Ok(()),
    }
}

fn string(v: Option<&Value>, at: &str) -> Result<String, SchemaError> {
    match v {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(invalid(at, "expected a string")),
    }
}

/// An optional list of strings (absent or null: empty).
fn strings(v: Option<&Value>, at: &str) -> Result<Vec<String>, SchemaError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => (a.iter())
            .map(|s| s.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid(at, "expected an array of strings")),
        Some(_) => Err(invalid(at, "expected an array of strings")),
    }
}

/// Excluded strings: the empty string excludes nothing XGrammar could
/// name, so it is refused as XGrammar refuses it.
fn nonempty_strings(v: Option<&Value>, at: &str) -> Result<Vec<String>, SchemaError> {
    let out = strings(v, at)?;
    if out.iter().any(String::is_empty) {
        return Err(invalid(at, "an excluded string must not be empty"));
    }
    Ok(out)
}

fn boolean(v: Option<&Value>, at: &str) -> Result<bool, SchemaError> {
    match v {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(at, "expected a boolean")),
    }
}

fn count(v: Option<&Value>, at: &str) -> Result<Option<u32>, SchemaError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| invalid(at, "expected a count from 0 to 4294967295")),
    }
}

/// A malformed structural tag.
pub(crate) fn invalid(at: &str, detail: impl std::fmt::Display) -> SchemaError {
    SchemaError::new(
        crate::SchemaErrorKind::Invalid,
        None,
        at,
        format!("invalid structural tag: {detail}"),
    )
}

/// A structural tag XGrammar reads but gcd cannot honour exactly.
pub(crate) fn unsupported(at: &str, detail: impl std::fmt::Display) -> SchemaError {
    SchemaError::new(
        crate::SchemaErrorKind::Unsupported,
        None,
        at,
        format!("unsupported structural tag: {detail}"),
    )
}
