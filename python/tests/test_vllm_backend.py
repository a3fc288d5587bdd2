"""gcd.contrib.vllm through vLLM's structured-output interface.

vLLM needs a GPU build to run, so these tests check the backend against the
interface pinned in gcd.contrib.vllm.VLLM_INTERFACE (vLLM 0.34.0's
backend_types.py; against vLLM's own classes too when vLLM imports) and
drive it the way vLLM's StructuredOutputManager does: compile per request,
fill each speculative position's bitmask row while accepting the drafts,
roll them back, validate drafts without advancing, accept what the target
model took, and stop at termination.
"""

from __future__ import annotations

import enum
import inspect
import json
import re

import numpy as np
import pytest

import gcd
from gcd.contrib import vllm as gv
from conftest import EOS, SCHEMA, SHARED, TOKENS, allowed_ids, check_schema_value

LLAMA3 = SHARED / "tokenizers" / "llama3" / "tokenizer.json"
needs_llama3 = pytest.mark.skipif(
    not LLAMA3.exists(), reason=f"shared Llama-3 tokenizer not found at {LLAMA3}"
)
O = gv.StructuredOutputOptions


@pytest.fixture(scope="module")
def small_backend():
    vocab = gcd.Vocabulary.from_tokens(TOKENS, eos_ids=[EOS])
    return gv.GcdBackend(None, vocab, len(TOKENS) + 19)  # logits padded past the vocabulary


@pytest.fixture(scope="module")
def llama_backend():
    if not LLAMA3.exists():
        pytest.skip(f"shared Llama-3 tokenizer not found at {LLAMA3}")
    vocab = gcd.Vocabulary.from_tokenizer_json(LLAMA3)
    return gv.GcdBackend(None, vocab, vocab.size + 64)


def row_of(grammar, width):
    bm = np.zeros((1, gcd.bitmask_words(width)), dtype=np.int32)
    grammar.fill_bitmask(bm, 0)
    return allowed_ids(bm[0])[:width]


def brute_prefix(grammar, draft):
    """The accepted prefix by trying each token on a fresh copy of the state."""
    g = gv.GcdGrammar(grammar.grammar, grammar.stop_token_ids, grammar.foreign_eos, grammar.vocab_size)
    g.accept_tokens("x", list(grammar.matcher.tokens))
    out = []
    for t in draft:
        if not g.accept_tokens("x", [t]):
            break
        out.append(t)
        if g.is_terminated():
            break
    return out


def test_interface_matches_pinned_description():
    for cls, pinned in (
        (gv.GcdGrammar, gv.VLLM_INTERFACE["StructuredOutputGrammar"]),
        (gv.GcdBackend, gv.VLLM_INTERFACE["StructuredOutputBackend"]),
    ):
        for name, params in pinned.items():
            fn = getattr(cls, name)
            got = [
                p.name
                for p in inspect.signature(fn).parameters.values()
                if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)
            ]
            assert tuple(got) == params, f"{cls.__name__}.{name}{tuple(got)} != {params}"
    assert tuple(m.name for m in gv.StructuredOutputOptions) == gv.VLLM_INTERFACE["StructuredOutputOptions"]
    assert gv.VLLM_VERSION_CHECKED == "0.34.0"


@pytest.mark.skipif(not gv.HAVE_VLLM, reason="vLLM is not importable here (pinned description checked instead)")
def test_subclasses_vllm_abstract_classes():  # pragma: no cover - only with vLLM installed
    from vllm.v1.structured_output import backend_types as bt

    assert issubclass(gv.GcdGrammar, bt.StructuredOutputGrammar)
    assert issubclass(gv.GcdBackend, bt.StructuredOutputBackend)
    assert not getattr(gv.GcdGrammar, "__abstractmethods__", set())
    assert not getattr(gv.GcdBackend, "__abstractmethods__", set())
    for cls_name, pinned in gv.VLLM_INTERFACE.items():
        if cls_name == "StructuredOutputOptions":
            continue
        base = getattr(bt, cls_name)
        for name, params in pinned.items():
            if name == "__init__":
                continue
            got = [p for p in inspect.signature(getattr(base, name)).parameters if p != "self"]
            assert tuple(got) == params


