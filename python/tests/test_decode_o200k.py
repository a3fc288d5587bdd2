"""A full random decode on the embedded o200k vocabulary."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gcd
from conftest import SCHEMA, allowed_ids, check_schema_value

try:
    import jsonschema
except ImportError:  # validated by hand below as well
    jsonschema = None


def decode(grammar: gcd.Grammar, vocab: gcd.Vocabulary, seed: int, budget: int, width: int):
    rng = np.random.default_rng(seed)
    m = grammar.matcher(budget=budget)
    bitmask = gcd.allocate_token_bitmask(1, width)
    steps = 0
    while not m.is_finished():
        steps += 1
        assert steps <= budget + 1, "decoding went past the budget"
        logits = rng.standard_normal((1, width)).astype(np.float32)
        m.fill_next_token_bitmask(bitmask, 0)
        assert not allowed_ids(bitmask[0])[vocab.size:].any(), "padding ids allowed"
        gcd.apply_token_bitmask_inplace(logits, bitmask)
        assert np.isfinite(logits).any(), f"empty mask after {m.output!r}"
        token = int(np.argmax(logits[0]))
        assert token < vocab.size
        m.advance(token)  # raises if the mask allowed a token advance refuses
    assert m.tokens[-1] in vocab.eos_ids
    return m


@pytest.mark.parametrize("seed", range(3))
def test_random_decode_is_valid_json_of_the_schema(o200k, seed):
    g = gcd.Grammar.from_json_schema(SCHEMA, o200k, whitespace="compact")
    budget = 40
    # Model logits are often wider than the tokenizer (padded embeddings).
    width = o200k.size + 45
    m = decode(g, o200k, seed, budget, width)
    assert len(m.tokens) - 1 <= budget
    text = m.output.decode("utf-8")
    value = json.loads(text)
    check_schema_value(value)
    if jsonschema is not None:
        jsonschema.validate(value, SCHEMA)
    assert o200k.decode(m.tokens[:-1]) == m.output


def test_budget_is_honoured_when_tight(o200k):
    g = gcd.Grammar.from_json_schema(SCHEMA, o200k)
    m = g.matcher()
    need = m.min_tokens_to_complete()
    assert need > 0
    tight = g.matcher(budget=need)
    assert tight.budget == need
    out = decode(g, o200k, 7, need, o200k.size)
    assert len(out.tokens) - 1 <= need
    check_schema_value(json.loads(out.output))
    with pytest.raises(gcd.MatchError):
        g.matcher(budget=need - 1)


def test_forced_tokens_jump_forward(o200k):
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
    # Whitespace may follow `{` under the default policy: only `{` is forced.
    assert gcd.Grammar.from_json_schema(schema, o200k).matcher().forced_bytes() == b"{"
    g = gcd.Grammar.from_json_schema(schema, o200k, whitespace="compact")
    m = g.matcher()
    forced = m.forced_tokens()
    assert o200k.decode(forced) == b'{"answer":'
    assert m.forced_bytes() == b'{"answer":'
    for t in forced:
        m.advance(t)
    assert m.forced_tokens() == []
    assert m.accepts_bytes(b"42}")
    assert not m.accepts_bytes(b'"x"')
    # Jump forward by bytes: the forced bytes fed directly lead to the same
    # mask as the forced tokens.
    by_bytes = g.matcher()
    by_bytes.advance_bytes(b'{"answer":')
    assert by_bytes.output == m.output
    masks = gcd.allocate_token_bitmask(2, o200k.size)
    m.fill_next_token_bitmask(masks, 0)
    by_bytes.fill_next_token_bitmask(masks, 1)
    assert (masks[0] == masks[1]).all()
    with pytest.raises(gcd.MatchError):
        by_bytes.advance_bytes(b'"x"')
    by_bytes.advance_bytes(b"42}")
    assert by_bytes.is_complete()
    by_bytes.rollback(1)
    assert by_bytes.output == b'{"answer":'


def test_encode_replay(o200k):
    g = gcd.Grammar.from_json_schema(SCHEMA, o200k, whitespace="single_space")
    doc = {"name": "Bo", "age": 31, "tags": ["a", "b"]}
    m = g.matcher()
    for t in o200k.encode(json.dumps(doc)):
        bm = gcd.allocate_token_bitmask(1, o200k.size)
        m.fill_next_token_bitmask(bm)
        assert allowed_ids(bm[0])[t]
        m.advance(t)
    assert m.is_complete()
    assert json.loads(m.output) == doc
