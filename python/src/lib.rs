//! Python bindings for gcd (`gcd._gcd`): vocabularies, grammars bound to
//! them, and matchers that write token bitmasks into caller-owned `int32`
//! arrays, the layout vLLM, SGLang and XGrammar share.
//!
//! Buffers come in through the buffer protocol rather than the `numpy`
//! crate: anything exporting a writable C-contiguous `int32` buffer works
//! (numpy arrays, CPU torch tensors via `.numpy()`), and there is no numpy
//! ABI to build against.

use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

use gcd_core::vocab::trie::TokenTrie;
use gcd_core::{BoundGrammar, CompiledGrammar, Vocabulary};
use gcd_schema::{GrammarFormat, GrammarReader};
use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use rayon::prelude::*;

create_exception!(
    gcd,
    GcdError,
    PyValueError,
    "Base class of gcd's errors (a ValueError)."
);
create_exception!(
    gcd,
    SchemaError,
    GcdError,
    "A JSON Schema gcd cannot read or compile."
);
create_exception!(
    gcd,
    GrammarError,
    GcdError,
    "A Lark grammar gcd cannot read or compile."
);
create_exception!(
    gcd,
    VocabularyError,
    GcdError,
    "A tokenizer or vocabulary gcd cannot load or use."
);
create_exception!(
    gcd,
    MatchError,
    GcdError,
    "A token the matcher refused (the matcher is unchanged)."
);

fn vocab_err(e: impl std::fmt::Display) -> PyErr {
    VocabularyError::new_err(e.to_string())
}

fn match_err(e: impl std::fmt::Display) -> PyErr {
    MatchError::new_err(e.to_string())
}

// ---------------------------------------------------------------- Vocabulary

/// A tokenizer's vocabulary: every token id and its exact bytes, plus the
/// EOS ids.
#[pyclass(name = "Vocabulary", module = "gcd._gcd", frozen)]
struct PyVocabulary {
    vocab: Arc<Vocabulary>,
    /// Built on first bind and shared by every grammar bound to this
    /// vocabulary: the trie is the same for all of them, and on a 200k
    /// vocabulary it is worth building once.
    trie: OnceLock<Arc<TokenTrie>>,
}

impl PyVocabulary {
    fn wrap(vocab: Vocabulary) -> PyVocabulary {
        PyVocabulary {
            vocab: Arc::new(vocab),
            trie: OnceLock::new(),
        }
    }

    fn trie(&self) -> Arc<TokenTrie> {
        Arc::clone(
            self.trie
                .get_or_init(|| Arc::new(TokenTrie::new(&self.vocab))),
        )
    }
}

#[pymethods]
impl PyVocabulary {
    /// Loads a vocabulary from a spec: "o200k", "cl100k", "p50k", "r50k"
    /// (embedded), a path to a tokenizer.json or a .tiktoken file, or a
    /// directory holding a tokenizer.json. Raises VocabularyError if the
    /// spec names nothing loadable.
    #[staticmethod]
    fn load(py: Python<'_>, spec: &str) -> PyResult<PyVocabulary> {
        let spec = spec.to_owned();
        let v = py
            .detach(move || Vocabulary::load(&spec))
            .map_err(vocab_err)?;
        Ok(PyVocabulary::wrap(v))
    }

