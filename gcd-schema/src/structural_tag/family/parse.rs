//! A family's turn read back: the reasoning, the free text and each call's
//! name and arguments, with the markers of the family's row, so the
//! reader and the tag never spell a marker differently.
//!
//! The reader expects a turn the family's tag accepts (a decoder's output);
//! anything else is an error saying where it stopped. Arguments in JSON are
//! read by serde_json, which says where a value ends (a string inside may
//! hold any marker). In the XML styles a parameter whose schema is a string
//! is its raw text: Qwen's one newline on each side (`<parameter=k>\nv\n`)
//! is taken off, and an enum or length-bounded string, which XGrammar pads
//! with whitespace, is trimmed; other values are JSON, trimmed.

use serde_json::{Map, Value};

use super::harmony;
use super::table::{self, Family, Layout};
use super::{normalize, Choice, FamilyOptions, Reasoning, Tool};
use crate::structural_tag::format::{invalid, unsupported};
use crate::structural_tag::style::XmlStyle;
use crate::SchemaError;

/// What a turn held.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedTurn {
    /// The reasoning block's text, when the turn has one (Harmony: its
    /// analysis messages, joined by a newline).
    pub reasoning: Option<String>,
    /// The free text outside calls, in order (Harmony: its final messages,
    /// joined by a newline).
    pub text: String,
    /// Each call's tool name and arguments.
    pub calls: Vec<(String, Value)>,
}

fn stuck(rest: &str, what: &str) -> SchemaError {
    let near: String = rest.chars().take(40).collect();
    invalid(
        "",
        format!("the turn is not the family's: expected {what} at {near:?}"),
    )
}

fn expect<'a>(rest: &'a str, s: &str) -> Result<&'a str, SchemaError> {
    rest.strip_prefix(s)
        .ok_or_else(|| stuck(rest, &format!("{s:?}")))
}

/// Reads `text`, a turn of `family` with `tools` and `options`.
pub fn parse_turn(
    family: &str,
    tools: &[Tool],
    options: &FamilyOptions,
    text: &str,
) -> Result<ParsedTurn, SchemaError> {
    let (tools, choice) = normalize(tools, &options.tool_choice)?;
    if family == harmony::NAME {
        return parse_harmony(&tools, text);
    }
    let f = table::family(family)
        .ok_or_else(|| invalid("", format!("unknown model family {family:?}")))?;
    let (reasoning, mut rest) = parse_reasoning(f, options.reasoning, text)?;
    let mut turn = ParsedTurn {
        reasoning,
        text: String::new(),
        calls: Vec::new(),
    };
    if tools.is_empty() {
        turn.text = rest.to_string();
        return Ok(turn);
    }
    match (&f.layout, choice) {
        (Layout::Flat { .. }, Choice::Forced) => {
            rest = parse_call(f, &tools, rest, &mut turn.calls)?;
        }
        (Layout::Flat { trigger }, _) => loop {
            let Some(at) = rest.find(trigger) else {
                turn.text.push_str(rest);
                rest = "";
                break;
            };
            turn.text.push_str(&rest[..at]);
            rest = parse_call(f, &tools, &rest[at..], &mut turn.calls)?;
        },
        (
            Layout::Section {
                forced_open, end, ..
            },
            Choice::Forced | Choice::Required,
        ) => {
            rest = expect(rest, forced_open)?;
            rest = parse_section(f, &tools, rest, end, &mut turn.calls)?;
        }
        (
            Layout::Section {
                trigger,
                begin,
                end,
                ..
            },
            Choice::Auto,
        ) => loop {
            let Some(at) = rest.find(trigger) else {
                turn.text.push_str(rest);
                rest = "";
                break;
            };
            turn.text.push_str(&rest[..at]);
            rest = expect(&rest[at..], begin)?;
            rest = parse_section(f, &tools, rest, end, &mut turn.calls)?;
        },
    }
    if !rest.is_empty() {
        return Err(stuck(rest, "the end of the turn"));
    }
    Ok(turn)
}

/// The reasoning block, and the text after it.
fn parse_reasoning<'a>(
    f: &Family,
    mode: Reasoning,
    text: &'a str,
) -> Result<(Option<String>, &'a str), SchemaError> {
    let Some(t) = &f.think else {
        return Ok((None, text));
    };
    let mut rest = text;
    match mode {
        Reasoning::Disabled => {
            for c in t.disabled {
                rest = expect(rest, c)?;
            }
            return Ok((None, rest));
        }
        Reasoning::Enabled if t.prompt_ends_with_think => {}
        Reasoning::Enabled => rest = expect(rest, t.begin)?,
        Reasoning::Auto => match rest.strip_prefix(t.begin) {
            Some(r) => rest = r,
            None => return Ok((None, rest)),
        },
    }
    let end = rest.find(t.end).ok_or_else(|| stuck(rest, t.end))?;
    let reasoning = rest[..end].to_string();
    rest = expect(&rest[end + t.end.len()..], t.suffix)?;
    Ok((Some(reasoning), rest))
}

