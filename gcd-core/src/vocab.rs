//! Vocabulary: every token id of a real LLM tokenizer mapped to its exact bytes.
//!
//! Masks are computed on bytes, so binding a grammar to a model needs, for
//! every token id, the exact byte string the model means when it emits that
//! id. Tokenizer files do not store bytes directly; each family has its own
//! spelling, and getting one byte wrong makes a mask silently unsound:
//!
//! * **HF byte-level BPE** (GPT-2, Llama-3, Qwen; a `ByteLevel` decoder or
//!   pre-tokenizer): token strings are written in GPT-2's byte-to-unicode
//!   alphabet (`Ġ` is a space, `Ċ` a newline). Each char maps back to one
//!   byte, so a token may be half of a UTF-8 character.
//! * **SentencePiece-style BPE with byte fallback** (Llama-2, Mistral):
//!   `<0xAB>` is the single byte 0xAB, `▁` is a space, every other char is
//!   its UTF-8 encoding.
//! * **tiktoken rank files** (OpenAI's `o200k_base`, `cl100k_base`, …):
//!   base64 bytes per rank, nothing to decode.
//!
//! Special (control) tokens keep their text as bytes for display, but are
//! [`TokenKind::Special`]: they never match grammar text. Ids that no token
//! uses (holes) are Special with empty bytes, so `len()` is always max id + 1
//! and a logits vector can be indexed by id directly.
//!
//! The real tokenizer is kept inside (behind [`Arc`], so clones are cheap)
//! for [`Vocabulary::encode`], which replays known text token by token.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tiktoken_rs::CoreBPE;
use tokenizers::{Model, ModelWrapper, NormalizerWrapper, PreTokenizerWrapper};

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// What went wrong, for callers that branch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VocabErrorKind {
    /// The file could not be read.
    Io,
    /// The file is not a tokenizer at all (not JSON, JSON without a model,
    /// binary junk, a `.tiktoken` file whose first line is not a rank line).
    NotATokenizer,
    /// The file looks like a tokenizer but part of it is broken (a bad
    /// `.tiktoken` line further down, duplicate ranks, a bad split regex).
    Malformed,
    /// A real tokenizer of a kind whose token bytes cannot be recovered
    /// exactly (WordPiece, WordLevel, Unigram or BPE without byte fallback).
    UnsupportedTokenizer,
    /// A token id that the vocabulary does not have.
    IdOutOfRange,
    /// `encode` on a vocabulary that has no tokenizer inside.
    NoEncoder,
    /// The tokenizer failed while encoding text.
    Encode,
}

/// An error while loading or using a [`Vocabulary`].
///
/// Opaque on purpose: match on [`VocabError::kind`]; the message (shown by
/// `Display`) names the file (or vocabulary) and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct VocabError {
    kind: VocabErrorKind,
    origin: String,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl VocabError {
    fn new(kind: VocabErrorKind, origin: impl fmt::Display, message: impl Into<String>) -> Self {
        VocabError {
            kind,
            origin: origin.to_string(),
            message: message.into(),
            source: None,
        }
    }

    fn with_source(
        mut self,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The category of the problem.
    pub fn kind(&self) -> VocabErrorKind {
        self.kind
    }

    /// The file path or vocabulary name the error is about.
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

type Result<T, E = VocabError> = std::result::Result<T, E>;

// ---------------------------------------------------------------------------
// The vocabulary
// ---------------------------------------------------------------------------

/// Whether a token can ever be part of grammar text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// An ordinary token: its bytes are text.
    Normal,
    /// A control token (`<s>`, `<|eot_id|>`, …) or an unused id: never
    /// matches grammar text; EOS tokens are handled separately.
    Special,
}

/// Every token id of a tokenizer mapped to its exact bytes, plus its kind,
/// the EOS ids, and (when loaded from a real tokenizer) the encoder.
///
/// Storage is one flat byte buffer with offsets, so a 200k-token vocabulary
/// is a couple of allocations and `token_bytes` is two loads.
#[derive(Clone)]
pub struct Vocabulary {
    name: String,
    /// All token bytes, concatenated in id order.
    bytes: Vec<u8>,
    /// `offsets[id]..offsets[id + 1]` is token `id` in `bytes`.
    offsets: Vec<u32>,
    kinds: Vec<TokenKind>,
    eos: Vec<u32>,
    encoder: Option<Arc<Encoder>>,
    /// Why `encode` is unavailable, when `encoder` is `None`.
    no_encoder_reason: &'static str,
    fingerprint: u64,
}

// Shared through `Arc` across request threads.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Vocabulary>();
};