    /// Loads a Hugging Face tokenizer.json file. EOS ids come from
    /// tokenizer_config.json / generation_config.json beside it, plus
    /// well-known end markers. Raises VocabularyError if it cannot be loaded.
    #[staticmethod]
    fn from_tokenizer_json(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PyVocabulary> {
        let v = py
            .detach(move || Vocabulary::from_tokenizer_json(&path))
            .map_err(vocab_err)?;
        Ok(PyVocabulary::wrap(v))
    }

    /// A synthetic vocabulary for tests: token i is tokens[i] (bytes);
    /// eos_ids name the end-of-sequence ids, which end the output whatever
    /// their bytes (never grammar text). It has no tokenizer, so encode()
    /// raises. Raises VocabularyError if an EOS id is out of range.
    #[staticmethod]
    #[pyo3(signature = (tokens, eos_ids = Vec::new()))]
    fn from_tokens(tokens: Vec<Vec<u8>>, eos_ids: Vec<i64>) -> PyResult<PyVocabulary> {
        let n = tokens.len();
        let mut eos = Vec::with_capacity(eos_ids.len());
        for id in eos_ids {
            match u32::try_from(id) {
                Ok(id) if (id as usize) < n => eos.push(id),
                _ => {
                    return Err(VocabularyError::new_err(format!(
                        "EOS id {id} is out of range (the vocabulary has {n} tokens)"
                    )))
                }
            }
        }
        // `from_tokens` panics on an out-of-range EOS id; set them after,
        // through the fallible setter, having checked them above.
        let mut v = Vocabulary::from_tokens(tokens, Vec::new());
        v.set_eos_ids(eos).map_err(vocab_err)?;
        Ok(PyVocabulary::wrap(v))
    }

    /// Number of token ids (the highest id + 1).
    #[getter]
    fn size(&self) -> usize {
        self.vocab.len()
    }

    fn __len__(&self) -> usize {
        self.vocab.len()
    }

    /// The end-of-sequence token ids.
    #[getter]
    fn eos_ids(&self) -> Vec<u32> {
        self.vocab.eos_ids().to_vec()
    }

    /// The vocabulary's name (the tokenizer it came from).
    #[getter]
    fn name(&self) -> String {
        self.vocab.name().to_owned()
    }

    /// Tokenizes text as the real tokenizer does, without special tokens.
    /// Raises VocabularyError on a vocabulary without a tokenizer
    /// (from_tokens).
    fn encode(&self, py: Python<'_>, text: &str) -> PyResult<Vec<u32>> {
        let text = text.to_owned();
        let vocab = Arc::clone(&self.vocab);
        py.detach(move || vocab.encode(&text)).map_err(vocab_err)
    }

    /// The concatenated bytes of the token ids (special tokens give their
    /// text). Raises VocabularyError if an id is out of range.
    fn decode<'py>(&self, py: Python<'py>, ids: Vec<i64>) -> PyResult<Bound<'py, PyBytes>> {
        let ids = ids
            .into_iter()
            .map(|id| self.token_id(id))
            .collect::<PyResult<Vec<u32>>>()?;
        let bytes = self.vocab.decode_bytes(&ids).map_err(vocab_err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The exact bytes of one token. Raises VocabularyError if id is out of
    /// range.
    fn token_bytes<'py>(&self, py: Python<'py>, id: i64) -> PyResult<Bound<'py, PyBytes>> {
        let id = self.token_id(id)?;
        let b = self.vocab.token_bytes(id).map_err(vocab_err)?;
        Ok(PyBytes::new(py, b))
    }

    fn __repr__(&self) -> String {
        format!(
            "Vocabulary(name={:?}, size={}, eos_ids={:?})",
            self.vocab.name(),
            self.vocab.len(),
            self.vocab.eos_ids()
        )
    }
}

impl PyVocabulary {
    fn token_id(&self, id: i64) -> PyResult<u32> {
        match u32::try_from(id) {
            Ok(t) if (t as usize) < self.vocab.len() => Ok(t),
            _ => Err(VocabularyError::new_err(format!(
                "token id {id} is out of range (vocabulary has {} ids)",
                self.vocab.len()
            ))),
        }
    }
}

// ---------------------------------------------------------------- Grammar

/// A grammar compiled and bound to one vocabulary. Immutable and shared:
/// compile it once per schema and create one matcher per request.
#[pyclass(name = "Grammar", module = "gcd._gcd", frozen)]
struct PyGrammar {
    bound: Arc<BoundGrammar>,
}

/// The `whitespace=` argument of `from_json_schema`.
fn whitespace_named(name: &str) -> PyResult<gcd_schema::Whitespace> {
    name.parse().map_err(|e: gcd_core::UnknownOptionName| {
        PyValueError::new_err(format!(
            "whitespace={name:?}: expected {}",
            e.expected_list()
        ))
    })
}

