//! XGrammar's structural tags, read exactly: `{"type": "structural_tag",
//! "format": {...}}`, the description vLLM, SGLang, TensorRT-LLM and
//! Dynamo pass to their grammar backends for reasoning and tool calls,
//! compiled into gcd-core's IR like every other front end.
//!
//! The language is XGrammar's (0.2.9, whose `get_model_structural_tag`
//! writes the tags of every model family it knows), checked against
//! XGrammar itself by `tests/structural_tag_oracle.rs`. Each kind:
//!
//! | kind | support |
//! |---|---|
//! | `const_string` | exact |
//! | `json_schema`, `style: "json"` | the schema compiled by this crate in XGrammar's strict mode (see `json.rs`), except that `enum`/`const` numbers also take trailing fraction zeros (`1.0` for `1`, this crate's rule), which XGrammar refuses; `any_order: true`, `max_whitespace_cnt` other than null and non-empty `excludes`: refused by name |
//! | `json_schema`, `style: "qwen_xml"` (and the deprecated `qwen_xml_parameter`), `"minimax_xml"`, `"glm_xml"`, `"deepseek_xml"`, `"deepseek_v4_1_xml"`, `"cohere_xml"`, `"minimax_m3_xml"` | object schemas whose string parameters are plain, enums or length-bounded (see `xml.rs`); other string forms, and objects and arrays in `cohere_xml` and `minimax_m3_xml`, refused by name |
//! | other styles (`kimi_k3_xml`, `gemma`) | refused by name |
//! | `regex` | whole matches, regex-automata syntax; assertions refused |
//! | `grammar` (`syntax: "ebnf"`) | read by gcd's GBNF front end; `syntax: "lark"` refused |
//! | `sequence`, `or`, `tag` (string `begin`/`end`, one end or several) | exact |
//! | `any_text` (`excludes`, `max_chars`) | exact; `max_tokens` refused (a per-region token cap is a matcher setting in gcd) |
//! | `triggered_tags` (`triggers`, `tags`, `at_least_one`, `stop_after_first`, `excludes`) | exact (see `text.rs` for the trigger scan) |
//! | `tags_with_separator`, `dispatch`, `optional`, `star`, `plus`, `repeat` | exact |
//! | `token`, `exclude_token`, `any_tokens`, `token_triggered_tags`, `token_dispatch`, token `begin`/`end` | refused by name: they match token ids, and these tags are read as text |
//! | `{"type": "structural_tag", "structures": [...], "triggers": [...]}` (vLLM's older form) | as XGrammar converts it: `triggered_tags` of `json_schema` tags |
//!
//! XGrammar's structural tags are grammars over characters, with no lexer:
//! free text ends wherever the rest of the grammar can take over
//! (`sequence[any_text, "END"]` accepts `ENDxEND`). gcd's maximal munch
//! would end such text only where nothing extends it, so the grammar is
//! compiled with [`Lexing::Dynamic`], under which a lexeme may end at any
//! of its matches and the language is exactly the grammar's over its
//! terminals' strings. Strings are bytes: a special token's text
//! (`<|call|>`) is text here, as in XGrammar without `token_markers`.

pub mod family;
mod format;
mod json;
mod lower;
mod style;
mod text;
mod xml;

use gcd_core::compiled::{CompiledGrammar, Config};
use gcd_core::grammar::Grammar;
use gcd_core::Lexing;
use serde_json::Value;

use crate::{grammar_error, Options, SchemaError};

/// The grammar IR of a structural tag (before gcd-core's compilation,
/// which must use [`Lexing::Dynamic`] to keep XGrammar's language; see
/// [`structural_tag`]). `options` gives the limits; the schemas inside
/// compile under XGrammar's choices (any whitespace inside a value, any
/// escape, plain integers, strict mode).
pub fn structural_tag_to_grammar(tag: &Value, options: &Options) -> Result<Grammar, SchemaError> {
    Ok(lower_structural_tag(tag, options, None)?.grammar)
}

/// Grammars a caller gives for `json_schema` formats, by their schema (a
/// typed tool's arguments behind a placeholder schema): `None` compiles
/// the schema as usual.
pub type GivenArguments<'a> = &'a dyn Fn(&Value) -> Option<Grammar>;

/// A structural tag's grammar, with what a caller composing it needs.
#[derive(Clone, Debug)]
pub struct LoweredTag {
    /// The grammar (start rule `structural_tag`).
    pub grammar: Grammar,
    /// Tags whose free text and end are one terminal: each tag's begin
    /// and the terminal's name (a tag lowered twice, as triggered tags
    /// are, names two). A matcher can cap such a terminal's tokens.
    pub tag_texts: Vec<(String, String)>,
}

/// [`structural_tag_to_grammar`], where `arguments` may give the grammar
/// of a `json_schema` format in the `json` style for its schema (a typed
/// tool's arguments: the schema is then the caller's placeholder, never
/// compiled).
pub fn lower_structural_tag(
    tag: &Value,
    options: &Options,
    arguments: Option<GivenArguments<'_>>,
) -> Result<LoweredTag, SchemaError> {
    let f = format::read_structural_tag(tag)?;
    let mut lw = lower::Lowerer::new(options);
    lw.arguments = arguments;
    let at = if tag.get("format").is_some() {
        "/format"
    } else {
        ""
    };
    let e = lw.lower(&f, at, &[])?;
    let tag_texts = std::mem::take(&mut lw.tag_texts);
    let mut b = lw.builder;
    b.rule("structural_tag", vec![e]);
    b.start("structural_tag");
    Ok(LoweredTag {
        grammar: b.build().map_err(grammar_error)?,
        tag_texts,
    })
}

/// The compile configuration a structural tag's grammar needs: dynamic
/// lexing, `options`' limits.
pub fn structural_tag_config(options: &Options) -> Config {
    Config::default()
        .limits(options.limits.clone())
        .lexing(Lexing::Dynamic)
}

/// Compiles XGrammar's structural tag (`{"type": "structural_tag",
/// "format": {...}}`, or the older `structures` + `triggers` form) to
/// gcd-core's tables, ready to bind to a vocabulary.
///
/// ```
/// let tag = serde_json::json!({
///     "type": "structural_tag",
///     "format": {"type": "triggered_tags", "triggers": ["<tool_call>"], "tags": [{
///         "begin": "<tool_call>", "end": "</tool_call>",
///         "content": {"type": "json_schema", "json_schema": {
///             "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}
///     }]}
/// });
/// let compiled = gcd_schema::structural_tag(&tag, &gcd_schema::Options::default())?;
/// # let _ = compiled;
/// # Ok::<(), gcd_schema::SchemaError>(())
/// ```
pub fn structural_tag(tag: &Value, options: &Options) -> Result<CompiledGrammar, SchemaError> {
    let g = structural_tag_to_grammar(tag, options)?;
    CompiledGrammar::with_config(&g, &structural_tag_config(options)).map_err(grammar_error)
}
