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
//! Reasoning and free text are each one lexeme that ends at the first
//! closing marker (`</think>`, `<tool_call>`): a lazy regex, so maximal
//! munch stays exact and the text can hold anything but that marker.
//! Special tokens are matched as token ids only (see
//! [`SpecialToken`](gcd_core::grammar::SpecialToken)); the end-of-turn
//! token can be changed with [`end_token`](Chat::end_token).

use std::any::TypeId;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::{Expr, GrammarBuilder, SpecialToken, TerminalPattern};
use gcd_core::json::Whitespace;
use gcd_core::runtime::decode::LogitsSource;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use serde::de::DeserializeOwned;

use crate::constrained::{Constrained, ConstraintError};

/// The reasoning's terminal: its text and `</think>`.
const THINK: &str = "THINK";

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
}

/// What a turn held, once decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatTurn<T> {
    /// The text between `<think>` and `</think>`, when reasoning is on.
    pub reasoning: Option<String>,
    /// Free text before the first call (Hermes only; empty otherwise).
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
        }
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
        match (&self.end_token, self.format) {
            (Some(name), _) => Some(name.clone()),
            (None, ChatFormat::Hermes) => Some("<|im_end|>".into()),
            (None, ChatFormat::Llama31) => Some("<|eot_id|>".into()),
            (None, ChatFormat::Mistral) => None,
        }
    }

    /// The turn's grammar, with `T`'s grammar embedded as rule `call`.
    pub fn grammar<T: Constrained + 'static>(&self) -> Result<CompiledGrammar, ConstraintError> {
        let unsupported = |message: String| ConstraintError::Unsupported {
            ty: std::any::type_name::<T>(),
            message,
        };
        let ws = self.whitespace.unwrap_or(T::WHITESPACE);
        let call_grammar = crate::constrained::json_grammar::<T>(ws)?;
        let mut b = GrammarBuilder::new();
        let call = Expr::name(&b.embed("call", &call_grammar, None));
        let lit = Expr::literal;
        let special = |name: &str| {
            Expr::Pattern(
                TerminalPattern::Special(SpecialToken::Named(name.to_string())),
                None,
            )
        };
        let (open, one, sep, close) = match self.format {
            ChatFormat::Hermes => {
                b.terminal(
                    "TEXT",
                    TerminalPattern::Regex(r"(?s:.)*?<tool_call>".into()),
                );
                let one = Expr::seq(vec![lit("\n"), call, lit("\n</tool_call>")]);
                (
                    Expr::name("TEXT"),
                    one,
                    lit("\n<tool_call>"),
                    Expr::seq(vec![]),
                )
            }
            ChatFormat::Llama31 => (Expr::seq(vec![]), call, lit(";"), Expr::seq(vec![])),
            ChatFormat::Mistral => (
                Expr::seq(vec![special("<TOOL_CALLS>"), lit("[")]),
                call,
                lit(", "),
                lit("]"),
            ),
        };
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
    /// format, options, call type and vocabulary) and shared after.
    pub fn bound<T: Constrained + 'static>(
        &self,
        vocab: Arc<Vocabulary>,
    ) -> Result<Arc<BoundGrammar>, ConstraintError> {
        type Key = (Chat, TypeId, u64);
        static CACHE: OnceLock<Mutex<HashMap<Key, Arc<BoundGrammar>>>> = OnceLock::new();
        // The reasoning cap is the matcher's, not the grammar's.
        let chat = Chat {
            max_reasoning_tokens: None,
            ..self.clone()
        };
        let key = (chat, TypeId::of::<T>(), vocab.fingerprint());
        crate::constrained::cached(&CACHE, key, || {
            let grammar = Arc::new(self.grammar::<T>()?);
            Ok(Arc::new(BoundGrammar::try_new(grammar, vocab)?))
        })
    }

    /// A decoder of one turn over `vocab`, whose special tokens the format
    /// names (an error names one `vocab` lacks).
    pub fn decoder<T: Constrained + DeserializeOwned + 'static>(
        &self,
        vocab: Arc<Vocabulary>,
    ) -> Result<ChatDecoder<T>, ConstraintError> {
        let mut matcher = Matcher::new(self.bound::<T>(vocab)?);
        if let Some(k) = self.max_reasoning_tokens {
            if !self.reasoning {
                return Err(ConstraintError::Unsupported {
                    ty: std::any::type_name::<T>(),
                    message: "max_reasoning_tokens needs reasoning(true)".into(),
                });
            }
            matcher.set_lexeme_cap(THINK, Some(k))?;
        }
        Ok(ChatDecoder {
            chat: self.clone(),
            matcher,
            _type: PhantomData,
        })
    }
}