/// A schema given as text is parsed here; anything else (a dict, a list,
/// a bool) goes through Python's `json.dumps`, so whatever Python can
/// serialize is accepted.
fn schema_value(schema: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let text: String = if let Ok(s) = schema.cast::<PyString>() {
        s.to_str()?.to_owned()
    } else {
        let json = schema.py().import("json")?;
        json.call_method1("dumps", (schema,))
            .map_err(|e| {
                PyTypeError::new_err(format!(
                    "schema must be a JSON string or a JSON-serializable object: {e}"
                ))
            })?
            .extract()?
    };
    serde_json::from_str(&text)
        .map_err(|e| SchemaError::new_err(format!("the schema is not valid JSON: {e}")))
}

#[pymethods]
impl PyGrammar {
    /// Compiles a JSON Schema (a str of JSON, or a dict) and binds it to
    /// vocab. whitespace: "compact" (none), "spaced" (optional single space
    /// after , and :), "single_space" (exactly one, as json.dumps writes),
    /// "json" (any JSON whitespace), "capped" (the default: whitespace where
    /// pretty-printers put it, at most 20 bytes in each place) or "capped:N".
    /// any_order: object members in any order rather than the schema's.
    /// Raises SchemaError for a bad or unsupported schema, ValueError for an
    /// unknown whitespace, TypeError for a schema that is not
    /// JSON-serializable.
    #[staticmethod]
    #[pyo3(signature = (schema, vocab, whitespace = "capped", any_order = false))]
    fn from_json_schema(
        py: Python<'_>,
        schema: &Bound<'_, PyAny>,
        vocab: &PyVocabulary,
        whitespace: &str,
        any_order: bool,
    ) -> PyResult<PyGrammar> {
        let value = schema_value(schema)?;
        let mut options = gcd_schema::Options::default().whitespace(whitespace_named(whitespace)?);
        if any_order {
            options = options.properties(gcd_schema::PropertyOrder::Any);
        }
        let compiled = py
            .detach(move || gcd_schema::compile(&value, &options))
            .map_err(|e| SchemaError::new_err(e.to_string()))?;
        PyGrammar::bind(py, compiled, vocab)
    }

    /// Compiles a grammar in gcd's Lark subset (start rule `start`) and binds
    /// it to vocab. Ambiguous (non-LL(1)) grammars are allowed and parsed
    /// generally. Special tokens are named in rules as <|eot_id|> or <[id]>;
    /// `%json { ... }` stands for the JSON documents a JSON Schema validates.
    /// Raises GrammarError if the text does not parse or compile, and
    /// VocabularyError if vocab lacks a special token the grammar names.
    /// import_dir: where `%import .module.NAME` finds `module.lark`.
    /// lexing: "maximal-munch" (default) or "dynamic" (a lexeme may end
    /// wherever a terminal matches, as in Lark's Earley parser).
    /// start: the start rule, as Lark's `start=` (a grammar without a rule
    /// named `start` is refused without it).
    #[staticmethod]
    #[pyo3(signature = (text, vocab, import_dir = None, lexing = "maximal-munch", start = None))]
    fn from_lark(
        py: Python<'_>,
        text: &str,
        vocab: &PyVocabulary,
        import_dir: Option<std::path::PathBuf>,
        lexing: &str,
        start: Option<String>,
    ) -> PyResult<PyGrammar> {
        let lexing = lexing_named(lexing)?;
        let text = text.to_owned();
        let mut reader = GrammarReader::new(GrammarFormat::Lark);
        if let Some(dir) = import_dir {
            reader = reader.import_dir(dir);
        }
        if let Some(start) = start {
            reader = reader.start(start);
        }
        let config = gcd_core::compiled::Config::default().lexing(lexing);
        let compiled = py
            .detach(move || reader.compile(&text, &config))
            .map_err(|e| GrammarError::new_err(e.to_string()))?;
        PyGrammar::bind(py, compiled, vocab)
    }

