//! Agent turns as chat models write them: optional reasoning, free text,
//! then one or more typed tool calls in the model's own format, ended by
//! its end-of-turn special token, all within one token budget.
//!
//! A [`Chat`] describes the format; [`Chat::decoder`] composes the turn's
//! grammar from the format's markers and the grammar of `T`, the type of one
//! call (a `#[derive(Constrained)]` enum of tools, tagged the way the format
//! writes a call: `#[serde(tag = "name", content = "arguments")]` for
//! Hermes and Mistral, `content = "parameters"` for Llama 3.1). The
//! decoder masks tokens like [`Decoder`](crate::Decoder) and
//! [`finish`](ChatDecoder::finish)es with a [`ChatTurn`]: the reasoning,
//! the free text and a `Vec<T>`.
//!
//! | format | a turn |
//! |---|---|
//! | [`Hermes`](ChatFormat::Hermes) (Qwen, Hermes) | `<think>…</think>` (when [`reasoning`](Chat::reasoning)), free text, `<tool_call>\n{call}\n</tool_call>` joined by `\n`, `<\|im_end\|>` |
//! | [`Llama31`](ChatFormat::Llama31) | `{call}` joined by `;`, `<\|eot_id\|>` |
//! | [`Mistral`](ChatFormat::Mistral) | `[TOOL_CALLS][{call}, {call}]`, then EOS |
//!
//! The model families of XGrammar's registry (`Chat::qwen3_coder()`,
//! `Chat::harmony()`, …; [`Chat::family`] by name) write XGrammar's
//! language for the family (see [`family`](self::family)) with
//! [`tool_choice`](Chat::tool_choice) and
//! [`parallel_tool_calls`](Chat::parallel_tool_calls); their calls come
//! from `T` or from an OpenAI `tools` array ([`Chat::tools_decoder`]).
//!
//! Reasoning and free text are each one lexeme that ends at the first
//! closing marker (`</think>`, `<tool_call>`): a lazy regex, so maximal
//! munch stays exact and the text can hold anything but that marker.
//! Special tokens are matched as token ids only (see
//! [`SpecialToken`](gcd_core::grammar::SpecialToken)); the end-of-turn
//! token can be changed with [`end_token`](Chat::end_token).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::{Expr, GrammarBuilder, SpecialToken, TerminalPattern};
use gcd_core::json::Whitespace;
use gcd_core::runtime::decode::LogitsSource;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use serde::de::DeserializeOwned;

use crate::constrained::{Constrained, ConstraintError, Decoder};
pub use gcd_schema::structural_tag::family::{Reasoning, ToolChoice};

pub mod family;

/// The reasoning's terminal: its text and `</think>`.
const THINK: &str = "THINK";

/// How a fixed format writes a turn: one table per format, from which
/// [`Chat::grammar`] builds the turn's grammar and `split_turn` reads the
/// turn back, so the two cannot disagree. A turn is: the lead token, the
/// opening text (ending the free text, with `free_text`), the calls each
/// between `before_call` and `after_call` and joined by `between`, the
/// closing text, the end-of-turn token.
struct Markers {
    /// A special token before the calls (Mistral's `<TOOL_CALLS>`; a
    /// vocabulary may spell it `[TOOL_CALLS]`).
    lead_token: Option<&'static str>,
    /// Written before the first call.
    open: &'static str,
    /// Free text comes first and ends at `open` (lexed as one lazy lexeme
    /// with it).
    free_text: bool,
    before_call: &'static str,
    after_call: &'static str,
    between: &'static str,
    close: &'static str,
    /// The format's own end-of-turn token (else EOS ends the turn).
    end_token: Option<&'static str>,
}

