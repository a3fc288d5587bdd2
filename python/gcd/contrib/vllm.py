"""gcd as a vLLM (V1) structured-output backend.

vLLM's V1 engine drives a structured-output backend through two classes in
``vllm.v1.structured_output.backend_types``: an engine-level
``StructuredOutputBackend`` (compile a grammar per request, allocate the batch
bitmask) and a request-level ``StructuredOutputGrammar`` (accept tokens,
validate speculative drafts without advancing, roll back, fill a bitmask row,
report termination, reset). ``GcdBackend`` and ``GcdGrammar`` implement them
(written against vLLM 0.34.0; ``VLLM_INTERFACE`` below is the pinned
description the tests check). When vLLM is importable they subclass its
abstract classes; otherwise they stand alone with the same methods, so the
backend can be tested, and driven, without a GPU build of vLLM.

Request types (``StructuredOutputOptions``):

* ``JSON`` (a JSON Schema) and ``JSON_OBJECT`` (any object):
  ``gcd.Grammar.from_json_schema``; whitespace ``"capped"``, or ``"compact"``
  with ``structured_outputs_config.disable_any_whitespace``.
* ``REGEX``: the regex as gcd's Lark terminal (``start: /regex/``): Python
  regex syntax, matched whole; what gcd cannot compile (backreferences,
  lookaround) raises ``gcd.GrammarError`` naming it.
* ``GRAMMAR``: GBNF when it has ``::=`` rules (vLLM rewrites ``choice`` into
  GBNF), else gcd's Lark subset (llguidance's dialect as far as gcd reads it:
  ``%json``, special tokens ``<|...|>``; the rest is refused by name).
* ``CHOICE``: a JSON list of strings, exactly one of them.
* ``STRUCTURAL_TAG``: XGrammar's structural tag, ``from_structural_tag``.

Anything else raises ``ValueError`` naming the type. End tokens: the request's
stop token ids (vLLM's ``all_stop_token_ids``) are allowed when the output is
complete or where the grammar names one as its last symbol, and taking one
terminates the grammar; end-of-sequence ids that gcd knows but the request
would not stop on are allowed only where the grammar names them.

vLLM 0.34.0 picks its backend from a fixed list of names and has no registry
for a third-party one; ``install(llm_or_manager)`` and the recipe
``python -m gcd.contrib.vllm_demo --model DIR`` show how to put gcd in.
"""

from __future__ import annotations

import enum
import json
import threading
from collections import OrderedDict
from typing import Any, Iterable, List, Optional, Sequence, Tuple

import gcd
from gcd.contrib._ends import fix_end_bits, take_stop
from gcd.contrib._hf import vocabulary_for

_TOKEN, _STOP, _STOP_ADVANCED = 0, 1, 2

__all__ = [
    "GcdBackend",
    "GcdGrammar",
    "StructuredOutputOptions",
    "VLLM_INTERFACE",
    "VLLM_VERSION_CHECKED",
    "choice_to_gbnf",
    "regex_to_lark",
]

VLLM_VERSION_CHECKED = "0.34.0"

# The interface as vLLM 0.34.0 declares it (vllm/v1/structured_output/
# backend_types.py): method -> parameter names after self. The tests check
# both classes against it, and against vLLM's own classes when importable.
VLLM_INTERFACE = {
    "StructuredOutputGrammar": {
        "accept_tokens": ("request_id", "tokens"),
        "validate_tokens": ("tokens",),
        "rollback": ("num_tokens",),
        "fill_bitmask": ("bitmask", "batch_index"),
        "is_terminated": (),
        "reset": (),
    },
    "StructuredOutputBackend": {
        "__init__": ("vllm_config", "tokenizer", "vocab_size"),
        "compile_grammar": ("request_type", "grammar_spec", "stop_token_ids"),
        "allocate_token_bitmask": ("max_num_seqs",),
        "destroy": (),
    },
    "StructuredOutputOptions": ("JSON", "JSON_OBJECT", "REGEX", "GRAMMAR", "CHOICE", "STRUCTURAL_TAG"),
}

try:  # vLLM's own abstract classes, when vLLM imports here
    from vllm.v1.structured_output.backend_types import (  # type: ignore
        StructuredOutputBackend as _BackendBase,
        StructuredOutputGrammar as _GrammarBase,
        StructuredOutputOptions,
    )

    HAVE_VLLM = True
