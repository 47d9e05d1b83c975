#!/usr/bin/env bash
# Start tritonserver on a model repository and keep it in the foreground until Ctrl-C/SIGTERM.
#   scripts/launch_tritonserver.sh --repository model_repository --runtime auto --load-model NAME
#   scripts/launch_tritonserver.sh --runtime container --tag 24.10 --print-cmd
#   scripts/launch_tritonserver.sh --help
# All arguments go to the launcher, clients.cli.launch (flags after `--` go to tritonserver).
# Uses the repository's virtual environment (VENV, default .venv; `make setup` creates it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${VENV:-$root/.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "launch_tritonserver: $py not found; run 'make setup' first" >&2
  exit 1
fi
# no cd: relative paths (--repository .) are the caller's
# exec: the launcher is this process, so signals and PR_SET_PDEATHSIG work on it directly
# (its usage lines and errors name this script: clients.cli.launch.script, as perf/run_sweep.sh does)
exec "$py" -c 'from clients.cli.launch import script; script()' "$@"
