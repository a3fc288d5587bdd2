"""Type stubs for the compiled core of gcd."""

from os import PathLike
from typing import Any, Optional, Sequence, Union

class GcdError(ValueError):
    """Base class of gcd's errors (a ValueError)."""

class SchemaError(GcdError):
    """A JSON Schema gcd cannot read or compile: not JSON, not a valid schema, or unsupported."""

class GrammarError(GcdError):
    """A Lark grammar gcd cannot read or compile (the message gives line:column)."""

class VocabularyError(GcdError):
    """A tokenizer or vocabulary gcd cannot load or use, or a token id out of its range."""

class MatchError(GcdError):
    """A token or operation the matcher refused; the matcher is unchanged."""

class Vocabulary:
    """A tokenizer's vocabulary: every token id's exact bytes, plus EOS ids.

    Immutable; share one between threads and grammars.
    """

    @staticmethod
    def load(spec: str) -> Vocabulary:
        """Loads "o200k", "cl100k", "p50k" or "r50k" (embedded), a tokenizer.json or
        .tiktoken file, or a directory holding a tokenizer.json.

        Raises VocabularyError if the spec names nothing loadable.
        """
    @staticmethod
    def from_tokenizer_json(path: Union[str, PathLike[str]]) -> Vocabulary:
        """Loads a Hugging Face tokenizer.json file.

        EOS ids come from tokenizer_config.json / generation_config.json beside it,
        plus well-known end markers. Raises VocabularyError if it cannot be loaded.
        """
    @staticmethod
    def from_tokens(tokens: Sequence[bytes], eos_ids: Sequence[int] = ...) -> Vocabulary:
        """A synthetic vocabulary for tests: token i is tokens[i].

        eos_ids end the output whatever their bytes. encode() is unavailable.
        Raises VocabularyError if an EOS id is out of range.
        """
    @property
    def size(self) -> int:
        """Number of token ids (the highest id + 1); same as len(vocab)."""
    @property
    def eos_ids(self) -> list[int]:
        """The end-of-sequence token ids."""
    @property
    def name(self) -> str:
        """Short name: the tokenizer's directory, the file's stem, the encoding, or "synthetic"."""
    def __len__(self) -> int:
        """Number of token ids; same as size."""
    def encode(self, text: str) -> list[int]:
        """Tokenizes text as the real tokenizer does, adding no special tokens.

        Raises VocabularyError on a vocabulary without a tokenizer (from_tokens).
        """
    def decode(self, ids: Sequence[int]) -> bytes:
        """The concatenated bytes of the token ids (special tokens give their text).

        Raises VocabularyError if an id is out of range.
        """
    def token_bytes(self, id: int) -> bytes:
        """The exact bytes of one token. Raises VocabularyError if id is out of range."""

class Grammar:
    """A grammar compiled and bound to one vocabulary.

    Immutable and shared: compile once per schema, create one matcher per request.
    """

    @staticmethod
    def from_json_schema(
        schema: Union[str, dict[str, Any], bool],
        vocab: Vocabulary,
        whitespace: str = "capped",
        any_order: bool = False,
    ) -> Grammar:
        """Compiles a JSON Schema (JSON text, or a JSON-serializable object) for vocab.

        whitespace: "capped" (default: where pretty-printers put it, at most 20 bytes
        in each place), "capped:N" (at most N, 0-255), "compact" (none), "spaced"
        (optional single space after , and :), "single_space" (exactly one, as
        json.dumps writes) or "json" (any JSON whitespace). any_order: object members
        in any order, not only the schema's.

        Raises SchemaError for a bad or unsupported schema, ValueError for an unknown
        whitespace, TypeError for a schema that is not JSON-serializable.
        """
    @staticmethod
    def from_lark(
        text: str,
        vocab: Vocabulary,
        import_dir: Optional[str] = None,
        lexing: str = "maximal-munch",
        start: Optional[str] = None,
    ) -> Grammar:
        """Compiles a grammar in gcd's Lark subset (start rule `start`) for vocab.

        start: the start rule, as Lark's `start=`; a grammar without a rule
        named `start` is refused without it (as Lark and llguidance refuse it).

        Ambiguous (non-LL(1)) grammars are allowed. Special tokens are named in
        rules as <|eot_id|> or by id as <[128009]> and match that token only;
        %json { ... } stands for the JSON documents a JSON Schema validates.
        import_dir: where `%import .module.NAME` reads `module.lark`.
        lexing: "maximal-munch" (a lexeme grows while it can) or "dynamic" (it
        may end wherever a terminal matches, as in Lark's Earley parser).
        Raises GrammarError if the text does not parse or compile, and
        VocabularyError if vocab lacks a special token the grammar names.
        """
    @staticmethod
    def from_gbnf(text: str, vocab: Vocabulary, lexing: str = "maximal-munch") -> Grammar:
        """Compiles a GBNF grammar (llama.cpp's format, start rule `root`) for vocab.

        The language is GBNF's, character by character: whitespace only where the
        grammar writes it, any derivation. lexing: "maximal-munch" or "dynamic"
        (both give the same language). Raises GrammarError if the text does not
        parse or compile.
        """
    @staticmethod
    def from_structural_tag(tag: Union[str, dict[str, Any]], vocab: Vocabulary) -> Grammar:
        """Compiles XGrammar's structural tag for vocab: the language XGrammar gives it.

        tag: a str of JSON or a dict, {"type": "structural_tag", "format": {...}} or the
        older form with "structures" and "triggers". Raises SchemaError for a malformed
        tag or a format gcd does not support (named in the message), TypeError for a
        tag that is not JSON-serializable.
        """
    @property
    def vocab_size(self) -> int:
        """Size of the bound vocabulary; bitmask rows need at least ceil(vocab_size / 32) words."""
    def matcher(self, budget: Optional[int] = None) -> Matcher:
        """A new matcher at the start of the output.

        budget: at most this many tokens (EOS not counted), complete by then; masks
        forbid tokens that would make that impossible. Raises MatchError if budget is
        below the fewest tokens gcd can complete the output in.
        """

