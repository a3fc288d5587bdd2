"""XGrammar's verdicts on structural tags, for
gcd-schema/tests/structural_tag_oracle.rs and the full sweep
(structural_tag_sweep.py).

Reads one JSON request per line and answers one line:

- {"tag": structural tag, "strings": [hex of the bytes, ...]} ->
  {"verdicts": [bool, ...]} (whether XGrammar accepts each byte string
  whole) or {"error": message} when XGrammar refuses the tag;
- {"families": {"tools": [...], "tool_choices": [...], "reasoning": [...],
  "parallel": [...]}} -> {"tags": [[label, tag], ...]}: the tag
  `xgrammar.get_model_structural_tag` writes for every family in its
  registry and every combination given (combinations XGrammar refuses,
  such as a named tool absent from the list, are left out).

XGrammar is imported as the GBNF oracle imports it (gcd-core/tests/oracle/
gbnf_oracle.py puts stand-ins for torch and transformers in place).
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(
    0,
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "gcd-core", "tests", "oracle"),
)
import gbnf_oracle  # noqa: E402,F401  (stand-ins for torch and transformers)
import xgrammar as xgr  # noqa: E402
from xgrammar.builtin_structural_tag import _structural_tag_registry  # noqa: E402

_COMPILER = xgr.GrammarCompiler(xgr.TokenizerInfo([]), cache_enabled=False)


def verdicts(tag: dict, strings: list[bytes]) -> list[bool]:
    grammar = xgr.Grammar.from_structural_tag(json.dumps(tag))
    compiled = _COMPILER.compile_grammar(grammar)
    out = []
    for s in strings:
        m = xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)
        out.append(bool(m.accept_string(s)) and bool(m.is_terminated()))
    return out


def families(spec: dict) -> list:
    out = []
    for family in _structural_tag_registry:
        for ti, tools in enumerate(spec["tools"]):
            for choice in spec["tool_choices"]:
                for reasoning in spec["reasoning"]:
                    for parallel in spec["parallel"]:
                        label = f"{family} tools#{ti} choice={json.dumps(choice)} reasoning={reasoning} parallel={parallel}"
                        try:
                            tag = xgr.get_model_structural_tag(
                                family,
                                tools=tools,
                                tool_choice=choice,
                                reasoning=reasoning,
                                parallel_tool_calls=parallel,
                            )
                        except Exception:  # a combination XGrammar refuses
                            continue
                        out.append([label, json.loads(tag.model_dump_json())])
    return out


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if "families" in request:
            print(json.dumps({"tags": families(request["families"])}), flush=True)
            continue
        strings = [bytes.fromhex(h) for h in request["strings"]]
        try:
            answer = {"verdicts": verdicts(request["tag"], strings)}
        except Exception as e:  # XGrammar refuses the tag
            text = str(e).strip()
            answer = {"error": text.splitlines()[-1] if text else repr(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