    /// Compiles a GBNF grammar (llama.cpp's format; start rule `root`) and
    /// binds it to vocab. The language is GBNF's, character by character:
    /// whitespace only where the grammar writes it, any derivation.
    /// Raises GrammarError if the text does not parse or compile.
    /// lexing: "maximal-munch" (default) or "dynamic"; both give GBNF's
    /// language (gcd merges characters into terminals only where maximal
    /// munch keeps it).
    #[staticmethod]
    #[pyo3(signature = (text, vocab, lexing = "maximal-munch"))]
    fn from_gbnf(
        py: Python<'_>,
        text: &str,
        vocab: &PyVocabulary,
        lexing: &str,
    ) -> PyResult<PyGrammar> {
        let lexing = lexing_named(lexing)?;
        let text = text.to_owned();
        let compiled = py
            .detach(move || {
                let config = gcd_core::compiled::Config::default().lexing(lexing);
                GrammarReader::new(GrammarFormat::Gbnf).compile(&text, &config)
            })
            .map_err(|e| GrammarError::new_err(e.to_string()))?;
        PyGrammar::bind(py, compiled, vocab)
    }

    /// The vocabulary size this grammar was bound to (bitmask rows need at
    /// least ceil(vocab_size / 32) words).
    #[getter]
    fn vocab_size(&self) -> usize {
        self.bound.vocab().len()
    }

    /// A new matcher at the start of the output. budget: at most this many
    /// tokens (EOS not counted) and complete by then; masks then forbid
    /// tokens that would make that impossible. Raises MatchError if budget is
    /// below the fewest tokens gcd can complete the output in.
    #[pyo3(signature = (budget = None))]
    fn matcher(&self, budget: Option<usize>) -> PyResult<PyMatcher> {
        let mut m = gcd_core::Matcher::new(Arc::clone(&self.bound));
        if budget.is_some() {
            m.set_budget(budget).map_err(match_err)?;
        }
        Ok(PyMatcher { m })
    }

    fn __repr__(&self) -> String {
        format!("Grammar(vocab_size={})", self.bound.vocab().len())
    }
}

impl PyGrammar {
    /// Fails when the grammar names a special token the vocabulary lacks.
    fn bind(py: Python<'_>, compiled: CompiledGrammar, vocab: &PyVocabulary) -> PyResult<PyGrammar> {
        let v = Arc::clone(&vocab.vocab);
        let trie = py.detach(|| vocab.trie());
        let bound = BoundGrammar::try_with_trie(Arc::new(compiled), v, trie).map_err(vocab_err)?;
        Ok(PyGrammar {
            bound: Arc::new(bound),
        })
    }
}

// ---------------------------------------------------------------- Matcher

/// Follows one output token by token and computes which tokens may come
/// next. One per request; fork() is cheap.
#[pyclass(name = "Matcher", module = "gcd._gcd")]
struct PyMatcher {
    m: gcd_core::Matcher,
}

fn token_u32(token: i64, vocab_len: usize) -> PyResult<u32> {
    match u32::try_from(token) {
        Ok(t) => Ok(t),
        Err(_) => Err(MatchError::new_err(format!(
            "token id {token} is out of range (vocabulary has {vocab_len} ids)"
        ))),
    }
}

#[pymethods]
impl PyMatcher {
    /// Accepts a token. Raises MatchError (naming the token) when the
    /// grammar does not allow it here or the id is out of range; the matcher
    /// is then unchanged.
    fn advance(&mut self, token: i64) -> PyResult<()> {
        let t = token_u32(token, self.m.bound().vocab().len())?;
        self.m.advance(t).map_err(match_err)
    }

    /// Like advance, but returns False instead of raising when the token is
    /// refused.
    fn accept_token(&mut self, token: i64) -> bool {
        match u32::try_from(token) {
            Ok(t) => self.m.advance(t).is_ok(),
            Err(_) => false,
        }
    }

    /// Undoes the last n accepted tokens (EOS included). Raises MatchError if
    /// fewer than n tokens were accepted.
    #[pyo3(signature = (n = 1))]
    fn rollback(&mut self, n: usize) -> PyResult<()> {
        self.m.rollback(n).map_err(match_err)
    }

    /// An independent copy in the same state (cheap: history is shared).
    fn fork(&self) -> PyMatcher {
        PyMatcher { m: self.m.clone() }
    }

    /// Same as fork().
    fn __copy__(&self) -> PyMatcher {
        self.fork()
    }

