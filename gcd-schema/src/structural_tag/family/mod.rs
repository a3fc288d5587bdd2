//! Model families: the structural tag XGrammar's `get_model_structural_tag`
//! writes for a family, tools and options, written here from the family's
//! row (`table.rs`; Harmony in `harmony.rs`), so that gcd composes the
//! same language without Python. `tests/family_tags.rs` checks that the
//! tag is XGrammar's, field for field, over tools, tool choices,
//! reasoning modes and parallel calls; the tag's language is then
//! XGrammar's by the structural tag oracle.
//!
//! Only the options gcd honours exactly are taken: function tools (no
//! builtin tools), `exclude_special_tokens: true`, `any_order: false`,
//! `max_whitespace_cnt: None`, `token_markers: false`.

mod harmony;
pub(crate) mod parse;
mod table;

use serde_json::{json, Value};

use super::format::{invalid, unsupported};
use crate::SchemaError;
pub use parse::{parse_turn, ParsedTurn};
use table::{Family, Layout};

/// Which tools a turn may or must call (OpenAI's `tool_choice`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ToolChoice {
    /// No call: the turn is text (and reasoning).
    None,
    /// Text, calls, or both.
    Auto,
    /// At least one call.
    Required,
    /// Exactly the named tool (one call).
    Named(String),
}

/// The reasoning block's mode (XGrammar's `reasoning`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reasoning {
    /// The turn reasons first.
    Enabled,
    /// No reasoning.
    Disabled,
    /// A complete reasoning block, or none.
    Auto,
}

/// One function tool: its name and its parameters' JSON Schema (`true`
/// when unconstrained).
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    /// The name the model writes.
    pub name: String,
    /// The arguments' schema.
    pub parameters: Value,
}

/// A family's options.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyOptions {
    /// OpenAI's `tool_choice`.
    pub tool_choice: ToolChoice,
    /// XGrammar's `reasoning`.
    pub reasoning: Reasoning,
    /// OpenAI's `parallel_tool_calls`: when false, at most one call.
    pub parallel_tool_calls: bool,
}

impl Default for FamilyOptions {
    /// XGrammar's defaults: `auto`, reasoning enabled, parallel calls.
    fn default() -> Self {
        FamilyOptions {
            tool_choice: ToolChoice::Auto,
            reasoning: Reasoning::Enabled,
            parallel_tool_calls: true,
        }
    }
}

/// The families gcd writes, by XGrammar's registry names.
pub fn families() -> Vec<&'static str> {
    let mut out: Vec<&str> = table::FAMILIES.iter().map(|f| f.name).collect();
    out.push(harmony::NAME);
    out
}

/// The function tools of an OpenAI `tools` array, read as XGrammar reads
/// them: `parameters` absent or null, or `strict: false`, leave the
/// arguments unconstrained (`true`). Builtin tools (any other `type`) are
/// refused by name.
pub fn tools_from_openai(tools: &Value) -> Result<Vec<Tool>, SchemaError> {
    let list = tools
        .as_array()
        .ok_or_else(|| invalid("", "\"tools\" must be an array"))?;
    let mut out = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let at = format!("/{i}");
        match t.get("type").and_then(Value::as_str) {
            Some("function") => {}
            Some(other) => {
                return Err(unsupported(
                    &at,
                    format!(
                        "builtin tool type {other:?} is not supported yet (function tools only)"
                    ),
                ))
            }
            None => return Err(invalid(&at, "a tool needs a \"type\"")),
        }
        let f = t
            .get("function")
            .ok_or_else(|| invalid(&at, "a function tool needs \"function\""))?;
        let name = f
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid(&format!("{at}/function"), "a function needs a \"name\""))?;
        let strict_off = f.get("strict") == Some(&Value::Bool(false));
        let parameters = match f.get("parameters") {
            None | Some(Value::Null) => Value::Bool(true),
            Some(_) if strict_off => Value::Bool(true),
            Some(p) => p.clone(),
        };
        out.push(Tool {
            name: name.to_string(),
            parameters,
        });
    }
    Ok(out)
}

/// XGrammar's simplified choice: the tools left and whether calls are
/// optional, required or one forced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Choice {
    Auto,
    Required,
    Forced,
}

