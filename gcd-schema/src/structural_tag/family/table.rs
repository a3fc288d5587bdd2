//! The model families as data: one row per family, holding every marker
//! its structural tag uses, taken from XGrammar 0.2.9's
//! `builtin_structural_tag.py` (the builders of `get_model_structural_tag`).
//! `mod.rs` writes the tag from a row and `parse.rs` reads a turn back
//! with the same row, so a marker is spelled in one place.
//!
//! Harmony (gpt-oss) is not a row: its turn is a list of channel messages,
//! not text with calls in it (see `harmony.rs`).

/// `<think>` and `</think>`, which most families keep out of free text.
const THINK: &[&str] = &["<think>", "</think>"];

/// How a family writes one call: `begin.0 NAME begin.1`, the arguments,
/// `end`.
#[derive(Debug)]
pub(crate) struct Call {
    pub begin: (&'static str, &'static str),
    pub end: &'static str,
    /// The arguments' `json_schema` style (`"json"`, `"qwen_xml"`, ...).
    pub style: &'static str,
    /// Kimi's call id between the name and the arguments: a `\d+` regex,
    /// then this marker.
    pub id_then: Option<&'static str>,
}

/// Where calls sit in the turn.
#[derive(Debug)]
pub(crate) enum Layout {
    /// Each call is a tag of its own in the free text, opened by `trigger`
    /// (Llama, Qwen3, Qwen3-Coder, GLM, MiMo).
    Flat { trigger: &'static str },
    /// The calls sit in one section, `begin` calls joined by `separator`
    /// `end`, opened in the free text by `trigger` (Kimi, DeepSeek,
    /// MiniMax).
    Section {
        trigger: &'static str,
        begin: &'static str,
        end: &'static str,
        separator: &'static str,
        /// What opens the section when calls are required or forced (no
        /// free text before it).
        forced_open: &'static str,
        /// Whether a forced call is written as one tag with the section's
        /// markers in its begin and end (DeepSeek), or as a sequence of
        /// the opening, the call's tag and the closing (Kimi, MiniMax);
        /// the same language, a different tag.
        forced_as_one_tag: bool,
    },
}

/// A leading `<think>…</think>` block.
#[derive(Debug)]
pub(crate) struct Think {
    pub begin: &'static str,
    pub end: &'static str,
    /// Written after the end (`"\n\n"` for Qwen and MiniMax).
    pub suffix: &'static str,
    /// Kept out of the reasoning under `reasoning: "enabled"` and `"auto"`.
    pub excludes_enabled: &'static [&'static str],
    pub excludes_auto: &'static [&'static str],
    /// Whether the prompt already ends with `begin` under "enabled" (the
    /// turn starts inside the reasoning).
    pub prompt_ends_with_think: bool,
    /// What a turn starts with under "disabled" (MiniMax writes an empty
    /// block), as constant strings.
    pub disabled: &'static [&'static str],
}

/// One family's row.
#[derive(Debug)]
pub(crate) struct Family {
    pub name: &'static str,
    pub call: Call,
    pub layout: Layout,
    /// Kept out of the free text around calls.
    pub text_excludes: &'static [&'static str],
    /// Kept out of the free text of a turn without tools.
    pub plain_excludes: &'static [&'static str],
    pub think: Option<Think>,
}

const fn think(excludes: &'static [&'static str], suffix: &'static str) -> Think {
    Think {
        begin: "<think>",
        end: "</think>",
        suffix,
        excludes_enabled: excludes,
        excludes_auto: excludes,
        prompt_ends_with_think: true,
        disabled: &[],
    }
}

const QWEN_XML_CALL: Call = Call {
    begin: ("<tool_call>\n<function=", ">\n"),
    end: "\n</function>\n</tool_call>",
    style: "qwen_xml",
    id_then: None,
};

const GLM_EXCLUDES: &[&str] = &[
    "<think>",
    "</think>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
];
const GLM_REASONING_EXCLUDES: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
];
const MIMO_EXCLUDES: &[&str] = &["<think>", "</think>", "</tool_call>", "<function="];
const MIMO_REASONING_EXCLUDES: &[&str] = &[
    "<tool_call>",
    "<think>",
    "</think>",
    "</tool_call>",
    "<function=",
];

