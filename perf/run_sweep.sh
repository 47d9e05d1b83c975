#!/usr/bin/env bash
# Sweep request concurrency with perf_analyzer over the variants of a model repository.
# Usage: perf/run_sweep.sh [triton-perf sweep options]   (see: perf/run_sweep.sh --help)
# Example: perf/run_sweep.sh --repository model_repository --concurrency 1,2,4,8 --latency-budget-ms 20
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${VENV:-$ROOT/.venv}/bin/python"
[ -x "$PY" ] || { echo "run_sweep: $PY not found; run 'make setup' first" >&2; exit 1; }
# the sweep command alone: its usage lines and errors name this script (perf.cli.main.sweep_script)
exec "$PY" -c 'from perf.cli.main import sweep_script; sweep_script()' "$@"
