//! The batch functions: one bitmask row per matcher, filled in parallel,
//! and the width those rows need.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::bitmask::Bitmask;
use crate::matcher::PyMatcher;

/// Fills one bitmask row per matcher, in parallel and without the GIL.
/// indices[i] is the row matchers[i] fills (default: row i); other rows are
/// untouched. bitmask is as for Matcher.fill_next_token_bitmask, wide enough
/// for the largest vocabulary. Raises ValueError if rows repeat or do not
/// exist, or len(indices) != len(matchers); TypeError if not an int32 buffer.
#[pyfunction]
#[pyo3(signature = (matchers, bitmask, indices = None))]
pub(crate) fn fill_next_token_bitmasks(
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
    let mut buf = Bitmask::get(bitmask, vocab_len)?;
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
    // Distinct rows: each matcher writes its own, in parallel (the row
    // slots below are taken once each).
    let mut seen = vec![false; buf.rows];
    for &r in &rows {
        if std::mem::replace(&mut seen[r], true) {
            return Err(PyValueError::new_err(format!(
                "row {r} appears twice in indices: each matcher needs its own row"
            )));
        }
    }
    let ms: Vec<&gcd_core::Matcher> = matchers.iter().map(|m| &m.m).collect();
    let words = buf.words;
    buf.fill(py, move |all| {
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
    })
}

/// ceil(vocab_size / 32): the int32 words one bitmask row needs.
#[pyfunction]
pub(crate) fn bitmask_words(vocab_size: usize) -> usize {
    gcd_core::runtime::batch::bitmask_words(vocab_size)
}
