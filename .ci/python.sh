#!/usr/bin/env bash
# CI for the Python package (python/): installs its build and test tools,
# builds the extension with maturin (as pip's PEP 517 backend), installs it,
# and runs the pytest suite. Exits non-zero if any step or test fails.
#
# Cargo builds into target/python (under the repo's target/, separate from
# the workspace's own build so the two never wait on each other's lock);
# set GCD_PY_TARGET to use another directory.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${GCD_PY_TARGET:-$PWD/target/python}"
command -v cargo >/dev/null || { echo "cargo not found: the Rust toolchain is needed" >&2; exit 1; }
python3 --version
cargo --version

# A distribution Python marked externally managed (PEP 668) refuses plain
# `pip install`; this script owns its machine, so it opts out explicitly.
if python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    export PIP_BREAK_SYSTEM_PACKAGES=1
fi
export PIP_ROOT_USER_ACTION=ignore
pip=(python3 -m pip install --quiet --disable-pip-version-check)

# Versions the suite was tested with.
"${pip[@]}" "maturin==1.16.0" "pytest==9.2.0" "numpy==2.4.6" "jsonschema==4.26.0"

# --no-build-isolation: build with the maturin pinned above rather than
# whatever pip would fetch into a throwaway environment.
start=$(date +%s)
"${pip[@]}" --no-build-isolation --force-reinstall --no-deps ./python
echo "python: built and installed the extension in $(( $(date +%s) - start ))s"

# From the repo root, `import gcd` finds the installed package (the source
# folder python/gcd has no compiled module and is not on the path).
python3 -c 'import gcd; print("gcd", gcd.__version__, "from", gcd.__file__)'
python3 -m pytest python/tests -q -rs -p no:cacheprovider