/// The real tokenizer, kept for `encode`.
enum Encoder {
    Hf {
        tokenizer: Box<tokenizers::Tokenizer>,
        /// For SentencePiece-style vocabularies: the byte-fallback id of
        /// every byte, used to spell a literal `▁` exactly (see `encode`).
        byte_ids: Option<Box<[u32; 256]>>,
    },
    Tiktoken(&'static CoreBPE),
    TiktokenOwned(Box<CoreBPE>),
}

impl fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vocabulary")
            .field("name", &self.name)
            .field("len", &self.len())
            .field("eos", &self.eos)
            .field("has_encoder", &self.encoder.is_some())
            .finish()
    }
}

impl Vocabulary {
    /// Loads a Hugging Face `tokenizer.json`.
    ///
    /// EOS ids come from `tokenizer_config.json` (`eos_token`) and
    /// `generation_config.json` (`eos_token_id`) beside the file when they
    /// exist and parse, plus the well-known end markers present as special
    /// tokens (see [`Vocabulary::set_eos_ids`] to override). A sibling
    /// config that does not parse is ignored: it is advisory, the token
    /// bytes come from `tokenizer.json` alone.
    pub fn from_tokenizer_json(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let data = read_file(path)?;
        let name = if path.file_name().is_some_and(|n| n == "tokenizer.json") {
            path.parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| origin.clone())
        } else {
            file_stem(path)
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let hints = EosHints::read(dir);
        hf::load(&data, &origin, name, &hints)
    }

    /// Loads a Hugging Face `tokenizer.json` from memory; `name` names the
    /// vocabulary and appears in errors. EOS: the well-known end markers.
    pub fn from_tokenizer_json_bytes(bytes: &[u8], name: &str) -> Result<Self> {
        hf::load(bytes, name, name.to_string(), &EosHints::default())
    }

