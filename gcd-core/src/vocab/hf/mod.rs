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
    if let Some(v) = load_table_only(data, origin, &name, hints)? {
        return Ok(v);
    }
    load_through_tokenizer(data, origin, name, hints)
}

/// The components that decide how token strings spell bytes, as JSON.
struct Components {
    decoder: Value,
    pre: Value,
    norm: Value,
}

impl Components {
    fn scheme(&self, model_type: &str, byte_fallback: bool, origin: &str) -> Result<Scheme> {
        let Components { decoder, pre, norm } = self;
        if has_type(decoder, "ByteLevel") || has_type(pre, "ByteLevel") {
            Ok(Scheme::ByteLevel)
        } else if byte_fallback {
            let metaspace = has_type(decoder, "Metaspace")
                || has_type(pre, "Metaspace")
                || has_replace(decoder, "▁", " ")
                || has_replace(norm, " ", "▁");
            Ok(Scheme::SentencePiece { metaspace })
        } else {
            Err(unsupported(
                origin,
                &format!("{model_type} without a byte-level alphabet or byte fallback"),
            ))
        }
    }
}

/// Token bytes and kinds, indexed by id, with the byte-fallback id of every
/// byte (`u32::MAX` where there is none).
struct TokenTable {
    tokens: Vec<Vec<u8>>,
    kinds: Vec<TokenKind>,
    byte_ids: [u32; 256],
}

impl TokenTable {
    /// `n` ids, all Special and empty until the model's and added tokens
    /// are put in.
    fn new(n: usize) -> TokenTable {
        TokenTable {
            tokens: vec![Vec::new(); n],
            kinds: vec![TokenKind::Special; n],
            byte_ids: [u32::MAX; 256],
        }
    }

    /// A model token: its string spelled as bytes by `scheme`; the unknown
    /// token stays Special.
    fn put_model(
        &mut self,
        s: &str,
        id: u32,
        scheme: Scheme,
        byte_fallback: bool,
        unk: Option<&str>,
    ) {
        let i = id as usize;
        self.tokens[i] = match scheme {
            Scheme::ByteLevel => byte_level_bytes(s),
            Scheme::SentencePiece { metaspace } => match byte_fallback_byte(s) {
                Some(b) if byte_fallback => {
                    self.byte_ids[b as usize] = id;
                    vec![b]
                }
                _ if metaspace => s.replace('▁', " ").into_bytes(),
                _ => s.as_bytes().to_vec(),
            },
        };
        self.kinds[i] = if unk == Some(s) {
            TokenKind::Special
        } else {
            TokenKind::Normal
        };
    }

    /// An added token: matched against raw text, so its bytes are its
    /// content as written, in every scheme. Added tokens override model
    /// entries.
    fn put_added(&mut self, id: u32, content: &str, special: bool) {
        let i = id as usize;
        self.tokens[i] = content.as_bytes().to_vec();
        self.kinds[i] = if special {
            TokenKind::Special
        } else {
            TokenKind::Normal
        };
    }

    /// The byte-fallback ids, when `scheme` needs them to spell a literal
    /// `▁` and every byte has one.
    fn byte_ids_for(&self, scheme: Scheme) -> Option<Box<[u32; 256]>> {
        (matches!(scheme, Scheme::SentencePiece { metaspace: true })
            && self.byte_ids.iter().all(|&i| i != u32::MAX))
        .then(|| Box::new(self.byte_ids))
    }
}

/// EOS: what the configs say, plus the well-known end markers that are
/// Special tokens. `id_of` finds a token's id by its text, as the
/// tokenizer's `token_to_id` does (added tokens first).
fn eos_ids(hints: &EosHints, kinds: &[TokenKind], id_of: impl Fn(&str) -> Option<u32>) -> Vec<u32> {
    let mut eos: Vec<u32> = Vec::new();
    if let Some(t) = &hints.token {
        eos.extend(id_of(t));
    }
    eos.extend(hints.ids.iter().copied());
    for name in WELL_KNOWN_EOS {
        if let Some(id) = id_of(name) {
            if kinds.get(id as usize) == Some(&TokenKind::Special) {
                eos.push(id);
            }
        }
    }
    eos
}

