"""gcd for Hugging Face transformers: a logits processor for ``model.generate()``.

``LogitsProcessor(grammar_or_schema, tokenizer, budget=None)`` constrains
every row of a ``generate()`` call to the grammar: each step it advances one
gcd matcher per row by the token that row just took, fills the rows' bitmasks
(in parallel, without the GIL) and sets forbidden scores to ``-inf``.

* Greedy search, sampling (any warpers) and ``num_return_sequences > 1``
  work: each returned sequence is its own row with its own matcher.
* The prompt length is taken from the first call (left padding included);
  one processor serves one ``generate()`` call.
* Stopping: the end tokens are the ones ``generate()`` stops on (pass
  ``eos_token_id=``; default the tokenizer's, else the vocabulary's). One is
  allowed when the output is complete, or where the grammar names it as its
  last symbol (a chat turn's ``<|eot_id|>``); other end-of-sequence ids that
  gcd knows but ``generate()`` would not stop on are allowed only where the
  grammar names them. A row that has stopped is left alone (``generate()``
  fills it with padding).
* Logits wider than the tokenizer (embedding tables padded to a multiple of
  64 or 128): the columns past the vocabulary are forbidden.
* Beam search (``num_beams > 1``, group and constrained beam search) is
  refused with a ``ValueError``: beam search scores candidates that the mask
  set to ``-inf`` and can keep them as beams or hypotheses when too few
  tokens are allowed, so a grammar cannot be guaranteed there. The processor
  recognizes it by its log-softmax scores and by rows that change history.
* A token the mask forbade (another processor after this one, or a strategy
  that picks ``-inf`` tokens, such as contrastive search when fewer than
  ``top_k`` tokens are allowed) raises ``gcd.MatchError`` naming the row and
  the token.

``generate_json(model, tokenizer, prompt, schema, budget=...)`` is the whole
loop for a JSON Schema: it returns the parsed value (a list for a list of
prompts or ``num_return_sequences > 1``).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, List, Optional, Sequence, Union

import numpy as np
import torch

import gcd
from gcd.contrib._ends import fix_end_bits, take_stop
from gcd.contrib._hf import vocabulary_for

__all__ = [
    "CHAT_FORMATS",
    "LogitsProcessor",
    "chat_turn_grammar",
    "generate_chat_turn",
    "generate_json",
    "parse_chat_turn",
    "vocabulary_for",
]

def _as_grammar(grammar_or_schema: Any, vocab: gcd.Vocabulary, whitespace: str) -> gcd.Grammar:
    if isinstance(grammar_or_schema, gcd.Grammar):
        if grammar_or_schema.vocab_size != vocab.size:
            raise ValueError(
                f"the grammar is bound to a vocabulary of {grammar_or_schema.vocab_size} ids "
                f"but the tokenizer has {vocab.size}: compile it for this tokenizer"
            )
        return grammar_or_schema
    if isinstance(grammar_or_schema, str):
        try:
            json.loads(grammar_or_schema)
        except ValueError:
            raise TypeError(
                "a str is read as a JSON Schema, and this one is not JSON; compile other "
                "grammars first (gcd.Grammar.from_lark / from_gbnf / from_structural_tag) "
                "and pass the Grammar"
            ) from None
    elif not isinstance(grammar_or_schema, (dict, bool)):
        raise TypeError(
            "grammar_or_schema must be a gcd.Grammar, a JSON Schema (dict, bool or JSON "
            f"text), got {type(grammar_or_schema).__name__}"
        )
    return gcd.Grammar.from_json_schema(grammar_or_schema, vocab, whitespace=whitespace)


def _stop_ids(eos_token_id: Any, tokenizer: Any, vocab: gcd.Vocabulary) -> List[int]:
    if eos_token_id is None:
        eos_token_id = getattr(tokenizer, "eos_token_id", None)
    if eos_token_id is None:
        ids = list(vocab.eos_ids)
    elif isinstance(eos_token_id, int):
        ids = [eos_token_id]
    elif isinstance(eos_token_id, torch.Tensor):
        ids = [int(t) for t in eos_token_id.reshape(-1).tolist()]
    else:
        ids = [int(t) for t in eos_token_id]
    if not ids:
        raise ValueError("no end-of-sequence token: pass eos_token_id=")
    for t in ids:
        if not 0 <= t < vocab.size:
            raise ValueError(f"eos_token_id {t} is outside the vocabulary (0..{vocab.size - 1})")
    return sorted(set(ids))


class LogitsProcessor:
    """Constrains ``model.generate()`` to a grammar or JSON Schema (see the module doc).

    grammar_or_schema: a ``gcd.Grammar`` compiled for this tokenizer, or a JSON
    Schema (dict, bool or JSON text), compiled with ``whitespace``.
    budget: at most this many tokens per row, the end token not counted; the
    output is complete by then (give ``generate()`` ``max_new_tokens >= budget + 1``).
    eos_token_id: the id(s) ``generate()`` stops on (default: the tokenizer's
    EOS, else the vocabulary's end tokens). vocab: the ``gcd.Vocabulary``
    (default: read from the tokenizer).
    """

    def __init__(
        self,
        grammar_or_schema: Any,
        tokenizer: Any,
        budget: Optional[int] = None,
        *,
        eos_token_id: Union[int, Sequence[int], None] = None,
        vocab: Optional[gcd.Vocabulary] = None,
        whitespace: str = "capped",
    ) -> None:
        self.vocab = vocab if vocab is not None else vocabulary_for(tokenizer)
        self.grammar = _as_grammar(grammar_or_schema, self.vocab, whitespace)
        self.budget = budget
        self.stop_ids = _stop_ids(eos_token_id, tokenizer, self.vocab)
        stop = set(self.stop_ids)
        # End ids the matcher allows when complete that generate() would not
        # stop on: forbidden, or the row would run on past its end.
        self._foreign_eos = [t for t in self.vocab.eos_ids if t not in stop]
        self.grammar.matcher(budget=budget)  # a budget too small fails here, clearly
        self.prompt_len: Optional[int] = None
        self.matchers: List[gcd.Matcher] = []
        self.stopped: List[bool] = []
        self._seen: Optional[torch.Tensor] = None

    def reset(self) -> None:
        """Forgets the rows, so the processor can serve another ``generate()`` call."""
        self.prompt_len = None
        self.matchers = []
        self.stopped = []
        self._seen = None

    def _take(self, row: int, token: int) -> None:
        if self.stopped[row]:
            return
        m = self.matchers[row]
        if token in self.stop_ids:
            if take_stop(m, token) is None:
                raise gcd.MatchError(
                    f"row {row}: end token {token} was taken before the output is complete "
                    f"(output so far {m.output!r}); the mask forbade it, so something after "
                    "gcd's processor changed the scores"
                )
            self.stopped[row] = True
            return
        try:
            m.advance(token)
        except gcd.MatchError as e:
            raise gcd.MatchError(
                f"row {row}: token {token} was taken although the mask forbade it (a "
                "processor after gcd's, or a decoding strategy that picks -inf scores, "
                f"such as contrastive search): {e}"
            ) from e
        if m.is_finished():
            m.rollback(1)
            raise gcd.MatchError(
                f"row {row}: end token {token} is not one generate() stops on "
                f"({self.stop_ids}); the mask forbade it"
            )

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        rows, length = input_ids.shape
        width = scores.shape[-1]
        if scores.shape[0] != rows:
            raise ValueError(f"scores has {scores.shape[0]} rows but input_ids has {rows}")
        if width < self.vocab.size:
            raise ValueError(
                f"scores are {width} wide but the vocabulary has {self.vocab.size} ids: "
                "the model cannot produce every token the grammar may need"
            )
        if self.prompt_len is None:
            self._refuse_log_probs(scores)
            self.prompt_len = length
            self.matchers = [self.grammar.matcher(budget=self.budget) for _ in range(rows)]
            self.stopped = [False] * rows
        else:
            assert self._seen is not None
            if rows != len(self.matchers) or length != self._seen.shape[1] + 1:
                raise ValueError(
                    f"expected {len(self.matchers)} rows of {self._seen.shape[1] + 1} ids, got "
                    f"{rows} of {length}: one LogitsProcessor serves one generate() call "
                    "(create a new one, or call reset())"
                )
            if not torch.equal(input_ids[:, :-1], self._seen):
                raise ValueError(
                    "rows changed their history between steps: beam search (num_beams > 1) "
                    "is not supported by gcd's LogitsProcessor; use greedy search or sampling"
                )
            for row, token in enumerate(input_ids[:, -1].tolist()):
                self._take(row, int(token))
        self._seen = input_ids

        live = [r for r in range(rows) if not self.stopped[r]]
        if not live:
            return scores
        bitmask = np.zeros((len(live), gcd.bitmask_words(width)), dtype=np.int32)
        gcd.fill_next_token_bitmasks([self.matchers[r] for r in live], bitmask)
        words = bitmask.view(np.uint32)
        for i, r in enumerate(live):
            fix_end_bits(self.matchers[r], words[i], self.stop_ids, self._foreign_eos)
        allowed = unpack_bitmask(torch.from_numpy(bitmask).to(scores.device), width)
        if len(live) == rows:
            return scores.masked_fill(~allowed, float("-inf"))
        idx = torch.tensor(live, device=scores.device)
        out = scores.clone()
        out[idx] = scores[idx].masked_fill(~allowed, float("-inf"))
        return out

    @staticmethod
    def _refuse_log_probs(scores: torch.Tensor) -> None:
        # Beam search hands processors log-softmax scores (each row's
        # logsumexp is 0); greedy search and sampling hand them raw logits.
        lse = torch.logsumexp(scores.float(), dim=-1)
        if bool(torch.all(lse.abs() < 1e-3)):
            raise ValueError(
                "the scores are log-probabilities, as beam search (num_beams > 1) passes "
                "them: beam search is not supported by gcd's LogitsProcessor; use greedy "
                "search or sampling"
            )

    def finish(self, sequences: torch.Tensor) -> List[bytes]:
        """Each row's output bytes, from ``generate()``'s returned ``sequences``.

        Takes the tokens generated after the last step the processor saw (the
        final end token), checks that every row stopped on an end token with a
        complete output, and returns the outputs. Raises ``gcd.MatchError`` for a
        row cut short (``max_new_tokens`` below ``budget + 1``, or no budget).
        """
        if self.prompt_len is None:
            raise ValueError("the processor was never called: nothing was generated")
        if sequences.shape[0] != len(self.matchers):
            raise ValueError(
                f"sequences has {sequences.shape[0]} rows, the processor {len(self.matchers)}"
            )
        outputs = []
        seen = 0 if self._seen is None else self._seen.shape[1]
        for row in range(sequences.shape[0]):
            for token in sequences[row, seen:].tolist():
                self._take(row, int(token))
            m = self.matchers[row]
            if not self.stopped[row]:
                raise gcd.MatchError(
                    f"row {row} did not end: {len(m.tokens)} tokens, output {m.output!r}"
                    + ("" if m.is_complete() else " (incomplete)")
                    + "; give generate() max_new_tokens >= budget + 1, or set a budget"
                )
            outputs.append(m.output)
        return outputs


def unpack_bitmask(bitmask: torch.Tensor, width: int) -> torch.Tensor:
    """The ``(rows, width)`` boolean allowed-mask of an ``int32`` bitmask tensor.

    Bit ``i % 32`` of word ``i // 32`` is token ``i``; ids at or past ``32 * W``
    count as forbidden.
    """
    if bitmask.dtype != torch.int32:
        raise TypeError(f"bitmask must be int32, got {bitmask.dtype}")
    if bitmask.dim() == 1:
        bitmask = bitmask.unsqueeze(0)
    shifts = torch.arange(32, device=bitmask.device, dtype=torch.int32)
    bits = ((bitmask.unsqueeze(-1) >> shifts) & 1).flatten(1).bool()
    if bits.shape[1] < width:
        pad = torch.zeros((bits.shape[0], width - bits.shape[1]), dtype=torch.bool, device=bits.device)
        bits = torch.cat([bits, pad], dim=1)
    return bits[:, :width]


def _prompt_batch(
    tokenizer: Any, prompts: Sequence[str], pad_id: int, add_special_tokens: bool = True
) -> "tuple[torch.Tensor, torch.Tensor]":
    # Left padding, as decoder-only generation needs, without touching the
    # caller's tokenizer settings.
    encoded = [tokenizer(p, add_special_tokens=add_special_tokens)["input_ids"] for p in prompts]
    longest = max(len(e) for e in encoded)
    ids = torch.full((len(encoded), longest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(encoded), longest), dtype=torch.long)
    for i, e in enumerate(encoded):
        if e:
            ids[i, longest - len(e):] = torch.tensor(e, dtype=torch.long)
            mask[i, longest - len(e):] = 1
    return ids, mask


def _generate(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    grammar_or_schema: Any,
    budget: Optional[int],
    eos: Any,
    whitespace: str,
    max_new_tokens: Optional[int],
    add_special_tokens: bool,
    generate_kwargs: dict,
) -> "tuple[List[bytes], LogitsProcessor]":
    if int(generate_kwargs.get("num_beams", 1) or 1) > 1:
        raise ValueError("beam search (num_beams > 1) is not supported: use greedy search or sampling")
    for key in ("logits_processor", "input_ids", "attention_mask"):
        if key in generate_kwargs:
            raise ValueError(f"gcd sets {key} itself; do not pass it")
    if max_new_tokens is None:
        if budget is None:
            raise ValueError("pass budget= (then max_new_tokens defaults to budget + 1) or max_new_tokens=")
        max_new_tokens = budget + 1
    elif budget is not None and max_new_tokens < budget + 1:
        raise ValueError(
            f"max_new_tokens={max_new_tokens} would cut outputs before their end: give at "
            f"least budget + 1 = {budget + 1}"
        )
    processor = LogitsProcessor(grammar_or_schema, tokenizer, budget, eos_token_id=eos, whitespace=whitespace)
    pad_id = generate_kwargs.pop("pad_token_id", None)
    if pad_id is None:
        pad_id = getattr(tokenizer, "pad_token_id", None)
    if pad_id is None:
        pad_id = processor.stop_ids[0]
    if not prompts:
        raise ValueError("no prompt")
    ids, mask = _prompt_batch(tokenizer, prompts, pad_id, add_special_tokens)
    device = getattr(model, "device", None)
    if device is not None:
        ids, mask = ids.to(device), mask.to(device)
    from transformers import LogitsProcessorList

    out = model.generate(
        input_ids=ids,
        attention_mask=mask,
        logits_processor=LogitsProcessorList([processor]),
        max_new_tokens=max_new_tokens,
        eos_token_id=processor.stop_ids,
        pad_token_id=pad_id,
        **generate_kwargs,
    )
    sequences = out if isinstance(out, torch.Tensor) else out.sequences
    return processor.finish(sequences), processor


def _model_eos(model: Any, tokenizer: Any, given: Any) -> Any:
    if given is not None:
        return given
    eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    return eos if eos is not None else getattr(tokenizer, "eos_token_id", None)


def generate_json(
    model: Any,
    tokenizer: Any,
    prompt: Union[str, Sequence[str]],
    schema: Any,
    budget: Optional[int] = None,
    *,
    whitespace: str = "capped",
    max_new_tokens: Optional[int] = None,
    return_processor: bool = False,
    **generate_kwargs: Any,
) -> Any:
    """Generates JSON valid for ``schema`` with ``model.generate()`` and parses it.

    prompt: one prompt (returns one value) or a list (returns a list, row by
    row; with ``num_return_sequences=n`` each prompt gives n values in a row).
    budget: at most this many tokens per output, the end token not counted;
    ``max_new_tokens`` defaults to ``budget + 1``. Without a budget give
    ``max_new_tokens``; an output it cuts short raises ``gcd.MatchError``.
    Other keyword arguments go to ``generate()`` (``do_sample``, ``top_k``,
    ``num_return_sequences``, ``eos_token_id``, ...); ``num_beams > 1`` raises
    ``ValueError``. return_processor: also return the processor (for its
    matchers), as ``(value, processor)``.
    """
    eos = _model_eos(model, tokenizer, generate_kwargs.pop("eos_token_id", None))
    one = isinstance(prompt, str)
    prompts = [prompt] if one else list(prompt)
    outputs, processor = _generate(
        model, tokenizer, prompts, schema, budget, eos, whitespace, max_new_tokens, True, generate_kwargs
    )
    values = [json.loads(b) for b in outputs]
    result: Any = values[0] if one and len(values) == 1 else values
    return (result, processor) if return_processor else result


# Chat turns: tool calls in a model family's own format, then its end token.
CHAT_FORMATS = {
    # name: (the call's arguments key, default end token)
    "llama31": ("parameters", "<|eot_id|>"),
    "hermes": ("arguments", "<|im_end|>"),
}


def _tool_function(tool: Any) -> "tuple[str, Any]":
    if not isinstance(tool, dict):
        raise TypeError(f"a tool must be a dict, got {type(tool).__name__}")
    fn = tool.get("function", tool) if tool.get("type", "function") == "function" else None
    if fn is None:
        raise ValueError(f"tool type {tool.get('type')!r} is not supported: only functions")
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"a tool needs a name: {tool!r}")
    return name, fn.get("parameters", {"type": "object"})


def _calls_rule(min_calls: int, max_calls: Optional[int], sep: str, one: str) -> str:
    if min_calls < 1 or (max_calls is not None and max_calls < min_calls):
        raise ValueError(f"calls: need 1 <= min_calls <= max_calls, got {min_calls}, {max_calls}")
    parts = [one] + [f"{sep} {one}"] * (min_calls - 1)
    if max_calls is None:
        parts.append(f"({sep} {one})*")
    else:
        tail = ""
        for _ in range(max_calls - min_calls):
            tail = f"({sep} {one} {tail})?" if tail else f"({sep} {one})?"
        if tail:
            parts.append(tail)
    return " ".join(parts)


def chat_turn_grammar(
    tools: Sequence[Any],
    vocab: gcd.Vocabulary,
    format: str = "llama31",
    *,
    end_token: Optional[str] = None,
    min_calls: int = 1,
    max_calls: Optional[int] = None,
) -> "tuple[gcd.Grammar, str]":
    """The grammar of one assistant turn of tool calls, and its end token.

    format: ``"llama31"`` (calls ``{"name": ..., "parameters": {...}}`` joined
    by ``;``, then ``<|eot_id|>``) or ``"hermes"`` (Qwen, Hermes: free text,
    then ``<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>``
    blocks joined by ``\n``, then ``<|im_end|>``), the formats of the Rust
    ``gcd::chat::Chat``. tools: OpenAI-style ``{"type": "function",
    "function": {"name", "parameters"}}`` dicts (or the inner function dict).
    end_token: the special token that ends the turn (its text).
    """
    if format not in CHAT_FORMATS:
        raise ValueError(f"chat format {format!r} is not supported: one of {sorted(CHAT_FORMATS)}")
    args_key, default_end = CHAT_FORMATS[format]
    end = end_token or default_end
    if not (end.startswith("<") and end.endswith(">")) or "\n" in end:
        raise ValueError(f"end_token must be a special token's text such as <|eot_id|>, got {end!r}")
    if not tools:
        raise ValueError("no tools")
    variants = []
    for tool in tools:
        name, params = _tool_function(tool)
        variants.append(
            {
                "type": "object",
                "properties": {"name": {"const": name}, args_key: params},
                "required": ["name", args_key],
                "additionalProperties": False,
            }
        )
    schema = variants[0] if len(variants) == 1 else {"anyOf": variants}
    call = "call: %json " + json.dumps(schema) + "\n"
    if format == "llama31":
        start = "start: " + _calls_rule(min_calls, max_calls, '";"', "call") + f" {end}\n"
        text = start + call
    else:
        block = 'call "\\n</tool_call>"'
        start = (
            "start: TEXT \"\\n\" "
            + _calls_rule(min_calls, max_calls, '"\\n<tool_call>\\n"', block)
            + f" {end}\n"
        )
        text = start + call + "TEXT: /(?s:.)*?<tool_call>/\n"
    return gcd.Grammar.from_lark(text, vocab), end


def parse_chat_turn(text: str, format: str, end_token: str) -> dict:
    """Splits a turn's text (``Matcher.text``) into ``{"text": ..., "calls": [...]}``."""
    if not text.endswith(end_token):
        raise ValueError(f"the turn does not end with {end_token}: {text[-40:]!r}")
    body = text[: -len(end_token)]
    decoder = json.JSONDecoder()
    calls = []
    if format == "llama31":
        free, i = "", 0
        while i < len(body):
            value, i = decoder.raw_decode(body, i)
            calls.append(value)
            if i < len(body):
                if body[i] != ";":
                    raise ValueError(f"expected ';' at {i} in {body!r}")
                i += 1
    else:
        free, _, rest = body.partition("<tool_call>")
        for block in ("<tool_call>" + rest).split("<tool_call>")[1:]:
            inner = block.strip("\n")
            if not inner.endswith("</tool_call>"):
                raise ValueError(f"unclosed <tool_call> in {body!r}")
            calls.append(json.loads(inner[: -len("</tool_call>")]))
    return {"text": free, "calls": calls}


def generate_chat_turn(
    model: Any,
    tokenizer: Any,
    prompt: Union[str, Sequence[dict]],
    tools: Sequence[Any],
    format: str = "llama31",
    budget: Optional[int] = None,
    *,
    end_token: Optional[str] = None,
    min_calls: int = 1,
    max_calls: Optional[int] = None,
    max_new_tokens: Optional[int] = None,
    return_processor: bool = False,
    **generate_kwargs: Any,
) -> Any:
    """Generates one assistant turn of tool calls and returns ``{"text", "calls"}``.

    prompt: the prompt text, already in the chat format, or a list of chat
    messages (rendered with ``tokenizer.apply_chat_template(messages,
    tools=tools, add_generation_prompt=True)``). The turn ends with its end
    token, which is also what ``generate()`` stops on; ``budget`` counts the
    turn's tokens without it. See ``chat_turn_grammar`` for the formats.
    Each call is a dict with ``"name"`` and ``"parameters"`` (llama31) or
    ``"arguments"`` (hermes), valid for that tool's schema.
    """
    vocab = vocabulary_for(tokenizer)
    grammar, end = chat_turn_grammar(
        tools, vocab, format, end_token=end_token, min_calls=min_calls, max_calls=max_calls
    )
    end_id = tokenizer.convert_tokens_to_ids(end)
    if not isinstance(end_id, int) or end_id < 0 or end_id == getattr(tokenizer, "unk_token_id", None):
        raise ValueError(f"the tokenizer has no token {end}")
    if isinstance(prompt, str):
        text, special = prompt, True
    else:
        text = tokenizer.apply_chat_template(list(prompt), tools=list(tools), add_generation_prompt=True, tokenize=False)
        special = False  # the template writes its own BOS
    if budget is not None:
        budget += 1  # the grammar's end token is a token of the turn
    outputs, processor = _generate(
        model, tokenizer, [text], grammar, budget, [end_id], "capped", max_new_tokens, special, generate_kwargs
    )
    turns = [parse_chat_turn(m.text, format, end) for m in processor.matchers]
    result: Any = turns[0] if len(turns) == 1 else turns
    return (result, processor) if return_processor else result