def test_every_request_type_compiles_and_constrains(llama_backend):
    b = llama_backend
    v = b.vocab
    rng = np.random.default_rng(3)
    cases = [
        (O.JSON, json.dumps(SCHEMA), lambda s: check_schema_value(json.loads(s)) is None),
        (O.JSON_OBJECT, "", lambda s: isinstance(json.loads(s), dict)),
        (O.REGEX, r"(\+|-)?[0-9]{1,4}(\.[0-9]{2})? ?[a-z/]{0,3}", None),
        (O.GRAMMAR, 'start: "go " DIR ("," DIR)*\nDIR: "north" | "south"\n', lambda s: re.fullmatch(r"go (north|south)(,(north|south))*", s)),
        (O.GRAMMAR, 'root ::= "x" [0-9]+ "y"', lambda s: re.fullmatch(r"x[0-9]+y", s)),
        (O.CHOICE, json.dumps(["yes", "no", 'say "hi"\n']), lambda s: s in ("yes", "no", 'say "hi"\n')),
        (
            O.STRUCTURAL_TAG,
            json.dumps({"type": "structural_tag", "format": {"type": "const_string", "value": "done!"}}),
            lambda s: s == "done!",
        ),
    ]
    regex = cases[2][1]
    cases[2] = (O.REGEX, regex, lambda s: re.fullmatch(regex, s))
    for kind, spec, check in cases:
        for trial in range(3):
            g = b.compile_grammar(kind, spec, stop_token_ids={v.eos_ids[0]})
            steps = 0
            while not g.is_terminated():
                allowed = np.flatnonzero(row_of(g, b.vocab_size))
                assert allowed.size, f"{kind}: empty mask"
                assert allowed.max() < v.size, f"{kind}: a padding id allowed"
                # Prefer ending once allowed half the time, so outputs vary in length.
                if v.eos_ids[0] in allowed and (rng.random() < 0.5 or steps > 40):
                    t = v.eos_ids[0]
                else:
                    choices = allowed[allowed != v.eos_ids[0]]
                    t = int(rng.choice(choices)) if choices.size else v.eos_ids[0]
                assert g.accept_tokens("r", [int(t)])
                steps += 1
                if steps == 30 and not g.is_terminated():
                    # Steer to the end: a budget makes the masks close the output.
                    g.matcher.budget = len(g.matcher.tokens) + g.matcher.min_tokens_to_complete()
                assert steps < 400
            text = g.output.decode()
            assert check(text), f"{kind}: {text!r} not in the language"


def test_unsupported_things_are_named(llama_backend):
    class Other(enum.Enum):
        EBNF_PLUS = 1

    with pytest.raises(ValueError, match="EBNF_PLUS"):
        llama_backend.compile_grammar(Other.EBNF_PLUS, "x")
    with pytest.raises(gcd.GrammarError, match="backreference"):
        llama_backend.compile_grammar(O.REGEX, r"(a)\1")
    with pytest.raises(gcd.SchemaError):
        llama_backend.compile_grammar(O.JSON, '{"type": "frobnicate"}')
    with pytest.raises(ValueError, match="choice"):
        llama_backend.compile_grammar(O.CHOICE, "[]")
    with pytest.raises(TypeError, match="fast tokenizer"):
        gv.GcdBackend(None, object(), 10)
    with pytest.raises(ValueError, match="below the tokenizer"):
        gv.GcdBackend(None, llama_backend.vocab, 1000)