    /// Loads a tiktoken rank file (`base64-token rank` per line).
    ///
    /// Rank files carry neither the pre-tokenizer regex nor the special
    /// tokens. When the ranks are exactly those of an encoding embedded in
    /// tiktoken-rs (`o200k_base`, `cl100k_base`, `p50k_base`, `r50k_base`),
    /// its regex and specials are used and `encode` works; otherwise the
    /// vocabulary has bytes but no encoder (use
    /// [`Vocabulary::from_tiktoken_file_with`] to supply them).
    pub fn from_tiktoken_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let ranks = tiktoken::parse_ranks(&read_file(path)?, &origin)?;
        tiktoken::from_ranks(ranks, &origin, file_stem(path), None)
    }

    /// Loads a tiktoken rank file with its split regex and special tokens
    /// (`(text, id)` pairs), for encodings not embedded in tiktoken-rs.
    pub fn from_tiktoken_file_with(
        path: impl AsRef<Path>,
        pattern: &str,
        specials: &[(&str, u32)],
    ) -> Result<Self> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let ranks = tiktoken::parse_ranks(&read_file(path)?, &origin)?;
        tiktoken::from_ranks(ranks, &origin, file_stem(path), Some((pattern, specials)))
    }

    /// OpenAI's `o200k_base` (GPT-4o), embedded in tiktoken-rs: offline.
    pub fn o200k_base() -> Result<Self> {
        tiktoken::embedded(tiktoken::Embedded::O200k)
    }

    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5), embedded in tiktoken-rs.
    pub fn cl100k_base() -> Result<Self> {
        tiktoken::embedded(tiktoken::Embedded::Cl100k)
    }

    /// Loads a vocabulary from a short spec:
    /// `"o200k"`, `"cl100k"`, `"p50k"`, `"r50k"` (also with `_base`), a path
    /// to a `.tiktoken` file, a path to a `tokenizer.json`, or a directory
    /// holding a `tokenizer.json`.
    pub fn load(spec: &str) -> Result<Self> {
        let spec = spec.trim();
        if let Some(e) = tiktoken::Embedded::from_spec(spec) {
            return tiktoken::embedded(e);
        }
        let path = PathBuf::from(spec);
        if path.is_dir() {
            return Self::from_tokenizer_json(path.join("tokenizer.json"));
        }
        if !path.exists() {
            return Err(VocabError::new(
                VocabErrorKind::Io,
                spec,
                "no such file, and not a known vocabulary name (expected o200k, cl100k, \
                 p50k, r50k, a .tiktoken file, a tokenizer.json, or a directory holding one)",
            ));
        }
        if path.extension().is_some_and(|e| e == "tiktoken") {
            Self::from_tiktoken_file(path)
        } else {
            Self::from_tokenizer_json(path)
        }
    }

    /// A synthetic vocabulary for tests: token `i` is `tokens[i]`, all
    /// Normal, no encoder.
    ///
    /// # Panics
    /// If an EOS id is not below `tokens.len()` (a bug in the test).
    pub fn from_tokens(tokens: Vec<Vec<u8>>, eos: Vec<u32>) -> Self {
        let kinds = vec![TokenKind::Normal; tokens.len()];
        let mut v = Self::assemble("synthetic".into(), tokens, kinds, None, "");
        v.no_encoder_reason = "a synthetic vocabulary (from_tokens) has no tokenizer";
        if let Err(e) = v.set_eos_ids(eos) {
            panic!("Vocabulary::from_tokens: {e}");
        }
        v
    }

    /// A synthetic vocabulary with one special EOS token appended after
    /// `tokens` (its id is `tokens.len()`).
    pub fn from_tokens_with_eos(mut tokens: Vec<Vec<u8>>, eos_text: &str) -> Self {
        let eos = tokens.len() as u32;
        tokens.push(eos_text.as_bytes().to_vec());
        let mut kinds = vec![TokenKind::Normal; tokens.len()];
        kinds[eos as usize] = TokenKind::Special;
        let mut v = Self::assemble("synthetic".into(), tokens, kinds, None, "");
        v.no_encoder_reason = "a synthetic vocabulary has no tokenizer";
        v.eos = vec![eos];
        v
    }

    /// Builds the flat storage. `tokens` and `kinds` are indexed by id.
    fn assemble(
        name: String,
        tokens: Vec<Vec<u8>>,
        kinds: Vec<TokenKind>,
        encoder: Option<Encoder>,
        no_encoder_reason: &'static str,
    ) -> Self {
        debug_assert_eq!(tokens.len(), kinds.len());
        let total: usize = tokens.iter().map(Vec::len).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(tokens.len() + 1);
        offsets.push(0u32);
        // FNV-1a over (kind, length, bytes) of every id: a cache key for
        // tables bound to this vocabulary.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mix = |h: &mut u64, b: u8| {
            *h ^= u64::from(b);
            *h = h.wrapping_mul(0x0100_0000_01b3);
        };
        for (t, k) in tokens.iter().zip(&kinds) {
            bytes.extend_from_slice(t);
            offsets.push(u32::try_from(bytes.len()).expect("vocabulary over 4 GiB"));
            mix(&mut h, *k as u8);
            for b in (t.len() as u32).to_le_bytes() {
                mix(&mut h, b);
            }
            for &b in t {
                mix(&mut h, b);
            }
        }
        Vocabulary {
            name,
            bytes,
            offsets,
            kinds,
            eos: Vec::new(),
            encoder: encoder.map(Arc::new),
            no_encoder_reason,
            fingerprint: h,
        }
    }

    /// Number of ids (max id + 1, holes included).
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// True for a vocabulary with no ids.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// A short name: the tokenizer's directory, the rank file's stem, or the
    /// embedded encoding's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A 64-bit hash of every id's kind and bytes: equal vocabularies give
    /// equal fingerprints, so bound tables can be cached under it.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    fn check(&self, id: u32) -> Result<usize> {
        let i = id as usize;
        if i < self.kinds.len() {
            Ok(i)
        } else {
            Err(VocabError::new(
                VocabErrorKind::IdOutOfRange,
                &self.name,
                format!(
                    "token id {id} is out of range (the vocabulary has {} ids)",
                    self.len()
                ),
            ))
        }
    }

    /// The exact bytes of token `id`. Special tokens give their text (holes
    /// give nothing); check [`Vocabulary::kind`] before treating them as text.
    pub fn token_bytes(&self, id: u32) -> Result<&[u8]> {
        let i = self.check(id)?;
        Ok(&self.bytes[self.offsets[i] as usize..self.offsets[i + 1] as usize])
    }

    /// Whether token `id` is ordinary text or a control token.
    pub fn kind(&self, id: u32) -> Result<TokenKind> {
        Ok(self.kinds[self.check(id)?])
    }

    /// The tokens that can appear in grammar text: Normal and non-empty, in
    /// id order.
    pub fn normal_tokens(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        self.kinds.iter().enumerate().filter_map(move |(i, k)| {
            let (s, e) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            (*k == TokenKind::Normal && e > s).then(|| (i as u32, &self.bytes[s..e]))
        })
    }

    /// The ids that end generation.
    pub fn eos_ids(&self) -> &[u32] {
        &self.eos
    }

    /// Replaces the EOS ids (deduplicated, order kept). Fails, changing
    /// nothing, if an id is out of range.
    pub fn set_eos_ids(&mut self, ids: Vec<u32>) -> Result<()> {
        let mut seen = HashSet::new();
        let mut eos = Vec::with_capacity(ids.len());
        for id in ids {
            self.check(id)?;
            if seen.insert(id) {
                eos.push(id);
            }
        }
        self.eos = eos;
        Ok(())
    }

    /// Whether `id` is one of the EOS ids.
    pub fn is_eos(&self, id: u32) -> bool {
        self.eos.contains(&id)
    }

    /// Tokenizes `text` as the real tokenizer does, adding no special tokens
    /// and never turning text like `"<|endoftext|>"` into a special token,
    /// such that `decode_bytes(encode(text)) == text` for any text the
    /// tokenizer represents losslessly.
    ///
    /// Two deliberate departures from the tokenizer's own `encode`, both to
    /// keep that round trip exact, because gcd replays text that continues a
    /// prompt rather than text that starts a document:
    ///
    /// * **No inserted prefix space.** SentencePiece-style tokenizers
    ///   (Mistral's `Prepend("▁")` normalizer, `Metaspace` with a prepend
    ///   scheme) and byte-level ones with `add_prefix_space` put a space in
    ///   front of the text, so `"{"` would come back as `" {"`. That
    ///   insertion is switched off at load time: `"{"` encodes as the tokens
    ///   of `{`, and `" {"` as `▁{`.
    /// * **Literal `▁` in SentencePiece-style text.** The tokenizer turns
    ///   spaces into `▁` before BPE, so a `▁` already in the text becomes a
    ///   space (lossy). Here a literal `▁` is spelled with its three
    ///   byte-fallback tokens `<0xE2><0x96><0x81>`, the only way the model
    ///   can emit that character.
    ///
    /// Normalizers that really change text (NFKC, lowercasing) still do;
    /// the round trip then holds only for already-normalized text.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let Some(encoder) = self.encoder.as_deref() else {
            return Err(VocabError::new(
                VocabErrorKind::NoEncoder,
                &self.name,
                self.no_encoder_reason,
            ));
        };
        match encoder {
            Encoder::Tiktoken(bpe) => Ok(bpe.encode_ordinary(text)),
            Encoder::TiktokenOwned(bpe) => Ok(bpe.encode_ordinary(text)),
            Encoder::Hf {
                tokenizer,
                byte_ids,
            } => {
                let run = |s: &str| -> Result<Vec<u32>> {
                    if s.is_empty() {
                        return Ok(Vec::new());
                    }
                    tokenizer
                        .encode_fast(s, false)
                        .map(|e| e.get_ids().to_vec())
                        .map_err(|e| {
                            VocabError::new(VocabErrorKind::Encode, &self.name, "encoding failed")
                                .with_source(e)
                        })
                };
                match byte_ids {
                    Some(byte_ids) if text.contains('▁') => {
                        let mut out = Vec::new();
                        for (i, part) in text.split('▁').enumerate() {
                            if i > 0 {
                                out.extend("▁".bytes().map(|b| byte_ids[b as usize]));
                            }
                            out.extend(run(part)?);
                        }
                        Ok(out)
                    }
                    _ => run(text),
                }
            }
        }
    }

    /// The concatenated bytes of `ids` (Special tokens included as their
    /// text).
    pub fn decode_bytes(&self, ids: &[u32]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for &id in ids {
            out.extend_from_slice(self.token_bytes(id)?);
        }
        Ok(out)
    }

    /// Sets EOS to `ids` gathered from tokenizer files, dropping any that
    /// are out of range (a config may name ids the file lacks).
    fn eos_from(&mut self, ids: impl IntoIterator<Item = u32>) {
        let ids: Vec<u32> = ids
            .into_iter()
            .filter(|&i| (i as usize) < self.len())
            .collect();
        self.set_eos_ids(ids).expect("ids filtered to range");
    }
}

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

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        VocabError::new(
            VocabErrorKind::Io,
            path.display(),
            format!("cannot read: {e}"),
        )
        .with_source(e)
    })
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// EOS hints from the JSON configs that sit beside a `tokenizer.json`.
#[derive(Default)]
struct EosHints {
    /// `eos_token` of `tokenizer_config.json`: the token's text.
    token: Option<String>,
    /// `eos_token_id` of `generation_config.json`.
    ids: Vec<u32>,
}

