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
  such as a named tool absent from the list, are left out);
- {"model_tag": {"family", "tools", "tool_choice", "reasoning", "parallel"},
  "strings": [hex, ...] (optional)} -> {"tag": tag, "verdicts": [...],
  "parsed": [...]} or {"error": message}: the one tag
  `get_model_structural_tag` writes, its verdicts on the strings, and each
  accepted string read back by this script's own reader (`read_turn`:
  the markers split by hand, arguments by `json` or `xml.etree`), for
  gcd-schema/tests/family_tags.rs and gcd's tests/chat_families.rs.

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


def _xml_params(body: str, style: str, schema) -> dict:
    """The parameters of an XML-style call, read with xml.etree: the
    style's elements are made well-formed XML first (Qwen's
    `<parameter=NAME>` is not), raw text escaped."""
    import re
    import xml.etree.ElementTree as ET

    if style == "qwen_xml":
        pat = re.compile(r"<parameter=([^>]*)>(.*?)</parameter>", re.S)
    elif style == "minimax_xml":
        pat = re.compile(r'<parameter name="([^"]*)">(.*?)</parameter>', re.S)
    elif style == "glm_xml":
        pat = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.S)
    else:
        raise ValueError(style)
    from xml.sax.saxutils import escape, quoteattr

    doc = "<args>" + "".join(
        # `&#13;`: an XML parser turns a raw CR LF into LF.
        f"<p name={quoteattr(n)}>{escape(v, {chr(13): '&#13;'})}</p>" for n, v in pat.findall(body)
    ) + "</args>"
    props = (schema or {}).get("properties", {}) if isinstance(schema, dict) else {}
    out = {}
    for el in ET.fromstring(doc):
        name, raw = el.get("name"), el.text or ""
        sub = props.get(name, {}) if isinstance(props, dict) else {}
        listed = sub.get("enum", [sub["const"]] if "const" in sub else None)
        if (listed and all(isinstance(v, str) for v in listed)) or (
            sub.get("type") == "string" and ("minLength" in sub or "maxLength" in sub)
        ):
            out[name] = raw.strip(" \t\n\r")
        elif sub.get("type") == "string":
            if style == "qwen_xml":
                raw = raw[1:] if raw.startswith("\n") else raw
                raw = raw[:-1] if raw.endswith("\n") else raw
            out[name] = raw
        else:
            out[name] = json.loads(raw.strip(" \t\n\r"))
    return out


def read_turn(family: str, tools: list, text: str):
    """Calls found in `text` by each family's own markers: [[name, args], ...].
    Written from the model cards, independently of gcd's reader."""
    import re

    schemas = {t["function"]["name"]: t["function"].get("parameters") for t in tools}
    dec = json.JSONDecoder()
    calls = []
    if family in ("qwen_3", "llama"):
        key = "arguments" if family == "qwen_3" else "parameters"
        start = '<tool_call>\n{"name": ' if family == "qwen_3" else '{"name": '
        i = text.find(start)
        while i != -1:
            obj, end = dec.raw_decode(text, i + (len("<tool_call>\n") if family == "qwen_3" else 0))
            calls.append([obj["name"], obj[key]])
            i = text.find(start, end)
    elif family in ("qwen_3_5", "qwen_3_coder", "mimo"):
        for name, body in re.findall(r"<tool_call>\n?<function=([^>]*)>(.*?)</function>\n?</tool_call>", text, re.S):
            calls.append([name, _xml_params(body, "qwen_xml", schemas.get(name))])
    elif family == "glm_4_7":
        for name, body in re.findall(r"<tool_call>([^<]*)(.*?)</tool_call>", text, re.S):
            name = name.strip(" \t\n\r")  # whitespace may follow the name
            calls.append([name, _xml_params(body, "glm_xml", schemas.get(name))])
    elif family == "minimax":
        for name, body in re.findall(r'<invoke name="([^"]*)">\n(.*?)</invoke>\n', text, re.S):
            calls.append([name, _xml_params(body, "minimax_xml", schemas.get(name))])
    elif family == "kimi":
        for m in re.finditer(r"<\|tool_call_begin\|>functions\.([^:]*):\d+<\|tool_call_argument_begin\|>", text):
            obj, _ = dec.raw_decode(text, m.end())
            calls.append([m.group(1), obj])
    elif family in ("deepseek_v3_1", "deepseek_r1"):
        if family == "deepseek_r1":
            pat = "<\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>([^\n]*)\n```json\n"
        else:
            pat = "<\uff5ctool\u2581call\u2581begin\uff5c>(.*?)<\uff5ctool\u2581sep\uff5c>"
        for m in re.finditer(pat, text):
            obj, _ = dec.raw_decode(text, m.end())
            calls.append([m.group(1), obj])
    elif family == "harmony":
        for m in re.finditer(r"(?:<\|channel\|>commentary to=functions\.([^<]*)<\|constrain\|>json|"
                             r" to=functions\.([^<]*)<\|channel\|>commentary (?:<\|constrain\|>)?json)<\|message\|>", text):
            obj, _ = dec.raw_decode(text, m.end())
            calls.append([m.group(1) or m.group(2), obj])
    else:
        return None
    return calls


def model_tag(spec: dict, strings: list) -> dict:
    tag = xgr.get_model_structural_tag(
        spec["family"],
        tools=spec["tools"],
        tool_choice=spec["tool_choice"],
        reasoning=spec["reasoning"],
        parallel_tool_calls=spec["parallel"],
    )
    tag = json.loads(tag.model_dump_json())
    out = {"tag": tag}
    if strings:
        out["verdicts"] = verdicts(tag, strings)
        parsed = []
        for s, ok in zip(strings, out["verdicts"]):
            try:
                parsed.append(read_turn(spec["family"], spec["tools"], s.decode()) if ok else None)
            except Exception as e:  # the reader failed: reported as such
                parsed.append({"reader_error": repr(e)})
        out["parsed"] = parsed
    return out


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if "model_tag" in request:
            strings = [bytes.fromhex(h) for h in request.get("strings", [])]
            try:
                answer = model_tag(request["model_tag"], strings)
            except Exception as e:  # XGrammar refuses the combination
                answer = {"error": str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)}
            print(json.dumps(answer), flush=True)
            continue
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
