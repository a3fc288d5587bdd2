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
//!
//! Each family's loader is its own private submodule (`hf`, `tiktoken`,
//! with the byte spellings of `tokenizer.json` in `byte_level`): a loader
//! only builds a [`Vocabulary`], so nothing outside depends on which one
//! did. [`trie`] is the prefix tree over a vocabulary's normal tokens.

mod byte_level;
mod hf;
mod special;
mod tiktoken;
pub mod trie;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tiktoken_rs::CoreBPE;

use hf::EosHints;

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
    /// A grammar names a special token the vocabulary lacks, or names
    /// ordinary text as one.
    SpecialToken,
    /// A grammar caps a lexeme (`[max_tokens=N]`) below the tokens this
    /// vocabulary needs to spell it, or where caps cannot be kept.
    LexemeCap,
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

    /// A grammar's lexeme cap that cannot be kept with vocabulary `origin`.
    pub(crate) fn lexeme_cap(origin: impl fmt::Display, message: impl Into<String>) -> Self {
        Self::new(VocabErrorKind::LexemeCap, origin, message)
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
    /// The id and name of each special token a grammar spells as a
    /// symbol, by index (see `special`).
    symbols: Vec<(u32, String)>,
    /// The vocabulary this one was derived from for such a grammar: other
    /// grammars bind to that one.
    base: Option<Arc<Vocabulary>>,
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
    /// A `tokenizer.json` whose tokenizer is built on first `encode`.
    HfLazy(Box<hf::LazyTokenizer>),
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

    /// Loads a tiktoken rank file from memory; `name` names the vocabulary
    /// and appears in errors. Encodes only when the ranks are an embedded
    /// encoding's, as with [`Vocabulary::from_tiktoken_file`].
    pub fn from_tiktoken_bytes(bytes: &[u8], name: &str) -> Result<Self> {
        let ranks = tiktoken::parse_ranks(bytes, name)?;
        tiktoken::from_ranks(ranks, name, name.to_string(), None)
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
        v.set_eos_ids(eos)
            .expect("Vocabulary::from_tokens: EOS ids in range");
        v
    }

    /// A synthetic vocabulary with one special EOS token appended after
    /// `tokens` (its id is `tokens.len()`).
    pub fn from_tokens_with_eos(mut tokens: Vec<Vec<u8>>, eos_text: &str) -> Self {
        let eos = tokens.len() as u32;
        tokens.push(eos_text.as_bytes().to_vec());
        Self::from_tokens_with_special(tokens, &[eos], &[eos])
    }

    /// A synthetic vocabulary whose ids in `special` are special tokens
    /// (their text kept for display) and whose EOS ids are `eos`.
    ///
    /// # Panics
    /// If an id is not below `tokens.len()` (a bug in the test).
    pub fn from_tokens_with_special(tokens: Vec<Vec<u8>>, special: &[u32], eos: &[u32]) -> Self {
        let mut kinds = vec![TokenKind::Normal; tokens.len()];
        for &id in special {
            kinds[id as usize] = TokenKind::Special;
        }
        let mut v = Self::assemble("synthetic".into(), tokens, kinds, None, "");
        v.no_encoder_reason = "a synthetic vocabulary has no tokenizer";
        v.set_eos_ids(eos.to_vec())
            .expect("Vocabulary::from_tokens_with_special: EOS ids in range");
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
            symbols: Vec::new(),
            base: None,
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

    /// A 64-bit hash of every id's kind and bytes and of the EOS ids: equal
    /// vocabularies give equal fingerprints, so bound tables can be cached
    /// under it.
    pub fn fingerprint(&self) -> u64 {
        // EOS ids are not text (see `normal_tokens`): they change the trie.
        (self.eos.iter()).fold(self.fingerprint, |h, &id| {
            (h ^ u64::from(id)).wrapping_mul(0x0100_0000_01b3)
        })
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

    /// The tokens that can appear in grammar text: Normal, non-empty and
    /// not EOS, in id order. An EOS id ends the output whatever its bytes
    /// (a caller may name an ordinary token as EOS), so it is never text.
    pub fn normal_tokens(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        self.kinds.iter().enumerate().filter_map(move |(i, k)| {
            let (s, e) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            (*k == TokenKind::Normal && e > s && !self.eos.contains(&(i as u32)))
                .then(|| (i as u32, &self.bytes[s..e]))
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
    ///
    /// Bound to a grammar that names special tokens (see
    /// [`special_token_id`](Self::special_token_id)), the names of those
    /// tokens in `text` encode as the tokens themselves, so an output shown
    /// by [`render`](Self::render) replays as it was produced.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        if self.symbols.is_empty() {
            self.encode_text(text)
        } else {
            self.encode_with_symbols(text)
        }
    }

    fn encode_text(&self, text: &str) -> Result<Vec<u32>> {
        let Some(encoder) = self.encoder.as_deref() else {
            return Err(VocabError::new(
                VocabErrorKind::NoEncoder,
                &self.name,
                self.no_encoder_reason,
            ));
        };
        let (tokenizer, byte_ids) = match encoder {
            Encoder::Tiktoken(bpe) => return Ok(bpe.encode_ordinary(text)),
            Encoder::TiktokenOwned(bpe) => return Ok(bpe.encode_ordinary(text)),
            Encoder::Hf {
                tokenizer,
                byte_ids,
            } => (&**tokenizer, byte_ids),
            Encoder::HfLazy(lazy) => (lazy.get()?, &lazy.byte_ids),
        };
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

/// Most ids a vocabulary may span: real ones have up to about 260,000.
const MAX_IDS: usize = 1 << 22;

/// Refuses a file whose largest id would make the id-indexed tables huge
/// while it lists few tokens (one line `... 4000000000` asked for 100 GB):
/// `span` ids (largest + 1) for `listed` tokens.
fn check_id_span(span: usize, listed: usize, origin: &str) -> Result<()> {
    if span > MAX_IDS || span > 4 * listed + 1024 {
        return Err(VocabError::new(
            VocabErrorKind::Malformed,
            origin,
            format!(
                "ids span 0..{span} but the file lists {listed} tokens; \
                 ids must be nearly contiguous and below {MAX_IDS}"
            ),
        ));
    }
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut same =
            Vocabulary::from_tokens(vec![b"a".to_vec(), b"".to_vec(), vec![0xE2]], vec![2, 0]);
        let other =
            Vocabulary::from_tokens(vec![b"a".to_vec(), vec![0xE2], b"".to_vec()], vec![2, 0]);
        assert_eq!(v.fingerprint(), same.fingerprint());
        assert_ne!(v.fingerprint(), other.fingerprint());
        // EOS ids are not text: other EOS ids, another trie, another key.
        same.set_eos_ids(vec![2]).unwrap();
        assert_ne!(v.fingerprint(), same.fingerprint());
        assert_eq!(
            v.normal_tokens().count(),
            0,
            "`a` and 0xE2 are EOS, the third is empty"
        );
    }
}
