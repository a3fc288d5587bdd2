"""Lark grammars: exact masks, decoding, and a generalized (non-LL(1)) one."""

from __future__ import annotations

import random

import numpy as np
import pytest

import gcd
from conftest import allowed_ids, brute_force, mask_of

ARITH = r"""
start: expr
expr: term (("+" | "-") term)*
term: NUMBER | "(" expr ")"
NUMBER: /[0-9]+/
"""

CHARS = [b"(", b")", b"+", b"-", b"1", b"2", b"12", b"(1", b"1)", b"+(", b"x", b" ", b"<eos>"]
EOS = len(CHARS) - 1


@pytest.fixture(scope="module")
def arith_vocab():
    return gcd.Vocabulary.from_tokens(CHARS, eos_ids=[EOS])


def test_lark_mask_exact_on_random_walks(arith_vocab):
    g = gcd.Grammar.from_lark(ARITH, arith_vocab)
    assert g.vocab_size == len(CHARS)
    for seed in range(8):
        rng = random.Random(seed)
        m = g.matcher()
        for _ in range(30):
            mask = mask_of(m, len(CHARS))
            assert (mask == brute_force(m, len(CHARS))).all(), m.output
            assert mask[EOS] == m.is_complete()
            assert not mask[CHARS.index(b"x")] and not mask[CHARS.index(b" ")]
            choices = list(np.nonzero(mask)[0])
            t = EOS if EOS in choices and rng.random() < 0.2 else int(rng.choice(choices))
            m.advance(int(t))
            if m.is_finished():
                break


def test_lark_accepts_and_refuses(arith_vocab):
    g = gcd.Grammar.from_lark(ARITH, arith_vocab)
    m = g.matcher()
    for piece in [b"(1", b"+", b"12", b")", b"-", b"2"]:
        m.advance(CHARS.index(piece))
    assert m.output == b"(1+12)-2"
    assert m.is_complete()
    assert not m.accept_token(CHARS.index(b")"))  # unbalanced
    m.advance(EOS)
    assert m.is_finished()


def test_lark_on_o200k(o200k):
    g = gcd.Grammar.from_lark(ARITH, o200k)
    m = g.matcher()
    for t in o200k.encode("(1+23)-4"):
        m.advance(t)
    assert m.is_complete()
    bm = gcd.allocate_token_bitmask(1, o200k.size)
    m.fill_next_token_bitmask(bm)
    allowed = allowed_ids(bm[0])
    assert allowed[o200k.eos_ids[0]]
    assert allowed[o200k.encode("5")[0]] and allowed[o200k.encode("+")[0]]
    assert not allowed[o200k.encode("(")[0]]
    assert not m.accept_token(o200k.encode(" hello")[0])


def test_generalized_grammar(arith_vocab):
    # Not LL(1): both alternatives start with any number of "1"s; only the
    # last byte tells them apart.
    text = 'start: ones_a | ones_b\nones_a: "1"+ "+"\nones_b: "1"+ "-"\n'
    g = gcd.Grammar.from_lark(text, arith_vocab)
    for last in (b"+", b"-"):
        m = g.matcher()
        for piece in (b"1", b"1", b"1", last):
            m.advance(CHARS.index(piece))
        assert m.is_complete()
    m = g.matcher()
    m.advance(CHARS.index(b"12"[:1]))
    assert not m.accept_token(CHARS.index(b"2"))


def test_inline_json_schema_in_lark(o200k):
    v = o200k
    g = gcd.Grammar.from_lark(
        'start: "<tool_call>" %json {"type": "object", "properties": {"n": {"type": "integer"}}, '
        '"required": ["n"], "additionalProperties": false} "</tool_call>"',
        v,
    )
    m = g.matcher()
    for t in v.encode('<tool_call>{"n": 42}</tool_call>'):
        m.advance(t)
    assert m.is_complete()
    assert not g.matcher().accepts_bytes(b'<tool_call>{"m": 1}')
    with pytest.raises(gcd.GrammarError, match="unsupported keyword"):
        gcd.Grammar.from_lark('start: %json {"if": {}}', v)


def test_lexeme_cap_ends_a_number(arith_vocab):
    # NUMBER capped at 2 tokens: after "1", "2" the number must end.
    g = gcd.Grammar.from_lark(ARITH, arith_vocab)
    m = g.matcher()
    m.set_lexeme_cap("NUMBER", 2)
    m.advance(CHARS.index(b"1"))
    m.advance(CHARS.index(b"2"))
    bm = gcd.allocate_token_bitmask(1, arith_vocab.size)
    m.fill_next_token_bitmask(bm)
    allowed = allowed_ids(bm[0])
    assert not allowed[CHARS.index(b"1")] and not allowed[CHARS.index(b"12")]
    assert allowed[CHARS.index(b"+")] and allowed[EOS]
    plain = g.matcher()
    for piece in (b"1", b"2"):
        plain.advance(CHARS.index(piece))
    assert plain.accept_token(CHARS.index(b"1"))
    with pytest.raises(gcd.MatchError, match="no terminal NOPE"):
        g.matcher().set_lexeme_cap("NOPE", 3)
    late = g.matcher()
    late.advance(CHARS.index(b"1"))
    with pytest.raises(gcd.MatchError, match="before the first token"):
        late.set_lexeme_cap("NUMBER", 3)


def test_imports_from_files_and_dynamic_lexing(arith_vocab, tmp_path):
    # Two words with no separator: maximal munch merges them; dynamic lexing
    # splits them anywhere, as Lark's Earley parser does.
    (tmp_path / "words.lark").write_text('pair: WORD WORD\nWORD: /[12]+/\n')
    text = "start: w__pair \"+\"\n%import .words.pair -> w__pair\n"
    with pytest.raises(gcd.GrammarError, match="relative imports"):
        gcd.Grammar.from_lark(text, arith_vocab)
    with pytest.raises(gcd.GrammarError, match="maximal munch merges"):
        gcd.Grammar.from_lark(text, arith_vocab, import_dir=str(tmp_path))
    g = gcd.Grammar.from_lark(text, arith_vocab, import_dir=str(tmp_path), lexing="dynamic")
    m = g.matcher()
    for piece in (b"1", b"2", b"+"):
        m.advance(CHARS.index(piece))
    assert m.is_complete()
    assert not g.matcher().accepts_bytes(b"1+")
    with pytest.raises(ValueError, match="lexing must be"):
        gcd.Grammar.from_lark(text, arith_vocab, lexing="earley")


def test_start_rule_given_or_refused(arith_vocab):
    # As Lark: no rule named `start` is an error naming the rules, unless
    # `start=` picks one.
    text = 'sum: NUMBER ("+" NUMBER)*\nNUMBER: /[0-9]+/\n'
    with pytest.raises(gcd.GrammarError, match="no rule named `start`.*`sum`"):
        gcd.Grammar.from_lark(text, arith_vocab)
    g = gcd.Grammar.from_lark(text, arith_vocab, start="sum")
    assert g.vocab_size == len(CHARS)