impl EosHints {
    fn read(dir: &Path) -> Self {
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

// ---------------------------------------------------------------------------
// GPT-2's byte-to-unicode alphabet
// ---------------------------------------------------------------------------

/// GPT-2 spells bytes as printable chars so BPE can work on strings: the
/// printable ranges `!`..=`~`, `¡`..=`¬`, `®`..=`ÿ` stand for themselves;
/// the other 68 bytes, in increasing order, become U+0100 + n.
const BYTE_TO_CHAR: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    let mut b = 0;
    while b < 256 {
        let printable =
            (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        table[b] = if printable {
            b as u32
        } else {
            let c = 256 + n;
            n += 1;
            c
        };
        b += 1;
    }
    table
};

/// The inverse of [`BYTE_TO_CHAR`]; -1 for chars outside the alphabet.
const CHAR_TO_BYTE: [i16; 324] = {
    let mut table = [-1i16; 324];
    let mut b = 0;
    while b < 256 {
        table[BYTE_TO_CHAR[b] as usize] = b as i16;
        b += 1;
    }
    table
};

/// Bytes of a byte-level token string. A string with a char outside the
/// alphabet (an added token such as `"    "`) is taken as UTF-8 text, which
/// is what HF's ByteLevel decoder does too.
fn byte_level_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        match CHAR_TO_BYTE.get(c as usize) {
            Some(&b) if b >= 0 => out.push(b as u8),
            _ => return s.as_bytes().to_vec(),
        }
    }
    out
}

