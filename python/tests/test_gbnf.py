"""GBNF grammars: llama.cpp's character-level language, exact masks."""

from __future__ import annotations

import random

import numpy as np
import pytest

import gcd
from conftest import brute_force, mask_of

# `[a-z]+` followed by `[a-z]`: a lexer that took the letters as one
# lexeme would swallow the last one; GBNF's meaning keeps it.
LIST = r"""
root ::= "[" item ("," ws item)* "]"
item ::= [a-z]+ [a-z] | "é" | "\"" [^"\\]* "\""
ws ::= [ \t]*
"""

CHARS = [b"[", b"]", b",", b" ", b"a", b"b", b"ab", b"\xc3", b"\xa9", b"\xc3\xa9", b'"', b"x\"", b"<eos>"]
EOS = len(CHARS) - 1


@pytest.fixture(scope="module")
def vocab():
    return gcd.Vocabulary.from_tokens(CHARS, eos_ids=[EOS])


def feed(g: gcd.Grammar, text: bytes) -> gcd.Matcher | None:
    """A matcher after text fed byte-token by byte-token, or None if refused."""
    m = g.matcher()
    for b in text:
        t = CHARS.index(bytes([b]))
        if not m.accept_token(t):
            return None
    return m


def test_gbnf_verdicts(vocab):
    g = gcd.Grammar.from_gbnf(LIST, vocab)
    for text, complete in [
        (b"[ab]", True),
        (b"[a]", False),  # one letter: `[a-z]+ [a-z]` needs two
        (b"[ab, \xc3\xa9,ba]", True),
        (b'["a b"]', True),
        (b"[ab ,ab]", False),  # no space before a comma
    ]:
        m = feed(g, text)
        assert (m is not None and m.is_complete()) == complete, text


def test_gbnf_mask_exact_on_random_walks(vocab):
    g = gcd.Grammar.from_gbnf(LIST, vocab)
    for seed in range(6):
        rng = random.Random(seed)
        m = g.matcher()
        for _ in range(25):
            mask = mask_of(m, len(CHARS))
            assert (mask == brute_force(m, len(CHARS))).all(), m.output
            assert mask[EOS] == m.is_complete()
            choices = list(np.nonzero(mask)[0])
            t = EOS if EOS in choices and rng.random() < 0.3 else int(rng.choice(choices))
            m.advance(int(t))
            if m.is_finished():
                break


def test_gbnf_errors_name_the_problem(vocab):
    with pytest.raises(gcd.GrammarError, match="rule `nope` is used in `root`"):
        gcd.Grammar.from_gbnf('root ::= "a" nope', vocab)
    with pytest.raises(gcd.GrammarError, match="no rule named `root`"):
        gcd.Grammar.from_gbnf('start ::= "a"', vocab)
    with pytest.raises(gcd.GrammarError, match=r"1:13: error: repetition"):
        gcd.Grammar.from_gbnf('root ::= "a"{3,1}', vocab)
    with pytest.raises(ValueError, match="lexing must be"):
        gcd.Grammar.from_gbnf('root ::= "a"', vocab, lexing="other")