/// Decodes one chat turn: mask, advance, [`finish`](Self::finish).
pub struct ChatDecoder<T> {
    chat: Chat,
    matcher: Matcher,
    _type: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> ChatDecoder<T> {
    /// At most `n` tokens for the whole turn, end token included; the turn
    /// is complete when they run out (a call is never cut off).
    pub fn with_budget(mut self, n: usize) -> Result<ChatDecoder<T>, ConstraintError> {
        self.matcher = self.matcher.with_budget(n)?;
        Ok(self)
    }

    /// Sets the logits of tokens not allowed next to negative infinity.
    pub fn mask_logits(&self, logits: &mut [f32]) {
        self.matcher.mask_logits(logits)
    }

    /// Appends `token` (refused, leaving the decoder unchanged, when the
    /// mask forbids it).
    pub fn advance(&mut self, token: u32) -> Result<(), ConstraintError> {
        Ok(self.matcher.advance(token)?)
    }

    /// Whether the turn is over: EOS was taken, or the turn is complete and
    /// nothing may follow (its end token was taken and the vocabulary has
    /// no other EOS). Computes a mask only in that last case.
    pub fn is_finished(&self) -> bool {
        let m = &self.matcher;
        let vocab = m.bound().vocab();
        m.is_finished()
            || (vocab.eos_ids().is_empty()
                && m.is_complete()
                && m.compute_mask(vocab.len()).not_any())
    }

    /// The matcher underneath (tokens, text, bitmasks, rollback).
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// Runs `model` greedily to the end of the turn (at most `max_steps`
    /// tokens; with a budget the turn always completes) and finishes.
    pub fn greedy(
        &mut self,
        model: &mut dyn LogitsSource,
        max_steps: usize,
    ) -> Result<ChatTurn<T>, ConstraintError> {
        gcd_core::runtime::decode::greedy(&mut self.matcher, model, max_steps)?;
        self.finish()
    }

    /// The reasoning, text and calls of the complete turn.
    pub fn finish(&self) -> Result<ChatTurn<T>, ConstraintError> {
        if !self.matcher.is_finished() && !self.matcher.is_complete() {
            return Err(ConstraintError::Incomplete(self.matcher.output().len()));
        }
        split_turn(&self.chat, &self.matcher.text())
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
    let (first, between, before_end) = match chat.format {
        ChatFormat::Hermes => {
            let at = rest.find("<tool_call>").unwrap_or(rest.len());
            free = rest[..at].to_string();
            rest = &rest[at..];
            (
                "<tool_call>\n",
                "\n</tool_call>\n<tool_call>\n",
                "\n</tool_call>",
            )
        }
        ChatFormat::Llama31 => ("", ";", ""),
        ChatFormat::Mistral => ("<TOOL_CALLS>[", ", ", "]"),
    };
    // Mistral's marker may be spelled `[TOOL_CALLS]` by the vocabulary.
    rest = rest
        .strip_prefix(first)
        .or_else(|| rest.strip_prefix("[TOOL_CALLS]["))
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
        match rest.strip_prefix(between) {
            Some(next) => rest = next,
            None => break,
        }
    }
    debug_assert!(rest.starts_with(before_end), "{rest:?}");
    Ok(ChatTurn {
        reasoning,
        text: free,
        calls,
    })
}
