"""Shared fixtures: a small synthetic vocabulary of JSON pieces, a schema
over it, and helpers to read bitmask rows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import gcd

REPO_ROOT = Path(__file__).resolve().parents[2]
# GCD_SHARED_DATA overrides the location, as for the Rust tests (CI hides
# the data with it to run what a fresh clone runs).
SHARED = Path(os.environ.get("GCD_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))

# ~40 pieces of JSON, overlapping on purpose (`"name":` and `name`, `tru` and
# `true`, `-` and `-1`) so that the mask must reason across token boundaries.
TOKENS = [
    b"{", b"}", b'{"', b'"', b'",', b'":', b":", b",", b"name", b'"name":',
    b"age", b'"age":', b"ok", b'"ok":', b"tags", b"[", b"]", b'["', b'"]',
    b"0", b"1", b"2", b"9", b"10", b"-", b"-1", b"a", b"b", b"ab", b"x",
    b" ", b"true", b"false", b"tru", b"e", b"null", b"\\", b'\\"', b'}"',
    b"1.5", b"\n", b"g", b"ge", b"s",
    b"<eos>",  # the EOS token, last
]
EOS = len(TOKENS) - 1

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 4},
        "age": {"type": "integer", "minimum": 0},
        "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


@pytest.fixture(scope="session")
def small_vocab() -> gcd.Vocabulary:
    return gcd.Vocabulary.from_tokens(TOKENS, eos_ids=[EOS])


@pytest.fixture(scope="session")
def small_grammar(small_vocab) -> gcd.Grammar:
    return gcd.Grammar.from_json_schema(SCHEMA, small_vocab)


@pytest.fixture(scope="session")
def o200k() -> gcd.Vocabulary:
    return gcd.Vocabulary.load("o200k")


def allowed_ids(row: np.ndarray) -> np.ndarray:
    """The boolean allowed-array of one bitmask row (bit i%32 of word i//32)."""
    bits = (row.view(np.uint32)[:, None] >> np.arange(32, dtype=np.uint32)) & 1
    return bits.reshape(-1).astype(bool)


def mask_of(m: gcd.Matcher, vocab_size: int) -> np.ndarray:
    """The matcher's allowed set as a bool array of length vocab_size."""
    bm = gcd.allocate_token_bitmask(1, vocab_size)
    m.fill_next_token_bitmask(bm)
    return allowed_ids(bm[0])[:vocab_size]


def brute_force(m: gcd.Matcher, vocab_size: int) -> np.ndarray:
    """Which tokens advance() accepts, asking a fork of the matcher for each."""
    return np.array([m.fork().accept_token(t) for t in range(vocab_size)])


def check_schema_value(value) -> None:
    """Validates against SCHEMA-like constraints by hand (no jsonschema needed)."""
    assert isinstance(value, dict)
    assert set(value) <= {"name", "age", "ok", "tags"}
    assert isinstance(value["name"], str) and len(value["name"]) <= 4
    assert isinstance(value["age"], int) and not isinstance(value["age"], bool)
    assert value["age"] >= 0
    if "ok" in value:
        assert isinstance(value["ok"], bool)
    if "tags" in value:
        assert isinstance(value["tags"], list) and len(value["tags"]) <= 3
        assert all(t in ("a", "b") for t in value["tags"])


def dumps(value) -> str:
    return json.dumps(value)