impl Markers {
    /// Qwen and Hermes.
    const HERMES: Markers = Markers {
        lead_token: None,
        open: "<tool_call>",
        free_text: true,
        before_call: "\n",
        after_call: "\n</tool_call>",
        between: "\n<tool_call>",
        close: "",
        end_token: Some("<|im_end|>"),
    };
    /// Llama 3.1's JSON tool calls.
    const LLAMA31: Markers = Markers {
        lead_token: None,
        open: "",
        free_text: false,
        before_call: "",
        after_call: "",
        between: ";",
        close: "",
        end_token: Some("<|eot_id|>"),
    };
    /// Mistral's `[TOOL_CALLS]` array.
    const MISTRAL: Markers = Markers {
        lead_token: Some("<TOOL_CALLS>"),
        open: "[",
        free_text: false,
        before_call: "",
        after_call: "",
        between: ", ",
        close: "]",
        end_token: None,
    };
    /// No markers (a family's turn is read by its own reader).
    const NONE: Markers = Markers {
        lead_token: None,
        open: "",
        free_text: false,
        before_call: "",
        after_call: "",
        between: "",
        close: "",
        end_token: None,
    };

    /// The table of a fixed format; `None` for a family.
    fn of(format: ChatFormat) -> Option<&'static Markers> {
        match format {
            ChatFormat::Hermes => Some(&Markers::HERMES),
            ChatFormat::Llama31 => Some(&Markers::LLAMA31),
            ChatFormat::Mistral => Some(&Markers::MISTRAL),
            ChatFormat::Family(_) => None,
        }
    }
}

/// How a model family writes tool calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChatFormat {
    /// Qwen and Hermes: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`
    /// per call, after optional free text; `<|im_end|>` ends the turn.
    Hermes,
    /// Llama 3.1's JSON tool calls: `{"name": …, "parameters": …}`, several
    /// joined by `;`; `<|eot_id|>` ends the turn.
    Llama31,
    /// Mistral: `[TOOL_CALLS]` then a JSON array of calls; EOS ends it.
    Mistral,
    /// A model family of XGrammar's registry, by its name there
    /// (`"qwen_3_coder"`, `"harmony"`, …): XGrammar's language for the
    /// family, then EOS (or [`end_token`](Chat::end_token)).
    Family(&'static str),
}

/// A chat format with its options: what [`decoder`](Chat::decoder) builds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chat {
    format: ChatFormat,
    reasoning: bool,
    end_token: Option<String>,
    min_calls: usize,
    max_calls: Option<usize>,
    whitespace: Option<Whitespace>,
    max_reasoning_tokens: Option<usize>,
    /// Families only: XGrammar's `reasoning: "auto"` (a block or none).
    reasoning_auto: bool,
    tool_choice: ToolChoice,
    parallel_tool_calls: bool,
}

/// What a turn held, once decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatTurn<T> {
    /// The text between `<think>` and `</think>`, when reasoning is on.
    pub reasoning: Option<String>,
    /// Free text before the first call (Hermes; in the families, all the
    /// text outside calls, in order; empty otherwise).
    pub text: String,
    /// The calls, in order.
    pub calls: Vec<T>,
}

impl Chat {
    /// The format with its defaults: no reasoning, the format's own
    /// end-of-turn token, one call or more.
    pub fn new(format: ChatFormat) -> Chat {
        Chat {
            format,
            reasoning: false,
            end_token: None,
            min_calls: 1,
            max_calls: None,
            whitespace: None,
            max_reasoning_tokens: None,
            reasoning_auto: false,
            tool_choice: ToolChoice::Auto,
            parallel_tool_calls: true,
        }
    }

    /// A model family by its name in XGrammar's registry (`"llama"`,
    /// `"qwen_3"`, `"qwen_3_5"`, `"qwen_3_coder"`, `"mimo"`, `"glm_4_7"`,
    /// `"kimi"`, `"deepseek_r1"`, `"deepseek_v3_1"`, `"minimax"`,
    /// `"harmony"`); a family gcd does not build yet is an error naming
    /// the ones it does.
    pub fn family(name: &str) -> Result<Chat, ConstraintError> {
        match family::family_name(name) {
            Some(f) => Ok(Chat::new(ChatFormat::Family(f))),
            None => Err(ConstraintError::Unsupported {
                ty: "Chat",
                message: format!(
                    "model family {name:?} is not built yet (gcd builds {})",
                    gcd_schema::structural_tag::family::families().join(", ")
                ),
            }),
        }
    }