/// Calls joined by the section's separator, then its `end`.
fn parse_section<'a>(
    f: &Family,
    tools: &[&Tool],
    mut rest: &'a str,
    end: &str,
    calls: &mut Vec<(String, Value)>,
) -> Result<&'a str, SchemaError> {
    let Layout::Section { separator, .. } = &f.layout else {
        return Err(stuck(rest, "a section"));
    };
    loop {
        rest = parse_call(f, tools, rest, calls)?;
        if let Some(r) = rest.strip_prefix(end) {
            return Ok(r);
        }
        rest = expect(rest, separator)?;
    }
}

/// The tool whose `before NAME after` starts `rest` (the longest such),
/// and the text after it.
fn named<'a, 't>(
    tools: &[&'t Tool],
    rest: &'a str,
    before: &str,
    after: &str,
) -> Option<(&'t Tool, &'a str)> {
    let r = rest.strip_prefix(before)?;
    (tools.iter())
        .filter_map(|t| Some((*t, r.strip_prefix(t.name.as_str())?.strip_prefix(after)?)))
        .max_by_key(|(t, _)| t.name.len())
}

/// One call of `f` at the start of `rest`.
fn parse_call<'a>(
    f: &Family,
    tools: &[&Tool],
    rest: &'a str,
    calls: &mut Vec<(String, Value)>,
) -> Result<&'a str, SchemaError> {
    let c = &f.call;
    let (tool, mut rest) =
        named(tools, rest, c.begin.0, c.begin.1).ok_or_else(|| stuck(rest, "a call"))?;
    if let Some(marker) = c.id_then {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(stuck(rest, "a call id"));
        }
        rest = expect(&rest[digits..], marker)?;
    }
    let (args, rest) = match spelling(c.style) {
        None => json_value(rest)?,
        Some(sp) => sp.read_arguments(&tool.parameters, rest)?,
    };
    calls.push((tool.name.clone(), args));
    // XML arguments may end with whitespace, and the call's end may start
    // with some (`\n</function>`): the end is where whitespace gives way.
    let ws = rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    (0..=ws)
        .find_map(|k| rest[k..].strip_prefix(c.end))
        .ok_or_else(|| stuck(rest, &format!("{:?}", c.end)))
}

/// One JSON value at the start of `rest` (no whitespace before it).
pub(crate) fn json_value(rest: &str) -> Result<(Value, &str), SchemaError> {
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => Ok((v, &rest[values.byte_offset()..])),
        _ => Err(stuck(rest, "a JSON value")),
    }
}

/// A Harmony turn: messages joined by `<|start|>assistant`.
fn parse_harmony(tools: &[&Tool], text: &str) -> Result<ParsedTurn, SchemaError> {
    let mut analysis = Vec::new();
    let mut finals = Vec::new();
    let mut calls = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let message = [harmony::ANALYSIS_BEGIN, harmony::FINAL_BEGIN]
            .iter()
            .position(|b| rest.starts_with(b));
        if let Some(k) = message {
            let body = &rest[[harmony::ANALYSIS_BEGIN, harmony::FINAL_BEGIN][k].len()..];
            let (at, end) = (harmony::MESSAGE_ENDS.iter())
                .filter_map(|e| body.find(e).map(|at| (at, e.len())))
                .min()
                .ok_or_else(|| stuck(body, "<|end|>"))?;
            [&mut analysis, &mut finals][k].push(body[..at].to_string());
            rest = &body[at + end..];
        } else {
            let (tool, r) = (harmony::CALL_BEGINS.iter())
                .find_map(|(a, b)| named(tools, rest, a, b))
                .ok_or_else(|| stuck(rest, "a message or a call"))?;
            let (args, r) = json_value(r)?;
            calls.push((tool.name.clone(), args));
            rest = expect(r, harmony::CALL_END)?;
        }
        if !rest.is_empty() {
            rest = expect(rest, harmony::SEPARATOR)?;
        }
    }
    Ok(ParsedTurn {
        reasoning: (!analysis.is_empty()).then(|| analysis.join("\n")),
        text: finals.join("\n"),
        calls,
    })
}

