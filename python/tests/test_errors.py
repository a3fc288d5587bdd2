"""Bad input raises the right exception with a message naming the problem,
never a panic or a crash."""

from __future__ import annotations

import numpy as np
import pytest

import gcd
from conftest import TOKENS

V = len(TOKENS)
W = gcd.bitmask_words(V)


def test_exception_hierarchy():
    for cls in (gcd.SchemaError, gcd.GrammarError, gcd.VocabularyError, gcd.MatchError):
        assert issubclass(cls, gcd.GcdError)
    assert issubclass(gcd.GcdError, ValueError)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float32])
def test_wrong_dtype(small_grammar, dtype):
    with pytest.raises(TypeError, match="int32"):
        small_grammar.matcher().fill_next_token_bitmask(np.zeros((1, W), dtype=dtype))


def test_not_a_buffer(small_grammar):
    with pytest.raises(TypeError, match="int32"):
        small_grammar.matcher().fill_next_token_bitmask([[0] * W])


def test_read_only(small_grammar):
    bm = np.zeros((1, W), dtype=np.int32)
    bm.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        small_grammar.matcher().fill_next_token_bitmask(bm)
    with pytest.raises(ValueError, match="read-only"):
        gcd.fill_next_token_bitmasks([small_grammar.matcher()], bm)


def test_not_contiguous(small_grammar):
    bm = np.zeros((2, 2 * W), dtype=np.int32)[:, ::2]
    with pytest.raises(ValueError, match="contiguous"):
        small_grammar.matcher().fill_next_token_bitmask(bm)


def test_wrong_ndim(small_grammar):
    with pytest.raises(ValueError, match="dimensions"):
        small_grammar.matcher().fill_next_token_bitmask(np.zeros((1, 1, W), dtype=np.int32))


def test_too_narrow(o200k):
    g = gcd.Grammar.from_json_schema({"type": "integer"}, o200k)
    need = gcd.bitmask_words(o200k.size)
    bm = np.zeros((1, need - 1), dtype=np.int32)
    with pytest.raises(ValueError, match=f"too few.*{o200k.size}"):
        g.matcher().fill_next_token_bitmask(bm)
    with pytest.raises(ValueError, match="too few"):
        gcd.fill_next_token_bitmasks([g.matcher()], bm)


@pytest.mark.parametrize("index", [2, 100, -1])
def test_row_index_out_of_range(small_grammar, index):
    bm = np.zeros((2, W), dtype=np.int32)
    with pytest.raises(ValueError, match=f"row index {index} is out of range"):
        small_grammar.matcher().fill_next_token_bitmask(bm, index)
    with pytest.raises(ValueError, match="out of range"):
        gcd.fill_next_token_bitmasks([small_grammar.matcher()], bm, indices=[index])


def test_batch_shape_errors(small_grammar):
    ms = [small_grammar.matcher() for _ in range(3)]
    with pytest.raises(ValueError, match="only 2 rows"):
        gcd.fill_next_token_bitmasks(ms, np.zeros((2, W), dtype=np.int32))
    with pytest.raises(ValueError, match="twice"):
        gcd.fill_next_token_bitmasks(ms, np.zeros((3, W), dtype=np.int32), indices=[0, 1, 0])
    with pytest.raises(ValueError, match="indices has 2 entries"):
        gcd.fill_next_token_bitmasks(ms, np.zeros((3, W), dtype=np.int32), indices=[0, 1])
    with pytest.raises(TypeError):
        gcd.fill_next_token_bitmasks([object()], np.zeros((3, W), dtype=np.int32))


@pytest.mark.parametrize("token", [V, V + 1000, 2**40, -1])
def test_token_out_of_range(small_grammar, token):
    m = small_grammar.matcher()
    with pytest.raises(gcd.MatchError, match=f"{token}.*out of range"):
        m.advance(token)
    assert m.accept_token(token) is False
    assert m.tokens == []


