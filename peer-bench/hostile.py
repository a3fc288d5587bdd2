#!/usr/bin/env python3
"""Times `gcd check` on hostile inputs: grammars and schemas built to make
compilation slow or large (issue "Reliability under hostile input").

Each case is written to a temporary folder, checked once per binary given,
and reported with its verdict (ok or the error's first line), wall time and
peak RSS. Not part of CI: a benchmark, run by hand.

    python3 peer-bench/hostile.py --gcd target/release/gcd [--gcd OTHER]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time


def cases():
    """(name, file name, text) of every hostile input."""
    out = []
    alts = " | ".join(f'"w{i}x"' for i in range(20000))
    out.append(("20,000 literal alternatives", "alts.lark", f"start: {alts}\n"))
    alts = " | ".join(f'"w{i}x"' for i in range(100000))
    out.append(("100,000 literal alternatives", "alts100k.lark", f"start: {alts}\n"))
    out.append(("groups nested 10,000 deep", "nest.lark", "start: " + "(" * 10000 + '"a"' + ")" * 10000 + "\n"))
    enum = {"enum": [f"value-{i}" for i in range(20000)]}
    out.append(("enum of 20,000 strings", "enum.json", json.dumps(enum)))
    out.append(("pattern [\\s\\S]{0,5000}", "pattern.json",
                json.dumps({"type": "string", "pattern": "[\\s\\S]{0,5000}"})))
    ints = {f"p{i}": {"type": "integer"} for i in range(3000)}
    out.append(("3,000 optional properties", "props.json",
                json.dumps({"type": "object", "properties": ints})))
    out.append(("3,000 required properties", "props_req.json",
                json.dumps({"type": "object", "properties": ints, "required": list(ints)})))
    strs = {f"property_{i}": {"type": "string"} for i in range(3000)}
    out.append(("3,000 optional string properties", "props_str.json",
                json.dumps({"type": "object", "properties": strs})))
    # Nested without Python's recursion: the text directly.
    depth = 100000
    out.append((f"arrays nested {depth:,} deep", "deep.json",
                '{"type":"array","items":' * depth + '{"type":"string"}' + "}" * depth))
    out.append(("minItems 1,000,000", "min_items.json",
                json.dumps({"type": "array", "minItems": 1000000})))
    out.append(("maxLength 100,000,000", "max_length.json",
                json.dumps({"type": "string", "maxLength": 100000000})))
    out.append(("$ref cycle", "cycle.json",
                json.dumps({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"},
                                                           "b": {"$ref": "#/$defs/a"}}})))
    return out


def run(binary, path):
    """Verdict, seconds and peak RSS in MB of `binary check path`."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS_KB=%M", binary, "check", path],
                       capture_output=True, text=True, timeout=600)
    secs = time.perf_counter() - t
    rss = re.search(r"RSS_KB=(\d+)", p.stderr)
    mb = int(rss.group(1)) / 1024 if rss else float("nan")
    if p.returncode == 0:
        verdict = "ok"
    else:
        lines = [l for l in (p.stdout + p.stderr).splitlines()
                 if l.strip() and not l.startswith("RSS_KB=")]
        # The line that says why, else the first.
        why = [l for l in lines if "error" in l or "unsupported" in l] or lines
        verdict = "refused: " + (why[0].split(": ", 1)[-1][:110] if why else "?")
    return verdict, secs, mb


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gcd", action="append", required=True,
                    help="a gcd binary; give several to compare")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        for name, file, text in cases():
            path = os.path.join(d, file)
            with open(path, "w") as f:
                f.write(text)
            for b in args.gcd:
                verdict, secs, mb = run(b, path)
                print(f"{name:34} {b:34} {secs:7.2f} s {mb:8.0f} MB  {verdict}")


if __name__ == "__main__":
    main()