/// Every family built, by XGrammar's registry name.
pub(crate) const FAMILIES: &[Family] = &[
    Family {
        name: "llama",
        call: Call {
            begin: ("{\"name\": \"", "\", \"parameters\": "),
            end: "}",
            style: "json",
            id_then: None,
        },
        layout: Layout::Flat {
            trigger: "{\"name\": ",
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: None,
    },
    Family {
        name: "qwen_3",
        call: Call {
            begin: ("<tool_call>\n{\"name\": \"", "\", \"arguments\": "),
            end: "}\n</tool_call>",
            style: "json",
            id_then: None,
        },
        layout: Layout::Flat {
            trigger: "<tool_call>",
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: Some(think(THINK, "\n\n")),
    },
    Family {
        name: "qwen_3_5",
        call: QWEN_XML_CALL,
        layout: Layout::Flat {
            trigger: "<tool_call>\n<function=",
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: Some(think(THINK, "\n\n")),
    },
    Family {
        name: "qwen_3_coder",
        call: QWEN_XML_CALL,
        layout: Layout::Flat {
            trigger: "<tool_call>\n<function=",
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: Some(think(THINK, "\n\n")),
    },
    Family {
        name: "mimo",
        call: Call {
            begin: ("<tool_call><function=", ">"),
            end: "</function></tool_call>",
            style: "qwen_xml",
            id_then: None,
        },
        layout: Layout::Flat {
            trigger: "<tool_call>",
        },
        text_excludes: MIMO_EXCLUDES,
        plain_excludes: MIMO_REASONING_EXCLUDES,
        think: Some(Think {
            prompt_ends_with_think: false,
            ..think(MIMO_REASONING_EXCLUDES, "")
        }),
    },
    Family {
        name: "glm_4_7",
        call: Call {
            begin: ("<tool_call>", ""),
            end: "</tool_call>",
            style: "glm_xml",
            id_then: None,
        },
        layout: Layout::Flat {
            trigger: "<tool_call>",
        },
        text_excludes: GLM_EXCLUDES,
        plain_excludes: GLM_REASONING_EXCLUDES,
        think: Some(think(GLM_REASONING_EXCLUDES, "")),
    },
    Family {
        name: "kimi",
        call: Call {
            begin: ("<|tool_call_begin|>functions.", ":"),
            end: "<|tool_call_end|>",
            style: "json",
            id_then: Some("<|tool_call_argument_begin|>"),
        },
        layout: Layout::Section {
            trigger: "<|tool_calls_section_begin|>",
            begin: "<|tool_calls_section_begin|>",
            end: "<|tool_calls_section_end|>",
            separator: "",
            forced_open: "<|tool_calls_section_begin|>",
            forced_as_one_tag: false,
        },
        text_excludes: &["<think>", "</think>", "<|tool_call_begin|>"],
        plain_excludes: THINK,
        // Kimi-K2 does not prefill `<think>`: XGrammar keeps the
        // reasoning free of nothing under "enabled".
        think: Some(Think {
            excludes_enabled: &[],
            ..think(THINK, "")
        }),
    },
    Family {
        name: "deepseek_r1",
        call: Call {
            begin: (
                "<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>function<\u{ff5c}tool\u{2581}sep\u{ff5c}>",
                "\n```json\n",
            ),
            end: "\n```<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}>",
            style: "json",
            id_then: None,
        },
        layout: Layout::Section {
            trigger: DS_CALLS_BEGIN,
            begin: DS_CALLS_BEGIN,
            end: DS_CALLS_END,
            separator: "\n",
            forced_open: DS_CALLS_BEGIN,
            forced_as_one_tag: true,
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: Some(think(THINK, "")),
    },
    Family {
        name: "deepseek_v3_1",
        call: Call {
            begin: (
                "<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>",
                "<\u{ff5c}tool\u{2581}sep\u{ff5c}>",
            ),
            end: "<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}>",
            style: "json",
            id_then: None,
        },
        layout: Layout::Section {
            trigger: DS_CALLS_BEGIN,
            begin: DS_CALLS_BEGIN,
            end: DS_CALLS_END,
            separator: "",
            forced_open: DS_CALLS_BEGIN,
            forced_as_one_tag: true,
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: Some(think(THINK, "")),
    },
    Family {
        name: "minimax",
        call: Call {
            begin: ("<invoke name=\"", "\">\n"),
            end: "</invoke>\n",
            style: "minimax_xml",
            id_then: None,
        },
        layout: Layout::Section {
            trigger: "<minimax:tool_call>",
            begin: "<minimax:tool_call>\n",
            end: "</minimax:tool_call>",
            separator: "",
            forced_open: "\n<minimax:tool_call>\n",
            forced_as_one_tag: false,
        },
        text_excludes: THINK,
        plain_excludes: THINK,
        think: Some(Think {
            excludes_enabled: &[],
            disabled: &["\n</think>\n\n", "\n\n"],
            ..think(THINK, "\n\n")
        }),
    },
];

const DS_CALLS_BEGIN: &str = "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}>";
const DS_CALLS_END: &str = "<\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>";

/// The row of `name`.
pub(crate) fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}
