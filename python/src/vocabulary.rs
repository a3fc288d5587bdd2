//! `Vocabulary`: a tokenizer's token ids and their exact bytes, and the
//! token trie every grammar bound to it shares.

use std::sync::{Arc, OnceLock};

use gcd_core::vocab::trie::TokenTrie;
use gcd_core::Vocabulary;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{vocab_err, VocabularyError};

/// A tokenizer's vocabulary: every token id and its exact bytes, plus the
/// EOS ids.
#[pyclass(name = "Vocabulary", module = "gcd._gcd", frozen)]
pub(crate) struct PyVocabulary {
    pub(crate) vocab: Arc<Vocabulary>,
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

    pub(crate) fn trie(&self) -> Arc<TokenTrie> {
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