/// The tools a choice leaves, as XGrammar's `normalize_tool_choice`.
pub(crate) fn normalize<'t>(
    tools: &'t [Tool],
    choice: &ToolChoice,
) -> Result<(Vec<&'t Tool>, Choice), SchemaError> {
    let all: Vec<&Tool> = tools.iter().collect();
    Ok(match choice {
        ToolChoice::None => (Vec::new(), Choice::Auto),
        ToolChoice::Auto => (all, Choice::Auto),
        ToolChoice::Required if all.is_empty() => {
            return Err(invalid(
                "",
                "tool_choice \"required\" needs at least one tool",
            ))
        }
        ToolChoice::Required => (all, Choice::Required),
        ToolChoice::Named(name) => {
            let named: Vec<&Tool> = all.into_iter().filter(|t| &t.name == name).collect();
            if named.is_empty() {
                return Err(invalid(
                    "",
                    format!("tool_choice names {name:?}, which is not among the tools"),
                ));
            }
            if named.len() > 1 {
                return Err(invalid(
                    "",
                    format!("tool_choice names {name:?}, which two tools are named"),
                ));
            }
            (named, Choice::Forced)
        }
    })
}

/// The structural tag of `family` for `tools` and `options`, as XGrammar's
/// `get_model_structural_tag` writes it (every field, defaults included).
pub fn family_structural_tag(
    family: &str,
    tools: &[Tool],
    options: &FamilyOptions,
) -> Result<Value, SchemaError> {
    let (tools, choice) = normalize(tools, &options.tool_choice)?;
    if family == harmony::NAME {
        return Ok(json!({"type": "structural_tag",
            "format": harmony::format(&tools, choice, options)}));
    }
    let f = table::family(family).ok_or_else(|| {
        unsupported(
            "",
            format!(
                "model family {family:?} is not built yet (gcd writes {})",
                families().join(", ")
            ),
        )
    })?;
    let suffix = suffix(f, &tools, choice, options.parallel_tool_calls);
    let format = match reasoning_prefix(f, options.reasoning) {
        Prefix::None => suffix,
        Prefix::Format(p) => json!({"type": "sequence", "elements": [p, suffix]}),
        Prefix::Consts(consts) => {
            let mut elements: Vec<Value> = consts.iter().map(|c| const_string(c)).collect();
            elements.push(suffix);
            json!({"type": "sequence", "elements": elements})
        }
    };
    Ok(json!({"type": "structural_tag", "format": format}))
}

pub(crate) fn const_string(s: &str) -> Value {
    json!({"type": "const_string", "value": s})
}

pub(crate) fn any_text(excludes: &[&str]) -> Value {
    json!({"type": "any_text", "excludes": excludes, "max_tokens": null, "max_chars": null})
}

pub(crate) fn tag(begin: &str, content: Value, end: Value) -> Value {
    json!({"type": "tag", "begin": begin, "content": content, "end": end})
}

pub(crate) fn arguments(schema: &Value, style: &str) -> Value {
    json!({"type": "json_schema", "json_schema": schema, "style": style,
        "any_order": false, "max_whitespace_cnt": null, "excludes": []})
}

pub(crate) fn separated(
    tags: Vec<Value>,
    separator: &str,
    at_least_one: bool,
    stop: bool,
) -> Value {
    json!({"type": "tags_with_separator", "tags": tags, "separator": separator,
        "at_least_one": at_least_one, "stop_after_first": stop})
}

fn triggered(
    trigger: &str,
    tags: Vec<Value>,
    excludes: &[&str],
    at_least_one: bool,
    stop: bool,
) -> Value {
    json!({"type": "triggered_tags", "triggers": [trigger], "tags": tags,
        "at_least_one": at_least_one, "stop_after_first": stop, "excludes": excludes})
}

/// One call's tag (its begin and end extended by `open` and `close`).
fn call_tag(f: &Family, tool: &Tool, open: &str, close: &str) -> Value {
    let c = &f.call;
    let args = arguments(&tool.parameters, c.style);
    let content = match c.id_then {
        Some(marker) => json!({"type": "sequence", "elements": [
            {"type": "regex", "pattern": "\\d+"}, const_string(marker), args]}),
        None => args,
    };
    let begin = format!("{open}{}{}{}", c.begin.0, tool.name, c.begin.1);
    tag(&begin, content, json!(format!("{}{close}", c.end)))
}

