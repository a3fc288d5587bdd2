"""gcd: exact token masks for grammar-constrained LLM decoding.

The compiled core (``gcd._gcd``) holds vocabularies, grammars bound to them
and per-request matchers; this package re-exports it and adds small numpy
helpers for engines that do not bring their own bitmask kernels.

Bitmask layout (shared with vLLM, SGLang and XGrammar): an ``int32`` array of
shape ``(batch, ceil(V / 32))``; bit ``i % 32`` of word ``i // 32`` is set iff
token ``i`` is allowed.
"""

from __future__ import annotations

from typing import Any

from ._gcd import (
    GcdError,
    Grammar,
    GrammarError,
    MatchError,
    Matcher,
    SchemaError,
    Vocabulary,
    VocabularyError,
    bitmask_words,
    fill_next_token_bitmasks,
)

__all__ = [
    "GcdError",
    "Grammar",
    "GrammarError",
    "MatchError",
    "Matcher",
    "SchemaError",
    "Vocabulary",
    "VocabularyError",
    "allocate_token_bitmask",
    "apply_token_bitmask_inplace",
    "bitmask_words",
    "fill_next_token_bitmasks",
]

__version__ = "0.1.0"


def allocate_token_bitmask(batch: int, vocab_size: int) -> Any:
    """A zeroed ``int32`` numpy array of shape ``(batch, ceil(vocab_size / 32))``.

    ``vocab_size`` may be the model's logits width when it is larger than the
    tokenizer's vocabulary (padded embedding tables): the extra ids stay
    forbidden when the matcher fills the row.
    """
    import numpy as np  # lazily: the core does not need numpy

    if batch < 0 or vocab_size < 0:
        raise ValueError(f"batch and vocab_size must be >= 0, got {batch}, {vocab_size}")
    return np.zeros((batch, bitmask_words(vocab_size)), dtype=np.int32)


def apply_token_bitmask_inplace(logits: Any, bitmask: Any) -> None:
    """Sets every logit whose bit is clear in ``bitmask`` to ``-inf``, in place.

    A numpy reference for engines without a GPU kernel and for tests.
    ``logits`` is a float array of shape ``(batch, V)`` or ``(V,)``; ``bitmask``
    has shape ``(batch, W)`` or ``(W,)`` with ``32 * W >= V``. Ids at or past
    ``32 * W`` (none, when the bitmask was allocated for this width) are
    treated as forbidden.
    """
    import numpy as np

    logits_arr = logits
    if not isinstance(logits_arr, np.ndarray):
        raise TypeError(f"logits must be a numpy array, got {type(logits).__name__}")
    if not np.issubdtype(logits_arr.dtype, np.floating):
        raise TypeError(f"logits must be a float array, got dtype {logits_arr.dtype}")
    mask = np.asarray(bitmask)
    if mask.dtype != np.int32:
        raise TypeError(f"bitmask must have dtype int32, got {mask.dtype}")
    one_row = logits_arr.ndim == 1
    lg = logits_arr[None, :] if one_row else logits_arr
    mk = mask[None, :] if mask.ndim == 1 else mask
    if lg.ndim != 2 or mk.ndim != 2:
        raise ValueError("logits and bitmask must be 1-D or 2-D")
    if lg.shape[0] != mk.shape[0]:
        raise ValueError(
            f"logits has {lg.shape[0]} rows but bitmask has {mk.shape[0]}"
        )
    width = lg.shape[1]
    # Unpack each int32 word into its 32 bits, lowest bit = lowest token id.
    bits = (mk.view(np.uint32)[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1
    allowed = bits.reshape(mk.shape[0], -1).astype(bool)
    if allowed.shape[1] < width:
        pad = np.zeros((mk.shape[0], width - allowed.shape[1]), dtype=bool)
        allowed = np.concatenate([allowed, pad], axis=1)
    lg[~allowed[:, :width]] = -np.inf