except Exception:  # ImportError, or a vLLM build that cannot load on this machine
    HAVE_VLLM = False

    class StructuredOutputOptions(enum.Enum):  # type: ignore[no-redef]
        """Stand-in for vLLM's enum of request types (same member names)."""

        JSON = enum.auto()
        JSON_OBJECT = enum.auto()
        REGEX = enum.auto()
        GRAMMAR = enum.auto()
        CHOICE = enum.auto()
        STRUCTURAL_TAG = enum.auto()

    class _GrammarBase:  # type: ignore[no-redef]
        pass

    class _BackendBase:  # type: ignore[no-redef]
        pass


def regex_to_lark(pattern: str) -> str:
    """A Lark grammar whose language is the strings ``pattern`` matches whole."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            # A raw newline after a backslash would end the literal: spell it.
            out.append("\\n" if nxt == "\n" else "\\r" if nxt == "\r" else c + nxt)
            i += 2
            continue
        out.append({"/": "\\/", "\n": "\\n", "\r": "\\r"}.get(c, c))
        i += 1
    return "start: /" + "".join(out) + "/\n"


def _gbnf_literal(s: str) -> str:
    out = []
    for ch in s:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def choice_to_gbnf(choices: Sequence[str]) -> str:
    """A GBNF grammar whose language is exactly ``choices``."""
    if not choices:
        raise ValueError("choice: the list of choices is empty")
    for c in choices:
        if not isinstance(c, str):
            raise TypeError(f"choice: every choice must be a string, got {type(c).__name__}")
    return "root ::= " + " | ".join(_gbnf_literal(c) for c in choices) + "\n"


def _looks_like_gbnf(text: str) -> bool:
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            return "::=" in line
    return False


class GcdGrammar(_GrammarBase):
    """One request's grammar state (vLLM's ``StructuredOutputGrammar``).

    Not thread-safe for one request; vLLM drives each request from one
    thread at a time (its fill-bitmask pool gives each thread other rows).
    """

    def __init__(
        self,
        grammar: gcd.Grammar,
        stop_token_ids: Iterable[int],
        foreign_eos: Iterable[int],
        vocab_size: int,
    ) -> None:
        self.grammar = grammar
        self.matcher = grammar.matcher()
        self.stop_token_ids = frozenset(int(t) for t in stop_token_ids)
        self.foreign_eos = frozenset(int(t) for t in foreign_eos)
        self.vocab_size = vocab_size
        self.num_processed_tokens = 0
        # Per accepted token: _TOKEN, _STOP (the stop token that terminated
        # the request, not in the matcher) or _STOP_ADVANCED (a stop token the
        # grammar names as its last symbol: in the matcher, and terminating).
        self._history: List[int] = []
        self._terminated = False

    def _accept_one(self, m: gcd.Matcher, token: int) -> Optional[int]:
        """Takes token on m: None if refused, else its history entry."""
        if token in self.stop_token_ids:
            advanced = take_stop(m, token)
            if advanced is None:
                return None
            return _STOP_ADVANCED if advanced else _STOP
        if not 0 <= token < self.grammar.vocab_size or not m.accept_token(token):
            return None
        if m.is_finished():  # an end id taken as EOS, which the request does not stop on
            m.rollback(1)
            return None
        return _TOKEN

    def accept_tokens(self, request_id: str, tokens: List[int]) -> bool:
        """Advances by all of ``tokens``; False (state unchanged) if one is refused.

        Tokens after the stop token that terminates the request are ignored, as
        in vLLM's own backends (the scheduler trims them).
        """
        if self._terminated:
            return True
        taken = 0
        for token in tokens:
            stop = self._accept_one(self.matcher, int(token))
            if stop is None:
                self._undo(taken)
                return False
            taken += 1
            self._history.append(stop)
            self.num_processed_tokens += 1
            if stop != _TOKEN:
                self._terminated = True
                break
        return True

    def validate_tokens(self, tokens: List[int]) -> List[int]:
        """The longest prefix of ``tokens`` the grammar accepts; does not advance."""
        if self._terminated:
            return []
        m = self.matcher.fork()  # cheap; the request's own matcher is untouched
        accepted: List[int] = []
        for token in tokens:
            stop = self._accept_one(m, int(token))
            if stop is None:
                break
            accepted.append(int(token))
            if stop != _TOKEN:
                break
        return accepted

    def _undo(self, n: int) -> None:
        grammar_tokens = 0
        for _ in range(n):
            entry = self._history.pop()
            if entry != _TOKEN:
                self._terminated = False
            if entry != _STOP:
                grammar_tokens += 1
            self.num_processed_tokens -= 1
        if grammar_tokens:
            self.matcher.rollback(grammar_tokens)

    def rollback(self, num_tokens: int) -> None:
        """Undoes the last ``num_tokens`` accepted tokens (a stop token included).

        Raises ``gcd.MatchError`` if fewer were accepted.
        """
        if num_tokens < 0 or num_tokens > len(self._history):
            raise gcd.MatchError(
                f"rollback({num_tokens}): only {len(self._history)} tokens were accepted"
            )
        self._undo(num_tokens)

    def fill_bitmask(self, bitmask: Any, batch_index: int) -> None:
        """Writes the allowed next tokens into row ``batch_index`` of ``bitmask``.

        ``bitmask``: the int32 tensor (or numpy array) of
        ``GcdBackend.allocate_token_bitmask``, on the CPU. The GIL is released
        while gcd computes the row.
        """
        arr = _as_numpy(bitmask)
        self.matcher.fill_next_token_bitmask(arr, batch_index)
        self._fix_end_bits(arr, batch_index)

    def _fix_end_bits(self, arr: Any, row: int) -> None:
        import numpy as np

        words = arr.view(np.uint32)
        fix_end_bits(self.matcher, words[row] if words.ndim == 2 else words, self.stop_token_ids, self.foreign_eos)

    def is_terminated(self) -> bool:
        """Whether a stop token was accepted with the output complete."""
        return self._terminated

    def reset(self) -> None:
        """Back to the start of the output (a fresh matcher)."""
        self.matcher = self.grammar.matcher()
        self._history = []
        self.num_processed_tokens = 0
        self._terminated = False

    @property
    def output(self) -> bytes:
        """The bytes accepted so far (stop tokens add none)."""
        return self.matcher.output


def _as_numpy(bitmask: Any) -> Any:
    numpy_method = getattr(bitmask, "numpy", None)
    if numpy_method is not None and not hasattr(bitmask, "__array_interface__"):
        device = getattr(bitmask, "device", None)
        if device is not None and getattr(device, "type", "cpu") != "cpu":
            raise ValueError(
                f"the bitmask is on {device}: gcd fills CPU memory; allocate it with "
                "GcdBackend.allocate_token_bitmask and move it to the device afterwards"
            )
        return numpy_method()  # shares the tensor's memory
    return bitmask


class GcdBackend(_BackendBase):
    """gcd as vLLM's engine-level ``StructuredOutputBackend``.

    vllm_config: vLLM's config (read: ``structured_outputs_config.
    disable_any_whitespace``; may be None). tokenizer: the engine's Hugging
    Face fast tokenizer, or a ``gcd.Vocabulary``. vocab_size: the model's
    logits width (``model_config.get_vocab_size()``), at least the tokenizer's.
    Compiled grammars are cached by (type, spec), up to ``cache_size``.
    """

    def __init__(
        self,
        vllm_config: Any,
        tokenizer: Any,
        vocab_size: int,
        *,
        cache_size: int = 256,
    ) -> None:
        self.vllm_config = vllm_config
        self.tokenizer = tokenizer
        self.vocab_size = int(vocab_size)
        self.__post_init__(cache_size)

    def __post_init__(self, cache_size: int = 256) -> None:
        if isinstance(self.tokenizer, gcd.Vocabulary):
            self.vocab = self.tokenizer
        else:
            if getattr(self.tokenizer, "backend_tokenizer", None) is None:
                raise TypeError(
                    f"{type(self.tokenizer).__name__}: gcd's vLLM backend needs a Hugging Face "
                    "fast tokenizer (tokenizer.json); Mistral's tekken / sentencepiece "
                    "tokenizer objects are not supported"
                )
            self.vocab = vocabulary_for(self.tokenizer)
        if self.vocab_size < self.vocab.size:
            raise ValueError(
                f"vocab_size {self.vocab_size} (the model's logits width) is below the "
                f"tokenizer's {self.vocab.size} ids"
            )
        so = getattr(self.vllm_config, "structured_outputs_config", None)
        compact = bool(getattr(so, "disable_any_whitespace", False))
        self.whitespace = "compact" if compact else "capped"
        self._cache: "OrderedDict[Tuple[Any, str], gcd.Grammar]" = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def _compile(self, request_type: Any, spec: str) -> gcd.Grammar:
        name = getattr(request_type, "name", str(request_type))
        v = self.vocab
        if name == "JSON":
            return gcd.Grammar.from_json_schema(spec, v, whitespace=self.whitespace)
        if name == "JSON_OBJECT":
            return gcd.Grammar.from_json_schema('{"type": "object"}', v, whitespace=self.whitespace)
        if name == "REGEX":
            return gcd.Grammar.from_lark(regex_to_lark(spec), v)
        if name == "GRAMMAR":
            if _looks_like_gbnf(spec):
                return gcd.Grammar.from_gbnf(spec, v)
            return gcd.Grammar.from_lark(spec, v)
        if name == "CHOICE":
            try:
                choices = json.loads(spec)
            except ValueError as e:
                raise ValueError(f"choice: the spec is not a JSON list of strings: {e}") from None
            if not isinstance(choices, list):
                raise ValueError(f"choice: the spec is not a JSON list, got {type(choices).__name__}")
            return gcd.Grammar.from_gbnf(choice_to_gbnf(choices), v)
        if name == "STRUCTURAL_TAG":
            return gcd.Grammar.from_structural_tag(spec, v)
        raise ValueError(f"gcd's vLLM backend does not support the request type {request_type!r}")

    def compile_grammar(
        self,
        request_type: Any,
        grammar_spec: str,
        stop_token_ids: Optional[Iterable[int]] = None,
    ) -> GcdGrammar:
        """A new request grammar; raises gcd's errors (naming what is unsupported)."""
        key = (getattr(request_type, "name", request_type), grammar_spec)
        with self._lock:
            grammar = self._cache.get(key)
            if grammar is not None:
                self._cache.move_to_end(key)
        if grammar is None:
            grammar = self._compile(request_type, grammar_spec)  # GIL released inside
            with self._lock:
                self._cache[key] = grammar
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        stops = sorted(set(int(t) for t in stop_token_ids)) if stop_token_ids else list(self.vocab.eos_ids)
        for t in stops:
            if not 0 <= t < self.vocab_size:
                raise ValueError(f"stop token id {t} is outside the logits width {self.vocab_size}")
        foreign = [t for t in self.vocab.eos_ids if t not in set(stops)]
        return GcdGrammar(grammar, stops, foreign, self.vocab_size)

    def allocate_token_bitmask(self, max_num_seqs: int) -> Any:
        """An int32 CPU tensor ``(max_num_seqs, ceil(vocab_size / 32))``, all allowed."""
        import torch

        return torch.full(
            (max_num_seqs, gcd.bitmask_words(self.vocab_size)), -1, dtype=torch.int32
        )

    def fill_bitmasks(self, grammars: Sequence[GcdGrammar], bitmask: Any, indices: Sequence[int]) -> None:
        """Fills row ``indices[i]`` for ``grammars[i]`` in one call, in parallel, GIL released."""
        arr = _as_numpy(bitmask)
        gcd.fill_next_token_bitmasks([g.matcher for g in grammars], arr, list(indices))
        for g, row in zip(grammars, indices):
            g._fix_end_bits(arr, row)

    def destroy(self) -> None:
        """Drops the compiled grammars."""
        with self._lock:
            self._cache.clear()


def install(manager: Any, *, vocab_size: Optional[int] = None) -> GcdBackend:
    """Puts a ``GcdBackend`` into a vLLM ``StructuredOutputManager`` before its first request.

    The manager then compiles every structured request with gcd (it creates a
    backend only while it has none). Returns the backend. Used by
    ``gcd.contrib.vllm_demo``; see there for where the manager lives.
    """
    if getattr(manager, "backend", None) is not None:
        raise RuntimeError("the manager already has a structured-output backend")
    config = manager.vllm_config
    width = vocab_size if vocab_size is not None else config.model_config.get_vocab_size()
    backend = GcdBackend(config, manager.tokenizer, width)
    manager.backend = backend
    return backend
