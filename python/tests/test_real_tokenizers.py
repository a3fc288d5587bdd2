"""Real tokenizer files from the shared data folder (skipped when absent)."""

from __future__ import annotations

import json
import re

import pytest

import gcd
from conftest import SCHEMA, SHARED, allowed_ids

LLAMA3 = SHARED / "tokenizers" / "llama3" / "tokenizer.json"

needs_llama3 = pytest.mark.skipif(
    not LLAMA3.exists(), reason=f"shared Llama-3 tokenizer not found at {LLAMA3}"
)


@needs_llama3
def test_llama3_loads_and_constrains():
    v = gcd.Vocabulary.from_tokenizer_json(LLAMA3)
    assert v.size == len(v) == 128256
    assert v.eos_ids, "Llama-3 has EOS ids"
    assert gcd.Vocabulary.load(str(LLAMA3.parent)).size == v.size
    doc = {"name": "Ana", "age": 7, "ok": True}
    text = json.dumps(doc)
    ids = v.encode(text)
    assert v.decode(ids) == text.encode()
    g = gcd.Grammar.from_json_schema(SCHEMA, v, whitespace="single_space")
    m = g.matcher()
    bm = gcd.allocate_token_bitmask(1, v.size)
    for t in ids:
        m.fill_next_token_bitmask(bm)
        assert allowed_ids(bm[0])[t], f"token {t} ({v.token_bytes(t)!r}) refused"
        m.advance(t)
    m.fill_next_token_bitmask(bm)
    allowed = allowed_ids(bm[0])
    assert all(allowed[e] for e in v.eos_ids)
    assert int(allowed.sum()) == len(v.eos_ids)  # after "}", only EOS


def test_cl100k_embedded():
    v = gcd.Vocabulary.load("cl100k")
    assert v.size > 100_000 and v.eos_ids
    assert v.decode(v.encode("hello world")) == b"hello world"


@needs_llama3
def test_llama3_special_token_in_lark():
    v = gcd.Vocabulary.from_tokenizer_json(LLAMA3)
    g = gcd.Grammar.from_lark('start: CALL <|eot_id|>\nCALL: /[a-z]+\\(\\)/', v)
    m = g.matcher()
    for t in v.encode("run()"):
        m.advance(t)
    bm = gcd.allocate_token_bitmask(1, v.size)
    m.fill_next_token_bitmask(bm)
    allowed = allowed_ids(bm[0]).nonzero()[0].tolist()
    assert len(allowed) == 1, "only <|eot_id|> may follow the call"
    assert v.token_bytes(allowed[0]) == b"<|eot_id|>"
    m.advance(allowed[0])
    assert m.is_complete()
    assert m.text == "run()<|eot_id|>"
    with pytest.raises(gcd.VocabularyError, match=re.escape("no special token <|im_end|>")):
        gcd.Grammar.from_lark("start: <|im_end|>", v)
