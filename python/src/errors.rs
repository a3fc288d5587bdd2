//! The exception classes, all `GcdError`s (a `ValueError`), and the
//! conversions the classes raise them with.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

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

pub(crate) fn vocab_err(e: impl std::fmt::Display) -> PyErr {
    VocabularyError::new_err(e.to_string())
}

pub(crate) fn match_err(e: impl std::fmt::Display) -> PyErr {
    MatchError::new_err(e.to_string())
}
