//! Loading a Hugging Face `tokenizer.json`: byte-level BPE and
//! SentencePiece-style BPE or Unigram with byte fallback.
//!
//! Separate because it is the one loader that has to second-guess its
//! input: it works out from the decoder, pre-tokenizer and normalizer how
//! the token strings spell bytes, and edits the tokenizer so `encode`
//! inserts no prefix space.

use std::path::Path;

use serde_json::Value;
use tokenizers::{Model, ModelWrapper, NormalizerWrapper, PreTokenizerWrapper};

use super::byte_level::{byte_fallback_byte, byte_level_bytes};
use super::{Encoder, Result, TokenKind, VocabError, VocabErrorKind, Vocabulary};

/// End markers recognized when no config names the EOS token, and added to
/// what the config names (Llama-3 ends base text with `<|end_of_text|>` and
/// chat turns with `<|eot_id|>`: both end generation). Only ever taken from
/// Special tokens, so a Normal token with this text is never EOS.
const WELL_KNOWN_EOS: &[&str] = &[
    "<|end_of_text|>",
    "<|eot_id|>",
    "</s>",
    "<|endoftext|>",
    "<|im_end|>",
];

/// EOS hints from the JSON configs that sit beside a `tokenizer.json`.
#[derive(Default)]
pub(super) struct EosHints {
    /// `eos_token` of `tokenizer_config.json`: the token's text.
    token: Option<String>,
    /// `eos_token_id` of `generation_config.json`.
    ids: Vec<u32>,
}

impl EosHints {
    pub(super) fn read(dir: &Path) -> Self {
        let json = |name: &str| -> Option<serde_json::Value> {
            serde_json::from_slice(&std::fs::read(dir.join(name)).ok()?).ok()
        };
        let token = json("tokenizer_config.json").and_then(|c| match c.get("eos_token")? {
            serde_json::Value::String(s) => Some(s.clone()),
            v => v.get("content")?.as_str().map(str::to_owned),
        });
        let ids = json("generation_config.json")
            .and_then(|c| match c.get("eos_token_id")? {
                serde_json::Value::Array(a) => Some(a.iter().filter_map(|v| v.as_u64()).collect()),
                v => v.as_u64().map(|i| vec![i]),
            })
            .unwrap_or_default()
            .into_iter()
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        EosHints { token, ids }
    }
}

/// How model token strings spell bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    ByteLevel,
    /// `metaspace`: `▁` stands for a space.
    SentencePiece {
        metaspace: bool,
    },
}