/// How a raw XML value reads, from its parameter's schema.
pub(crate) fn xml_value(schema: Option<&Value>, raw: &str, newline_pad: bool) -> Value {
    let obj = schema.and_then(Value::as_object);
    let listed: Option<Vec<&Value>> = obj.and_then(|m| match (m.get("enum"), m.get("const")) {
        (Some(Value::Array(a)), _) => Some(a.iter().collect()),
        (_, Some(c)) => Some(vec![c]),
        _ => None,
    });
    let string_type = obj.and_then(|m| m.get("type")) == Some(&Value::String("string".into()));
    let bounded = obj.is_some_and(|m| m.contains_key("minLength") || m.contains_key("maxLength"));
    let is_string_enum = listed
        .as_ref()
        .is_some_and(|l| !l.is_empty() && l.iter().all(|v| v.is_string()));
    if is_string_enum || (string_type && bounded) {
        return Value::String(raw.trim_matches([' ', '\t', '\n', '\r']).to_string());
    }
    if string_type {
        let mut s = raw;
        if newline_pad {
            s = s.strip_prefix('\n').unwrap_or(s);
            s = s.strip_suffix('\n').unwrap_or(s);
        }
        return Value::String(s.to_string());
    }
    let trimmed = raw.trim_matches([' ', '\t', '\n', '\r']);
    match serde_json::from_str::<Value>(trimmed) {
        // Unconstrained parameters (no schema) are raw strings or JSON
        // arrays and objects.
        Ok(v) if obj.is_some() || v.is_array() || v.is_object() => v,
        _ => Value::String(raw.to_string()),
    }
}

/// The properties of an arguments schema, for typing raw values.
pub(crate) fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// How the styles a family's calls use spell a parameter, for reading a
/// turn back: the opening up to the name, what ends
/// the name, what opens the value after optional whitespace, the closing,
/// and whether a raw value is set off by one newline on each side (Qwen's
/// chat template writes `<parameter=k>\nv\n</parameter>`). `None` for the
/// `json` style; styles no family row uses yet are refused by the reader.
pub(crate) struct Spelling {
    open: &'static str,
    name_end: &'static str,
    value_open: &'static str,
    close: &'static str,
    newline_pad: bool,
}

pub(crate) fn spelling(style: &str) -> Option<Spelling> {
    let (open, name_end, value_open, close, newline_pad) = match style {
        "json" => return None,
        "qwen_xml" => ("<parameter=", ">", "", XmlStyle::Qwen.close(), true),
        "minimax_xml" => (
            "<parameter name=\"",
            "\">",
            "",
            XmlStyle::Minimax.close(),
            false,
        ),
        "glm_xml" => (
            "<arg_key>",
            "</arg_key>",
            "<arg_value>",
            XmlStyle::Glm.close(),
            false,
        ),
        _ => ("", "", "", "", false),
    };
    Some(Spelling {
        open,
        name_end,
        value_open,
        close,
        newline_pad,
    })
}

const WS: [char; 4] = [' ', '\t', '\n', '\r'];

impl Spelling {
    /// The parameters at the start of `rest` as a JSON object (typed by
    /// `schema`'s properties), and the text after the last one (its
    /// trailing whitespace left for the call's end to take).
    pub(crate) fn read_arguments<'a>(
        &self,
        schema: &Value,
        mut rest: &'a str,
    ) -> Result<(Value, &'a str), SchemaError> {
        if self.open.is_empty() {
            return Err(unsupported(
                "",
                "reading this XML style back is not built yet",
            ));
        }
        let bad = |r: &str, what: &str| {
            let near: String = r.chars().take(40).collect();
            unsupported(
                "",
                format!("the arguments are not the style's: expected {what} at {near:?}"),
            )
        };
        let props = properties(schema);
        let mut out = Map::new();
        while let Some(r) = rest.trim_start_matches(WS).strip_prefix(self.open) {
            let e = r.find(self.name_end).ok_or_else(|| bad(r, self.name_end))?;
            let name = &r[..e];
            let mut r = &r[e + self.name_end.len()..];
            if !self.value_open.is_empty() {
                r = (r.trim_start_matches(WS).strip_prefix(self.value_open))
                    .ok_or_else(|| bad(r, self.value_open))?;
            }
            let c = r.find(self.close).ok_or_else(|| bad(r, self.close))?;
            let value = xml_value(props.and_then(|p| p.get(name)), &r[..c], self.newline_pad);
            out.insert(name.to_string(), value);
            rest = &r[c + self.close.len()..];
        }
        Ok((Value::Object(out), rest))
    }
}
