"""Rollback restores earlier masks; forks are independent."""

from __future__ import annotations

import copy
import json
import random

import numpy as np

import gcd
from conftest import EOS, TOKENS, mask_of

V = len(TOKENS)


def test_rollback_restores_masks(small_grammar):
    rng = random.Random(4)
    m = small_grammar.matcher()
    masks, outputs = [], []
    while not m.is_finished() and len(m.tokens) < 40:
        mask = mask_of(m, V)
        masks.append(mask)
        outputs.append(m.output)
        choices = [int(t) for t in np.nonzero(mask)[0]]
        if not choices:
            break
        t = EOS if EOS in choices else rng.choice(choices)
        m.advance(t)
    n = len(m.tokens)
    assert n >= 5
    tokens = m.tokens
    for k in (1, 2, n // 2, n):
        r = m.fork()
        r.rollback(k)
        assert not r.is_finished()
        assert r.tokens == tokens[: n - k]
        assert r.output == outputs[n - k]
        assert (mask_of(r, V) == masks[n - k]).all(), f"rollback({k}) mask differs"
        # and it can go forward again the same way
        for t in tokens[n - k:]:
            r.advance(t)
        assert r.tokens == tokens
    m.rollback(0)
    assert m.tokens == tokens


def test_rollback_after_eos(small_grammar):
    m = small_grammar.matcher()
    for piece in [b'{"', b"name", b'":', b'"', b"ab", b'",', b'"age":', b"10", b"}"]:
        m.advance(TOKENS.index(piece))
    assert json.loads(m.output) == {"name": "ab", "age": 10}
    before = mask_of(m, V)
    m.advance(EOS)
    assert m.is_finished() and not m.is_complete()
    assert not mask_of(m, V).any()
    with __import__("pytest").raises(gcd.MatchError, match="after end of sequence"):
        m.advance(TOKENS.index(b" "))
    m.rollback(1)
    assert not m.is_finished() and m.is_complete()
    assert (mask_of(m, V) == before).all()


def test_fork_is_independent(small_grammar):
    m = small_grammar.matcher()
    m.advance(TOKENS.index(b'{"'))
    base_mask = mask_of(m, V)
    f = m.fork()
    g = copy.copy(m)
    f.advance(TOKENS.index(b"name"))
    assert m.output == b'{"' and g.output == b'{"'
    assert f.output == b'{"name'
    assert (mask_of(m, V) == base_mask).all()
    assert not (mask_of(f, V) == base_mask).all()
    f.rollback(1)
    assert (mask_of(f, V) == base_mask).all()


def test_budget_property(small_grammar):
    m = small_grammar.matcher()
    assert m.budget is None
    m.budget = 30
    assert m.budget == 30
    m.budget = None
    assert m.budget is None
