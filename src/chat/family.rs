//! Chat turns of the model families in XGrammar's registry
//! (`Chat::qwen3_coder()`, `Chat::harmony()`, …): the family's structural
//! tag, written by gcd-schema from the family's row
//! (`gcd_schema::structural_tag::family`, checked field for field against
//! XGrammar's `get_model_structural_tag`), lowered to gcd's IR, with the
//! tools' arguments typed.
//!
//! Tools come two ways:
//!
//! - a `T: Constrained` enum of tools tagged by name (`#[serde(tag =
//!   "name", content = "arguments")]`, or internally tagged): each variant
//!   is a tool, named as serde names it. In the `json` style its
//!   arguments are `T`'s own grammar for the variant's fields (the same
//!   whitespace as [`Decoder`](crate::Decoder), so a subset of XGrammar's
//!   language for the equivalent schema); in the XML styles the fields'
//!   JSON Schema ([`xml_schema`]), whose values XGrammar's style writes;
//! - an OpenAI `tools` array: XGrammar's language exactly, one
//!   `serde_json::Value` per call, `{"name": …, "arguments": …}`.
//!
//! Markers are text: a vocabulary in which one of the family's markers
//! holds a special token (Harmony's `<|channel|>` in `o200k_harmony`,
//! Kimi's `<|tool_calls_section_begin|>`) is refused by name, since the
//! model would write the token and the grammar wants its text.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::{CompiledGrammar, Config};
use gcd_core::grammar::{Expr, Grammar, GrammarBuilder, SpecialToken, TerminalPattern};
use gcd_core::json::{Field, Shape, ShapeSet, Whitespace};
use gcd_core::vocab::{TokenKind, Vocabulary};
use gcd_core::Lexing;
use gcd_schema::structural_tag::family::{self as fam, FamilyOptions, Tool};
use serde_json::{json, Map, Value};

use crate::constrained::{Constrained, ConstraintError};

/// How calls read back into values: the family, its tools and options,
/// and how a call's name and arguments become the JSON of one call.
#[derive(Clone, Debug)]
pub(crate) struct Reader {
    pub family: &'static str,
    pub tools: Vec<Tool>,
    pub options: FamilyOptions,
    /// The call's name key (`"name"`, a serde tag).
    pub tag: String,
    /// The arguments' key (adjacent tagging), or `None` when the
    /// arguments' members sit beside the tag (internal tagging).
    pub content: Option<String>,
    /// The end token's name, after the tag's language.
    pub end: Option<String>,
}

/// A family's turn grammar, bound, with what its decoder needs.
#[derive(Clone)]
pub(crate) struct Composed {
    pub bound: Arc<BoundGrammar>,
    /// The reasoning's text terminals, for a reasoning cap; `None` when the
    /// grammar needs dynamic lexing, where no cap can be set.
    pub reasoning_terminals: Option<Vec<String>>,
    /// `None` for the fixed formats.
    pub reader: Option<Arc<Reader>>,
}

fn unsupported<T: ?Sized>(message: String) -> ConstraintError {
    ConstraintError::Unsupported {
        ty: std::any::type_name::<T>(),
        message,
    }
}

/// A tool of `T`: its name and the arguments' shape.
struct TypedTools {
    tag: String,
    content: Option<String>,
    tools: Vec<(String, Shape)>,
    set: ShapeSet,
}

fn resolve<'s>(mut s: &'s Shape, set: &'s ShapeSet) -> &'s Shape {
    let mut hops = 0;
    while let Shape::Named(n) = s {
        match set.get(n) {
            Some(next) if hops < 64 => s = next,
            _ => break,
        }
        hops += 1;
    }
    s
}

/// The tools of `T`, a serde-tagged enum of tools.
fn typed_tools<T: Constrained + ?Sized>() -> Result<TypedTools, ConstraintError> {
    let mut set = ShapeSet::new();
    let root = T::shape(&mut set);
    let Shape::Tagged { tag, variants } = resolve(&root, &set).clone() else {
        return Err(unsupported::<T>(
            "a chat family's call type is an enum of tools tagged by name: \
             #[serde(tag = \"name\", content = \"arguments\")] (or internally tagged)"
                .into(),
        ));
    };
    // Adjacent tagging: every variant holds one field, the same key.
    let content = match variants.first().map(|(_, f)| f.as_slice()) {
        Some([first])
            if variants
                .iter()
                .all(|(_, f)| f.len() == 1 && f[0].name == first.name) =>
        {
            Some(first.name.clone())
        }
        _ => None,
    };
    let mut tools = Vec::new();
    for (name, fields) in variants {
        let args = match (&content, fields.as_slice()) {
            (Some(_), [f]) => f.shape.clone(),
            _ => Shape::Object(fields),
        };
        if !matches!(resolve(&args, &set), Shape::Object(_)) {
            return Err(unsupported::<T>(format!(
                "tool {name:?}: a chat family's tool takes an object of arguments (a struct \
                 variant; `Name {{}}` for none), not {args:?}"
            )));
        }
        tools.push((name, args));
    }
    Ok(TypedTools {
        tag,
        content,
        tools,
        set,
    })
}