pub(super) fn load(
    data: &[u8],
    origin: &str,
    name: String,
    hints: &EosHints,
) -> Result<Vocabulary> {
    let mut tok =
        tokenizers::Tokenizer::from_bytes(data).map_err(|e| classify_failure(data, origin, e))?;

    let (model_type, byte_fallback, unk) = match tok.get_model() {
        ModelWrapper::BPE(m) => ("BPE", m.byte_fallback, m.unk_token.clone()),
        ModelWrapper::Unigram(m) => ("Unigram", m.byte_fallback(), None),
        ModelWrapper::WordPiece(_) => return Err(unsupported(origin, "WordPiece")),
        ModelWrapper::WordLevel(_) => return Err(unsupported(origin, "WordLevel")),
    };
    // The components as JSON: their fields are mostly private, their
    // serialized form is the documented tokenizer.json format.
    let json = |v: Option<serde_json::Result<Value>>| v.and_then(|v| v.ok()).unwrap_or(Value::Null);
    let decoder = json(tok.get_decoder().map(serde_json::to_value));
    let pre = json(tok.get_pre_tokenizer().map(serde_json::to_value));
    let norm = json(tok.get_normalizer().map(serde_json::to_value));
    let scheme = if has_type(&decoder, "ByteLevel") || has_type(&pre, "ByteLevel") {
        Scheme::ByteLevel
    } else if byte_fallback {
        let metaspace = has_type(&decoder, "Metaspace")
            || has_type(&pre, "Metaspace")
            || has_replace(&decoder, "▁", " ")
            || has_replace(&norm, " ", "▁");
        Scheme::SentencePiece { metaspace }
    } else {
        return Err(unsupported(
            origin,
            &format!("{model_type} without a byte-level alphabet or byte fallback"),
        ));
    };

    // Token bytes, indexed by id; added tokens override model entries.
    // Ids are the ones the tokenizers crate assigns (it keeps an added
    // token's model id, else appends), which is what `encode` returns.
    let model_vocab = tok.get_model().get_vocab();
    let added = tok.get_added_tokens_decoder();
    let n = model_vocab
        .values()
        .chain(added.keys())
        .map(|&id| id as usize + 1)
        .max()
        .unwrap_or(0);
    super::check_id_span(n, model_vocab.len() + added.len(), origin)?;
    let mut tokens = vec![Vec::new(); n];
    let mut kinds = vec![TokenKind::Special; n];
    let mut byte_ids = [u32::MAX; 256];
    for (s, &id) in &model_vocab {
        let i = id as usize;
        tokens[i] = match scheme {
            Scheme::ByteLevel => byte_level_bytes(s),
            Scheme::SentencePiece { metaspace } => match byte_fallback_byte(s) {
                Some(b) if byte_fallback => {
                    byte_ids[b as usize] = id;
                    vec![b]
                }
                _ if metaspace => s.replace('▁', " ").into_bytes(),
                _ => s.as_bytes().to_vec(),
            },
        };
        kinds[i] = if unk.as_deref() == Some(s.as_str()) {
            TokenKind::Special
        } else {
            TokenKind::Normal
        };
    }
    for (&id, t) in &added {
        let i = id as usize;
        // Added tokens are matched against raw text, so their bytes are
        // their content as written, in every scheme.
        tokens[i] = t.content.as_bytes().to_vec();
        kinds[i] = if t.special {
            TokenKind::Special
        } else {
            TokenKind::Normal
        };
    }

    // Make encode() return exactly the text's tokens (see `encode`).
    tok.with_truncation(None).map_err(|e| {
        VocabError::new(
            VocabErrorKind::Malformed,
            origin,
            "cannot turn off truncation",
        )
        .with_source(e)
    })?;
    tok.with_padding(None);
    tok.set_encode_special_tokens(true);
    if let Some(n) = edit(&norm, drop_prepend) {
        match n
            .map(serde_json::from_value::<NormalizerWrapper>)
            .transpose()
        {
            Ok(n) => {
                tok.with_normalizer(n);
            }
            Err(e) => return Err(edit_failed(origin, "normalizer", e)),
        }
    }
    if let Some(Some(p)) = edit(&pre, no_prefix_space) {
        match serde_json::from_value::<PreTokenizerWrapper>(p) {
            Ok(p) => {
                tok.with_pre_tokenizer(Some(p));
            }
            Err(e) => return Err(edit_failed(origin, "pre-tokenizer", e)),
        }
    }
    let byte_ids = (matches!(scheme, Scheme::SentencePiece { metaspace: true })
        && byte_ids.iter().all(|&i| i != u32::MAX))
    .then(|| Box::new(byte_ids));

    // EOS: what the configs say, plus the well-known end markers.
    let mut eos: Vec<u32> = Vec::new();
    if let Some(t) = &hints.token {
        eos.extend(tok.token_to_id(t));
    }
    eos.extend(hints.ids.iter().copied());
    for name in WELL_KNOWN_EOS {
        if let Some(id) = tok.token_to_id(name) {
            if kinds.get(id as usize) == Some(&TokenKind::Special) {
                eos.push(id);
            }
        }
    }

    let encoder = Encoder::Hf {
        tokenizer: Box::new(tok),
        byte_ids,
    };
    let mut v = Vocabulary::assemble(name, tokens, kinds, Some(encoder), "");
    v.eos_from(eos);
    Ok(v)
}