    fn registry(name: &'static str) -> Chat {
        Chat::new(ChatFormat::Family(name))
    }

    /// Llama 3.x as XGrammar's `llama` writes it: `{"name": "f",
    /// "parameters": {…}}` calls in free text.
    pub fn llama() -> Chat {
        Chat::registry("llama")
    }

    /// Qwen3 (`qwen_3`): `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`.
    pub fn qwen3() -> Chat {
        Chat::registry("qwen_3")
    }

    /// Qwen3.5 (`qwen_3_5`): Qwen's XML calls, `<function=f>` with
    /// `<parameter=k>` elements.
    pub fn qwen3_5() -> Chat {
        Chat::registry("qwen_3_5")
    }

    /// Qwen3-Coder (`qwen_3_coder`): the same XML calls as Qwen3.5.
    pub fn qwen3_coder() -> Chat {
        Chat::registry("qwen_3_coder")
    }

    /// MiMo (`mimo`): Qwen's XML calls without the newlines.
    pub fn mimo() -> Chat {
        Chat::registry("mimo")
    }

    /// GLM-4.7 (`glm_4_7`): `<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`.
    pub fn glm_4_7() -> Chat {
        Chat::registry("glm_4_7")
    }

    /// Kimi K2 (`kimi`): calls in a `<|tool_calls_section_begin|>` section.
    pub fn kimi() -> Chat {
        Chat::registry("kimi")
    }

    /// DeepSeek-R1 (`deepseek_r1`): fenced JSON calls in a tool-calls section.
    pub fn deepseek_r1() -> Chat {
        Chat::registry("deepseek_r1")
    }

    /// DeepSeek-V3.1 (`deepseek_v3_1`).
    pub fn deepseek_v3_1() -> Chat {
        Chat::registry("deepseek_v3_1")
    }

    /// MiniMax (`minimax`): `<invoke name="f">` calls with
    /// `<parameter name="k">` elements.
    pub fn minimax() -> Chat {
        Chat::registry("minimax")
    }

    /// gpt-oss (`harmony`): analysis, final and commentary channel messages.
    pub fn harmony() -> Chat {
        Chat::registry("harmony")
    }

    /// Which tools the turn may or must call (OpenAI's `tool_choice`;
    /// families only, `Auto` by default). `None` leaves text only,
    /// `Required` one call or more, `Named` exactly that tool once.
    pub fn tool_choice(mut self, choice: ToolChoice) -> Chat {
        self.tool_choice = choice;
        self
    }

    /// Whether the turn may hold more than one call (OpenAI's
    /// `parallel_tool_calls`; families only, on by default).
    pub fn parallel_tool_calls(mut self, on: bool) -> Chat {
        self.parallel_tool_calls = on;
        self
    }

    /// XGrammar's reasoning modes (families): `Enabled` and `Disabled` as
    /// [`reasoning`](Self::reasoning), `Auto` a complete block or none.
    pub fn reasoning_mode(mut self, mode: Reasoning) -> Chat {
        self.reasoning = mode != Reasoning::Disabled;
        self.reasoning_auto = mode == Reasoning::Auto;
        self
    }

    fn family_options(&self) -> gcd_schema::structural_tag::family::FamilyOptions {
        gcd_schema::structural_tag::family::FamilyOptions {
            tool_choice: self.tool_choice.clone(),
            reasoning: match (self.reasoning, self.reasoning_auto) {
                (false, _) => Reasoning::Disabled,
                (true, false) => Reasoning::Enabled,
                (true, true) => Reasoning::Auto,
            },
            parallel_tool_calls: self.parallel_tool_calls,
        }
    }

