#!/usr/bin/env bash
# Runs the fuzz targets (cargo-fuzz, libFuzzer; needs the nightly
# toolchain): each for SECONDS (default 600), seeded from ../shared/data.
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]
#
# Crashes land in fuzz/artifacts/<target>/; copy each into
# fuzz/regressions/<target>/ so `cargo test --test fuzz_regressions`
# replays it. Per input, -timeout=30 treats an input that takes more than
# 30 s as a finding (the coverage-instrumented build runs 5-10x slower than
# a release build: time a finding there before calling it slow), and
# -rss_limit_mb=2048 one that takes more than 2 GB. No sanitizer (-s none):
# the crates are safe Rust, and AddressSanitizer slowed the schema target
# further still.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(lark_grammar json_schema tokenizer_file matcher_ops)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
data=../../shared/data
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
# Seeds carry the targets' leading choice byte where they have one.
mkdir -p "$seeds"/{lark_grammar,json_schema,tokenizer_file,matcher_ops}
i=0
for f in "$data"/grammars/*/*.lark; do
    [ -f "$f" ] || continue
    i=$((i + 1))
    { printf '\x00'; head -c 4000 "$f"; } > "$seeds/lark_grammar/$i"
    { printf '\x01'; head -c 4000 "$f"; } > "$seeds/lark_grammar/$i-dynamic"
done
i=0
for f in "$data"/maskbench/*.json; do
    i=$((i + 1))
    [ $((i % 20)) -eq 0 ] || continue
    python3 -c 'import json,sys; s=json.dumps(json.load(open(sys.argv[1]))["schema"]); len(s) < 2000 and print(s)' "$f" \
        > "$seeds/json_schema/$i" 2>/dev/null || true
done
# Small real tokenizer files only: libFuzzer mutates inputs of -max_len.
printf '\x01' > "$seeds/tokenizer_file/tiktoken"
printf 'YQ== 0\nYg== 1\nYWI= 2\n' >> "$seeds/tokenizer_file/tiktoken"
printf '\x00{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"added_tokens":[]}' \
    > "$seeds/tokenizer_file/hf"
printf 'seed' > "$seeds/matcher_ops/seed"
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    echo "== $t: $secs s"
    cargo +nightly fuzz run -O -s none "$t" "corpus/$t" "$seeds/$t" -- \
        -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
        2>&1 | grep -E "^(#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written)" || true
done
