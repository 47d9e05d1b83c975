#!/usr/bin/env bash
# One-time (idempotent) set-up for a fresh Debian/Ubuntu machine:
#   system libraries (libb64 for perf_analyzer, libpython for the python-backend stub),
#   a virtual environment in .venv with CPU PyTorch, the project and its dependencies
#   (bundled tritonserver from nvidia-pytriton, perf_analyzer from tritonclient).
# A second run that finds everything in place returns in about a second.
# Overrides: PYTHON (interpreter, default python3), VENV (default .venv),
#   TORCH_SPEC (default torch==2.13.0), TORCH_INDEX_URL (e.g. https://download.pytorch.org/whl/cpu).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
TORCH_SPEC=${TORCH_SPEC:-torch==2.13.0}
STAMP="$VENV/.toolkit-setup"

pyver=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/python" ]; then
  exit 0
fi

# --- system packages -------------------------------------------------------------
need=()
dpkg -s libb64-0d >/dev/null 2>&1 || need+=(libb64-0d)
dpkg -s "libpython${pyver}" >/dev/null 2>&1 || need+=("libpython${pyver}")
"$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=("python${pyver}-venv")
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${need[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${need[*]} (apt-get install ${need[*]})" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- virtual environment -------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with $("$PYTHON" --version)"
  "$PYTHON" -m venv "$VENV"
fi
LOG="$VENV/setup-pip.log"
: > "$LOG"
pip_install() {  # pip's chatter goes to $LOG; on failure its tail is shown
  if ! "$VENV/bin/python" -m pip install --disable-pip-version-check "$@" >>"$LOG" 2>&1; then
    grep -v "is ignored" "$LOG" | tail -25 >&2
    echo "setup: pip install $* failed (full log: $LOG)" >&2
    exit 1
  fi
}
pip_install --upgrade pip
if ! "$VENV/bin/python" -c 'import torch' >/dev/null 2>&1; then
  echo "setup: installing $TORCH_SPEC (CPU build where available)"
  if [ -n "${TORCH_INDEX_URL:-}" ]; then
    pip_install "$TORCH_SPEC" --index-url "$TORCH_INDEX_URL"
  else
    pip_install "$TORCH_SPEC"
  fi
fi
echo "setup: installing the toolkit and its dependencies (tritonserver, perf_analyzer, onnx, ...)"
pip_install -e ".[dev]"
venv_abs="$(cd "$VENV" && pwd)"  # checked from / so the source tree cannot stand in for the install
(cd / && "$venv_abs/bin/python" -c 'import torch, onnxruntime, tritonclient.grpc, pytriton, core, builders, clients, perf') \
  || { echo "setup: the environment in $VENV is incomplete (pip log: $LOG)" >&2; exit 1; }
"$VENV/bin/python" -m clients.runtimes.bundled --prepare >/dev/null
echo "$want" > "$STAMP"
echo "setup: done ($VENV)"