def test_token_not_allowed_names_the_token(small_grammar):
    m = small_grammar.matcher()
    t = TOKENS.index(b"}")
    with pytest.raises(gcd.MatchError, match=str(t)):
        m.advance(t)
    assert m.accept_token(t) is False
    assert m.tokens == [] and m.output == b""
    # EOS before the output is complete
    with pytest.raises(gcd.MatchError, match="end of sequence"):
        m.advance(len(TOKENS) - 1)


def test_rollback_too_far(small_grammar):
    m = small_grammar.matcher()
    m.advance(TOKENS.index(b"{"))
    with pytest.raises(gcd.MatchError, match="roll back 2"):
        m.rollback(2)
    assert m.output == b"{"


@pytest.mark.parametrize(
    "schema, fragment",
    [
        ('{"type": "objec"}', 'unknown type "objec"'),
        ("{not json", "not valid JSON"),
        ({"type": "string", "pattern": "(unclosed"}, "pattern.*unclosed group"),
        ({"$ref": "#/definitions/missing"}, "missing"),
    ],
)
def test_malformed_schema(small_vocab, schema, fragment):
    with pytest.raises(gcd.SchemaError, match=fragment):
        gcd.Grammar.from_json_schema(schema, small_vocab)


def test_unserializable_schema(small_vocab):
    with pytest.raises(TypeError, match="JSON"):
        gcd.Grammar.from_json_schema({"type": object()}, small_vocab)


def test_bad_whitespace_option(small_vocab):
    with pytest.raises(ValueError, match="whitespace"):
        gcd.Grammar.from_json_schema({"type": "integer"}, small_vocab, whitespace="tabs")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("start: undefined_rule", "undefined_rule.*never defined"),
        ('start: "a" (', "expected `\\)`"),
        ("start: /[a-/", "invalid regex"),
        ('start: a\na: "x" a', "no finite string"),
    ],
)
def test_malformed_lark(small_vocab, text, fragment):
    with pytest.raises(gcd.GrammarError, match=fragment) as info:
        gcd.Grammar.from_lark(text, small_vocab)
    assert str(info.value)


def test_not_a_tokenizer(tmp_path):
    bogus = tmp_path / "tokenizer.json"
    bogus.write_text('{"hello": "world"}')
    with pytest.raises(gcd.VocabularyError) as info:
        gcd.Vocabulary.from_tokenizer_json(bogus)
    assert str(info.value)
    with pytest.raises(gcd.VocabularyError):
        gcd.Vocabulary.load(str(bogus))
    with pytest.raises(gcd.VocabularyError):
        gcd.Vocabulary.load(str(tmp_path))  # a directory holding it
    with pytest.raises(gcd.VocabularyError, match="no such file"):
        gcd.Vocabulary.load(str(tmp_path / "missing.json"))
    with pytest.raises(gcd.VocabularyError, match="not a known vocabulary name"):
        gcd.Vocabulary.load("o300k")


def test_synthetic_vocabulary_errors(small_vocab):
    with pytest.raises(gcd.VocabularyError, match="EOS id 5"):
        gcd.Vocabulary.from_tokens([b"a", b"b"], eos_ids=[5])
    with pytest.raises(gcd.VocabularyError, match="no tokenizer"):
        small_vocab.encode("{}")
    with pytest.raises(gcd.VocabularyError, match="out of range"):
        small_vocab.decode([0, 10_000])


def test_budget_errors(small_grammar):
    with pytest.raises(gcd.MatchError):
        small_grammar.matcher(budget=0)
    with pytest.raises(OverflowError):
        small_grammar.matcher(budget=-1)


def test_helpers_validate(small_grammar):
    with pytest.raises(TypeError, match="int32"):
        gcd.apply_token_bitmask_inplace(np.zeros((1, 64), np.float32), np.zeros((1, 2), np.int64))
    with pytest.raises(ValueError, match="rows"):
        gcd.apply_token_bitmask_inplace(np.zeros((2, 64), np.float32), np.zeros((1, 2), np.int32))
    with pytest.raises(ValueError):
        gcd.allocate_token_bitmask(-1, 10)
