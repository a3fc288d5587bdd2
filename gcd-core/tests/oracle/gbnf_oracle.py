"""XGrammar's verdicts on GBNF grammars, for gcd-core/tests/gbnf_oracle.rs.

Reads one JSON request per line, {"grammar": GBNF text, "strings": [hex of
the bytes, ...]}, and answers one line: {"verdicts": [bool, ...]} (whether
XGrammar accepts each byte string whole) or {"error": message} when
XGrammar refuses the grammar.

XGrammar's package imports torch and transformers when it loads, for its
tensor and tokenizer helpers; its grammar engine, the only part used here,
needs neither. Where they are not installed (a multi-GB download for
torch), stand-ins that only satisfy those imports are put in their place,
so `pip install --no-deps xgrammar apache-tvm-ffi numpy pydantic` is enough.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types


def _stand_in(name: str, classes: list[str]) -> None:
    """A module `name` whose attributes are inert objects or empty classes."""
    module = types.ModuleType(name)
    module.__version__ = "0.0.0+stand-in"

    class Inert:
        def __init__(self, label: str = name) -> None:
            self._label = label

        def __call__(self, *args, **kwargs):
            return None

        def __getattr__(self, attr: str):
            return Inert(f"{self._label}.{attr}")

        def __hash__(self) -> int:
            return hash(self._label)

        def __eq__(self, other) -> bool:
            return isinstance(other, Inert) and other._label == self._label

    for c in classes:
        setattr(module, c, type(c, (), {}))

    def __getattr__(attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Inert(f"{name}.{attr}")

    module.__getattr__ = __getattr__
    sys.modules[name] = module


if importlib.util.find_spec("torch") is None:
    _stand_in("torch", ["Tensor"])
if importlib.util.find_spec("transformers") is None:
    _stand_in(
        "transformers",
        ["PreTrainedTokenizerBase", "PreTrainedTokenizerFast", "LogitsProcessor"],
    )

import xgrammar as xgr  # noqa: E402


def verdicts(grammar: str, strings: list[bytes]) -> list[bool]:
    compiler = xgr.GrammarCompiler(xgr.TokenizerInfo([]), cache_enabled=False)
    compiled = compiler.compile_grammar(grammar)
    out = []
    for s in strings:
        m = xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)
        out.append(bool(m.accept_string(s)) and bool(m.is_terminated()))
    return out


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        strings = [bytes.fromhex(h) for h in request["strings"]]
        try:
            answer = {"verdicts": verdicts(request["grammar"], strings)}
        except Exception as e:  # XGrammar refuses the grammar
            answer = {"error": str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
