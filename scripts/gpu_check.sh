#!/usr/bin/env bash
# GPU check, offline, in one call: on a Linux host with an NVIDIA GPU and a CUDA build of
# PyTorch, install the prepared bundle (scripts/prepare_gpu_bundle.sh) into a private
# environment, then build mlp and cnn (TorchScript, ONNX, TensorRT when importable; fp32 and
# fp16), write KIND_GPU variants (1, 2, 4 instances x dynamic batching off / 500 us), serve
# them on the bundled tritonserver (python backend on CUDA), check served outputs against
# PyTorch, sweep concurrency 1..64 with perf_analyzer and print a compact table (variant,
# concurrency, infer/s, p99, GPU utilisation from server metrics and NVML, GPU memory) with
# the best variant per model under a p99 budget. Finishes within --budget-s (480 s).
#
# Usage: scripts/gpu_check.sh [options]
#   --python PATH        the host Python that has torch (default: $GPU_CHECK_PYTHON or python3)
#   --bundle DIR         the offline bundle (default: bundle/gpu-py<X.Y> for that Python)
#   --gpu N              GPU index to use (CUDA_VISIBLE_DEVICES; default 0)
#   --budget-s S         whole run, install included (default 480)
#   --p99-budget-ms MS   latency budget for the recommendation (default 10)
#   --runtime R          bundled (default) | container (NVIDIA image already on this host)
#   --cpu-dry-run        no GPU needed: the same pipeline on KIND_CPU (for testing this script)
#   any other option goes to scripts/gpu_check.py run (see: python scripts/gpu_check.py run -h),
#   e.g. --models mlp --concurrency 1,4,16 --interval-ms 500 --sweep-all
# Results: results/gpu-check-<time>/ (summary.txt, check.json, plan.json, sweep/...).
# Exit: 0 all passed; 1 a check or a variant failed (the table is still printed);
#       3 no GPU (stops at once, nothing installed); 2 bad usage / missing bundle or host part.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
STARTED=$(date +%s)

die() {  # die CODE MESSAGE [HINT]
  echo "gpu_check: $2" >&2
  [ -z "${3:-}" ] || echo "  -> $3" >&2
  exit "$1"
}

PYTHON=${GPU_CHECK_PYTHON:-python3}
BUNDLE=""
GPU=0
DRY=0
RUNTIME=bundled
PASS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --python) PYTHON=$2; shift 2 ;;
    --bundle) BUNDLE=$2; shift 2 ;;
    --gpu) GPU=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --cpu-dry-run) DRY=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) PASS+=("$1"); shift ;;
  esac
done

# --- 1. a GPU, before anything else ------------------------------------------------------
if [ "$DRY" = 0 ]; then
  command -v nvidia-smi >/dev/null 2>&1 \
    || die 3 "no NVIDIA GPU here: nvidia-smi is not installed (no NVIDIA driver); nothing was installed or run" \
              "run this on a Linux host with an NVIDIA GPU and its driver (or --cpu-dry-run to test the pipeline on the CPU)"
  gpus=$(timeout 30 nvidia-smi -L 2>&1 || true)
  echo "$gpus" | grep -q '^GPU [0-9]' \
    || die 3 "no NVIDIA GPU here: nvidia-smi lists none ($(echo "$gpus" | head -n 1)); nothing was installed or run" \
              "check the driver with nvidia-smi, or run this on a host with an NVIDIA GPU"
  echo "$gpus" | grep -q "^GPU $GPU:" || die 2 "--gpu $GPU: no such GPU; nvidia-smi lists: $(echo "$gpus" | tr '\n' ';')"
  echo "gpu_check: $(echo "$gpus" | grep "^GPU $GPU:")"
  export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-$GPU}
fi

# --- 2. the host Python and its torch ------------------------------------------------------
command -v "$PYTHON" >/dev/null 2>&1 || die 2 "Python $PYTHON not found" "pass --python PATH (the interpreter that has torch)"
PYVER=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ "$DRY" = 0 ]; then
  "$PYTHON" - <<'EOF' || die 2 "the host Python ($PYTHON) cannot run torch on the GPU (see above)" "install a CUDA build of torch for $PYTHON, or pass --python PATH"
