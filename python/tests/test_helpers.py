"""The numpy helpers: allocation shape and the reference mask application."""

from __future__ import annotations

import numpy as np

import gcd


def test_allocate_shape_and_dtype():
    bm = gcd.allocate_token_bitmask(3, 65)
    assert bm.shape == (3, 3) and bm.dtype == np.int32 and not bm.any()
    assert gcd.allocate_token_bitmask(2, 64).shape == (2, 2)
    assert gcd.bitmask_words(0) == 0 and gcd.bitmask_words(1) == 1 and gcd.bitmask_words(33) == 2


def test_apply_token_bitmask_inplace_bit_order():
    bm = np.zeros((2, 2), dtype=np.int32)
    bm[0, 0] = 1 | (1 << 5)          # tokens 0 and 5
    bm[0, 1] = np.int32(-2**31)      # bit 31 of word 1: token 63
    bm[1, 1] = 1 << 2                # token 34
    logits = np.zeros((2, 50), dtype=np.float32)
    gcd.apply_token_bitmask_inplace(logits, bm)
    assert np.isfinite(logits[0]).nonzero()[0].tolist() == [0, 5]  # 63 is past the width
    assert np.isfinite(logits[1]).nonzero()[0].tolist() == [34]
    one = np.zeros(64, dtype=np.float64)
    gcd.apply_token_bitmask_inplace(one, bm[0])
    assert np.isfinite(one).nonzero()[0].tolist() == [0, 5, 63]


def test_apply_forbids_ids_past_the_bitmask():
    logits = np.zeros((1, 40), dtype=np.float32)
    gcd.apply_token_bitmask_inplace(logits, np.full((1, 1), -1, dtype=np.int32))
    assert np.isfinite(logits[0, :32]).all() and not np.isfinite(logits[0, 32:]).any()