/// The JSON Schema XGrammar's XML styles write a typed tool's arguments
/// from, for shapes it can state exactly: strings (length bounds, no
/// pattern), one-character strings, enums of strings, integers in `i64`
/// or `u64`, finite numbers, booleans, arrays and objects of such;
/// optional fields are left out rather than `null`. Anything else is
/// refused naming the field.
pub(crate) fn xml_schema(shape: &Shape, set: &ShapeSet, at: &str) -> Result<Value, String> {
    let refuse = |what: &str| Err(format!("{at}: {what} cannot be an XML-style argument yet"));
    Ok(match resolve(shape, set) {
        Shape::Null => json!({"type": "null"}),
        Shape::Bool => json!({"type": "boolean"}),
        Shape::Integer { min, max } => {
            let bound = |n: i128| -> Option<Value> {
                i64::try_from(n)
                    .map(Value::from)
                    .ok()
                    .or_else(|| u64::try_from(n).ok().map(Value::from))
            };
            match (bound(*min), bound(*max)) {
                (Some(a), Some(b)) => json!({"type": "integer", "minimum": a, "maximum": b}),
                _ => return refuse("an integer beyond 64 bits"),
            }
        }
        Shape::Number => json!({"type": "number", "x-gcd-finite": "f64"}),
        Shape::Number32 => json!({"type": "number", "x-gcd-finite": "f32"}),
        Shape::Char => json!({"type": "string", "minLength": 1, "maxLength": 1}),
        Shape::String(r) if r.pattern.is_some() => return refuse("a string with a pattern"),
        Shape::String(r) => {
            let mut m = Map::new();
            m.insert("type".into(), "string".into());
            if let Some(n) = r.min_len.filter(|n| *n > 0) {
                m.insert("minLength".into(), n.into());
            }
            if let Some(n) = r.max_len {
                m.insert("maxLength".into(), n.into());
            }
            Value::Object(m)
        }
        Shape::OneOf(alts) => {
            let strings: Option<Vec<Value>> = (alts.iter())
                .map(|a| match resolve(a, set) {
                    Shape::Literal(text) => serde_json::from_str::<Value>(text)
                        .ok()
                        .filter(Value::is_string),
                    _ => None,
                })
                .collect();
            match strings {
                Some(values) if !values.is_empty() => json!({"type": "string", "enum": values}),
                _ => return refuse("a union other than an enum of strings"),
            }
        }
        Shape::Literal(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => json!({"const": v}),
            Err(_) => return refuse("a literal"),
        },
        Shape::Array {
            items,
            min_items,
            max_items,
        } => {
            let mut m = Map::new();
            m.insert("type".into(), "array".into());
            m.insert("items".into(), xml_schema(items, set, &format!("{at}[]"))?);
            if *min_items > 0 {
                m.insert("minItems".into(), (*min_items).into());
            }
            if let Some(n) = max_items {
                m.insert("maxItems".into(), (*n).into());
            }
            Value::Object(m)
        }
        Shape::Object(fields) => object_schema(fields, set, at)?,
        _ => return refuse("this type"),
    })
}

fn object_schema(fields: &[Field], set: &ShapeSet, at: &str) -> Result<Value, String> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for f in fields {
        let shape = match (f.required, resolve(&f.shape, set)) {
            // Option<X>: the parameter left out, never `null`.
            (false, Shape::OneOf(alts)) if alts.len() == 2 && alts.contains(&Shape::Null) => {
                alts.iter().find(|a| **a != Shape::Null).unwrap_or(&f.shape)
            }
            _ => &f.shape,
        };
        props.insert(
            f.name.clone(),
            xml_schema(shape, set, &format!("{at}.{}", f.name))?,
        );
        if f.required {
            required.push(Value::String(f.name.clone()));
        }
    }
    Ok(
        json!({"type": "object", "properties": props, "required": required,
        "additionalProperties": false}),
    )
}

