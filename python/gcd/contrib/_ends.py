"""End tokens as an engine sees them, shared by the transformers and vLLM integrations.

An engine stops a row on its own stop ids; gcd's matcher knows the
vocabulary's end-of-sequence ids. The two sets need not agree, and a grammar
may name an end token as a symbol (a chat turn ends with ``<|eot_id|>``), so:

* a stop id is allowed iff the output is complete, or the grammar takes it
  as a symbol and is complete right after it (the engine stops there);
* an end id gcd knows that is not a stop id is allowed only where the
  grammar takes it as a symbol and goes on (taken as EOS the engine would
  not stop, and the output would run past its end).
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import numpy as np

import gcd

_ALL = 0xFFFFFFFF


def _bit(words: Any, t: int) -> bool:
    return bool(words[t >> 5] & np.uint32(1 << (t & 31)))


def _set(words: Any, t: int, on: bool) -> None:
    if on:
        words[t >> 5] |= np.uint32(1 << (t & 31))
    else:
        words[t >> 5] &= np.uint32(~(1 << (t & 31)) & _ALL)


def symbol_then_complete(m: gcd.Matcher, t: int) -> bool:
    """Whether the grammar takes t as a symbol (not as EOS) and is complete after it."""
    f = m.fork()
    return f.accept_token(t) and not f.is_finished() and f.is_complete()


def fix_end_bits(m: gcd.Matcher, words: Any, stop_ids: Iterable[int], foreign_eos: Iterable[int]) -> None:
    """Rewrites the end-token bits of one uint32 bitmask row (see the module doc)."""
    complete = m.is_complete()
    width = words.shape[0] * 32
    for t in foreign_eos:
        if t < width and _bit(words, t):
            f = m.fork()
            _set(words, t, bool(f.accept_token(t)) and not f.is_finished())
    for t in stop_ids:
        if t >= width:
            continue  # past the row: the engine cannot sample it
        if complete:
            _set(words, t, True)
        elif _bit(words, t):
            _set(words, t, symbol_then_complete(m, t))


def take_stop(m: gcd.Matcher, t: int) -> Optional[bool]:
    """Takes stop id t: None if not allowed, else whether the matcher advanced by it."""
    if m.is_complete():
        return False
    f = m.fork()
    if f.accept_token(t) and not f.is_finished() and f.is_complete():
        m.advance(t)
        return True
    return None
