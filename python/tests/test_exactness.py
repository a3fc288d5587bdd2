"""The bitmask is exactly the set of tokens advance() accepts."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import gcd
from conftest import EOS, SCHEMA, TOKENS, brute_force, check_schema_value, mask_of

V = len(TOKENS)


def walk_and_check(grammar: gcd.Grammar, seed: int, max_steps: int = 60) -> gcd.Matcher:
    """A random walk over allowed tokens, checking mask == brute force at
    every step, and EOS allowed iff the output is complete."""
    rng = random.Random(seed)
    m = grammar.matcher()
    for _ in range(max_steps):
        mask = mask_of(m, V)
        expected = brute_force(m, V)
        diff = np.nonzero(mask != expected)[0]
        assert diff.size == 0, (
            f"seed {seed}, output {m.output!r}: mask and advance disagree on "
            f"{[(int(t), TOKENS[t], bool(mask[t])) for t in diff]}"
        )
        assert mask[EOS] == m.is_complete()
        choices = [int(t) for t in np.nonzero(mask)[0]]
        if not choices:
            # The vocabulary cannot spell any continuation (a dead end the
            # grammar cannot see); brute force agreed above, so stop here.
            break
        # Prefer to go on for a while, then to finish.
        if EOS in choices and (len(m.tokens) > 25 or rng.random() < 0.3):
            t = EOS
        else:
            t = rng.choice([c for c in choices if c != EOS] or choices)
        m.advance(t)
        if m.is_finished():
            break
    return m


@pytest.mark.parametrize("seed", range(12))
def test_mask_equals_brute_force_on_random_walks(small_grammar, seed):
    m = walk_and_check(small_grammar, seed)
    if m.is_finished():
        check_schema_value(json.loads(m.output))
        assert m.tokens[-1] == EOS
        # Nothing is allowed after EOS.
        assert not mask_of(m, V).any()


@pytest.mark.parametrize("seed", range(6))
def test_mask_exact_with_any_order_and_json_whitespace(small_vocab, seed):
    g = gcd.Grammar.from_json_schema(
        json.dumps(SCHEMA), small_vocab, whitespace="json", any_order=True
    )
    m = walk_and_check(g, 100 + seed)
    if m.is_finished():
        check_schema_value(json.loads(m.output))


@pytest.mark.parametrize("seed", range(6))
def test_mask_exact_with_capped_whitespace(small_vocab, seed):
    g = gcd.Grammar.from_json_schema(SCHEMA, small_vocab, whitespace="capped:2")
    m = walk_and_check(g, 200 + seed)
    if m.is_finished():
        check_schema_value(json.loads(m.output))


def test_capped_whitespace_stops_at_the_cap(small_vocab):
    g = gcd.Grammar.from_json_schema(SCHEMA, small_vocab, whitespace="capped:2")
    m = g.matcher()
    space = TOKENS.index(b" ")
    assert not mask_of(m, V)[space], "no whitespace before the value"
    m.advance(TOKENS.index(b"{"))
    m.advance(space)
    m.advance(TOKENS.index(b"\n"))
    assert not mask_of(m, V)[space], "a third byte of whitespace after {"
    with pytest.raises(ValueError, match="capped:N"):
        gcd.Grammar.from_json_schema(SCHEMA, small_vocab, whitespace="capped:x")


def test_compact_whitespace_refuses_spaces(small_vocab):
    m = gcd.Grammar.from_json_schema(SCHEMA, small_vocab, whitespace="compact").matcher()
    mask = mask_of(m, V)
    assert not mask[TOKENS.index(b" ")]
    assert mask[TOKENS.index(b'{"')] and mask[TOKENS.index(b"{")]
    assert not mask[TOKENS.index(b"}")]  # name and age are required


def test_some_walks_finish(small_grammar):
    finished = sum(walk_and_check(small_grammar, 1000 + s, 80).is_finished() for s in range(8))
    assert finished >= 1, "no random walk reached EOS: the walks test too little"


def test_wide_rows_forbid_ids_past_the_vocabulary(small_grammar):
    m = small_grammar.matcher()
    m.advance(TOKENS.index(b'{"'))
    bm = np.full((1, 4), -1, dtype=np.int32)  # 128 ids, vocabulary has V
    m.fill_next_token_bitmask(bm)
    from conftest import allowed_ids

    allowed = allowed_ids(bm[0])
    assert not allowed[V:].any()
    assert (allowed[:V] == brute_force(m, V)).all()