class Matcher:
    """Follows one output token by token; computes the allowed next tokens.

    One per request, driven from one thread at a time; fork() is cheap.
    """

    def advance(self, token: int) -> None:
        """Accepts a token id (EOS only when the output is complete).

        Raises MatchError if the grammar (or the budget) does not allow it here, the
        id is out of range, EOS was already accepted, or an ambiguous grammar would
        exceed its parser-configuration limit; the matcher is then unchanged.
        """
    def accept_token(self, token: int) -> bool:
        """Like advance(), but returns False instead of raising when the token is refused."""
    def rollback(self, n: int = 1) -> None:
        """Undoes the last n accepted tokens (EOS included).

        Raises MatchError if fewer than n tokens were accepted.
        """
    def fork(self) -> Matcher:
        """An independent copy in the same state (cheap: history is shared)."""
    def __copy__(self) -> Matcher:
        """Same as fork()."""
    def is_complete(self) -> bool:
        """Whether the output so far is complete, i.e. EOS is allowed now."""
    def is_finished(self) -> bool:
        """Whether EOS was accepted (nothing may follow)."""
    @property
    def budget(self) -> Optional[int]:
        """The token budget (EOS not counted), or None.

        Setting it raises MatchError if the tokens so far plus min_tokens_to_complete()
        exceed it.
        """
    @budget.setter
    def budget(self, n: Optional[int]) -> None:
        """Sets (or, with None, clears) the token budget."""
    def set_lexeme_cap(self, terminal: str, max_tokens: Optional[int]) -> None:
        """Caps every lexeme of `terminal` at `max_tokens` tokens (None lifts it).

        A token counts when it holds any byte of the lexeme; masks close the lexeme
        in time (a reasoning segment up to `</think>`, say). Raises MatchError for an
        unknown terminal, a cap below what the terminal needs, or a first cap set
        after tokens were accepted.
        """
    def min_tokens_to_complete(self) -> int:
        """Fewest further tokens that complete the output, by the budget's plans.

        An upper bound on the true minimum; 0 when complete.
        """
    @property
    def output(self) -> bytes:
        """The bytes accepted so far (EOS adds none). A special token the
        grammar names is there as three symbol bytes; see text."""
    @property
    def text(self) -> str:
        """The output as text, each special token the grammar names written
        by name (<|im_end|>); an incomplete UTF-8 sequence is replaced."""
    @property
    def tokens(self) -> list[int]:
        """The token ids accepted so far (EOS included once accepted)."""
    @property
    def vocab_size(self) -> int:
        """Size of the grammar's vocabulary."""
    def forced_tokens(self) -> list[int]:
        """Tokens spelling the forced bytes, longest token first, for jump-forward decoding.

        One valid tokenization, not necessarily the tokenizer's. Empty when more than
        one byte may follow.
        """
    def forced_bytes(self) -> bytes:
        """The bytes the grammar forces next: while exactly one byte can follow and
        the output is not complete. Empty if there is a choice."""
    def accepts_bytes(self, data: bytes) -> bool:
        """Whether appending data keeps the output a valid prefix (False once finished)."""
    def advance_bytes(self, data: bytes) -> None:
        """Appends data to the output without a token (a forced prefix, jump-forward
        bytes, text checked against the grammar). Raises MatchError when no sentence
        continues with it (the matcher is then unchanged); rollback(1) undoes it."""
    def fill_next_token_bitmask(self, bitmask: Any, index: int = 0) -> None:
        """Writes the allowed next tokens into row index of bitmask, in place.

        bitmask: writable C-contiguous int32 array, shape (batch, W) or (W,) with
        W >= ceil(vocab_size / 32); bit i % 32 of word i // 32 is set iff token i is
        allowed. EOS is set when complete; ids past the vocabulary are clear.
        Raises TypeError if not an int32 buffer, ValueError for a bad shape, a
        read-only or non-contiguous array, or index out of range.
        """

def fill_next_token_bitmasks(
    matchers: Sequence[Matcher], bitmask: Any, indices: Optional[Sequence[int]] = None
) -> None:
    """Fills row indices[i] (default i) of bitmask for matchers[i], in parallel, GIL released.

    bitmask is as for Matcher.fill_next_token_bitmask, wide enough for the largest
    vocabulary; other rows are untouched. Raises ValueError if rows repeat or do
    not exist, or len(indices) != len(matchers); TypeError if not an int32 buffer.
    """

def bitmask_words(vocab_size: int) -> int:
    """ceil(vocab_size / 32): the int32 words one bitmask row needs."""