/// The parts of `tokenizer.json` the token table needs; the merges and
/// everything else are skipped unparsed into values.
#[derive(serde::Deserialize)]
struct FileJson {
    #[serde(default)]
    added_tokens: Vec<AddedJson>,
    #[serde(default)]
    normalizer: Value,
    #[serde(default)]
    pre_tokenizer: Value,
    #[serde(default)]
    decoder: Value,
    model: ModelJson,
}

#[derive(serde::Deserialize)]
struct AddedJson {
    id: u32,
    content: String,
    #[serde(default)]
    special: bool,
}

#[derive(serde::Deserialize)]
struct ModelJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    vocab: ModelVocab,
    #[serde(default)]
    byte_fallback: bool,
    #[serde(default)]
    unk_token: Option<String>,
}

/// A BPE model's `{token: id}` map or a Unigram model's `[[piece, score],
/// ...]` list (ids are positions), read without buffering either.
enum ModelVocab {
    Map(Vec<(String, u32)>),
    List(Vec<String>),
}

impl<'de> serde::Deserialize<'de> for ModelVocab {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = ModelVocab;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of tokens to ids or a list of [piece, score] pairs")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<ModelVocab, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry::<String, u32>()? {
                    out.push(entry);
                }
                Ok(ModelVocab::Map(out))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<ModelVocab, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some((piece, _score)) = seq.next_element::<(String, f64)>()? {
                    out.push(piece);
                }
                Ok(ModelVocab::List(out))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The token table read straight from the JSON, with the real tokenizer
/// built on first `encode`: parsing the merges and building the BPE maps is
/// most of a load (about 0.5 s for Llama-3) and masks never need them.
///
/// `None` when the file is not plainly a BPE or Unigram model whose added
/// tokens get the ids the file gives them, by the tokenizers crate's rule
/// (a content already in the model keeps its model id; a new one takes the
/// next id after the model's): then the tokenizers crate loads it and says
/// which ids it assigns.
fn load_table_only(
    data: &[u8],
    origin: &str,
    name: &str,
    hints: &EosHints,
) -> Result<Option<Vocabulary>> {
    let Ok(file) = serde_json::from_slice::<FileJson>(data) else {
        return Ok(None);
    };
    let (model_type, unk) = match file.model.kind.as_deref() {
        Some("BPE") => ("BPE", file.model.unk_token.as_deref()),
        Some("Unigram") => ("Unigram", None),
        Some("WordPiece") => return Err(unsupported(origin, "WordPiece")),
        Some("WordLevel") => return Err(unsupported(origin, "WordLevel")),
        _ => return Ok(None),
    };
    let components = Components {
        decoder: file.decoder,
        pre: file.pre_tokenizer,
        norm: file.normalizer,
    };
    let byte_fallback = file.model.byte_fallback;
    let scheme = components.scheme(model_type, byte_fallback, origin)?;
    let model: Vec<(String, u32)> = match file.model.vocab {
        ModelVocab::Map(m) if model_type == "BPE" => m,
        ModelVocab::List(l) if model_type == "Unigram" => l.into_iter().zip(0u32..).collect(),
        _ => return Ok(None),
    };
    let mut model_ids: rustc_hash::FxHashMap<&str, u32> = Default::default();
    model_ids.reserve(model.len());
    for (s, id) in &model {
        // A repeated key: the map keeps the last, as tokenizers does not
        // promise; leave such files to it.
        if model_ids.insert(s.as_str(), *id).is_some() {
            return Ok(None);
        }
    }
    // The tokenizers crate's id rule for added tokens, which ignores the
    // file's ids: they must agree for the table to be its table.
    let model_size = model.len() as u32;
    let mut added_ids: rustc_hash::FxHashMap<&str, u32> = Default::default();
    let mut max_added: Option<u32> = None;
    for t in &file.added_tokens {
        if t.content.is_empty() || added_ids.contains_key(t.content.as_str()) {
            return Ok(None);
        }
        let id = match model_ids.get(t.content.as_str()) {
            Some(&id) => id,
            None => match max_added {
                Some(m) if m >= model_size || model_size == 0 => m + 1,
                _ => model_size,
            },
        };
        if id != t.id {
            return Ok(None);
        }
        max_added = Some(max_added.map_or(id, |m| m.max(id)));
        added_ids.insert(t.content.as_str(), id);
    }
    let n = model
        .iter()
        .map(|(_, id)| *id)
        .chain(added_ids.values().copied())
        .map(|id| id as usize + 1)
        .max()
        .unwrap_or(0);
    super::check_id_span(n, model.len() + added_ids.len(), origin)?;
    let mut table = TokenTable::new(n);
    for (s, id) in &model {
        table.put_model(s, *id, scheme, byte_fallback, unk);
    }
    for t in &file.added_tokens {
        table.put_added(t.id, &t.content, t.special);
    }
    let eos = eos_ids(hints, &table.kinds, |t| {
        added_ids.get(t).or_else(|| model_ids.get(t)).copied()
    });
    let expected_added: Vec<(u32, String)> = file
        .added_tokens
        .iter()
        .map(|t| (t.id, t.content.clone()))
        .collect();
    let byte_ids = table.byte_ids_for(scheme);
    let encoder = Encoder::HfLazy(Box::new(LazyTokenizer {
        data: data.into(),
        origin: origin.to_string(),
        scheme,
        model_size: model.len(),
        expected_added,
        byte_ids,
        built: std::sync::OnceLock::new(),
    }));
    let mut v = Vocabulary::assemble(
        name.to_string(),
        table.tokens,
        table.kinds,
        Some(encoder),
        "",
    );
    v.eos_from(eos);
    Ok(Some(v))
}