    /// Whether the output so far is complete (EOS is allowed now).
    fn is_complete(&self) -> bool {
        self.m.is_complete()
    }

    /// Whether EOS was accepted (nothing may follow).
    fn is_finished(&self) -> bool {
        self.m.is_finished()
    }

    /// The token budget (EOS not counted), or None. Setting it raises
    /// MatchError if the tokens so far plus min_tokens_to_complete() exceed it.
    #[getter]
    fn get_budget(&self) -> Option<usize> {
        self.m.budget()
    }

    /// Sets or clears the token budget; MatchError if the output can no
    /// longer fit in it.
    #[setter]
    fn set_budget(&mut self, n: Option<usize>) -> PyResult<()> {
        self.m.set_budget(n).map_err(match_err)
    }

    /// Caps every lexeme of `terminal` (a reasoning segment up to
    /// `</think>`, say) at `max_tokens` tokens, or lifts the cap with None;
    /// masks then close it in time. MatchError names an unknown terminal, a
    /// cap below what the terminal needs, or a first cap after tokens.
    #[pyo3(signature = (terminal, max_tokens))]
    fn set_lexeme_cap(&mut self, terminal: &str, max_tokens: Option<usize>) -> PyResult<()> {
        self.m.set_lexeme_cap(terminal, max_tokens).map_err(match_err)
    }

    /// The fewest tokens that complete the output, by the budget's plans (an
    /// upper bound; 0 when complete).
    fn min_tokens_to_complete(&self) -> usize {
        self.m.min_tokens_to_complete()
    }

    /// The bytes accepted so far.
    #[getter]
    fn output<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.m.output())
    }

    /// The output as text, special tokens the grammar names written by
    /// name (<|im_end|>); an incomplete UTF-8 sequence is replaced.
    #[getter]
    fn text(&self) -> String {
        self.m.text()
    }

    /// The tokens accepted so far (EOS included once accepted).
    #[getter]
    fn tokens(&self) -> Vec<u32> {
        self.m.tokens().to_vec()
    }

    /// Tokens the grammar leaves no choice about (longest token first), for
    /// jump-forward decoding. Empty when more than one byte may follow.
    fn forced_tokens(&self) -> Vec<u32> {
        self.m.forced_tokens()
    }

    /// The bytes the grammar forces next: while exactly one byte can follow
    /// and the output is not complete. Empty if there is a choice.
    fn forced_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.m.forced_bytes())
    }

    /// Whether appending these bytes keeps the output a valid prefix (False
    /// once finished).
    fn accepts_bytes(&self, data: &[u8]) -> bool {
        self.m.accepts_bytes(data)
    }

    /// Appends bytes to the output without a token (a forced prefix,
    /// jump-forward bytes, text checked against the grammar). Raises
    /// MatchError when no sentence continues with them (the matcher is then
    /// unchanged); rollback(1) undoes them.
    fn advance_bytes(&mut self, data: &[u8]) -> PyResult<()> {
        self.m.advance_bytes(data).map_err(match_err)
    }

    /// The vocabulary size of the grammar.
    #[getter]
    fn vocab_size(&self) -> usize {
        self.m.bound().vocab().len()
    }

    /// Writes the allowed-token bitmask into row `index` of bitmask, a
    /// writable C-contiguous int32 array of shape (batch, words) or (words,):
    /// bit i % 32 of word i // 32 is set iff token i is allowed. words must
    /// be at least ceil(vocab_size / 32); ids past the vocabulary are
    /// forbidden, EOS is allowed when complete. Raises TypeError if bitmask is
    /// not an int32 buffer, ValueError if it is read-only, not C-contiguous,
    /// not 1-D/2-D, too narrow, or index is out of range.
    #[pyo3(signature = (bitmask, index = 0))]
    fn fill_next_token_bitmask(
        &self,
        py: Python<'_>,
        bitmask: &Bound<'_, PyAny>,
        index: i64,
    ) -> PyResult<()> {
        let buf = Bitmask::get(bitmask, self.m.bound().vocab().len())?;
        let row = buf.row_index(index)?;
        let (ptr, words) = (buf.ptr()?, buf.words);
        let m = &self.m;
        py.detach(move || {
            // SAFETY: see `RawRows::slice`; one row, written by this thread only.
            let rows = unsafe { ptr.slice() };
            m.fill_bitmask(&mut rows[row * words..(row + 1) * words]);
        });
        drop(buf);
        Ok(())
    }

    fn __repr__(&self) -> String {
        let py_bool = |b: bool| if b { "True" } else { "False" };
        format!(
            "Matcher(tokens={}, complete={}, finished={})",
            self.m.tokens().len(),
            py_bool(self.m.is_complete()),
            py_bool(self.m.is_finished())
        )
    }
}

