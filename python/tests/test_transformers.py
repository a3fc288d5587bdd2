"""gcd.contrib.transformers driven by a real transformers generate() loop.

The engine is real and built here: a tiny LlamaForCausalLM with seeded
random weights, on CPU, over the shared Llama-3 tokenizer (loaded with
PreTrainedTokenizerFast(tokenizer_file=...)). Its logits rows are padded
past the tokenizer's vocabulary, and a hook makes the padding columns and
the end tokens the model's favourites, so a processor that let either
through at the wrong time would be caught. Every output is parsed,
validated with jsonschema, and checked to end within its budget.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (.ci/python.sh installs it)")
transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (.ci/python.sh installs it)"
)
jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")

import gcd  # noqa: E402
from gcd.contrib.transformers import LogitsProcessor, generate_json, unpack_bitmask, vocabulary_for  # noqa: E402
from conftest import SHARED  # noqa: E402

LLAMA3 = SHARED / "tokenizers" / "llama3" / "tokenizer.json"
pytestmark = pytest.mark.skipif(
    not LLAMA3.exists(), reason=f"shared Llama-3 tokenizer not found at {LLAMA3}"
)

EOT = 128009  # <|eot_id|>: what generate() stops on here
END_OF_TEXT = 128001  # <|end_of_text|>: an end token gcd knows, not a stop token here
PADDED = 64  # logits columns past the tokenizer's 128256 ids

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "tags": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "maxItems": 3},
        "ok": {"type": "boolean"},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}

PROMPTS = [
    "Give me a person as JSON:",
    "Person:",
    "Write one JSON object describing a person with a name and an age, please.",
    "{",
]


@pytest.fixture(scope="module")
def tokenizer():
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(LLAMA3))


@pytest.fixture(scope="module")
def vocab(tokenizer):
    return vocabulary_for(tokenizer)


@pytest.fixture(scope="module")
def model(tokenizer):
    torch.manual_seed(1234)
    v = len(tokenizer)
    config = transformers.LlamaConfig(
        vocab_size=v + PADDED,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=512,
        bos_token_id=128000,
        eos_token_id=EOT,
    )
    m = transformers.LlamaForCausalLM(config).eval()

    def favour_padding_and_ends(_module, _inputs, out):
        # The padding columns and the end tokens outscore every real token:
        # unmasked, greedy search would pick them at every step.
        out = out.clone()
        top = out.max(dim=-1, keepdim=True).values
        out[..., v:] = top + 20.0
        out[..., EOT] = top[..., 0] + 10.0
        out[..., END_OF_TEXT] = top[..., 0] + 15.0
        return out

    m.lm_head.register_forward_hook(favour_padding_and_ends)
    return m


class Spy:
    """Runs after gcd's processor: checks each masked row against the
    matcher's own bitmask at the tokenizer's width, and records the widths."""

    def __init__(self, gcd_processor: LogitsProcessor, vocab_size: int):
        self.p = gcd_processor
        self.v = vocab_size
        self.steps = 0
        self.widths = set()

    def __call__(self, input_ids, scores):
        self.steps += 1
        self.widths.add(scores.shape[-1])
        for row, m in enumerate(self.p.matchers):
            if self.p.stopped[row]:
                continue
            finite = torch.isfinite(scores[row])
            assert not finite[self.v:].any(), f"row {row}: a padding column is allowed"
            own = gcd.allocate_token_bitmask(1, self.v)
            m.fill_next_token_bitmask(own)
            expected = unpack_bitmask(torch.from_numpy(own), self.v)[0]
            complete = m.is_complete()
            expected[END_OF_TEXT] = False
            expected[EOT] = complete
            assert torch.equal(finite[: self.v], expected), f"row {row}: mask differs from the matcher's"
            assert finite.any(), f"row {row}: empty mask"
        return scores


def check_outputs(tokenizer, sequences, prompt_len, budget, schema=SCHEMA):
    """Parses, validates and counts every row from generate()'s sequences alone."""
    values = []
    v = len(tokenizer)  # not in the loop: len() of a fast tokenizer takes ~30 ms
    for row in sequences.tolist():
        gen = row[prompt_len:]
        assert EOT in gen, f"no end token in {gen}"
        end = gen.index(EOT)
        body = gen[:end]
        assert len(body) <= budget, f"{len(body)} tokens over budget {budget}"
        assert all(t == EOT for t in gen[end:]), "tokens after the end are not padding"
        assert all(t < v for t in body), "a padding id was generated"
        text = tokenizer.decode(body, clean_up_tokenization_spaces=False)
        value = json.loads(text)
        jsonschema.validate(value, schema)
        values.append(value)
    return values


