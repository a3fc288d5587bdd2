//! The tags gcd writes for model families (`gcd_schema::structural_tag::
//! family`) are XGrammar's own: for every family gcd builds, two tool
//! lists, the four tool choices, the three reasoning modes and parallel
//! calls on and off, `family_structural_tag` and XGrammar 0.2.9's
//! `get_model_structural_tag` give the same JSON, and a combination one
//! refuses the other refuses too. The languages then agree by the
//! structural tag oracle (`structural_tag_oracle.rs`); this test also
//! compiles every tag with gcd.

#[path = "oracle/client.rs"]
mod client;

use gcd_schema::structural_tag::family::{
    families, family_structural_tag, tools_from_openai, FamilyOptions, Reasoning, ToolChoice,
};
use serde_json::{json, Value};

fn tool_lists() -> Vec<Value> {
    let weather = json!({"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}, "days": {"type": "integer"},
                       "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["location"]}}});
    let search = json!({"type": "function", "function": {"name": "search", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}, "top": {"type": "boolean"}},
        "required": ["q"]}}});
    let loose = json!({"type": "function", "function": {"name": "ping"}});
    vec![json!([weather]), json!([weather, search, loose])]
}

fn choices() -> Vec<(Value, ToolChoice)> {
    vec![
        (json!("none"), ToolChoice::None),
        (json!("auto"), ToolChoice::Auto),
        (json!("required"), ToolChoice::Required),
        (
            json!({"type": "function", "function": {"name": "search"}}),
            ToolChoice::Named("search".into()),
        ),
    ]
}

#[test]
fn family_tags_are_xgrammars() {
    let Some(mut xg) = client::XGrammar::start() else {
        return;
    };
    let (mut same, mut refused, mut compiled) = (0, 0, 0);
    for family in families() {
        for tools in tool_lists() {
            let ours = tools_from_openai(&tools).unwrap();
            for (choice_json, choice) in choices() {
                for (mode_json, mode) in [
                    ("enabled", Reasoning::Enabled),
                    ("disabled", Reasoning::Disabled),
                    ("auto", Reasoning::Auto),
                ] {
                    for parallel in [true, false] {
                        let spec = json!({"family": family, "tools": tools,
                            "tool_choice": choice_json, "reasoning": mode_json, "parallel": parallel});
                        let theirs = xg.ask(&json!({ "model_tag": spec }));
                        let options = FamilyOptions {
                            tool_choice: choice.clone(),
                            reasoning: mode,
                            parallel_tool_calls: parallel,
                        };
                        let mine = family_structural_tag(family, &ours, &options);
                        match (theirs.get("tag"), mine) {
                            (Some(t), Ok(m)) => {
                                assert_eq!(t, &m, "{spec}");
                                same += 1;
                                let c = gcd_schema::structural_tag(&m, &Default::default());
                                compiled += usize::from(c.is_ok());
                            }
                            (None, Err(_)) => refused += 1,
                            (t, m) => panic!("{spec}: XGrammar {t:?}, gcd {m:?}"),
                        }
                    }
                }
            }
        }
    }
    eprintln!("{same} family tags equal to XGrammar's ({compiled} compile with gcd), {refused} combinations refused by both");
    assert!(same >= 400, "{same}");
    assert_eq!(compiled, same);
}