    /// Refuses the options a format does not have.
    fn check_options(&self) -> Result<(), ConstraintError> {
        let family = matches!(self.format, ChatFormat::Family(_));
        let refuse = |what: &str| {
            Err(ConstraintError::Unsupported {
                ty: "Chat",
                message: format!("{what} (format {:?})", self.format),
            })
        };
        let defaults = Chat::new(self.format);
        if !family
            && (self.reasoning_auto
                || self.tool_choice != defaults.tool_choice
                || self.parallel_tool_calls != defaults.parallel_tool_calls)
        {
            return refuse("tool_choice, parallel_tool_calls and reasoning_mode(Auto) are options of the model families");
        }
        if family && (self.min_calls, self.max_calls) != (1, None) {
            return refuse("a family's calls are bounded by tool_choice and parallel_tool_calls, not calls(min, max)");
        }
        Ok(())
    }

    /// Qwen's and Hermes' format.
    pub fn hermes() -> Chat {
        Chat::new(ChatFormat::Hermes)
    }

    /// Llama 3.1's JSON tool calls.
    pub fn llama31() -> Chat {
        Chat::new(ChatFormat::Llama31)
    }

    /// Mistral's `[TOOL_CALLS]` format.
    pub fn mistral() -> Chat {
        Chat::new(ChatFormat::Mistral)
    }

    /// Whether the turn opens with `<think>…</think>` (Hermes only: Qwen3
    /// with thinking on always writes it, empty or not).
    pub fn reasoning(mut self, on: bool) -> Chat {
        self.reasoning = on;
        self
    }

    /// At most `k` tokens of reasoning: the tokens that hold any byte of
    /// it or of its closing `</think>` (a token that also holds `<think>`
    /// or the text after counts). Masks close the reasoning in time, so the
    /// turn goes on to its calls; with a budget both hold. Needs
    /// [`reasoning`](Self::reasoning); [`decoder`](Self::decoder) refuses a
    /// `k` below the tokens `</think>` itself may take.
    pub fn max_reasoning_tokens(mut self, k: usize) -> Chat {
        self.max_reasoning_tokens = Some(k);
        self
    }

    /// The special token that ends the turn, by its text (`<|im_end|>`);
    /// for a vocabulary whose end token is spelled otherwise.
    pub fn end_token(mut self, name: &str) -> Chat {
        self.end_token = Some(name.to_string());
        self
    }

    /// How many calls a turn holds: at least `min` (1 or more), at most
    /// `max` (unbounded when `None`).
    pub fn calls(mut self, min: usize, max: Option<usize>) -> Chat {
        self.min_calls = min.max(1);
        self.max_calls = max.map(|m| m.max(self.min_calls));
        self
    }

    /// Whitespace inside each call's JSON; `T`'s own
    /// ([`Constrained::WHITESPACE`]) unless set.
    pub fn whitespace(mut self, ws: Whitespace) -> Chat {
        self.whitespace = Some(ws);
        self
    }

    fn end(&self) -> Option<String> {
        match (&self.end_token, Markers::of(self.format)) {
            (Some(name), _) => Some(name.clone()),
            (None, Some(m)) => m.end_token.map(String::from),
            (None, None) => None,
        }
    }