/// `<0xAB>` → 0xAB (SentencePiece byte-fallback tokens, uppercase hex).
fn byte_fallback_byte(s: &str) -> Option<u8> {
    let hex = s.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2
        || !hex
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c))
    {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

// ---------------------------------------------------------------------------
// Hugging Face tokenizer.json
// ---------------------------------------------------------------------------

mod hf {
    use super::*;
    use serde_json::Value;

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
        let mut tok = tokenizers::Tokenizer::from_bytes(data)
            .map_err(|e| classify_failure(data, origin, e))?;

        let (model_type, byte_fallback, unk) = match tok.get_model() {
            ModelWrapper::BPE(m) => ("BPE", m.byte_fallback, m.unk_token.clone()),
            ModelWrapper::Unigram(m) => ("Unigram", m.byte_fallback(), None),
            ModelWrapper::WordPiece(_) => return Err(unsupported(origin, "WordPiece")),
            ModelWrapper::WordLevel(_) => return Err(unsupported(origin, "WordLevel")),
        };
        // The components as JSON: their fields are mostly private, their
        // serialized form is the documented tokenizer.json format.
        let json =
            |v: Option<serde_json::Result<Value>>| v.and_then(|v| v.ok()).unwrap_or(Value::Null);
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
            Err(e) => {
                return not(format!("not a tokenizer.json: not valid JSON ({e})")).with_source(e)
            }
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
}

// ---------------------------------------------------------------------------
// tiktoken
// ---------------------------------------------------------------------------

mod tiktoken {
    use super::*;

    /// The encodings whose rank files tiktoken-rs embeds.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) enum Embedded {
        O200k,
        Cl100k,
        P50k,
        R50k,
    }

    const ALL: [Embedded; 4] = [
        Embedded::O200k,
        Embedded::Cl100k,
        Embedded::P50k,
        Embedded::R50k,
    ];

    impl Embedded {
        pub(super) fn from_spec(spec: &str) -> Option<Self> {
            let s = spec.to_ascii_lowercase();
            let s = s.strip_suffix("_base").unwrap_or(&s);
            ALL.into_iter().find(|e| e.short() == s)
        }

        fn short(self) -> &'static str {
            match self {
                Embedded::O200k => "o200k",
                Embedded::Cl100k => "cl100k",
                Embedded::P50k => "p50k",
                Embedded::R50k => "r50k",
            }
        }

        fn name(self) -> String {
            format!("{}_base", self.short())
        }

        /// Number of ranks in the file (not counting specials): a cheap
        /// filter before comparing a rank file with this encoding.
        fn ranks(self) -> usize {
            match self {
                Embedded::O200k => 199_998,
                Embedded::Cl100k => 100_256,
                Embedded::P50k => 50_280,
                Embedded::R50k => 50_256,
            }
        }

        /// The encoder, built once per process.
        fn bpe(self) -> Result<&'static CoreBPE> {
            static CELLS: [OnceLock<Result<CoreBPE, String>>; 4] = [
                OnceLock::new(),
                OnceLock::new(),
                OnceLock::new(),
                OnceLock::new(),
            ];
            // tiktoken-rs returns anyhow errors; keep their text.
            type Build = fn() -> Result<CoreBPE, String>;
            let (cell, build): (_, Build) = match self {
                Embedded::O200k => (&CELLS[0], || {
                    tiktoken_rs::o200k_base().map_err(|e| e.to_string())
                }),
                Embedded::Cl100k => (&CELLS[1], || {
                    tiktoken_rs::cl100k_base().map_err(|e| e.to_string())
                }),
                Embedded::P50k => (&CELLS[2], || {
                    tiktoken_rs::p50k_base().map_err(|e| e.to_string())
                }),
                Embedded::R50k => (&CELLS[3], || {
                    tiktoken_rs::r50k_base().map_err(|e| e.to_string())
                }),
            };
            cell.get_or_init(build).as_ref().map_err(|e| {
                VocabError::new(
                    VocabErrorKind::Malformed,
                    self.name(),
                    format!("tiktoken-rs: {e}"),
                )
            })
        }
    }

    /// The token bytes of an embedded encoding, read back through
    /// tiktoken-rs's public API (its rank table is private): `decode` each
    /// id; ids it does not know are holes; ids that decode to invalid UTF-8
    /// alone are fetched raw.
    pub(super) fn embedded(e: Embedded) -> Result<Vocabulary> {
        let bpe = e.bpe()?;
        let specials = special_ids(bpe, &e.name())?;
        let (tokens, kinds) = probe(bpe, &specials);
        let mut v = Vocabulary::assemble(e.name(), tokens, kinds, Some(Encoder::Tiktoken(bpe)), "");
        v.eos_from(specials.get(tiktoken_rs::ENDOFTEXT).copied());
        Ok(v)
    }

    fn special_ids(bpe: &CoreBPE, origin: &str) -> Result<HashMap<String, u32>> {
        bpe.special_tokens()
            .into_iter()
            .map(|s| match bpe.encode_with_special_tokens(s)[..] {
                [id] => Ok((s.to_string(), id)),
                _ => Err(VocabError::new(
                    VocabErrorKind::Malformed,
                    origin,
                    format!("special token {s:?} does not encode to one id"),
                )),
            })
            .collect()
    }

    fn probe(bpe: &CoreBPE, specials: &HashMap<String, u32>) -> (Vec<Vec<u8>>, Vec<TokenKind>) {
        let by_id: HashMap<u32, &str> = specials.iter().map(|(s, &i)| (i, s.as_str())).collect();
        let n = specials
            .values()
            .map(|&i| i as usize + 1)
            .max()
            .unwrap_or(0);
        let mut tokens = Vec::with_capacity(n);
        let mut kinds = Vec::with_capacity(n);
        for id in 0..n as u32 {
            if let Some(s) = by_id.get(&id) {
                tokens.push(s.as_bytes().to_vec());
                kinds.push(TokenKind::Special);
                continue;
            }
            let bytes = match bpe.decode(vec![id]) {
                Ok(s) => Some(s.into_bytes()),
                // Known id, but not UTF-8 by itself: safe to fetch raw.
                Err(e)
                    if e.to_string()
                        .starts_with("Unable to decode into a valid UTF-8") =>
                {
                    bpe._decode_native_and_split(vec![id]).next()
                }
                // "Invalid token for decoding": an unused id.
                Err(_) => None,
            };
            match bytes {
                Some(b) => {
                    tokens.push(b);
                    kinds.push(TokenKind::Normal);
                }
                None => {
                    tokens.push(Vec::new());
                    kinds.push(TokenKind::Special);
                }
            }
        }
        (tokens, kinds)
    }

    /// Parses `base64 rank` lines. A first line that does not parse means
    /// the file is not a rank file at all; a later one, a broken rank file.
    pub(super) fn parse_ranks(data: &[u8], origin: &str) -> Result<Vec<(Vec<u8>, u32)>> {
        let not = |msg: String| Err(VocabError::new(VocabErrorKind::NotATokenizer, origin, msg));
        let Ok(text) = std::str::from_utf8(data) else {
            return not("not a .tiktoken rank file: not UTF-8 text".into());
        };
        let mut ranks = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed = line
                .split_once(' ')
                .ok_or("expected `base64-token rank`")
                .and_then(|(tok, rank)| {
                    let bytes = base64_decode(tok).ok_or("the token is not valid base64")?;
                    let rank = rank
                        .trim()
                        .parse::<u32>()
                        .map_err(|_| "the rank is not a number")?;
                    Ok((bytes, rank))
                });
            match parsed {
                Ok(r) => ranks.push(r),
                Err(why) => {
                    let shown: String = line.chars().take(40).collect();
                    let msg = format!("line {}: {why}: {shown:?}", n + 1);
                    return if ranks.is_empty() {
                        not(format!("not a .tiktoken rank file: {msg}"))
                    } else {
                        Err(VocabError::new(VocabErrorKind::Malformed, origin, msg))
                    };
                }
            }
        }
        if ranks.is_empty() {
            return not("not a .tiktoken rank file: no rank lines".into());
        }
        Ok(ranks)
    }

    /// Builds a vocabulary from parsed ranks. With `spec` (regex, specials)
    /// the encoder is built from it; without, an embedded encoding with
    /// exactly these ranks lends its encoder, or there is none.
    pub(super) fn from_ranks(
        ranks: Vec<(Vec<u8>, u32)>,
        origin: &str,
        name: String,
        spec: Option<(&str, &[(&str, u32)])>,
    ) -> Result<Vocabulary> {
        let malformed = |msg: String| VocabError::new(VocabErrorKind::Malformed, origin, msg);
        // Duplicates would make tiktoken-rs panic (or silently drop a rank).
        let mut seen_bytes = HashSet::with_capacity(ranks.len());
        let mut by_id: HashMap<u32, &[u8]> = HashMap::with_capacity(ranks.len());
        for (b, r) in &ranks {
            if by_id.insert(*r, b).is_some() {
                return Err(malformed(format!("rank {r} appears twice")));
            }
            if !seen_bytes.insert(b.as_slice()) {
                return Err(malformed(format!(
                    "token {:?} appears twice",
                    String::from_utf8_lossy(b)
                )));
            }
        }

        let (encoder, specials): (Option<Encoder>, Vec<(String, u32)>) = match spec {
            Some((pattern, specials)) => {
                for (s, id) in specials {
                    if by_id.contains_key(id) {
                        return Err(malformed(format!("special token {s:?} reuses rank {id}")));
                    }
                }
                let bpe = CoreBPE::new(
                    ranks.iter().cloned().collect(),
                    specials.iter().map(|(s, i)| (s.to_string(), *i)).collect(),
                    pattern,
                )
                .map_err(|e| malformed(format!("cannot build the encoder: {e}")))?;
                let sp = specials.iter().map(|(s, i)| (s.to_string(), *i)).collect();
                (Some(Encoder::TiktokenOwned(Box::new(bpe))), sp)
            }
            None => match identify(&by_id)? {
                Some(e) => {
                    let bpe = e.bpe()?;
                    let sp = special_ids(bpe, origin)?.into_iter().collect();
                    (Some(Encoder::Tiktoken(bpe)), sp)
                }
                None => (None, Vec::new()),
            },
        };

        let n = by_id
            .keys()
            .chain(specials.iter().map(|(_, i)| i))
            .map(|&i| i as usize + 1)
            .max()
            .unwrap_or(0);
        let mut tokens = vec![Vec::new(); n];
        let mut kinds = vec![TokenKind::Special; n];
        for (&id, b) in &by_id {
            tokens[id as usize] = b.to_vec();
            kinds[id as usize] = TokenKind::Normal;
        }
        for (s, id) in &specials {
            tokens[*id as usize] = s.as_bytes().to_vec();
        }
        let reason = "this .tiktoken file is not an embedded encoding and a rank file does not \
                      carry its split regex; load it with Vocabulary::from_tiktoken_file_with";
        let mut v = Vocabulary::assemble(name, tokens, kinds, encoder, reason);
        v.eos_from(
            specials
                .iter()
                .filter(|(s, _)| s == tiktoken_rs::ENDOFTEXT)
                .map(|(_, i)| *i),
        );
        Ok(v)
    }

    /// The embedded encoding with exactly these ranks, if any.
    fn identify(by_id: &HashMap<u32, &[u8]>) -> Result<Option<Embedded>> {
        for e in ALL {
            if e.ranks() != by_id.len() {
                continue;
            }
            let known = embedded(e)?;
            let same = by_id.iter().all(|(&id, b)| {
                known.kind(id).ok() == Some(TokenKind::Normal)
                    && known.token_bytes(id).ok() == Some(*b)
            });
            if same {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }

    /// Strict standard base64 (with `=` padding), as tiktoken files use.
    pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
        let s = s.as_bytes();
        if s.is_empty() || s.len() % 4 != 0 {
            return None;
        }
        let val = |c: u8| -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            } as u32)
        };
        let mut out = Vec::with_capacity(s.len() / 4 * 3);
        let chunks = s.len() / 4;
        for (i, q) in s.chunks(4).enumerate() {
            let pad = if i + 1 == chunks {
                q.iter().rev().take_while(|&&c| c == b'=').count()
            } else {
                0
            };
            if pad > 2 {
                return None;
            }
            let mut n = 0u32;
            for &c in &q[..4 - pad] {
                n = n << 6 | val(c)?;
            }
            n <<= 6 * pad as u32;
            let b = n.to_be_bytes();
            out.extend_from_slice(&b[1..4 - pad]);
        }
        Some(out)
    }
}

