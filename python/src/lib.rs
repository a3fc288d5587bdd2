//! Python bindings for gcd (`gcd._gcd`): vocabularies, grammars bound to
//! them, and matchers that write token bitmasks into caller-owned `int32`
//! arrays, the layout vLLM, SGLang and XGrammar share.
//!
//! Buffers come in through the buffer protocol rather than the `numpy`
//! crate: anything exporting a writable C-contiguous `int32` buffer works
//! (numpy arrays, CPU torch tensors via `.numpy()`), and there is no numpy
//! ABI to build against.
//!
//! One module per class (`vocabulary`, `grammar`, `matcher`), the batch
//! functions (`batch`), the exceptions (`errors`), and `bitmask`, the
//! checked buffer and the package's only unsafe code.

use pyo3::prelude::*;

mod batch;
mod bitmask;
mod errors;
mod grammar;
mod matcher;
mod vocabulary;

use batch::{bitmask_words, fill_next_token_bitmasks};
use errors::{GcdError, GrammarError, MatchError, SchemaError, VocabularyError};
use grammar::PyGrammar;
use matcher::PyMatcher;
use vocabulary::PyVocabulary;

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
