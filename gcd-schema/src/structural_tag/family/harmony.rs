//! Harmony (gpt-oss): a turn is a list of messages joined by
//! `<|start|>assistant`, each a channel: `analysis` (the reasoning),
//! `final` (the answer) or `commentary` addressed to a function (a call,
//! ended by `<|call|>`), as XGrammar's `get_harmony_structural_tag` lists
//! them. Its markers are here and nowhere else.

use serde_json::{json, Value};

use super::{any_text, arguments, separated, tag, Choice, FamilyOptions, Reasoning, Tool};

pub(crate) const NAME: &str = "harmony";

pub(crate) const CALL_END: &str = "<|call|>";
pub(crate) const FINAL_BEGIN: &str = "<|channel|>final<|message|>";
pub(crate) const ANALYSIS_BEGIN: &str = "<|channel|>analysis<|message|>";
pub(crate) const MESSAGE_ENDS: [&str; 2] = ["<|end|>", "<|return|>"];
pub(crate) const SEPARATOR: &str = "<|start|>assistant";

/// The three ways a call to `name` opens: the prefix before the name and
/// the rest after it.
pub(crate) const CALL_BEGINS: [(&str, &str); 3] = [
    (
        "<|channel|>commentary to=functions.",
        "<|constrain|>json<|message|>",
    ),
    (
        " to=functions.",
        "<|channel|>commentary <|constrain|>json<|message|>",
    ),
    (" to=functions.", "<|channel|>commentary json<|message|>"),
];

fn call_tags(tool: &Tool) -> Vec<Value> {
    (CALL_BEGINS.iter())
        .map(|(a, b)| {
            tag(
                &format!("{a}{}{b}", tool.name),
                arguments(&tool.parameters, "json"),
                json!(CALL_END),
            )
        })
        .collect()
}

/// The format of a Harmony turn.
pub(crate) fn format(tools: &[&Tool], choice: Choice, options: &FamilyOptions) -> Value {
    let mut tags: Vec<Value> = tools.iter().flat_map(|t| call_tags(t)).collect();
    let message = |begin: &str| tag(begin, any_text(&[]), json!(MESSAGE_ENDS));
    if choice == Choice::Auto {
        tags.push(message(FINAL_BEGIN));
    }
    if options.reasoning != Reasoning::Disabled {
        tags.push(message(ANALYSIS_BEGIN));
    }
    let (calls, messages): (Vec<Value>, Vec<Value>) = tags
        .iter()
        .cloned()
        .partition(|t| t["end"] == json!(CALL_END));
    if options.parallel_tool_calls || calls.is_empty() {
        return separated(tags, SEPARATOR, false, false);
    }
    let one_call = separated(calls, SEPARATOR, true, true);
    if messages.is_empty() {
        return json!({"type": "optional", "content": one_call});
    }
    json!({"type": "or", "elements": [
        separated(messages.clone(), SEPARATOR, false, false),
        one_call.clone(),
        {"type": "sequence", "elements": [
            separated(messages, SEPARATOR, true, false),
            {"type": "const_string", "value": SEPARATOR},
            one_call,
        ]},
    ]})
}