// ---------------------------------------------------------------- Bitmasks

/// A checked bitmask buffer: int32, writable, C-contiguous, 1 or 2 dims,
/// rows wide enough for the vocabulary.
struct Bitmask {
    buf: PyBuffer<i32>,
    rows: usize,
    words: usize,
}

/// The buffer's memory, sendable to the threads that fill it.
#[derive(Clone, Copy)]
struct RawRows(NonNull<[i32]>);

// SAFETY: the memory is owned by the exporter, kept alive and unmoved by the
// `PyBuffer` held across the call; the rows handed to threads are disjoint.
unsafe impl Send for RawRows {}
unsafe impl Sync for RawRows {}

impl RawRows {
    /// # Safety
    /// The `PyBuffer` this came from must outlive the slice, and nothing else
    /// in this process may write the same elements meanwhile (other Python
    /// threads writing the array during the call is the caller's data race,
    /// as with any native kernel).
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice<'a>(self) -> &'a mut [i32] {
        unsafe { &mut *self.0.as_ptr() }
    }
}

impl Bitmask {
    fn get(obj: &Bound<'_, PyAny>, vocab_len: usize) -> PyResult<Bitmask> {
        let buf: PyBuffer<i32> = match PyBuffer::get(obj) {
            Ok(b) => b,
            Err(e) => {
                let dtype = obj
                    .getattr("dtype")
                    .map(|d| d.to_string())
                    .unwrap_or_else(|_| obj.get_type().to_string());
                return Err(PyTypeError::new_err(format!(
                    "bitmask must be a buffer of int32 (e.g. a numpy int32 array), got {dtype}: {e}"
                )));
            }
        };
        if buf.readonly() {
            return Err(PyValueError::new_err(
                "bitmask is read-only: pass a writable int32 array",
            ));
        }
        if !buf.is_c_contiguous() {
            return Err(PyValueError::new_err(
                "bitmask is not C-contiguous: pass a contiguous int32 array (np.ascontiguousarray)",
            ));
        }
        let (rows, words) = match *buf.shape() {
            [w] => (1, w),
            [r, w] => (r, w),
            ref s => {
                return Err(PyValueError::new_err(format!(
                    "bitmask must have 1 or 2 dimensions (batch, words), got {} dimensions",
                    s.len()
                )))
            }
        };
        let need = vocab_len.div_ceil(32);
        if words < need {
            return Err(PyValueError::new_err(format!(
                "bitmask rows have {words} int32 words, too few for a vocabulary of \
                 {vocab_len} tokens (need at least {need})"
            )));
        }
        Ok(Bitmask { buf, rows, words })
    }

    fn row_index(&self, index: i64) -> PyResult<usize> {
        match usize::try_from(index) {
            Ok(i) if i < self.rows => Ok(i),
            _ => Err(PyValueError::new_err(format!(
                "row index {index} is out of range for a bitmask of {} rows",
                self.rows
            ))),
        }
    }

    fn ptr(&self) -> PyResult<RawRows> {
        // Checked C-contiguous above; `None` would mean a buffer pyo3 cannot
        // address as one slice, reported rather than assumed away.
        (self.buf.as_slice_ptr()).map(RawRows).ok_or_else(|| {
            PyValueError::new_err("bitmask memory is not one contiguous int32 block")
        })
    }
}