def test_manager_loop_with_speculative_drafts(small_backend):
    """vLLM's grammar_bitmask + accept_tokens loop, with k=3 draft tokens."""
    b = small_backend
    width = b.vocab_size
    k = 3
    rng = np.random.default_rng(11)
    for request in range(12):
        g = b.compile_grammar(O.JSON, json.dumps(SCHEMA), stop_token_ids=[EOS])
        bitmask = np.zeros(((k + 1), gcd.bitmask_words(width)), dtype=np.int32)
        steps = 0
        while not g.is_terminated():
            steps += 1
            assert steps < 300
            # The draft model: allowed tokens mostly, a random one sometimes.
            draft, probe = [], g.matcher.fork()
            for _ in range(k):
                if rng.random() < 0.2:
                    draft.append(int(rng.integers(0, width)))
                    continue
                bm = np.zeros(gcd.bitmask_words(width), dtype=np.int32)
                probe.fill_next_token_bitmask(bm)
                ok = np.flatnonzero(allowed_ids(bm)[:width])
                ok = ok[ok != EOS] if ok.size > 1 else ok
                t = int(rng.choice(ok))
                draft.append(t)
                if t == EOS or not probe.accept_token(t):
                    break
            before = (list(g.matcher.tokens), g.output, g.num_processed_tokens, row_of(g, width).tolist())
            # trim_spec_tokens: validate without advancing.
            valid = g.validate_tokens(draft)
            assert valid == brute_prefix(g, draft)
            assert before == (list(g.matcher.tokens), g.output, g.num_processed_tokens, row_of(g, width).tolist())
            # grammar_bitmask: one row per draft position plus the bonus one,
            # advancing through the drafts, then rolled back.
            spec = draft[: len(valid) + 1]
            advancements, invalid = 0, False
            for i, token in enumerate(spec + [-1]):
                if invalid or g.is_terminated():  # vLLM fills a full row there
                    bitmask[i].fill(-1)
                    if token == -1 or g.is_terminated():
                        invalid = True
                    continue
                g.fill_bitmask(bitmask, i)
                expect = brute_prefix_mask(g, width)
                assert allowed_ids(bitmask[i])[:width].tolist() == expect
                assert not allowed_ids(bitmask[i])[len(TOKENS):].any(), "padding ids allowed"
                if token == -1:
                    invalid = True
                elif not g.is_terminated() and g.accept_tokens("r", [token]):
                    advancements += 1
                else:
                    invalid = True
            if advancements:
                g.rollback(advancements)
            assert before == (list(g.matcher.tokens), g.output, g.num_processed_tokens, row_of(g, width).tolist())
            # The target model accepts the valid drafts and samples a bonus
            # token from the row after them.
            taken = list(valid)
            if not (valid and valid[-1] == EOS):
                row = allowed_ids(bitmask[len(valid)])[:width]
                assert row.any()
                taken.append(int(rng.choice(np.flatnonzero(row))))
            assert g.accept_tokens("r", taken)
        check_schema_value(json.loads(g.output))
        assert g.validate_tokens([0, 1]) == []
        assert g.accept_tokens("r", [0, 1])  # after termination: ignored, as in vLLM


def brute_prefix_mask(g, width):
    """Which ids accept_tokens would take now, each tried on a copy."""
    out = []
    for t in range(width):
        copy = gv.GcdGrammar(g.grammar, g.stop_token_ids, g.foreign_eos, g.vocab_size)
        assert copy.accept_tokens("x", list(g.matcher.tokens))
        out.append(copy.accept_tokens("x", [t]))
    return out


def test_refused_tokens_leave_state_unchanged(small_backend):
    g = small_backend.compile_grammar(O.JSON, json.dumps(SCHEMA), stop_token_ids=[EOS])
    brace = TOKENS.index(b"{")
    assert g.accept_tokens("r", [brace])
    before = (list(g.matcher.tokens), g.num_processed_tokens)
    name = TOKENS.index(b'"name":')
    assert not g.accept_tokens("r", [name, TOKENS.index(b"}")])  # '}' refused after the key
    assert (list(g.matcher.tokens), g.num_processed_tokens) == before
    assert not g.accept_tokens("r", [EOS])  # not complete: the stop token is refused
    assert not g.accept_tokens("r", [len(TOKENS) + 3])  # a padding id
    assert (list(g.matcher.tokens), g.num_processed_tokens) == before
    with pytest.raises(gcd.MatchError, match="rollback"):
        g.rollback(5)
    g.rollback(1)
    assert g.num_processed_tokens == 0 and g.matcher.tokens == []


def test_stop_tokens_and_termination(llama_backend):
    b = llama_backend
    v = b.vocab
    eot = 128009
    other_end = [t for t in v.eos_ids if t != eot]
    assert other_end, "the Llama-3 vocabulary knows several end tokens"
    g = b.compile_grammar(O.CHOICE, json.dumps(["ok"]), stop_token_ids={eot})
    assert not row_of(g, b.vocab_size)[eot]
    for t in v.encode("ok"):
        assert g.accept_tokens("r", [t])
    row = row_of(g, b.vocab_size)
    assert np.flatnonzero(row).tolist() == [eot]  # only the request's stop token
    assert not g.validate_tokens(other_end)
    assert g.validate_tokens([eot, 5]) == [eot]
    assert not g.is_terminated()
    assert g.accept_tokens("r", [eot, 5, 6])
    assert g.is_terminated() and g.num_processed_tokens == len(v.encode("ok")) + 1
    g.rollback(1)
    assert not g.is_terminated() and row_of(g, b.vocab_size)[eot]
    g.reset()
    assert g.num_processed_tokens == 0 and g.output == b"" and not g.is_terminated()
    # Without stop ids, the vocabulary's end tokens are the stop tokens.
    g2 = b.compile_grammar(O.CHOICE, json.dumps(["ok"]))
    for t in v.encode("ok"):
        g2.accept_tokens("r", [t])
    assert set(np.flatnonzero(row_of(g2, b.vocab_size)).tolist()) == set(v.eos_ids)