fn edit_failed(origin: &str, what: &str, e: serde_json::Error) -> VocabError {
    VocabError::new(
        VocabErrorKind::Malformed,
        origin,
        format!("cannot switch off prefix-space insertion in the {what}: {e}"),
    )
    .with_source(e)
}

fn unsupported(origin: &str, what: &str) -> VocabError {
    VocabError::new(
        VocabErrorKind::UnsupportedTokenizer,
        origin,
        format!(
            "unsupported tokenizer model: {what} (supported: byte-level BPE, \
             SentencePiece-style BPE or Unigram with byte_fallback)"
        ),
    )
}

/// Says why `tokenizers` refused the file, in the caller's terms. Runs
/// only on failure, so the second parse costs nothing on success.
fn classify_failure(
    data: &[u8],
    origin: &str,
    err: Box<dyn std::error::Error + Send + Sync>,
) -> VocabError {
    let not = |msg: String| VocabError::new(VocabErrorKind::NotATokenizer, origin, msg);
    let value: Value = match serde_json::from_slice(data) {
        Ok(v) => v,
        Err(e) => return not(format!("not a tokenizer.json: not valid JSON ({e})")).with_source(e),
    };
    let Some(model) = value.as_object().and_then(|o| o.get("model")) else {
        return not("not a tokenizer.json: JSON without a \"model\" section".into());
    };
    match model.get("type").and_then(Value::as_str) {
        Some(t) if !["BPE", "WordPiece", "WordLevel", "Unigram"].contains(&t) => {
            unsupported(origin, &format!("model type {t:?}")).with_source(err)
        }
        _ => VocabError::new(
            VocabErrorKind::Malformed,
            origin,
            format!("the tokenizers crate cannot load this tokenizer.json: {err}"),
        )
        .with_source(err),
    }
}

/// Whether a component (or one nested in a Sequence) has this `type`.
fn has_type(v: &Value, ty: &str) -> bool {
    any_object(v, &|o| o.get("type").and_then(Value::as_str) == Some(ty))
}

/// Whether a component is `Replace(pattern → content)` with a string pattern.
fn has_replace(v: &Value, pattern: &str, content: &str) -> bool {
    any_object(v, &|o| {
        o.get("type").and_then(Value::as_str) == Some("Replace")
            && o.get("pattern")
                .and_then(|p| p.get("String"))
                .and_then(Value::as_str)
                == Some(pattern)
            && o.get("content").and_then(Value::as_str) == Some(content)
    })
}

fn any_object(v: &Value, f: &dyn Fn(&serde_json::Map<String, Value>) -> bool) -> bool {
    match v {
        Value::Object(o) => f(o) || o.values().any(|x| any_object(x, f)),
        Value::Array(a) => a.iter().any(|x| any_object(x, f)),
        _ => false,
    }
}

/// Applies `f` to a component; `Some(new)` if it changed anything
/// (`Some(None)`: nothing left), `None` if unchanged.
fn edit(v: &Value, f: fn(&mut Value) -> bool) -> Option<Option<Value>> {
    let mut v = v.clone();
    if !f(&mut v) {
        return None;
    }
    Some((!v.is_null()).then_some(v))
}

/// Removes `Prepend` normalizers (top level or inside Sequences).
fn drop_prepend(v: &mut Value) -> bool {
    let is_prepend = |x: &Value| x.get("type").and_then(Value::as_str) == Some("Prepend");
    if is_prepend(v) {
        *v = Value::Null;
        return true;
    }
    let mut changed = false;
    if let Some(list) = v.get_mut("normalizers").and_then(Value::as_array_mut) {
        let before = list.len();
        list.retain(|x| !is_prepend(x));
        changed |= list.len() != before;
        for x in list.iter_mut() {
            changed |= drop_prepend(x);
        }
    }
    changed
}