/// A `tokenizer.json` whose tokenizer is built on first use (see
/// [`load_table_only`]).
pub(super) struct LazyTokenizer {
    data: Box<[u8]>,
    origin: String,
    /// What the table was built from, checked against the tokenizer built
    /// later (the byte scheme as its own components give it, the model's
    /// size, the added tokens' ids): a difference is an error, never a
    /// silent mismatch.
    scheme: Scheme,
    model_size: usize,
    expected_added: Vec<(u32, String)>,
    pub(super) byte_ids: Option<Box<[u32; 256]>>,
    built: std::sync::OnceLock<std::result::Result<tokenizers::Tokenizer, VocabError>>,
}

impl LazyTokenizer {
    /// The tokenizer, built (and checked against the table) on first call.
    pub(super) fn get(&self) -> Result<&tokenizers::Tokenizer> {
        self.built
            .get_or_init(|| {
                let (tok, scheme) = build_tokenizer(&self.data, &self.origin)?;
                let added = tok.get_added_tokens_decoder();
                let same = scheme == self.scheme
                    && tok.get_model().get_vocab_size() == self.model_size
                    && added.len() == self.expected_added.len()
                    && (self.expected_added.iter())
                        .all(|(id, content)| added.get(id).is_some_and(|t| &t.content == content));
                if !same {
                    return Err(VocabError::new(
                        VocabErrorKind::Malformed,
                        &self.origin,
                        "the tokenizers crate gives this file's tokens other ids than the \
                         file lists; gcd cannot tell which ids the model uses",
                    ));
                }
                Ok(tok)
            })
            .as_ref()
            .map_err(|e| VocabError::new(e.kind, &e.origin, e.message.clone()))
    }
}

