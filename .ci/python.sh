#!/usr/bin/env bash
# CI for the Python package (python/): builds the abi3 wheel with
# `maturin build --release`, installs that wheel into a fresh venv and runs
# the pytest suite against the installed package (what a user gets), with
# torch and transformers there so that the generate() tests run for real.
# Exits non-zero if any step or test fails. Prints each step's seconds.
#
# Cargo builds into target/python (under the repo's target/, separate from
# the workspace's own build so the two never wait on each other's lock);
# set GCD_PY_TARGET to use another directory.
#
# Where torch comes from: PyPI's only Linux x86_64 torch wheels are CUDA
# builds that do not import without NVIDIA's libraries (cuBLAS, cuDNN, NCCL:
# gigabytes), and PyTorch's own CPU index is not reachable from this CI.
# Debian's python3-torch is a CPU build, so the test venv is made from
# Debian's Python 3.11 with --system-site-packages: torch and numpy (the
# numpy torch was built against) from Debian, the rest pinned from PyPI.
# About 80 s the first time on a machine (apt), 1 s once installed.
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
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
t0=$(date +%s)
step() { echo "python: $1 in $(( $(date +%s) - t0 ))s"; t0=$(date +%s); }

# The wheel: abi3 (one wheel for CPython 3.11+), release build.
python3 -m pip install --quiet "maturin==1.16.0"
wheels="$CARGO_TARGET_DIR/wheels"
rm -rf "$wheels"
python3 -m maturin build --release --quiet -m python/Cargo.toml -o "$wheels"
wheel=$(ls "$wheels"/gcd-*-abi3-*.whl)
step "built $(basename "$wheel")"

# Debian's CPU torch (see above) and venv module, pinned to bookworm's.
sys_py=/usr/bin/python3
if ! dpkg -s python3-torch python3-venv >/dev/null 2>&1; then
    command -v apt-get >/dev/null || { echo "apt-get not found: Debian's python3-torch is needed" >&2; exit 1; }
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "python3-torch=1.13.1+dfsg-4" python3-venv >/dev/null
fi
step "Debian python3-torch $(dpkg-query -W -f='${Version}' python3-torch) ready"

# A fresh venv every run, so the suite sees only the installed wheel.
venv="$CARGO_TARGET_DIR/test-venv"
rm -rf "$venv"
"$sys_py" -m venv --system-site-packages "$venv"
py="$venv/bin/python"
# Versions the suite was tested with; --no-deps with the whole closure, so
# nothing unpinned comes in. transformers 4.44 is the last release whose
# generate() runs on Debian's torch 1.13 under Python 3.11 (4.45 imports
# torch.distributed.fsdp, which fails there).
"$py" -m pip install --quiet --no-deps \
    "pytest==9.2.0" "iniconfig==2.3.1" "pluggy==1.7.0" "Pygments==2.21.0" "packaging==26.4" \
    "jsonschema==4.26.0" "jsonschema-specifications==2025.9.1" "referencing==0.37.0" "rpds-py==2026.9.1" \
    "transformers==4.44.2" "tokenizers==0.19.1" "huggingface-hub==0.36.2" "hf-xet==1.8.0" \
    "safetensors==0.8.0" "regex==2026.11.19" "tqdm==4.70.1" "filelock==4.3.2" "fsspec==2026.9.0" \
    "Jinja2==3.1.6" "MarkupSafe==3.0.3"
"$py" -m pip install --quiet --no-deps "$wheel"
step "venv with the wheel, torch and transformers ready"

# From the repo root, `import gcd` must find the installed wheel (the source
# folder python/gcd has no compiled module and is not on the path).
"$py" - "$venv" <<'EOF'
import os, sys
import gcd, numpy, torch, transformers
assert os.path.realpath(gcd.__file__).startswith(os.path.realpath(sys.argv[1])), gcd.__file__
print("gcd", gcd.__version__, "from", gcd.__file__)
print("torch", torch.__version__, "transformers", transformers.__version__, "numpy", numpy.__version__,
      "python", sys.version.split()[0])
EOF
# Last, so that pytest's summary ("N passed ... in Xs") closes the output:
# .ci/run reads the counts from that line.
exec "$py" -m pytest python/tests -q -rs -p no:cacheprovider
