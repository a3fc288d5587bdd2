#!/usr/bin/env python3
"""Real source files through a real grammar: gcd's verdicts against Lark's.

For each source file (comments and leading blank lines stripped, since
SynCode's grammars have no comment terminal), asks Lark's own Earley parser
whether the grammar accepts it, then replays the same stripped files through
gcd's mask (`gcd replay`, one token at a time with the real tokenizer) and
compares the verdicts file by file. Prints gcd's replay summary (bind time,
mask percentiles, peak live configurations) and exits 1 on any disagreement.

    pip install lark
    cargo build --release -p gcd-cli
    python3 peer-bench/code_corpus.py \
        --grammar ../shared/data/grammars/lark-syncode/java_grammar.lark \
        --corpus ../shared/data/code-corpus/java \
        --tokenizer ../shared/data/tokenizers/llama3/tokenizer.json
"""

import argparse
import os
import subprocess
import sys
import tempfile


def strip_comments(text: str) -> str:
    """Removes // and /* */ comments outside string and character literals
    (C-family syntax: Java, Go, C), then blank leading lines."""
    out = []
    i, n = 0, len(text)
    quote = None
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "\"'`":
            quote = c
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out).lstrip("\r\n \t")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--grammar", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--gcd", default="./target/release/gcd")
    ap.add_argument("--start", default="start")
    ap.add_argument("--passes", type=int, default=1,
                    help="replay the files this many times with one binding (mask times per pass)")
    ap.add_argument("--lexing", default="maximal-munch", choices=["maximal-munch", "dynamic"],
                    help="gcd's lexing; `dynamic` is compared with Lark's dynamic_complete lexer")
    args = ap.parse_args()

    import lark

    lexer = "dynamic_complete" if args.lexing == "dynamic" else "dynamic"
    with open(args.grammar) as f:
        parser = lark.Lark(f.read(), start=args.start, parser="earley", lexer=lexer)

    work = tempfile.mkdtemp(prefix="gcd-corpus-")
    files = []
    lark_ok = {}
    for name in sorted(os.listdir(args.corpus)):
        with open(os.path.join(args.corpus, name), encoding="utf-8") as f:
            text = strip_comments(f.read())
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        files.append(path)
        try:
            parser.parse(text)
            lark_ok[path] = True
        except lark.exceptions.LarkError:
            lark_ok[path] = False

    run = subprocess.run(
        [args.gcd, "replay", "--lexing", args.lexing, "--grammar", args.grammar,
         "--tokenizer", args.tokenizer, *(["--passes", str(args.passes)] if args.passes > 1 else []),
         *files],
        capture_output=True,
        text=True,
    )
    gcd_ok = {}
    summary = []
    for line in run.stdout.splitlines():
        path, sep, verdict = line.partition(": ")
        if sep and path in lark_ok:
            gcd_ok[path] = verdict == "ok"
        elif line.startswith("bind ") or line.startswith("pass "):
            summary.append(line)
    if run.returncode not in (0, 1) or len(gcd_ok) != len(files):
        print(run.stdout, run.stderr, file=sys.stderr)
        return 2

    disagree = [p for p in files if gcd_ok[p] != lark_ok[p]]
    for p in disagree:
        print(f"{os.path.basename(p)}: Lark {'accepts' if lark_ok[p] else 'rejects'}, "
              f"gcd {'accepts' if gcd_ok[p] else 'rejects'}")
    print(f"{len(files)} files: Lark accepts {sum(lark_ok.values())}, gcd accepts "
          f"{sum(gcd_ok.values())}, {len(disagree)} disagree")
    for line in summary:
        print(f"gcd: {line}")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