import sys
try:
    import torch
except Exception as e:
    sys.exit(f"gpu_check: torch does not import: {type(e).__name__}: {e}")
if not torch.cuda.is_available():
    sys.exit(f"gpu_check: torch {torch.__version__} (CUDA {torch.version.cuda}) sees no CUDA device")
print(f"gpu_check: torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
EOF
fi
missing=$("$PYTHON" -c '
import importlib.util as u
print(" ".join(m for m in ("torch", "numpy", "onnx", "onnxruntime", "scipy") if u.find_spec(m) is None))')
[ -z "$missing" ] || die 2 "the host Python ($PYTHON) lacks: $missing" "install them for that Python first (the bundle carries only what a PyTorch host usually lacks)"
glibc=$("$PYTHON" -c 'import platform; print(platform.libc_ver()[1] or "0")')
"$PYTHON" -c "import sys; v=tuple(map(int, '$glibc'.split('.')[:2])); sys.exit(v < (2, 35))" \
  || die 2 "glibc $glibc here; the bundled tritonserver (nvidia-pytriton, manylinux_2_35) needs glibc >= 2.35" "use Ubuntu 22.04+ / Debian 12+, or --runtime container"

# --- 3. the bundle, installed into a private environment that sees the host's torch ---------------
BUNDLE=${BUNDLE:-bundle/gpu-py$PYVER}
[ -f "$BUNDLE/manifest.json" ] \
  || die 2 "no offline bundle for Python $PYVER at $BUNDLE" \
           "on a machine with network access run: scripts/prepare_gpu_bundle.sh --python-version $PYVER; copy bundle/ here"
VENV=bundle/venv-py$PYVER
stamp=$( (cat "$BUNDLE/manifest.json"; command -v "$PYTHON"; echo "$ROOT") | sha256sum | cut -c1-16)
if [ ! -f "$VENV/.gpu-check-stamp" ] || [ "$(cat "$VENV/.gpu-check-stamp")" != "$stamp" ]; then
  echo "gpu_check: installing $BUNDLE into $VENV (offline)"
  rm -rf "$VENV"
  "$PYTHON" -m venv --system-site-packages --without-pip "$VENV" \
    || die 2 "could not create a virtual environment with $PYTHON" "install the venv module for Python $PYVER"
  site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # the package folders this environment sees besides its own: where --python is itself a virtual
  # environment (/opt/venv/bin/python), these are its BASE interpreter's, not --python's
  base_sites=$("$VENV/bin/python" -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() if p != sys.argv[1]))' "$site")
  # the .pth the python-backend stub reads (TRITON_TOOLKIT_SITE_PACKAGES): the repository, the host's package
  # folders, then the base interpreter's, so that the stub sees every package pip below sees as installed
  "$PYTHON" scripts/gpu_check_pth.py "$ROOT" "$site" $base_sites > "$site/triton_toolkit_gpu_check.pth" \
    || die 2 "could not write the environment's .pth with $PYTHON (see above)"
  pipwhl=$(ls "$BUNDLE"/pip-*.whl | head -n 1)
  PIP=("$VENV/bin/python" "$pipwhl/pip" install --disable-pip-version-check --no-index --find-links "$BUNDLE")
  pip_install() {  # pip's output goes to install.log (its notes on the host's other packages are noise here)
    "${PIP[@]}" "$@" >> "$VENV/install.log" 2>&1 || { tail -n 15 "$VENV/install.log" | sed 's/^/  pip: /' >&2; return 1; }
  }
  pip_install --no-deps "$BUNDLE"/nvidia_pytriton-*.whl "$BUNDLE"/tritonclient-*.whl \
    || die 2 "installing the bundled tritonserver / tritonclient failed (pip's output above; all of it in $VENV/install.log)"
  pip_install -r "$BUNDLE/requirements.txt" \
    || die 2 "installing the client dependencies from $BUNDLE failed (pip's output above; all of it in $VENV/install.log)" \
             "prepare the bundle for this Python ($PYVER) with scripts/prepare_gpu_bundle.sh"
  pip_install "onnxscript>=0.2" 2>/dev/null \
    || echo "gpu_check: note: onnxscript not installed (needs ml_dtypes on the host); ONNX uses the TorchScript-based exporter"
  # perf_analyzer needs libb64.so.0d and libcudart.so.12: the bundled server's own copies,
  # given to perf_analyzer alone through a wrapper (the host's CUDA libraries are untouched)
  libs="$site/nvidia_pytriton.libs"
  mkdir -p "$VENV/pa-lib"
  ln -sf "$(ls "$libs"/libb64-*.so.0d | head -n 1)" "$VENV/pa-lib/libb64.so.0d"
  ln -sf "$(ls "$libs"/libcudart-*.so.12* | head -n 1)" "$VENV/pa-lib/libcudart.so.12"
  cat > "$VENV/pa-lib/perf_analyzer" <<EOF
#!/bin/sh
export LD_LIBRARY_PATH="$ROOT/$VENV/pa-lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$ROOT/$VENV/bin/perf_analyzer" "\$@"
EOF
  chmod +x "$VENV/pa-lib/perf_analyzer"
  "$VENV/bin/python" -m clients.runtimes.bundled --prepare >/dev/null || die 2 "the bundled tritonserver is not usable (see above)"
  echo "$stamp" > "$VENV/.gpu-check-stamp"
fi
VPY="$VENV/bin/python"
site=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
export PERF_ANALYZER="$ROOT/$VENV/pa-lib/perf_analyzer"
pa=$("$PERF_ANALYZER" --version 2>&1) \
  || die 2 "perf_analyzer does not run: $(echo "$pa" | tail -n 1)" "missing libraries: $(LD_LIBRARY_PATH="$ROOT/$VENV/pa-lib" ldd "$VENV/bin/perf_analyzer" | grep 'not found' | tr '\n' ' ')"

# the python-backend stub links the host's libpython<X.Y>.so.1.0 (a shared-library Python)
stub="$site/pytriton/tritonserver/backends/python/triton_python_backend_stub"
libs="$site/nvidia_pytriton.libs"
if LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$stub" | grep -q "not found"; then
  libdir=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR") or "")')
  if [ -n "$libdir" ] && [ -e "$libdir/libpython$PYVER.so.1.0" ]; then
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  notfound=$(LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$stub" | grep "not found" || true)
  [ -z "$notfound" ] || die 2 "the python-backend stub cannot start: $(echo "$notfound" | tr -s ' \t\n' ' ')" \
    "it needs libpython$PYVER.so.1.0: install it (apt-get install libpython$PYVER) or use a Python built with --enable-shared"
fi

# --- 4. the container runtime, when asked for -------------------------------------------------
if [ "$RUNTIME" = container ]; then
  timeout 20 docker info 2>/dev/null | grep -qi nvidia \
    || die 2 "--runtime container: no Docker engine with the NVIDIA runtime answers" "use the default --runtime bundled"
fi

# --- 5. the pipeline ---------------------------------------------------------------------------
echo "gpu_check: install and checks done in $(( $(date +%s) - STARTED )) s; perf_analyzer $(echo "$pa" | grep -o "[0-9]*\.[0-9]*\.[0-9]*" | head -n 1)"
args=(scripts/gpu_check.py run --started-at "$STARTED" --runtime "$RUNTIME")
[ "$DRY" = 0 ] || args+=(--kind cpu)
# GPU_CHECK_SCRIPT: usage errors of the options passed on name this script, not gpu_check.py (as perf/run_sweep.sh does)
GPU_CHECK_SCRIPT=scripts/gpu_check.sh exec "$VPY" "${args[@]}" ${PASS[@]+"${PASS[@]}"}