/// Everything after the reasoning.
fn suffix(f: &Family, tools: &[&Tool], choice: Choice, parallel: bool) -> Value {
    let stop = !parallel;
    if tools.is_empty() {
        return any_text(f.plain_excludes);
    }
    let calls = |open: &str, close: &str| -> Vec<Value> {
        tools.iter().map(|t| call_tag(f, t, open, close)).collect()
    };
    match &f.layout {
        Layout::Flat { trigger } => match choice {
            Choice::Forced => calls("", "").remove(0),
            Choice::Auto | Choice::Required => triggered(
                trigger,
                calls("", ""),
                f.text_excludes,
                choice == Choice::Required,
                stop,
            ),
        },
        Layout::Section {
            trigger,
            begin,
            end,
            separator,
            forced_open,
            forced_as_one_tag,
        } => match (choice, forced_as_one_tag) {
            (Choice::Auto, _) => {
                let inner = separated(calls("", ""), separator, true, stop);
                triggered(
                    trigger,
                    vec![tag(begin, inner, json!(end))],
                    f.text_excludes,
                    false,
                    stop,
                )
            }
            (Choice::Forced, true) => calls(forced_open, end).remove(0),
            (Choice::Required, true) => tag(
                forced_open,
                separated(calls("", ""), separator, true, stop),
                json!(end),
            ),
            (Choice::Forced, false) => json!({"type": "sequence", "elements": [
                const_string(forced_open), calls("", "").remove(0), const_string(end)]}),
            (Choice::Required, false) => json!({"type": "sequence", "elements": [
                const_string(forced_open),
                separated(calls("", ""), separator, true, stop),
                const_string(end)]}),
        },
    }
}

enum Prefix {
    None,
    Format(Value),
    Consts(&'static [&'static str]),
}

/// XGrammar's `_build_reasoning_prefix` for the family's block.
fn reasoning_prefix(f: &Family, mode: Reasoning) -> Prefix {
    let Some(t) = &f.think else {
        return Prefix::None;
    };
    let excludes = match mode {
        Reasoning::Disabled if t.disabled.is_empty() => return Prefix::None,
        Reasoning::Disabled => return Prefix::Consts(t.disabled),
        Reasoning::Enabled => t.excludes_enabled,
        Reasoning::Auto => t.excludes_auto,
    };
    let begin = if mode == Reasoning::Enabled && t.prompt_ends_with_think {
        ""
    } else {
        t.begin
    };
    let mut prefix = tag(begin, any_text(excludes), json!(t.end));
    if !t.suffix.is_empty() {
        prefix = json!({"type": "sequence", "elements": [prefix, const_string(t.suffix)]});
    }
    if mode == Reasoning::Auto {
        prefix = json!({"type": "optional", "content": prefix});
    }
    Prefix::Format(prefix)
}

/// The begin of the tag that holds the reasoning under `mode` (`""` when
/// the prompt opens it; Harmony's analysis channel), whose text terminal
/// a matcher caps ([`LoweredTag::tag_texts`](crate::structural_tag::LoweredTag)).
pub fn reasoning_begin(family: &str, mode: Reasoning) -> Option<&'static str> {
    if mode == Reasoning::Disabled {
        return None;
    }
    if family == harmony::NAME {
        return Some(harmony::ANALYSIS_BEGIN);
    }
    let t = table::family(family)?.think.as_ref()?;
    Some(if mode == Reasoning::Enabled && t.prompt_ends_with_think {
        ""
    } else {
        t.begin
    })
}

/// Every marker string of `family`'s format, for a caller to check them
/// against a vocabulary's special tokens (a structural tag reads markers
/// as text).
pub fn markers(family: &str) -> Vec<&'static str> {
    if family == harmony::NAME {
        let mut out = vec![
            harmony::CALL_END,
            harmony::FINAL_BEGIN,
            harmony::ANALYSIS_BEGIN,
            harmony::SEPARATOR,
        ];
        out.extend(harmony::MESSAGE_ENDS);
        out.extend(harmony::CALL_BEGINS.iter().flat_map(|(a, b)| [*a, *b]));
        return out;
    }
    let Some(f) = table::family(family) else {
        return Vec::new();
    };
    let mut out = vec![f.call.begin.0, f.call.begin.1, f.call.end];
    out.extend(f.call.id_then);
    match &f.layout {
        Layout::Flat { trigger } => out.push(trigger),
        Layout::Section {
            trigger,
            begin,
            end,
            forced_open,
            ..
        } => out.extend([*trigger, *begin, *end, *forced_open]),
    }
    if let Some(t) = &f.think {
        out.extend([t.begin, t.end]);
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The style `family` writes arguments in (`"json"`, `"qwen_xml"`, ...).
pub fn arguments_style(family: &str) -> Option<&'static str> {
    if family == harmony::NAME {
        return Some("json");
    }
    table::family(family).map(|f| f.call.style)
}