def generate(model, tokenizer, prompts, budget, *, seed, spy=True, **kw):
    torch.manual_seed(seed)
    processor = LogitsProcessor(SCHEMA, tokenizer, budget=budget, eos_token_id=EOT)
    procs = [processor]
    s = None
    if spy:
        s = Spy(processor, len(tokenizer))
        procs.append(s)
    tokenizer.padding_side = "left"
    tokenizer.pad_token = "<|eot_id|>"
    enc = tokenizer(prompts, return_tensors="pt", padding=True, return_token_type_ids=False)
    out = model.generate(
        **enc,
        logits_processor=transformers.LogitsProcessorList(procs),
        max_new_tokens=budget + 1,
        eos_token_id=EOT,
        pad_token_id=EOT,
        **kw,
    )
    return out, enc["input_ids"].shape[1], processor, s


# Greedy search is deterministic, so one seed; sampling gets three.
RUNS = [("greedy", 0)] + [("sample", seed) for seed in (0, 1, 2)]


@pytest.mark.parametrize("budget", [12, 24])
@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("mode,seed", RUNS)
def test_generate_valid_within_budget(model, tokenizer, vocab, mode, seed, batch, budget):
    kw = {"do_sample": False} if mode == "greedy" else {"do_sample": True, "top_k": 0, "temperature": 1.0}
    prompts = PROMPTS[:batch] if seed % 2 == 0 else PROMPTS[::-1][:batch]
    out, plen, processor, spy = generate(model, tokenizer, prompts, budget, seed=seed, **kw)
    values = check_outputs(tokenizer, out, plen, budget)
    assert len(values) == batch
    assert spy.steps >= 1 and spy.widths == {len(tokenizer) + PADDED}
    # The processor's own view agrees with the decoded text.
    assert [json.loads(b) for b in processor.finish(out)] == values


def test_num_return_sequences(model, tokenizer):
    out, plen, processor, _ = generate(
        model, tokenizer, PROMPTS[:2], 20, seed=7, do_sample=True, num_return_sequences=3
    )
    assert out.shape[0] == 6
    values = check_outputs(tokenizer, out, plen, 20)
    assert len(processor.matchers) == 6
    assert [json.loads(b) for b in processor.finish(out)] == values


def test_generate_json_helper(model, tokenizer):
    v = generate_json(model, tokenizer, "Person:", SCHEMA, budget=20)
    jsonschema.validate(v, SCHEMA)
    vs, processor = generate_json(
        model, tokenizer, PROMPTS, SCHEMA, budget=25, do_sample=True, return_processor=True
    )
    assert len(vs) == 4
    for x, m in zip(vs, processor.matchers):
        jsonschema.validate(x, SCHEMA)
        assert len(m.tokens) <= 25
    with pytest.raises(ValueError, match="beam search"):
        generate_json(model, tokenizer, "Person:", SCHEMA, budget=20, num_beams=2)
    with pytest.raises(ValueError, match="budget"):
        generate_json(model, tokenizer, "Person:", SCHEMA)
    with pytest.raises(ValueError, match="max_new_tokens"):
        generate_json(model, tokenizer, "Person:", SCHEMA, budget=20, max_new_tokens=10)


def test_cut_short_is_an_error(model, tokenizer):
    # Without a budget and with too few new tokens, the output cannot end:
    # finish() says so rather than returning a prefix.
    with pytest.raises(gcd.MatchError, match="did not end"):
        generate_json(model, tokenizer, "Person:", SCHEMA, max_new_tokens=3)


