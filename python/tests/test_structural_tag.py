"""XGrammar's structural tags: the tag's language, exact masks, clear refusals."""

from __future__ import annotations

import json

import pytest

import gcd
from conftest import brute_force, mask_of

PIECES = [b"<t>", b"</t>", b"{", b"}", b'"', b"q", b":", b"a", b" ", b"<", b"<eos>"]
EOS = len(PIECES) - 1

TAG = {
    "type": "structural_tag",
    "format": {
        "type": "triggered_tags",
        "triggers": ["<t>"],
        "tags": [
            {
                "type": "tag",
                "begin": "<t>",
                "content": {
                    "type": "json_schema",
                    "json_schema": {
                        "type": "object",
                        "properties": {"q": {"type": "string"}},
                        "required": ["q"],
                    },
                },
                "end": "</t>",
            }
        ],
        "excludes": ["<eos>"],
    },
}


@pytest.fixture(scope="module")
def vocab():
    # Single bytes too, so any text can be fed a byte at a time.
    return gcd.Vocabulary.from_tokens(PIECES[:-1] + [bytes([b]) for b in range(256)] + [b"<eos>"], eos_ids=[EOS + 256])


def accepts(g: gcd.Grammar, vocab_size: int, text: bytes) -> bool:
    m = g.matcher()
    for b in text:
        if not m.accept_token(len(PIECES) - 1 + b):
            return False
    return m.is_complete()


@pytest.mark.parametrize("as_text", [False, True])
def test_structural_tag_language(vocab, as_text):
    g = gcd.Grammar.from_structural_tag(json.dumps(TAG) if as_text else TAG, vocab)
    n = g.vocab_size
    assert accepts(g, n, b"")
    assert accepts(g, n, b'hi <t>{"q": "x"}</t> bye')
    assert not accepts(g, n, b"hi <t>oops</t>")
    assert not accepts(g, n, b'<t>{"q": "x"}')


def test_structural_tag_masks_are_exact(vocab):
    g = gcd.Grammar.from_structural_tag(TAG, vocab)
    m = g.matcher()
    for t in [PIECES.index(b"a"), PIECES.index(b"<t>"), PIECES.index(b"{")]:
        assert (mask_of(m, g.vocab_size) == brute_force(m, g.vocab_size)).all()
        assert m.accept_token(t)


def test_structural_tag_refusals_name_the_format(vocab):
    with pytest.raises(gcd.SchemaError, match="token"):
        gcd.Grammar.from_structural_tag({"type": "structural_tag", "format": {"type": "token", "token": 1}}, vocab)
    with pytest.raises(gcd.SchemaError, match="unknown format type"):
        gcd.Grammar.from_structural_tag({"type": "structural_tag", "format": {"type": "nope"}}, vocab)