/// `shape` with its length-bounded strings (and `char`s) written without
/// escapes, as XGrammar writes a string under `minLength`/`maxLength`
/// (`"\""` is refused there): the bound becomes a pattern of characters
/// that need no escape. Named shapes are inlined to a depth of 16; a
/// recursive type's strings deeper than that keep their escapes.
fn unescaped_bounds(shape: &Shape, set: &ShapeSet, depth: usize) -> Shape {
    let plain = |min: usize, max: Option<usize>| {
        let max = max.map(|m| m.to_string()).unwrap_or_default();
        Shape::String(gcd_core::json::StringRules {
            pattern: Some(format!("[^\"\\\\\\x00-\\x1f]{{{min},{max}}}")),
            min_len: None,
            max_len: None,
        })
    };
    let go = |s: &Shape| unescaped_bounds(s, set, depth + 1);
    let fields = |fs: &[Field]| -> Vec<Field> {
        fs.iter()
            .map(|f| Field {
                shape: go(&f.shape),
                ..f.clone()
            })
            .collect()
    };
    match shape {
        Shape::Named(_) if depth < 16 => go(resolve(shape, set)),
        Shape::Char => plain(1, Some(1)),
        Shape::String(r) if r.pattern.is_none() && (r.min_len.is_some() || r.max_len.is_some()) => {
            plain(r.min_len.unwrap_or(0), r.max_len)
        }
        Shape::Array {
            items,
            min_items,
            max_items,
        } => Shape::Array {
            items: Box::new(go(items)),
            min_items: *min_items,
            max_items: *max_items,
        },
        Shape::Tuple(items) => Shape::Tuple(items.iter().map(go).collect()),
        Shape::Map { values } => Shape::Map {
            values: Box::new(go(values)),
        },
        Shape::Object(fs) => Shape::Object(fields(fs)),
        Shape::OneOf(alts) => Shape::OneOf(alts.iter().map(go).collect()),
        Shape::Tagged { tag, variants } => Shape::Tagged {
            tag: tag.clone(),
            variants: (variants.iter())
                .map(|(n, fs)| (n.clone(), fields(fs)))
                .collect(),
        },
        other => other.clone(),
    }
}

/// The key of a typed tool's placeholder schema.
const PLACEHOLDER: &str = "x-gcd-typed-tool";

/// The bound turn grammar of `family` for `T`'s tools.
pub(crate) fn typed<T: Constrained + ?Sized>(
    family: &'static str,
    options: &FamilyOptions,
    ws: Whitespace,
    end: Option<&str>,
    vocab: Arc<Vocabulary>,
) -> Result<Composed, ConstraintError> {
    let typed = typed_tools::<T>()?;
    let json_style = fam::arguments_style(family) == Some("json");
    let mut grammars = Vec::new();
    let mut tools = Vec::new();
    for (i, (name, shape)) in typed.tools.iter().enumerate() {
        let parameters = if json_style {
            let shape = unescaped_bounds(shape, &typed.set, 0);
            let g = gcd_core::json::to_grammar(&shape, &typed.set, ws)
                .map_err(|e| unsupported::<T>(e.0))?;
            grammars.push(g);
            json!({ PLACEHOLDER: i })
        } else {
            xml_schema(shape, &typed.set, name).map_err(unsupported::<T>)?
        };
        tools.push(Tool {
            name: name.clone(),
            parameters,
        });
    }
    let given = |schema: &Value| -> Option<Grammar> {
        let i = schema.get(PLACEHOLDER)?.as_u64()?;
        grammars.get(usize::try_from(i).ok()?).cloned()
    };
    let reader = Reader {
        family,
        tools,
        options: options.clone(),
        tag: typed.tag,
        content: typed.content,
        end: end.map(str::to_string),
    };
    compose::<T>(reader, Some(&given), vocab)
}

/// The bound turn grammar of `family` for an OpenAI `tools` array.
pub(crate) fn untyped(
    family: &'static str,
    options: &FamilyOptions,
    tools: &Value,
    end: Option<&str>,
    vocab: Arc<Vocabulary>,
) -> Result<Composed, ConstraintError> {
    let reader = Reader {
        family,
        tools: fam::tools_from_openai(tools)?,
        options: options.clone(),
        tag: "name".into(),
        content: Some("arguments".into()),
        end: end.map(str::to_string),
    };
    compose::<Value>(reader, None, vocab)
}