def test_beam_search_refused(model, tokenizer):
    processor = LogitsProcessor(SCHEMA, tokenizer, budget=20, eos_token_id=EOT)
    enc = tokenizer(["Person:"], return_tensors="pt", return_token_type_ids=False)
    with pytest.raises(ValueError, match="beam search"):
        model.generate(
            **enc,
            logits_processor=transformers.LogitsProcessorList([processor]),
            num_beams=2,
            max_new_tokens=21,
            eos_token_id=EOT,
            pad_token_id=EOT,
        )


def test_reordered_rows_refused(tokenizer, vocab):
    processor = LogitsProcessor(SCHEMA, tokenizer, budget=20, eos_token_id=EOT)
    ids = torch.tensor([[1, 2], [3, 4]])
    scores = torch.zeros((2, vocab.size))
    scores[:, 0] = 5.0  # not log-probabilities
    out = processor(ids, scores)
    first = int(torch.argmax(out[0]))
    step = torch.tensor([[1, 2, first], [1, 2, first]])  # row 1 took row 0's history
    with pytest.raises(ValueError, match="beam search"):
        processor(step, scores)


def test_padded_columns_and_end_tokens_masked(tokenizer, vocab):
    v = vocab.size
    processor = LogitsProcessor({"enum": ["ok"]}, tokenizer, eos_token_id=EOT)
    assert END_OF_TEXT in vocab.eos_ids and EOT in vocab.eos_ids
    scores = torch.zeros((1, v + PADDED))
    scores[:, v:] = 1e9
    ids = torch.tensor([[128000]])
    out = processor(ids, scores.clone())
    assert torch.isinf(out[0, v:]).all() and (out[0, v:] < 0).all()
    assert out[0, EOT] == float("-inf") and out[0, END_OF_TEXT] == float("-inf")
    text = tokenizer.encode('"ok"', add_special_tokens=False)
    for t in text:
        assert torch.isfinite(out[0, t]), f"token {t} of a valid output forbidden"
        ids = torch.cat([ids, torch.tensor([[t]])], dim=1)
        out = processor(ids, scores.clone())
    # Complete: the stop token only; the other end token stays forbidden.
    finite = torch.isfinite(out[0]).nonzero().flatten().tolist()
    assert finite == [EOT]
    with pytest.raises(ValueError, match="scores are 100 wide"):
        LogitsProcessor(SCHEMA, tokenizer)(torch.tensor([[1]]), torch.zeros((1, 100)))


def test_forbidden_token_raises(tokenizer, vocab):
    processor = LogitsProcessor(SCHEMA, tokenizer, budget=20, eos_token_id=EOT)
    scores = torch.zeros((1, vocab.size))
    scores[0, 0] = 3.0
    processor(torch.tensor([[5]]), scores)
    bad = tokenizer.encode("]", add_special_tokens=False)[0]
    with pytest.raises(gcd.MatchError, match="row 0"):
        processor(torch.tensor([[5, bad]]), scores)


def test_bad_arguments(tokenizer, vocab):
    with pytest.raises(TypeError, match="JSON Schema"):
        LogitsProcessor("start: /a/", tokenizer)
    small = gcd.Vocabulary.from_tokens([b"a", b"<e>"], eos_ids=[1])
    g = gcd.Grammar.from_json_schema({"type": "object"}, small)
    with pytest.raises(ValueError, match="bound to a vocabulary of 2"):
        LogitsProcessor(g, tokenizer)
    with pytest.raises(gcd.MatchError):
        LogitsProcessor(SCHEMA, tokenizer, budget=1)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        LogitsProcessor(SCHEMA, tokenizer, eos_token_id=10**6)
    # A Lark grammar compiled for the tokenizer is taken as it is.
    lark = gcd.Grammar.from_lark('start: "yes" | "no"', vocab)
    p = LogitsProcessor(lark, tokenizer, eos_token_id=EOT)
    out = p(torch.tensor([[1]]), torch.zeros((1, vocab.size)))
    allowed = {tokenizer.decode([t]) for t in torch.isfinite(out[0]).nonzero().flatten().tolist()}
    assert allowed and all("yes".startswith(a) or "no".startswith(a) for a in allowed)