    /// The turn's grammar, with `T`'s grammar embedded as rule `call`.
    pub fn grammar<T: Constrained + 'static>(&self) -> Result<CompiledGrammar, ConstraintError> {
        let unsupported = |message: String| ConstraintError::Unsupported {
            ty: std::any::type_name::<T>(),
            message,
        };
        if let ChatFormat::Family(f) = self.format {
            return Err(unsupported(format!(
                "family {f}'s grammar is bound to a vocabulary with its markers checked: use Chat::bound or Chat::decoder"
            )));
        }
        let ws = self.whitespace.unwrap_or(T::WHITESPACE);
        let call_grammar = crate::constrained::json_grammar::<T>(ws)?;
        let mut b = GrammarBuilder::new();
        let call = Expr::name(&b.embed("call", &call_grammar, None));
        // A marker's text; an empty one is nothing.
        let lit = |text: &str| match text {
            "" => Expr::seq(vec![]),
            text => Expr::literal(text),
        };
        let special = |name: &str| {
            Expr::Pattern(
                TerminalPattern::Special(SpecialToken::Named(name.to_string())),
                None,
            )
        };
        let Some(m) = Markers::of(self.format) else {
            return Err(unsupported("unreachable: a family".into()));
        };
        let mut open = Vec::new();
        if let Some(token) = m.lead_token {
            open.push(special(token));
        }
        if m.free_text {
            // The free text and the marker that ends it: one lazy lexeme.
            let marker = TerminalPattern::Literal {
                text: m.open.to_string(),
                case_insensitive: false,
            };
            let text = format!("(?s:.)*?{}", marker.to_regex());
            b.terminal("TEXT", TerminalPattern::Regex(text));
            open.push(Expr::name("TEXT"));
        } else {
            open.push(lit(m.open));
        }
        let one = Expr::seq(vec![lit(m.before_call), call, lit(m.after_call)]);
        let (open, sep, close) = (Expr::seq(open), lit(m.between), lit(m.close));
        let more = Expr::seq(vec![sep, one.clone()]);
        let rest = match self.max_calls {
            Some(max) => Expr::Repeat(
                Box::new(more),
                (self.min_calls - 1) as u32,
                (max - 1) as u32,
            ),
            None => Expr::seq(vec![
                Expr::Repeat(
                    Box::new(more.clone()),
                    (self.min_calls - 1) as u32,
                    (self.min_calls - 1) as u32,
                ),
                Expr::star(more),
            ]),
        };
        let mut turn = Vec::new();
        if self.reasoning {
            if self.format != ChatFormat::Hermes {
                return Err(unsupported(format!(
                    "reasoning (`<think>`) is part of the Hermes format, not {:?}",
                    self.format
                )));
            }
            b.terminal(THINK, TerminalPattern::Regex(r"(?s:.)*?</think>".into()));
            turn.extend([lit("<think>"), Expr::name(THINK)]);
        }
        turn.extend([open, one, rest, close]);
        if let Some(end) = self.end() {
            turn.push(special(&end));
        }
        b.rule("start", vec![Expr::seq(turn)]).start("start");
        let g = b.build().map_err(|e| unsupported(e.to_string()))?;
        CompiledGrammar::new(&g).map_err(|e| unsupported(e.to_string()))
    }

    /// The turn's grammar bound to `vocab`, built once per process (per
    /// format, options, call type and vocabulary) and shared after; its
    /// tables are built on a worker thread from then on
    /// ([`BoundGrammar::build_all_on_worker`]).
    pub fn bound<T: Constrained + 'static>(
        &self,
        vocab: Arc<Vocabulary>,
    ) -> Result<Arc<BoundGrammar>, ConstraintError> {
        Ok(self.composed::<T>(vocab)?.bound)
    }

    fn composed<T: Constrained + 'static>(
        &self,
        vocab: Arc<Vocabulary>,
    ) -> Result<family::Composed, ConstraintError> {
        type Key = (Chat, TypeId, u64);
        static CACHE: OnceLock<Mutex<HashMap<Key, family::Composed>>> = OnceLock::new();
        self.check_options()?;
        // The reasoning cap is the matcher's, not the grammar's.
        let chat = Chat {
            max_reasoning_tokens: None,
            ..self.clone()
        };
        let key = (chat, TypeId::of::<T>(), vocab.fingerprint());
        crate::constrained::cached(&CACHE, key, || {
            let composed = self.compose::<T>(vocab)?;
            // As a derived type's: the turn is known before its request.
            drop(composed.bound.build_all_on_worker());
            Ok(composed)
        })
    }

    fn compose<T: Constrained + 'static>(
        &self,
        vocab: Arc<Vocabulary>,
    ) -> Result<family::Composed, ConstraintError> {
        match self.format {
            ChatFormat::Family(f) => {
                let ws = self.whitespace.unwrap_or(T::WHITESPACE);
                let end = self.end();
                family::typed::<T>(f, &self.family_options(), ws, end.as_deref(), vocab)
            }
            _ => {
                let grammar = Arc::new(self.grammar::<T>()?);
                Ok(family::Composed {
                    bound: Arc::new(BoundGrammar::try_new(grammar, vocab)?),
                    reasoning_terminals: Some(vec![THINK.to_string()]),
                    reader: None,
                })
            }
        }
    }

    /// A decoder of one turn over `vocab`, whose special tokens the format
    /// names (an error names one `vocab` lacks).
    pub fn decoder<T: Constrained + DeserializeOwned + 'static>(
        &self,
        vocab: Arc<Vocabulary>,
    ) -> Result<ChatDecoder<T>, ConstraintError> {
        let c = self.composed::<T>(vocab)?;
        self.start(c)
    }

    /// A decoder of one turn of a family whose tools come as an OpenAI
    /// `tools` array (function tools): XGrammar's language for them
    /// exactly, each call read as `{"name": …, "arguments": …}`. Built per
    /// call, not cached (a server's tools change per request).
    pub fn tools_decoder(
        &self,
        tools: &serde_json::Value,
        vocab: Arc<Vocabulary>,
    ) -> Result<ChatDecoder<serde_json::Value>, ConstraintError> {
        self.check_options()?;
        let ChatFormat::Family(f) = self.format else {
            return Err(ConstraintError::Unsupported {
                ty: "Chat",
                message: format!(
                    "an OpenAI tools array needs a model family, not {:?} (use decoder::<T>)",
                    self.format
                ),
            });
        };
        let end = self.end();
        let c = family::untyped(f, &self.family_options(), tools, end.as_deref(), vocab)?;
        self.start(c)
    }

    fn start<T: DeserializeOwned>(
        &self,
        c: family::Composed,
    ) -> Result<ChatDecoder<T>, ConstraintError> {
        let refuse = |message: String| ConstraintError::Unsupported {
            ty: std::any::type_name::<T>(),
            message,
        };
        let mut matcher = Matcher::new(c.bound);
        if let Some(k) = self.max_reasoning_tokens {
            if !self.reasoning {
                return Err(refuse("max_reasoning_tokens needs reasoning(true)".into()));
            }
            match c.reasoning_terminals {
                None => {
                    return Err(refuse(format!(
                        "max_reasoning_tokens: the grammar of {:?} needs dynamic lexing (the raw text of its XML arguments), where a lexeme cap cannot be set",
                        self.format
                    )))
                }
                Some(names) if names.is_empty() => {
                    return Err(refuse(format!(
                        "max_reasoning_tokens: {:?} has no reasoning block",
                        self.format
                    )))
                }
                Some(names) => {
                    for name in names {
                        matcher.set_lexeme_cap(&name, Some(k))?;
                    }
                }
            }
        }
        Ok(ChatDecoder {
            chat: self.clone(),
            decoder: Decoder::from_matcher(matcher),
            reader: c.reader,
        })
    }
}