fn compose<T: ?Sized>(
    reader: Reader,
    given: Option<gcd_schema::GivenArguments<'_>>,
    vocab: Arc<Vocabulary>,
) -> Result<Composed, ConstraintError> {
    check_markers::<T>(reader.family, &vocab)?;
    let tag = fam::family_structural_tag(reader.family, &reader.tools, &reader.options)?;
    let options = gcd_schema::Options::default();
    let lowered = gcd_schema::lower_structural_tag(&tag, &options, given)?;
    let begin = fam::reasoning_begin(reader.family, reader.options.reasoning);
    let mut reasoning: Vec<String> = (lowered.tag_texts.iter())
        .filter(|(b, _)| Some(b.as_str()) == begin)
        .map(|(_, name)| name.clone())
        .collect();
    let grammar = match &reader.end {
        None => lowered.grammar,
        Some(end) => {
            // The tag's language, then the end token by id.
            let mut b = GrammarBuilder::new();
            let start = b.embed("turn", &lowered.grammar, None);
            let special = Expr::Pattern(
                TerminalPattern::Special(SpecialToken::Named(end.clone())),
                None,
            );
            b.rule("start", vec![Expr::seq(vec![Expr::name(&start), special])])
                .start("start");
            reasoning = reasoning.iter().map(|n| format!("turn__{n}")).collect();
            b.build().map_err(|e| unsupported::<T>(e.to_string()))?
        }
    };
    // Static lexing where the grammar allows it (JSON arguments): faster
    // masks, and a reasoning cap; XML arguments' raw text needs dynamic.
    let (compiled, capped) = match CompiledGrammar::with_config(&grammar, &Config::default()) {
        Ok(c) => (c, true),
        Err(_) => {
            let dynamic = Config::default().lexing(Lexing::Dynamic);
            let c = CompiledGrammar::with_config(&grammar, &dynamic)
                .map_err(|e| unsupported::<T>(e.to_string()))?;
            (c, false)
        }
    };
    let bound = Arc::new(BoundGrammar::try_new(Arc::new(compiled), vocab)?);
    Ok(Composed {
        bound,
        reasoning_terminals: capped.then_some(reasoning),
        reader: Some(Arc::new(reader)),
    })
}

/// Refuses a vocabulary whose special tokens a marker holds.
fn check_markers<T: ?Sized>(family: &str, vocab: &Vocabulary) -> Result<(), ConstraintError> {
    let markers = fam::markers(family);
    for id in 0..vocab.len() as u32 {
        if vocab.kind(id).ok() != Some(TokenKind::Special) {
            continue;
        }
        let Ok(bytes) = vocab.token_bytes(id) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        if text.is_empty() {
            continue;
        }
        if let Some(m) = markers.iter().find(|m| m.contains(text)) {
            return Err(unsupported::<T>(format!(
                "family {family}: the marker {m:?} holds {text:?}, a special token of this \
                 vocabulary (id {id}); matching family markers by token id is not built yet"
            )));
        }
    }
    Ok(())
}

impl Reader {
    /// The turn's reasoning, free text and calls (each as the JSON of one
    /// call of the call type).
    pub(crate) fn read(
        &self,
        text: &str,
    ) -> Result<(Option<String>, String, Vec<Value>), ConstraintError> {
        let text = match &self.end {
            Some(end) => text.strip_suffix(end.as_str()).unwrap_or(text),
            None => text,
        };
        let turn = fam::parse_turn(self.family, &self.tools, &self.options, text)?;
        let mut calls = Vec::new();
        for (name, args) in turn.calls {
            let mut call = Map::new();
            call.insert(self.tag.clone(), Value::String(name));
            match (&self.content, args) {
                (Some(key), args) => {
                    call.insert(key.clone(), args);
                }
                (None, Value::Object(members)) => call.extend(members),
                (None, other) => {
                    return Err(ConstraintError::Unsupported {
                        ty: "call",
                        message: format!("arguments {other} are not an object"),
                    })
                }
            }
            calls.push(Value::Object(call));
        }
        Ok((turn.reasoning, turn.text, calls))
    }
}

/// The families `Chat` builds, by XGrammar's registry names.
pub(crate) fn family_name(name: &str) -> Option<&'static str> {
    fam::families().into_iter().find(|f| *f == name)
}
