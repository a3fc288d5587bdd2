#!/usr/bin/env python3
"""Lark's own Earley parser as an oracle for gcd's tests.

It shares nothing with gcd but the grammar text. Reads one JSON request per
line on stdin, {"grammar", "start", "lexer", "strings"} and optionally
"source_path" (the grammar's file, against which relative imports
resolve), and answers one
JSON line per request: {"verdicts": [true | false, ...]} (whether Lark
parses each string), or {"error": "..."} when Lark cannot load the grammar.
"""

import json
import sys

from lark import Lark
from lark.exceptions import LarkError


def main() -> None:
    parsers = {}
    for line in sys.stdin:
        req = json.loads(line)
        key = (req["grammar"], req["start"], req["lexer"], req.get("source_path"))
        parser = parsers.get(key)
        if parser is None:
            try:
                parser = Lark(
                    req["grammar"],
                    start=req["start"],
                    parser="earley",
                    lexer=req["lexer"],
                    source_path=req.get("source_path"),
                )
            except Exception as e:  # Lark raises several kinds on bad grammars
                answer({"error": f"{type(e).__name__}: {e}"})
                continue
            parsers[key] = parser
        verdicts = []
        for s in req["strings"]:
            try:
                parser.parse(s)
                verdicts.append(True)
            except LarkError:
                verdicts.append(False)
        answer({"verdicts": verdicts})


def answer(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
