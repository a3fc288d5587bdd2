//! `Matcher`: one output followed token by token, and the bitmask of the
//! tokens that may come next.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::bitmask::Bitmask;
use crate::errors::{match_err, MatchError};

/// Follows one output token by token and computes which tokens may come
/// next. One per request; fork() is cheap.
#[pyclass(name = "Matcher", module = "gcd._gcd")]
pub(crate) struct PyMatcher {
    pub(crate) m: gcd_core::Matcher,
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
        self.m
            .set_lexeme_cap(terminal, max_tokens)
            .map_err(match_err)
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
        let mut buf = Bitmask::get(bitmask, self.m.bound().vocab().len())?;
        let row = buf.row_index(index)?;
        let words = buf.words;
        let m = &self.m;
        buf.fill(py, move |all| {
            m.fill_bitmask(&mut all[row * words..(row + 1) * words]);
        })
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
