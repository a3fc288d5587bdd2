"""Batch fills equal row-by-row fills, with and without indices, from
several Python threads at once."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

import gcd
from conftest import EOS, SCHEMA, TOKENS, mask_of

V = len(TOKENS)


def matchers_at_various_states(grammar: gcd.Grammar, n: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        m = grammar.matcher()
        for _ in range(i * 3):
            choices = [t for t in np.nonzero(mask_of(m, V))[0] if t != EOS]
            if not choices:
                break
            m.advance(int(rng.choice(choices)))
        out.append(m)
    return out


def row_by_row(matchers, rows: int, words: int, indices=None) -> np.ndarray:
    expected = np.full((rows, words), -7, dtype=np.int32)
    for i, m in enumerate(matchers):
        m.fill_next_token_bitmask(expected, i if indices is None else indices[i])
    return expected


def test_batch_equals_row_by_row(small_grammar):
    ms = matchers_at_various_states(small_grammar, 6)
    words = gcd.bitmask_words(V)
    batch = np.full((6, words), -7, dtype=np.int32)
    gcd.fill_next_token_bitmasks(ms, batch)
    expected = row_by_row(ms, 6, words)
    assert (batch == expected).all()
    # The rows really differ (the matchers are at different states).
    assert len({row.tobytes() for row in batch}) > 1


def test_batch_with_indices_leaves_other_rows_alone(small_grammar):
    ms = matchers_at_various_states(small_grammar, 4, seed=3)
    words = gcd.bitmask_words(V) + 1  # wider than needed is fine
    indices = [5, 0, 3, 1]
    batch = np.full((7, words), -7, dtype=np.int32)
    gcd.fill_next_token_bitmasks(ms, batch, indices=indices)
    expected = row_by_row(ms, 7, words, indices)
    assert (batch == expected).all()
    assert (batch[[2, 4, 6]] == -7).all()  # untouched rows


def test_batch_with_fewer_matchers_than_rows(small_grammar):
    ms = matchers_at_various_states(small_grammar, 2, seed=5)
    words = gcd.bitmask_words(V)
    batch = np.full((4, words), -7, dtype=np.int32)
    gcd.fill_next_token_bitmasks(ms, batch)
    assert (batch[:2] == row_by_row(ms, 2, words)).all()
    assert (batch[2:] == -7).all()
    gcd.fill_next_token_bitmasks([], batch)  # no matchers: nothing to do


def test_batch_mixes_grammars_and_vocabularies(small_grammar, o200k):
    g2 = gcd.Grammar.from_json_schema(SCHEMA, o200k)
    m2 = g2.matcher()
    m2.advance(o200k.encode('{"')[0])
    ms = [small_grammar.matcher(), m2, g2.matcher()]
    bitmask = gcd.allocate_token_bitmask(3, o200k.size)
    gcd.fill_next_token_bitmasks(ms, bitmask)
    assert (bitmask == row_by_row(ms, 3, bitmask.shape[1])).all()


def test_batch_from_several_threads(small_grammar, o200k):
    g2 = gcd.Grammar.from_json_schema(SCHEMA, o200k)
    ms = matchers_at_various_states(small_grammar, 5, seed=9) + [g2.matcher() for _ in range(3)]
    words = gcd.bitmask_words(o200k.size)
    expected = row_by_row(ms, len(ms), words)
    errors: list = []

    def work(k: int) -> None:
        try:
            rng = random.Random(k)
            for _ in range(15):
                order = list(range(len(ms)))
                rng.shuffle(order)
                bm = np.zeros((len(ms), words), dtype=np.int32)
                gcd.fill_next_token_bitmasks(ms, bm, indices=order)
                # matcher i wrote row order[i]
                for i, r in enumerate(order):
                    if not (bm[r] == expected[i]).all():
                        errors.append(f"thread {k}: row {r} of matcher {i} differs")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {k}: {e!r}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_single_row_fill_from_threads(o200k):
    g = gcd.Grammar.from_json_schema(SCHEMA, o200k)
    words = gcd.bitmask_words(o200k.size)
    ref = g.matcher()
    expected = np.zeros(words, dtype=np.int32)
    ref.fill_next_token_bitmask(expected)
    errors: list = []

    def work() -> None:
        m = g.matcher()
        row = np.zeros(words, dtype=np.int32)  # a 1-D bitmask is one row
        for _ in range(10):
            m.fill_next_token_bitmask(row)
            if not (row == expected).all():
                errors.append("differs")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