/// Loads the whole tokenizer with the tokenizers crate, and reads the
/// table from it: for files the direct reading leaves to it.
fn load_through_tokenizer(
    data: &[u8],
    origin: &str,
    name: String,
    hints: &EosHints,
) -> Result<Vocabulary> {
    let tok =
        tokenizers::Tokenizer::from_bytes(data).map_err(|e| classify_failure(data, origin, e))?;
    let (model_type, byte_fallback, unk) = match tok.get_model() {
        ModelWrapper::BPE(m) => ("BPE", m.byte_fallback, m.unk_token.clone()),
        ModelWrapper::Unigram(m) => ("Unigram", m.byte_fallback(), None),
        ModelWrapper::WordPiece(_) => return Err(unsupported(origin, "WordPiece")),
        ModelWrapper::WordLevel(_) => return Err(unsupported(origin, "WordLevel")),
    };
    let components = components_of(&tok);
    let scheme = components.scheme(model_type, byte_fallback, origin)?;

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
    let mut table = TokenTable::new(n);
    for (s, &id) in &model_vocab {
        table.put_model(s, id, scheme, byte_fallback, unk.as_deref());
    }
    for (&id, t) in &added {
        table.put_added(id, &t.content, t.special);
    }
    let tok = edit_tokenizer(tok, origin, &components)?;
    let eos = eos_ids(hints, &table.kinds, |t| tok.token_to_id(t));
    let encoder = Encoder::Hf {
        byte_ids: table.byte_ids_for(scheme),
        tokenizer: Box::new(tok),
    };
    let mut v = Vocabulary::assemble(name, table.tokens, table.kinds, Some(encoder), "");
    v.eos_from(eos);
    Ok(v)
}

/// The components of a loaded tokenizer, as their documented JSON form
/// (their fields are mostly private).
fn components_of(tok: &tokenizers::Tokenizer) -> Components {
    let json = |v: Option<serde_json::Result<Value>>| v.and_then(|v| v.ok()).unwrap_or(Value::Null);
    Components {
        decoder: json(tok.get_decoder().map(serde_json::to_value)),
        pre: json(tok.get_pre_tokenizer().map(serde_json::to_value)),
        norm: json(tok.get_normalizer().map(serde_json::to_value)),
    }
}

/// The tokenizer of `data`, edited for exact round trips, with the byte
/// scheme its own components give.
fn build_tokenizer(data: &[u8], origin: &str) -> Result<(tokenizers::Tokenizer, Scheme)> {
    let tok =
        tokenizers::Tokenizer::from_bytes(data).map_err(|e| classify_failure(data, origin, e))?;
    let (model_type, byte_fallback) = match tok.get_model() {
        ModelWrapper::BPE(m) => ("BPE", m.byte_fallback),
        ModelWrapper::Unigram(m) => ("Unigram", m.byte_fallback()),
        ModelWrapper::WordPiece(_) => return Err(unsupported(origin, "WordPiece")),
        ModelWrapper::WordLevel(_) => return Err(unsupported(origin, "WordLevel")),
    };
    let components = components_of(&tok);
    let scheme = components.scheme(model_type, byte_fallback, origin)?;
    Ok((edit_tokenizer(tok, origin, &components)?, scheme))
}

/// Makes `encode` return exactly the text's tokens (see
/// [`Vocabulary::encode`]): no truncation, no padding, special-token text
/// encoded as text, no inserted prefix space.
fn edit_tokenizer(
    mut tok: tokenizers::Tokenizer,
    origin: &str,
    components: &Components,
) -> Result<tokenizers::Tokenizer> {
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
    if let Some(n) = edit(&components.norm, drop_prepend) {
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
    if let Some(Some(p)) = edit(&components.pre, no_prefix_space) {
        match serde_json::from_value::<PreTokenizerWrapper>(p) {
            Ok(p) => {
                tok.with_pre_tokenizer(Some(p));
            }
            Err(e) => return Err(edit_failed(origin, "pre-tokenizer", e)),
        }
    }
    Ok(tok)
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
mod tests;