/// Turns off prefix-space insertion in Metaspace and ByteLevel
/// pre-tokenizers.
fn no_prefix_space(v: &mut Value) -> bool {
    let (key, off) = match v.get("type").and_then(Value::as_str) {
        Some("Metaspace") => ("prepend_scheme", Value::from("never")),
        Some("ByteLevel") => ("add_prefix_space", Value::Bool(false)),
        _ => ("", Value::Null),
    };
    // A missing prepend_scheme defaults to "always": set it too.
    let mut changed = !key.is_empty() && v.get(key) != Some(&off);
    if changed {
        v[key] = off;
    }
    if let Some(list) = v.get_mut("pretokenizers").and_then(Value::as_array_mut) {
        for x in list.iter_mut() {
            changed |= no_prefix_space(x);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_tokenizer_json_from_memory() {
        // A byte-level BPE with a special token and a hole (id 4). The
        // special is in the model vocab too, as in GPT-2: tokenizers gives
        // an added token its model id, or else the next free one.
        let json = r#"{
          "version": "1.0", "truncation": null, "padding": null,
          "added_tokens": [{"id": 6, "content": "<|endoftext|>", "single_word": false,
            "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
          "normalizer": null,
          "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
          "post_processor": null,
          "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
          "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false,
            "vocab": {"a": 0, "Ġ": 1, "Ġa": 2, "b": 3, "c": 5, "<|endoftext|>": 6}, "merges": ["Ġ a"]}
        }"#;
        let v = Vocabulary::from_tokenizer_json_bytes(json.as_bytes(), "tiny").unwrap();
        assert_eq!(v.len(), 7);
        assert_eq!(v.token_bytes(2).unwrap(), b" a");
        assert_eq!(v.kind(4).unwrap(), TokenKind::Special);
        assert_eq!(v.token_bytes(4).unwrap(), b"");
        assert_eq!(v.kind(6).unwrap(), TokenKind::Special);
        assert_eq!(v.token_bytes(6).unwrap(), b"<|endoftext|>");
        assert_eq!(v.eos_ids(), [6]);
        // add_prefix_space is switched off: "a" stays "a".
        assert_eq!(v.encode("a").unwrap(), [0]);
        assert_eq!(v.encode(" a").unwrap(), [2]);
        // Special text is not a special token when encoding.
        let ids = v.encode("<|endoftext|>");
        assert!(ids.is_err() || !ids.unwrap().contains(&6));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let k = |r: Result<Vocabulary>| r.unwrap_err().kind();
        assert_eq!(
            k(Vocabulary::from_tokenizer_json_bytes(b"\x00\xff junk", "j")),
            VocabErrorKind::NotATokenizer
        );
        assert_eq!(
            k(Vocabulary::from_tokenizer_json_bytes(b"{\"a\": 1}", "j")),
            VocabErrorKind::NotATokenizer
        );
        assert_eq!(
            k(Vocabulary::from_tokenizer_json_bytes(b"[1,2]", "j")),
            VocabErrorKind::NotATokenizer
        );
        let wp = br###"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,
            "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
            "max_input_chars_per_word":100,"vocab":{"[UNK]":0,"a":1}}}"###;
        let e = Vocabulary::from_tokenizer_json_bytes(wp, "wp").unwrap_err();
        assert_eq!(e.kind(), VocabErrorKind::UnsupportedTokenizer);
        assert!(e.to_string().contains("WordPiece"), "{e}");
        let alien = br#"{"model":{"type":"Quantum","vocab":{}}}"#;
        let e = Vocabulary::from_tokenizer_json_bytes(alien, "q").unwrap_err();
        assert_eq!(e.kind(), VocabErrorKind::UnsupportedTokenizer);
        assert!(e.to_string().contains("Quantum"), "{e}");
        assert_eq!(
            k(Vocabulary::load("/nonexistent/dir/tokenizer.json")),
            VocabErrorKind::Io
        );
        assert_eq!(k(Vocabulary::load("o300k")), VocabErrorKind::Io);
    }
}