def test_vocabulary_matches_file(tokenizer, vocab):
    direct = gcd.Vocabulary.from_tokenizer_json(str(LLAMA3))
    assert vocab.size == direct.size == len(tokenizer)
    rng = np.random.default_rng(0)
    for t in rng.integers(0, vocab.size, 200).tolist():
        assert vocab.token_bytes(t) == direct.token_bytes(t)


def test_grammar_ending_with_the_stop_token(model, tokenizer, vocab):
    # A turn that ends with <|eot_id|> as a grammar symbol, while generate()
    # stops on that same token: allowed exactly as the last symbol.
    g = gcd.Grammar.from_lark('start: "ok" ("!")* <|eot_id|>', vocab)
    processor = LogitsProcessor(g, tokenizer, budget=6, eos_token_id=EOT)
    enc = tokenizer(["Say ok:"], return_tensors="pt", return_token_type_ids=False)
    out = model.generate(
        **enc, logits_processor=transformers.LogitsProcessorList([processor]),
        max_new_tokens=7, eos_token_id=EOT, pad_token_id=EOT, do_sample=False,
    )
    gen = out[0, enc["input_ids"].shape[1]:].tolist()
    assert gen[-1] == EOT and EOT not in gen[:-1]
    text = tokenizer.decode(gen[:-1], clean_up_tokenization_spaces=False)
    assert text.startswith("ok") and set(text[2:]) <= {"!"}
    assert len(gen) <= 6
    processor.finish(out)
    assert processor.matchers[0].tokens[-1] == EOT


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "maxLength": 10}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    },
    {"name": "get_time", "parameters": {"type": "object", "properties": {"tz": {"enum": ["UTC", "CET"]}}, "required": ["tz"]}},
]
TOOL_SCHEMAS = {"get_weather": TOOLS[0]["function"]["parameters"], "get_time": TOOLS[1]["parameters"]}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("fmt,budget", [("llama31", 40), ("hermes", 60)])
def test_generate_chat_turn(model, tokenizer, fmt, budget, seed):
    from gcd.contrib.transformers import generate_chat_turn, parse_chat_turn

    torch.manual_seed(seed)
    turn, processor = generate_chat_turn(
        model, tokenizer, "<|start_header_id|>assistant<|end_header_id|>\n\n", TOOLS, fmt, budget,
        end_token="<|eot_id|>", max_calls=2, do_sample=True, top_k=0, return_processor=True,
    )
    tokens = processor.matchers[0].tokens
    assert tokens[-1] == EOT and EOT not in tokens[:-1]
    assert len(tokens) - 1 <= budget
    # The tokenizer's own decoding of the tokens says the same.
    decoded = tokenizer.decode(tokens, clean_up_tokenization_spaces=False)
    assert parse_chat_turn(decoded, fmt, "<|eot_id|>") == turn
    key = "parameters" if fmt == "llama31" else "arguments"
    assert 1 <= len(turn["calls"]) <= 2
    for call in turn["calls"]:
        assert set(call) == {"name", key}
        jsonschema.validate(call[key], TOOL_SCHEMAS[call["name"]])
    if fmt == "llama31":
        assert turn["text"] == ""


def test_chat_turn_from_messages_and_errors(model, vocab):
    from gcd.contrib.transformers import chat_turn_grammar, generate_chat_turn

    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(LLAMA3), bos_token="<|begin_of_text|>")
    tok.chat_template = json.loads((LLAMA3.parent / "tokenizer_config.json").read_text())["chat_template"]
    turn = generate_chat_turn(model, tok, [{"role": "user", "content": "Weather in Oslo?"}], TOOLS, budget=40)
    assert turn["calls"] and all(c["name"] in TOOL_SCHEMAS for c in turn["calls"])
    with pytest.raises(ValueError, match="chat format 'mistral'"):
        chat_turn_grammar(TOOLS, vocab, "mistral")
    with pytest.raises(ValueError, match="min_calls"):
        chat_turn_grammar(TOOLS, vocab, min_calls=0)
    with pytest.raises(ValueError, match="only functions"):
        chat_turn_grammar([{"type": "retrieval"}], vocab)
    with pytest.raises(gcd.VocabularyError):
        chat_turn_grammar(TOOLS, vocab, "hermes")  # Llama-3 has no <|im_end|>