/// Fills one bitmask row per matcher, in parallel and without the GIL.
/// indices[i] is the row matchers[i] fills (default: row i); other rows are
/// untouched. bitmask is as for Matcher.fill_next_token_bitmask, wide enough
/// for the largest vocabulary. Raises ValueError if rows repeat or do not
/// exist, or len(indices) != len(matchers); TypeError if not an int32 buffer.
#[pyfunction]
#[pyo3(signature = (matchers, bitmask, indices = None))]
fn fill_next_token_bitmasks(
    py: Python<'_>,
    matchers: Vec<PyRef<'_, PyMatcher>>,
    bitmask: &Bound<'_, PyAny>,
    indices: Option<Vec<i64>>,
) -> PyResult<()> {
    let vocab_len = matchers
        .iter()
        .map(|m| m.m.bound().vocab().len())
        .max()
        .unwrap_or(0);
    let buf = Bitmask::get(bitmask, vocab_len)?;
    let rows: Vec<usize> = match indices {
        Some(ix) => {
            if ix.len() != matchers.len() {
                return Err(PyValueError::new_err(format!(
                    "indices has {} entries but there are {} matchers",
                    ix.len(),
                    matchers.len()
                )));
            }
            ix.into_iter()
                .map(|i| buf.row_index(i))
                .collect::<PyResult<_>>()?
        }
        None => {
            if matchers.len() > buf.rows {
                return Err(PyValueError::new_err(format!(
                    "{} matchers but the bitmask has only {} rows",
                    matchers.len(),
                    buf.rows
                )));
            }
            (0..matchers.len()).collect()
        }
    };
    // Distinct rows: the threads write them without locks.
    let mut seen = vec![false; buf.rows];
    for &r in &rows {
        if std::mem::replace(&mut seen[r], true) {
            return Err(PyValueError::new_err(format!(
                "row {r} appears twice in indices: each matcher needs its own row"
            )));
        }
    }
    let ms: Vec<&gcd_core::Matcher> = matchers.iter().map(|m| &m.m).collect();
    let ptr = buf.ptr()?;
    let words = buf.words;
    py.detach(move || {
        // SAFETY: see `RawRows::slice`; the rows are distinct (checked above).
        let all = unsafe { ptr.slice() };
        let contiguous = rows.iter().enumerate().all(|(i, &r)| i == r);
        if contiguous {
            // The common case (row i for matcher i): gcd-core's batch fill.
            let n = ms.len() * words;
            gcd_core::runtime::batch::fill_bitmasks(&ms, &mut all[..n])
                .expect("the prefix is a whole number of rows");
        } else {
            let mut slots: Vec<Option<&mut [i32]>> = all.chunks_mut(words).map(Some).collect();
            let jobs: Vec<(&gcd_core::Matcher, &mut [i32])> = (ms.iter().zip(&rows))
                .map(|(m, &r)| (*m, slots[r].take().expect("distinct rows")))
                .collect();
            jobs.into_par_iter()
                .for_each(|(m, row)| m.fill_bitmask(row));
        }
    });
    drop(buf);
    Ok(())
}

/// ceil(vocab_size / 32): the int32 words one bitmask row needs.
#[pyfunction]
fn bitmask_words(vocab_size: usize) -> usize {
    gcd_core::runtime::batch::bitmask_words(vocab_size)
}

#[pymodule]
fn _gcd(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyVocabulary>()?;
    m.add_class::<PyGrammar>()?;
    m.add_class::<PyMatcher>()?;
    m.add_function(wrap_pyfunction!(fill_next_token_bitmasks, m)?)?;
    m.add_function(wrap_pyfunction!(bitmask_words, m)?)?;
    m.add("GcdError", py.get_type::<GcdError>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("GrammarError", py.get_type::<GrammarError>())?;
    m.add("VocabularyError", py.get_type::<VocabularyError>())?;
    m.add("MatchError", py.get_type::<MatchError>())?;
    Ok(())
}

/// The `lexing=` argument of the grammar constructors.
fn lexing_named(name: &str) -> PyResult<gcd_core::compiled::Lexing> {
    name.parse().map_err(|e: gcd_core::UnknownOptionName| {
        PyValueError::new_err(format!(
            "lexing must be {}, not {name:?}",
            e.expected_list()
        ))
    })
}