// ---------------------------------------------------------------------------
// Unit tests (no files needed)
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_alphabet() {
        assert_eq!(BYTE_TO_CHAR[b' ' as usize], 'Ġ' as u32);
        assert_eq!(BYTE_TO_CHAR[b'\n' as usize], 'Ċ' as u32);
        assert_eq!(BYTE_TO_CHAR[b'!' as usize], '!' as u32);
        assert_eq!(BYTE_TO_CHAR[0xAD], 323); // the last unprintable byte
        assert_eq!(BYTE_TO_CHAR[0], 256);
        // A bijection onto 256 distinct chars.
        let distinct: HashSet<u32> = BYTE_TO_CHAR.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
        for b in 0..=255u8 {
            let c = char::from_u32(BYTE_TO_CHAR[b as usize]).unwrap();
            assert_eq!(byte_level_bytes(&c.to_string()), vec![b]);
        }
        assert_eq!(byte_level_bytes("ĠhelloĊ"), b" hello\n");
        // Outside the alphabet: taken as UTF-8 text.
        assert_eq!(byte_level_bytes("  x"), b"  x");
        assert_eq!(byte_level_bytes("日本"), "日本".as_bytes());
    }

    #[test]
    fn byte_fallback_tokens() {
        assert_eq!(byte_fallback_byte("<0x0A>"), Some(0x0A));
        assert_eq!(byte_fallback_byte("<0xFF>"), Some(0xFF));
        assert_eq!(byte_fallback_byte("<0xff>"), None);
        assert_eq!(byte_fallback_byte("<0x0A"), None);
        assert_eq!(byte_fallback_byte("<0x0AB>"), None);
        assert_eq!(byte_fallback_byte("<s>"), None);
    }

    #[test]
    fn base64() {
        use tiktoken::base64_decode as d;
        assert_eq!(d("IQ==").unwrap(), b"!");
        assert_eq!(d("aGk=").unwrap(), b"hi");
        assert_eq!(d("aGV5").unwrap(), b"hey");
        assert_eq!(d("IGhlbGxv").unwrap(), b" hello");
        assert_eq!(d("/w==").unwrap(), [0xFF]);
        assert!(d("").is_none());
        assert!(d("abc").is_none());
        assert!(d("a=bc").is_none());
        assert!(d("a===").is_none());
        assert!(d("ab!c").is_none());
    }

    #[test]
    fn synthetic_vocabulary() {
        let mut v = Vocabulary::from_tokens(vec![b"a".to_vec(), b"".to_vec(), vec![0xE2]], vec![1]);
        assert_eq!(v.len(), 3);
        assert_eq!(v.token_bytes(2).unwrap(), [0xE2]);
        assert_eq!(v.kind(0).unwrap(), TokenKind::Normal);
        assert_eq!(
            v.normal_tokens().map(|(i, _)| i).collect::<Vec<_>>(),
            [0, 2]
        );
        assert!(v.is_eos(1) && !v.is_eos(0));
        assert_eq!(v.decode_bytes(&[0, 2, 0]).unwrap(), [b'a', 0xE2, b'a']);
        assert_eq!(
            v.token_bytes(3).unwrap_err().kind(),
            VocabErrorKind::IdOutOfRange
        );
        assert_eq!(v.kind(3).unwrap_err().kind(), VocabErrorKind::IdOutOfRange);
        assert_eq!(
            v.decode_bytes(&[0, 9]).unwrap_err().kind(),
            VocabErrorKind::IdOutOfRange
        );
        assert_eq!(v.encode("a").unwrap_err().kind(), VocabErrorKind::NoEncoder);
        assert_eq!(
            v.set_eos_ids(vec![0, 3]).unwrap_err().kind(),
            VocabErrorKind::IdOutOfRange
        );
        assert_eq!(v.eos_ids(), [1], "a failed set_eos_ids changes nothing");
        v.set_eos_ids(vec![2, 0, 2]).unwrap();
        assert_eq!(v.eos_ids(), [2, 0]);
        let same = Vocabulary::from_tokens(vec![b"a".to_vec(), b"".to_vec(), vec![0xE2]], vec![]);
        let other = Vocabulary::from_tokens(vec![b"a".to_vec(), vec![0xE2], b"".to_vec()], vec![]);
        assert_eq!(v.fingerprint(), same.fingerprint());
        assert_ne!(v.fingerprint(), other.fingerprint());
    }

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

    #[test]
    fn tiktoken_rank_parsing() {
        let p = |s: &str| tiktoken::parse_ranks(s.as_bytes(), "f.tiktoken");
        assert_eq!(
            p("IQ== 0\naGk= 1\n").unwrap(),
            [(b"!".to_vec(), 0), (b"hi".to_vec(), 1)]
        );
        assert_eq!(
            p("hello world\n").unwrap_err().kind(),
            VocabErrorKind::NotATokenizer
        );
        let e = p("IQ== 0\naGk= x\n").unwrap_err();
        assert_eq!(e.kind(), VocabErrorKind::Malformed);
        assert!(e.to_string().contains("line 2"), "{e}");
        assert_eq!(p("").unwrap_err().kind(), VocabErrorKind::NotATokenizer);
        let dup = tiktoken::from_ranks(p("IQ== 0\naGk= 0\n").unwrap(), "f", "f".into(), None);
        assert_eq!(dup.unwrap_err().kind(), VocabErrorKind::Malformed);
        let v =
            tiktoken::from_ranks(p("IQ== 0\naGk= 2\n").unwrap(), "f", "f".into(), None).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v.kind(1).unwrap(), TokenKind::Special);
        assert_eq!(
            v.encode("hi").unwrap_err().kind(),
            VocabErrorKind::NoEncoder
        );
        let v = tiktoken::from_ranks(
            p("IQ== 0\naA== 1\naQ== 2\naGk= 3\n").unwrap(),
            "f",
            "f".into(),
            Some((r"\w+|\W", &[("<|endoftext|>", 4)])),
        )
        .unwrap();
        assert_eq!(v.encode("hi!").unwrap(), [3, 0]);
        assert_eq!(v.eos_ids(), [4]);
        assert_eq!(v.kind(4).unwrap(), TokenKind::Special);
    }
}