/// Decodes one chat turn: mask, advance, [`finish`](Self::finish). A
/// [`Decoder`] underneath masks and advances; the turn differs in how it
/// ends (its end token may be the only way out) and what it reads back.
pub struct ChatDecoder<T> {
    chat: Chat,
    decoder: Decoder<T>,
    /// A family's reader (the fixed formats read with `split_turn`).
    reader: Option<Arc<family::Reader>>,
}

impl<T: DeserializeOwned> ChatDecoder<T> {
    /// At most `n` tokens for the whole turn, end token included; the turn
    /// is complete when they run out (a call is never cut off).
    pub fn with_budget(mut self, n: usize) -> Result<ChatDecoder<T>, ConstraintError> {
        self.decoder = self.decoder.with_budget(n)?;
        Ok(self)
    }

    /// Sets the logits of tokens not allowed next to negative infinity
    /// ([`Decoder::mask_logits`]).
    pub fn mask_logits(&self, logits: &mut [f32]) {
        self.decoder.mask_logits(logits)
    }

    /// Appends `token` (refused, leaving the decoder unchanged, when the
    /// mask forbids it: [`Decoder::advance`]).
    pub fn advance(&mut self, token: u32) -> Result<(), ConstraintError> {
        self.decoder.advance(token)
    }

