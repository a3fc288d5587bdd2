"""Reading a Hugging Face tokenizer object into a gcd vocabulary (no torch needed)."""

from __future__ import annotations

import os
import tempfile
import weakref
from typing import Any

import gcd

_VOCABS: "weakref.WeakKeyDictionary[Any, gcd.Vocabulary]" = weakref.WeakKeyDictionary()


def vocabulary_for(tokenizer: Any) -> gcd.Vocabulary:
    """The gcd vocabulary of a Hugging Face fast tokenizer (cached per tokenizer).

    Read from the tokenizer's own serialization (``backend_tokenizer``), so it
    is the tokenizer in memory, however it was loaded. Raises ``TypeError``
    for a slow (Python) tokenizer, which has no ``tokenizer.json`` form, and
    ``ValueError`` if the two disagree on the vocabulary's size.
    """
    try:
        cached = _VOCABS.get(tokenizer)
    except TypeError:  # not weak-referenceable
        cached = None
    if cached is not None:
        return cached
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise TypeError(
            f"{type(tokenizer).__name__} is not a fast tokenizer (no backend_tokenizer): "
            "load it with use_fast=True or pass vocab=gcd.Vocabulary.load(...)"
        )
    with tempfile.TemporaryDirectory(prefix="gcd-tok-") as d:
        path = os.path.join(d, "tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(backend.to_str())
        vocab = gcd.Vocabulary.from_tokenizer_json(path)
    if vocab.size != len(tokenizer):
        raise ValueError(
            f"gcd read {vocab.size} token ids from the tokenizer but len(tokenizer) is "
            f"{len(tokenizer)}: pass vocab= explicitly"
        )
    try:
        _VOCABS[tokenizer] = vocab
    except TypeError:
        pass
    return vocab


