#!/usr/bin/env bash
# CI for the independent valid-instance oracle (python/oracle/hypothesis_oracle.py):
# hypothesis-jsonschema generates instances of shared-data schemas, two
# validators (jsonschema, jsonschema_rs) judge them, and gcd's JSON Schema
# grammars must accept the valid ones and refuse one-edit invalid mutants.
#
# Runs in its own venv (target/oracle-venv, reused when present) with pinned
# tools, builds the extension into it (cargo's target dir as .ci/python.sh:
# target/python, or $GCD_PY_TARGET, so the build is shared with that
# script), then a bounded, seeded sample of the corpus. Arguments are passed
# to the oracle (e.g. --allow CATEGORY, --sample K). Exits non-zero on any
# disagreement; exits 0 with a message when the shared data is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

data="${GCD_SHARED_DATA:-$PWD/../shared/data}"
if [ ! -d "$data/maskbench" ] && [ ! -d "$data/json-schema-test-suite" ]; then
    echo "oracle: skipped: no shared data at $data (set GCD_SHARED_DATA or put it at ../shared/data)"
    exit 0
fi
command -v cargo >/dev/null || { echo "cargo not found: the Rust toolchain is needed" >&2; exit 1; }
export CARGO_TARGET_DIR="${GCD_PY_TARGET:-$PWD/target/python}"
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
start=$(date +%s)

# A venv of our own: `python3 -m venv` may lack ensurepip (Debian's
# python3-venv split) or be missing; fall back to --without-pip + ensurepip,
# then to virtualenv from PyPI.
venv="${GCD_ORACLE_VENV:-$PWD/target/oracle-venv}"
py="$venv/bin/python"
if ! "$py" -m pip --version >/dev/null 2>&1; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if python3 -m venv "$venv" 2>/dev/null && "$py" -m pip --version >/dev/null 2>&1; then
        :
    elif rm -rf "$venv" && python3 -m venv --without-pip "$venv" 2>/dev/null \
        && "$py" -m ensurepip --upgrade >/dev/null 2>&1; then
        :
    else
        rm -rf "$venv"
        if python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
            export PIP_BREAK_SYSTEM_PACKAGES=1
        fi
        python3 -m pip install --quiet "virtualenv==20.29.3"
        python3 -m virtualenv --quiet "$venv"
    fi
fi
pip=("$py" -m pip install --quiet)
# maturin's PEP 517 hook runs `maturin` by name: the venv's own, not one
# that .ci/python.sh may have left on the machine's PATH.
export PATH="$venv/bin:$PATH"

# Versions the oracle was tested with (jsonschema and maturin as in .ci/python.sh).
"${pip[@]}" "hypothesis==6.98.0" "hypothesis-jsonschema==0.23.1" \
    "jsonschema[format]==4.26.0" "jsonschema_rs==0.60.3" "maturin==1.16.0"
"${pip[@]}" --no-build-isolation --force-reinstall --no-deps ./python
echo "oracle: venv ready and extension installed in $(( $(date +%s) - start ))s"

# The CI sample: seeded, so every run checks the same schemas and instances
# (unless a schema hits its generation time bound): 30-75 s on 2 cores.
GCD_SHARED_DATA="$data" "$py" python/oracle/hypothesis_oracle.py \
    --data "$data" --sample "${GCD_ORACLE_SAMPLE:-600}" --seed "${GCD_ORACLE_SEED:-20240601}" \
    --instances 10 --time-per-schema 5 --jobs 2 \
    --json target/oracle-ci.json "$@"
