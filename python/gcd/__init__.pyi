"""Type stubs for gcd."""

from typing import Any

from ._gcd import (
    GcdError as GcdError,
    Grammar as Grammar,
    GrammarError as GrammarError,
    MatchError as MatchError,
    Matcher as Matcher,
    SchemaError as SchemaError,
    Vocabulary as Vocabulary,
    VocabularyError as VocabularyError,
    bitmask_words as bitmask_words,
    fill_next_token_bitmasks as fill_next_token_bitmasks,
)

__version__: str

def allocate_token_bitmask(batch: int, vocab_size: int) -> Any: ...
def apply_token_bitmask_inplace(logits: Any, bitmask: Any) -> None: ...
