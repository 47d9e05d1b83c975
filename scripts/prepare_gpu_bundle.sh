#!/usr/bin/env bash
# Prepare the offline bundle that scripts/gpu_check.sh installs on a GPU host without network.
# Run it on a machine WITH network access (any OS pip runs on); copy bundle/ to the GPU host.
#
# The bundle holds only what a GPU host with PyTorch (CUDA), numpy, onnx and onnxruntime
# lacks: the bundled tritonserver (nvidia-pytriton, slimmed to the target Python's
# python-backend stub), tritonclient with perf_analyzer (perf_client, a second copy of it,
# left out), the client/report dependencies, onnxscript, and pip itself (the host may have no
# pip/ensurepip). Large wheels are re-compressed with LZMA (same files, smaller archive).
# It must stay under 64 MiB; the script measures it and fails above the limit.
#
# Usage: scripts/prepare_gpu_bundle.sh [--python-version 3.12] [--out bundle/gpu-py3.12]
#   --python-version X.Y   Python of the GPU host (the one with torch), default 3.12
#   --out DIR              bundle folder (default bundle/gpu-pyX.Y; bundle/ is git-ignored)
#   --limit-mib N          size limit (default 64)
# Needs: python3 with pip (the repository's .venv is used when present).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

PYVER=3.12
OUT=""
LIMIT_MIB=64
while [ $# -gt 0 ]; do
  case "$1" in
    --python-version) PYVER=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --limit-mib) LIMIT_MIB=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "prepare_gpu_bundle: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$PYVER" in 3.9|3.10|3.11|3.12|3.13) ;; *)
  echo "prepare_gpu_bundle: --python-version $PYVER: the bundled server has python-backend stubs for 3.8 to 3.13 only" >&2; exit 2 ;;
esac
OUT=${OUT:-bundle/gpu-py$PYVER}

PY=${PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
"$PY" -m pip --version >/dev/null 2>&1 || { echo "prepare_gpu_bundle: $PY has no pip" >&2; exit 1; }

DL=$(mktemp -d)
trap 'rm -rf "$DL"' EXIT
PLATFORMS=(manylinux_2_35_x86_64 manylinux_2_34_x86_64 manylinux_2_28_x86_64 manylinux_2_24_x86_64
           manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux_2_5_x86_64 manylinux1_x86_64 any)
PLAT_ARGS=()
for p in "${PLATFORMS[@]}"; do PLAT_ARGS+=(--platform "$p"); done
PIPDL=("$PY" -m pip download -q --disable-pip-version-check --only-binary=:all: --python-version "$PYVER" "${PLAT_ARGS[@]}" -d "$DL")

# What the host installs from the bundle (only where its own packages are missing or too old).
# torch, onnx and onnxruntime come from the host. numpy<2: the python backend of tritonserver
# 2.51 returns EMPTY output tensors when the model's numpy is 2.x (seen with numpy 2.4.6), so
# a host with numpy 2 gets numpy 1.26 in the private environment (torch/onnxruntime built
# against numpy 2 run with 1.x). tritonclient's protobuf<5 pin is not applied on the host.
HOST_REQS=(
  "numpy<2" "grpcio>=1.41" "python-rapidjson>=0.9.1" "urllib3>=2.0.7" "geventhttpclient>=2.0.2" "packaging>=14.1"
  "protobuf>=3.20" "click>=8.1" "rich>=13" "prometheus-client>=0.17" "nvidia-ml-py>=12" "tabulate>=0.9"
  # the toolkit's own needs that a PyTorch host usually lacks (pyproject.toml): typed records, the
  # readiness waits, the titled -h panels, host CPU sampling
  "pydantic>=2" "tenacity>=8.2" "click-option-group>=0.5.6" "psutil>=5.9"
)

echo "prepare_gpu_bundle: downloading wheels for Python $PYVER (linux x86_64) into $DL"
"${PIPDL[@]}" --no-deps "nvidia-pytriton==0.7.0" "tritonclient==2.51.0" pip onnxscript onnx-ir typing_extensions
# the dependency closure of the host requirements (protobuf kept < 5 as tritonclient 2.51 asks)
"${PIPDL[@]}" "${HOST_REQS[@]/protobuf>=3.20/protobuf>=3.20,<5}" 2>&1 | grep -v "is ignored" || true
for req in "${HOST_REQS[@]}"; do
  name=$(echo "${req%%[<>=]*}" | tr 'A-Z-' 'a-z_')
  ls "$DL" | tr 'A-Z' 'a-z' | grep -q "^${name}-" || { echo "prepare_gpu_bundle: no wheel of $req for Python $PYVER" >&2; exit 1; }
done

rm -rf "$OUT"
mkdir -p "$OUT"
SLIM=("$PY" scripts/gpu_check.py slim-wheel --out-dir "$OUT")
# the bundled server: only this Python's python-backend stub (and not the libpython 3.13 the 3.13 stub links)
drop=()
for v in 3.8 3.9 3.10 3.11 3.12 3.13; do
  [ "$v" = "$PYVER" ] || drop+=(--drop "pytriton/tritonserver/python_backend_stubs/$v/*")
done
[ "$PYVER" = 3.13 ] || drop+=(--drop "nvidia_pytriton.libs/libpython3-*")
echo "prepare_gpu_bundle: slimming nvidia-pytriton (stub for $PYVER only, LZMA; about a minute)"
"${SLIM[@]}" --build-tag 1slim "${drop[@]}" "$DL"/nvidia_pytriton-0.7.0-*.whl >/dev/null
"${SLIM[@]}" --build-tag 1slim --drop "*/bin/perf_client" "$DL"/tritonclient-2.51.0-*.whl >/dev/null
rm -f "$DL"/nvidia_pytriton-*.whl "$DL"/tritonclient-*.whl
for w in "$DL"/*.whl; do
  base=$(basename "$w")
  if [[ "$base" == pip-* ]] || [ "$(stat -c %s "$w")" -lt 1048576 ]; then
    cp "$w" "$OUT/"   # pip runs from its own wheel (zipimport reads deflate only)
  else
    "${SLIM[@]}" "$w" >/dev/null
  fi
done
printf '%s\n' "${HOST_REQS[@]}" > "$OUT/requirements.txt"

"$PY" - "$OUT" "$PYVER" "$LIMIT_MIB" <<'EOF'
import hashlib, json, sys, time
from pathlib import Path
out, pyver, limit = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
files = sorted(p for p in out.iterdir() if p.is_file() and p.name != "manifest.json")
rows = [{"file": p.name, "bytes": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in files]
total = sum(r["bytes"] for r in rows)
manifest = {"python_version": pyver, "platform": "linux x86_64 (glibc >= 2.35 for the bundled tritonserver)",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "total_bytes": total, "files": rows}
(out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
for r in sorted(rows, key=lambda r: -r["bytes"]):
    print(f"  {r['bytes'] / 2**20:7.2f} MiB  {r['file']}")
print(f"prepare_gpu_bundle: {out}: {len(rows)} files, {total / 2**20:.1f} MiB (limit {limit:g} MiB)")
if total > limit * 2**20:
    print(f"prepare_gpu_bundle: the bundle is over {limit:g} MiB", file=sys.stderr)
    sys.exit(1)
EOF
echo "prepare_gpu_bundle: copy $OUT (or all of bundle/) to the GPU host's checkout, then run scripts/gpu_check.sh there"
