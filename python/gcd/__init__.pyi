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

def allocate_token_bitmask(batch: int, vocab_size: int) -> Any:
    """A zeroed (all-forbidden) int32 numpy array of shape (batch, ceil(vocab_size / 32)).

    vocab_size may be the model's (padded) logits width; ids past the vocabulary stay
    forbidden when a matcher fills the row. Raises ValueError if either is negative.
    """

def apply_token_bitmask_inplace(logits: Any, bitmask: Any) -> None:
    """Sets every logit whose bit is clear in bitmask to -inf, in place (numpy reference).

    logits: float numpy array, shape (batch, V) or (V,); bitmask: int32, shape
    (batch, W) or (W,). Ids at or past 32 * W count as forbidden. Raises TypeError
    for wrong types or dtypes, ValueError for mismatched dimensions or rows.
    """