def test_grammars_are_cached_and_batch_fill_matches(llama_backend):
    b = llama_backend
    spec = json.dumps(SCHEMA)
    g1 = b.compile_grammar(O.JSON, spec, stop_token_ids=[128009])
    g2 = b.compile_grammar(O.JSON, spec, stop_token_ids=[128009])
    assert g1.grammar is g2.grammar and g1.matcher is not g2.matcher
    for t in b.vocab.encode('{"name": "Al'):
        assert g2.accept_tokens("r", [t])
    one = np.zeros((4, gcd.bitmask_words(b.vocab_size)), dtype=np.int32)
    g1.fill_bitmask(one, 1)
    g2.fill_bitmask(one, 3)
    many = np.zeros_like(one)
    b.fill_bitmasks([g1, g2], many, [1, 3])
    assert np.array_equal(one, many)
    assert not allowed_ids(one[1])[b.vocab.size:].any()


def test_torch_bitmask(llama_backend):
    torch = pytest.importorskip("torch", reason="torch is not installed (.ci/python.sh installs it)")
    b = llama_backend
    bm = b.allocate_token_bitmask(3)
    assert bm.dtype == torch.int32 and tuple(bm.shape) == (3, gcd.bitmask_words(b.vocab_size))
    assert bool((bm == -1).all())
    g = b.compile_grammar(O.JSON_OBJECT, "", stop_token_ids=[128009])
    g.fill_bitmask(bm, 2)
    allowed = allowed_ids(bm[2].numpy())
    assert allowed[b.vocab.encode("{")[0]] and not allowed[b.vocab.size:].any()
    assert bool((bm[:2] == -1).all())  # other rows untouched


def test_demo_without_vllm_says_so(capsys, monkeypatch):
    monkeypatch.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "1")  # main() sets it; restored after
    from gcd.contrib import vllm_demo

    if gv.HAVE_VLLM:  # pragma: no cover - only with vLLM installed
        pytest.skip("vLLM is importable: the demo would start an engine")
    assert vllm_demo.main(["--model", "/nonexistent"]) == 2
    assert "vLLM is not importable" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        vllm_demo.main([])  # --model is required


def test_end_tokens_the_grammar_names(llama_backend):
    """A stop token that is the grammar's last symbol, and an end token the grammar takes mid-way."""
    b = llama_backend
    v = b.vocab
    eot, eom = 128009, 128001  # <|eot_id|>, <|end_of_text|>
    assert eom in v.eos_ids
    g = b.compile_grammar(O.GRAMMAR, 'start: "hi" <|eot_id|>', stop_token_ids={eot})
    assert not row_of(g, b.vocab_size)[eot]
    assert g.validate_tokens(v.encode("hi") + [eot, 7]) == v.encode("hi") + [eot]
    assert g.accept_tokens("r", v.encode("hi"))
    assert np.flatnonzero(row_of(g, b.vocab_size)).tolist() == [eot]
    assert g.accept_tokens("r", [eot]) and g.is_terminated()
    assert g.matcher.tokens[-1] == eot  # the grammar took it as its symbol
    g.rollback(1)
    assert not g.is_terminated() and g.matcher.tokens == v.encode("hi")
    # <|end_of_text|> as a symbol mid-way: allowed there though the request stops
    # only on <|eot_id|>; never as an end.
    g = b.compile_grammar(O.GRAMMAR, 'start: "a" <|end_of_text|> "b"', stop_token_ids={eot})
    assert g.accept_tokens("r", v.encode("a"))
    assert np.flatnonzero(row_of(g, b.vocab_size)).tolist() == [eom]
    assert g.accept_tokens("r", [eom] + v.encode("b"))
    assert np.flatnonzero(row_of(g, b.vocab_size)).tolist() == [eot]
    assert not g.accept_tokens("r", [eom])
    assert g.accept_tokens("r", [eot]) and g.is_terminated()
