//! The caller's bitmask buffer, checked, and the only unsafe code of the
//! package: writing its rows from threads that do not hold the GIL.
//!
//! Why it is sound: [`Bitmask`] holds the `PyBuffer` for as long as it
//! lives, which keeps the exporter's memory alive and unmoved, and every
//! write goes through [`Bitmask::fill`], which borrows the `Bitmask`
//! mutably for the whole write and hands out one `&mut` slice of the
//! memory, so Rust sees no other reference to it; threads get disjoint
//! rows of that slice by safe splitting. Python code writing the same array from
//! another thread during the call is the caller's data race, as with any
//! native kernel.

use std::ptr::NonNull;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A checked bitmask buffer: int32, writable, C-contiguous, 1 or 2 dims,
/// rows wide enough for the vocabulary.
pub(crate) struct Bitmask {
    buf: PyBuffer<i32>,
    /// Rows (1 for a 1-D buffer).
    pub rows: usize,
    /// int32 words per row.
    pub words: usize,
}

/// The buffer's memory, sendable to the threads that fill it.
#[derive(Clone, Copy)]
struct RawRows(NonNull<[i32]>);

// SAFETY: the memory is owned by the exporter, kept alive and unmoved by the
// `PyBuffer` held across the call (module docs); the threads it is sent to
// write it through the one `&mut` slice `Bitmask::fill` makes.
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
    pub fn get(obj: &Bound<'_, PyAny>, vocab_len: usize) -> PyResult<Bitmask> {
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

    pub fn row_index(&self, index: i64) -> PyResult<usize> {
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

    /// Runs `write` on the whole buffer (`rows * words` int32s, row after
    /// row) with the GIL released. `&mut self`: one write at a time.
    pub fn fill<F>(&mut self, py: Python<'_>, write: F) -> PyResult<()>
    where
        F: FnOnce(&mut [i32]) + Send,
    {
        let rows = self.ptr()?;
        py.detach(move || {
            // SAFETY: `self` is borrowed mutably until `detach` returns, so
            // its `PyBuffer` outlives the slice and no other `fill` makes a
            // second reference to the memory meanwhile (module docs).
            let all = unsafe { rows.slice() };
            write(all)
        });
        Ok(())
    }
}