    /// Whether the turn is over: EOS was taken, or the turn is complete and
    /// nothing may follow (its end token was taken and the vocabulary has
    /// no other EOS). Computes a mask only in that last case.
    pub fn is_finished(&self) -> bool {
        let m = self.decoder.matcher();
        let vocab = m.bound().vocab();
        m.is_finished()
            || (vocab.eos_ids().is_empty()
                && m.is_complete()
                && m.compute_mask(vocab.len()).not_any())
    }

    /// The matcher underneath (tokens, text, bitmasks, rollback).
    pub fn matcher(&self) -> &Matcher {
        self.decoder.matcher()
    }

    /// Runs `model` greedily to the end of the turn (at most `max_steps`
    /// tokens; with a budget the turn always completes) and finishes.
    pub fn greedy(
        &mut self,
        model: &mut dyn LogitsSource,
        max_steps: usize,
    ) -> Result<ChatTurn<T>, ConstraintError> {
        gcd_core::runtime::decode::greedy(self.decoder.matcher_mut(), model, max_steps)?;
        self.finish()
    }

    /// The reasoning, text and calls of the complete turn.
    pub fn finish(&self) -> Result<ChatTurn<T>, ConstraintError> {
        self.decoder.complete_output()?;
        let text = self.decoder.matcher().text();
        let Some(reader) = &self.reader else {
            return split_turn(&self.chat, &text);
        };
        let (reasoning, text, calls) = reader.read(&text)?;
        let calls = (calls.into_iter())
            .map(|c| serde_json::from_value(c).map_err(ConstraintError::Deserialize))
            .collect::<Result<Vec<T>, _>>()?;
        Ok(ChatTurn {
            reasoning,
            text,
            calls,
        })
    }
}

/// Reads a turn the grammar accepted. The grammar fixes its layout, so
/// only a call's JSON needs parsing: serde_json reads one value and says
/// where it ended (a string inside may hold any marker).
fn split_turn<T: DeserializeOwned>(
    chat: &Chat,
    text: &str,
) -> Result<ChatTurn<T>, ConstraintError> {
    let mut rest = text;
    let mut reasoning = None;
    if chat.reasoning {
        rest = rest.strip_prefix("<think>").unwrap_or(rest);
        let end = rest.find("</think>").unwrap_or(rest.len());
        reasoning = Some(rest[..end].to_string());
        rest = rest.get(end + "</think>".len()..).unwrap_or("");
    }
    let mut free = String::new();
    let m = Markers::of(chat.format).unwrap_or(&Markers::NONE);
    if m.free_text {
        let at = rest.find(m.open).unwrap_or(rest.len());
        free = rest[..at].to_string();
        rest = &rest[at..];
    }
    let between = [m.after_call, m.between, m.before_call].concat();
    let before_end = [m.after_call, m.close].concat();
    // The lead token as the vocabulary spells it: `<NAME>` or `[NAME]`.
    let lead = m.lead_token.unwrap_or("");
    let bracketed = match lead.strip_prefix('<').and_then(|l| l.strip_suffix('>')) {
        Some(name) => format!("[{name}]"),
        None => lead.to_string(),
    };
    rest = [lead, bracketed.as_str()]
        .iter()
        .find_map(|lead| rest.strip_prefix(&[lead, m.open, m.before_call].concat()))
        .unwrap_or(rest);
    let mut calls = Vec::new();
    loop {
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        match values.next() {
            Some(Ok(call)) => calls.push(call),
            Some(Err(e)) => return Err(ConstraintError::Deserialize(e)),
            None => break,
        }
        rest = &rest[values.byte_offset()..];
        match rest.strip_prefix(between.as_str()) {
            Some(next) => rest = next,
            None => break,
        }
    }
    debug_assert!(rest.starts_with(&before_end), "{rest:?}");
    Ok(ChatTurn {
        reasoning,
        text: free,
        calls,
    })
}
