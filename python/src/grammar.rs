//! `Grammar`: a JSON Schema, Lark or GBNF grammar compiled and bound to
//! one vocabulary, and the string arguments its constructors take.

use std::sync::Arc;

use gcd_core::{BoundGrammar, CompiledGrammar};
use gcd_schema::{GrammarFormat, GrammarReader};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{match_err, vocab_err, GrammarError, SchemaError};
use crate::matcher::PyMatcher;
use crate::vocabulary::PyVocabulary;

/// A grammar compiled and bound to one vocabulary. Immutable and shared:
/// compile it once per schema and create one matcher per request.
#[pyclass(name = "Grammar", module = "gcd._gcd", frozen)]
pub(crate) struct PyGrammar {
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

    /// Compiles XGrammar's structural tag (a str of JSON or a dict:
    /// {"type": "structural_tag", "format": {...}}, or the older form with
    /// "structures" and "triggers") and binds it to vocab: the language
    /// XGrammar gives the tag, so gcd can stand behind an engine's
    /// structural-output path. Raises SchemaError for a malformed tag or a
    /// format gcd does not support (named in the message), TypeError for a
    /// tag that is not JSON-serializable.
    #[staticmethod]
    fn from_structural_tag(
        py: Python<'_>,
        tag: &Bound<'_, PyAny>,
        vocab: &PyVocabulary,
    ) -> PyResult<PyGrammar> {
        let value = schema_value(tag)?;
        let options = gcd_schema::Options::default();
        let compiled = py
            .detach(move || gcd_schema::structural_tag(&value, &options))
            .map_err(|e| SchemaError::new_err(e.to_string()))?;
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
    fn bind(
        py: Python<'_>,
        compiled: CompiledGrammar,
        vocab: &PyVocabulary,
    ) -> PyResult<PyGrammar> {
        let v = Arc::clone(&vocab.vocab);
        let trie = py.detach(|| vocab.trie());
        let bound = BoundGrammar::try_with_trie(Arc::new(compiled), v, trie).map_err(vocab_err)?;
        Ok(PyGrammar {
            bound: Arc::new(bound),
        })
    }
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
