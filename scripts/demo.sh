#!/usr/bin/env bash
# The main job (make demo): build -> serve -> check -> sweep -> report, on the bundled CPU server.
#   1. builders build: mlp -> TorchScript + ONNX, verified against eager PyTorch, 8 variants
#      (KIND_CPU x1/x2, dynamic batching off / 500 µs, max_batch_size 64) in model_repository/
#   2. clients check: each variant loaded on a real tritonserver, the saved reference batch sent
#      over HTTP and gRPC, served outputs compared with PyTorch's
#   3. perf/run_sweep.sh: the 8 variants loaded together and measured in interleaved, shuffled rounds
#      (perf_analyzer at the coarse levels 1, 4, 16 ... per variant, then the levels next to each one's best,
#      until throughput stops rising or p99 passes the budget), compared pairwise within each round; variants the
#      pick beats dropped (--search prune), all
#      within a time budget (DEMO_TIME_BUDGET, 6m) -> results/<run-id>/
#      (raw CSVs, commands.txt, results.json, flat.csv, report.md + PNG plots); summary printed; then the
#      in-process baseline when the budget leaves it time (a skip names the DEMO_TIME_BUDGET that keeps it).
#   3b. triton-perf baseline --trace --precision: a profiler trace of one batch per format and the
#      precision study of the eager model, added to the run and its report, within a quarter of DEMO_TIME_BUDGET
#      (its estimate first, a line per trace and per device's precision rows; DEMO_PROFILE=0 skips it).
#   4. triton-perf export-deployment: the recommended variant as a Kubernetes bundle in
#      results/<run-id>/deployment-<variant>/ (model folder + manifests, docs/KUBERNETES.md); none when the time
#      budget cut variants before they were measured (the pick is of some of them only): the line says what measures them.
# Overrides: DEMO_MODEL (mlp; a built-in name, or your file.py:factory with DEMO_SPEC), DEMO_SPEC (its input spec
#            file, passed as --spec), DEMO_CONCURRENCY (auto; or a list such as 1,2,4,8), DEMO_BUDGET_MS (p99
#            budget, 25), DEMO_TIME_BUDGET (the sweep's time budget, 6m), DEMO_WINDOW_MS (each round visit's window, 300),
#            DEMO_VARIANTS (the variants checked and swept: names or patterns; the ones step 1's build made),
#            DEMO_PROFILE (1; 0 skips step 3b), DEMO_MAX_BATCH_SIZES (the build's --max-batch-sizes, 64: a
#            smaller one verifies faster), DEMO_BUILD_FLAGS (more builders build flags, e.g. "--rtol mask=1e-3").
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:-.venv}/bin/python"
MODEL=${DEMO_MODEL:-mlp}
NAME=${MODEL##*:} # a file.py:factory build is named after its factory (builders build), a built-in after itself
SPEC=()
if [ -n "${DEMO_SPEC:-}" ]; then SPEC=(--spec "$DEMO_SPEC"); fi
RUN_ID=demo-$(date +%Y%m%d-%H%M%S)

# the sweep's flags this script sets, each from its DEMO_* variable (FLAG:VARIABLE:DEFAULT): one list, both
# passed and said from it (trial 10, F5: the sweep's advice named --time-budget, which make demo cannot be given)
KNOBS=(concurrency:DEMO_CONCURRENCY:auto round-window:DEMO_WINDOW_MS:300 time-budget:DEMO_TIME_BUDGET:6m
  latency-budget-ms:DEMO_BUDGET_MS:25)
SWEEP_FLAGS=()
SAID=""
CHECK=()
for knob in "${KNOBS[@]}"; do
  IFS=: read -r flag var default <<<"$knob"
  SWEEP_FLAGS+=("--$flag" "${!var:-$default}")
  SAID+="${SAID:+, }--$flag ${!var:-$default} is $var"
  CHECK+=("$var" "--$flag" "${!var:-$default}")
done
# DEMO_VARIANTS (names or patterns) is parsed by the sweep's --variants up front too; without it the demo
# checks and sweeps the variants its own build made (trial 13, T13-11: every <name>_* of the repository,
# an earlier build's fp16/bf16 variants among them, made its unbudgeted check 4 minutes long)
if [ -n "${DEMO_VARIANTS:-}" ]; then CHECK+=(DEMO_VARIANTS --variants "$DEMO_VARIANTS"); fi
# every DEMO_* value parsed by the flag it becomes before step 1 (DEMO_MODEL and DEMO_SPEC, read from the
# environment, as builders build reads --model and --spec), a refusal naming the variable (trial 12, F18:
# DEMO_TIME_BUDGET=2min was refused at step 3, after the build and the check, as "--time-budget")
"$PY" -m perf.cli.demo_settings "${CHECK[@]}" || exit 2
case "${DEMO_PROFILE:-1}" in
  0 | 1) ;;
  *) echo "make demo: DEMO_PROFILE=$DEMO_PROFILE: not 0 or 1"$'\n'"  -> set DEMO_PROFILE to 0 (skip step 3b) or 1" >&2 && exit 2 ;;
esac

# the build's settings a model of one's own may need (trial 18, T18-10: a segmentation model's verification at batch
# 64 x its largest image took 10 min a format, and its argmax output needed --rtol, which make demo could not pass)
MBS=${DEMO_MAX_BATCH_SIZES:-64}
BUILD_FLAGS=()
if [ -n "${DEMO_BUILD_FLAGS:-}" ]; then read -r -a BUILD_FLAGS <<<"$DEMO_BUILD_FLAGS"; fi
echo "== 1/4 build: $MODEL -> TorchScript + ONNX, verified, variants in model_repository/"
echo "   make demo's build settings: --max-batch-sizes $MBS is DEMO_MAX_BATCH_SIZES${DEMO_BUILD_FLAGS:+; DEMO_BUILD_FLAGS adds: $DEMO_BUILD_FLAGS}" \
  "(advice below that names a builders build flag is taken as DEMO_MAX_BATCH_SIZES=N or DEMO_BUILD_FLAGS='--flag value' make demo)"
brc=0
"$PY" -m builders.cli.main build --model "$MODEL" ${SPEC[@]+"${SPEC[@]}"} --format torchscript --format onnx \
  --instance-counts 1,2 --dynamic-batching off,500 --max-batch-sizes "$MBS" ${BUILD_FLAGS[@]+"${BUILD_FLAGS[@]}"} || brc=$?
if [ "$brc" = 2 ]; then # a flag refused before anything was built: which variable set it
  echo "make demo: the build refused a flag above: DEMO_MAX_BATCH_SIZES ($MBS) and DEMO_BUILD_FLAGS (${DEMO_BUILD_FLAGS:-unset})" \
    "set the build's flags" >&2
fi
if [ "$brc" != 0 ]; then exit "$brc"; fi

# the variants of step 1's build (from its manifest), or DEMO_VARIANTS'; one line says how many and why
VARIANTS=$("$PY" -m perf.cli.demo_variants "$NAME") || exit 2
echo "== 2/4 check: served outputs vs PyTorch, HTTP and gRPC, each variant (one load and one batch each, no time budget)"
"$PY" -m clients.cli.main check --runtime bundled --repository model_repository --variants "$VARIANTS"

echo "== 3/4 sweep: perf_analyzer over the variants, in interleaved rounds"
echo "   make demo's settings: $SAID (advice below that names one of these flags is taken as VARIABLE=VALUE make demo)"
rc=0
# the demo's sweep, as advice says a flag make demo has no DEMO_* setting for (trial 17, T17-12: --shapes)
SWEEP_ARGS=(--runtime bundled --repository model_repository --variants "$VARIANTS" "${SWEEP_FLAGS[@]}")
# where the budget comes from, for the report (perf.analysis.recommendation.budget_origin): the user's DEMO_BUDGET_MS
# (said "set by DEMO_BUDGET_MS=10": NAME=VALUE is the user's own; trial 28, T28-10), else make demo's default
if [ -n "${DEMO_BUDGET_MS:-}" ]; then BUDGET_FROM="DEMO_BUDGET_MS=$DEMO_BUDGET_MS"; else BUDGET_FROM="make demo's default (DEMO_BUDGET_MS unset)"; fi
# step 3b's flags, said as they run in the advice of a stopped sweep too (trial 27, T27-14: it left out --precision)
PROFILE_ARGS=(--profile-only --trace --precision fp32,fp16,bf16)
TRITON_PERF_BUDGET_FROM="$BUDGET_FROM" perf/run_sweep.sh "${SWEEP_ARGS[@]}" --run-id "$RUN_ID" || rc=$?
if [ "$rc" = 130 ] || [ "$rc" = 143 ] || [ "$rc" = 129 ]; then # Ctrl-C, SIGTERM, SIGHUP: the sweep said what it kept and how perf/run_sweep.sh continues it (trial 10, F33)
  # make demo takes no --run-id: its way to start again is itself; the report command spelled as the README
  # spells it, the command `make setup` installs (trial 13, T13-19: `$PY -m perf.cli.main report` here)
  echo "== make demo stopped in its sweep: \`make demo\` starts a new run (it takes no --run-id: the sweep's" \
    "'same command with --run-id' is not for it); to go on with this one, run the --resume command above (it" \
    "writes the run's report), then \`${VENV:-.venv}/bin/triton-perf baseline results/$RUN_ID ${PROFILE_ARGS[*]}\`" \
    "and \`${VENV:-.venv}/bin/triton-perf export-deployment results/$RUN_ID\` are its steps 3b and 4"
fi
[ "$rc" = 0 ] || exit "$rc"

# the run's advice that names a sweep flag (the baseline's skip, the notes below the sweep's table), said as its
# DEMO_* setting (trial 13, T13-13: the cut line kept "a longer `--time-budget`") or, for a flag make demo has no
# setting for, as the demo's perf/run_sweep.sh command with it (trial 17, T17-12: "--shapes time=400..16000")
"$PY" - "results/$RUN_ID" "${KNOBS[@]}" -- "${SWEEP_ARGS[@]}" <<'EOF'
import sys
from pathlib import Path

from perf.cli.demo_settings import advice, as_demo_args

knobs, _, sweep = as_demo_args(sys.argv[2:])
for line in advice(Path(sys.argv[1]), knobs, sweep):
    print(f"== {line}")
EOF

# step 3b: within a quarter of DEMO_TIME_BUDGET (perf.cli.demo_settings.PROFILE_SHARE), its estimate said first and
# a line per trace and per device's precision rows as they go; DEMO_PROFILE=0 skips it (trial 14, T14-9: 373 s for
# a MobileNet, outside any budget, nothing printed). Every later step's words pass through the demo's translation
# of the flags it sets (the sweep's "a longer `--time-budget`" is DEMO_TIME_BUDGET here).
AS_DEMO=("$PY" -m perf.cli.demo_settings --as-demo "${KNOBS[@]}" -- "${SWEEP_ARGS[@]}")
if [ "${DEMO_PROFILE:-1}" = 0 ]; then
  echo "== 3b/4 traces and precision study: skipped (DEMO_PROFILE=0); \`${VENV:-.venv}/bin/triton-perf baseline" \
    "results/$RUN_ID ${PROFILE_ARGS[*]}\` adds them later"
else
  AS_DEMO_BASELINE=("$PY" -m perf.cli.demo_settings --as-demo --own baseline "${KNOBS[@]}" -- "${SWEEP_ARGS[@]}")
  PROFILE_BUDGET=$("$PY" -m perf.cli.demo_settings --profile-budget "${DEMO_TIME_BUDGET:-6m}")
  echo "== 3b/4 traces and precision study: triton-perf baseline --trace --precision within $PROFILE_BUDGET (a quarter" \
    "of DEMO_TIME_BUDGET; DEMO_PROFILE=0 skips it), then the report again"
  # the tables go to the report; the console keeps the step's last line (what it wrote and ran, how long) and its
  # progress lines (stderr)
  "$PY" -m perf.cli.main baseline "results/$RUN_ID" "${PROFILE_ARGS[@]}" --min-run-time 0.1 \
    --time-budget "$PROFILE_BUDGET" 2> >("${AS_DEMO_BASELINE[@]}" >&2) | tail -n 1 | "${AS_DEMO_BASELINE[@]}" ||
    echo "== no traces or precision rows stored: the reason is printed above"
  # its advice (stderr: the pick's caveat on the variants cut for time) said as make demo takes it too (trial 17,
  # T17-12: "a longer `--time-budget` measures them" after step 3 had said DEMO_TIME_BUDGET)
  "$PY" -m perf.cli.main report "results/$RUN_ID" 2> >("${AS_DEMO[@]}" >&2) >/dev/null
  echo "report: results/$RUN_ID/report.md (again, with its Profiler traces and Precision study sections)"
fi

echo "== 4/4 deploy: the recommended variant as a Kubernetes bundle"
# a refusal (no level within the budget) is one of the run's outcomes, not a broken demo; its advice names
# export-deployment's own flags (--variant, --latency-budget-ms: not the sweep's), said with the command that takes
# them (trial 16, T16-20: "or DEMO_BUDGET_MS 31")
# a pick made while the time budget cut variants before they were measured is of some of them only: no bundle of it
# as "the recommendation" (trial 22, F-demo-cut-winner: the variant cut at 3m beat the bundled pick 1.85x once the
# resume the demo printed measured it); the caveat says, as make demo takes it, what measures them
CUT=$("$PY" -m perf.cli.demo_settings --cut-caveat "results/$RUN_ID" "${KNOBS[@]}" -- "${SWEEP_ARGS[@]}") || CUT=""
DEPLOY_KNOBS=()
for knob in "${KNOBS[@]}"; do [[ $knob == latency-budget-ms:* ]] || DEPLOY_KNOBS+=("$knob"); done
if [ -n "$CUT" ]; then
  echo "== no deployment bundle: the sweep's time budget cut variants before they were measured, so its pick is" \
    "of some of them only, and a bundle is what gets deployed. $CUT Then \`${VENV:-.venv}/bin/triton-perf" \
    "export-deployment results/$RUN_ID\` writes the bundle of the pick of them all (after a resume of this run;" \
    "a new make demo does it at its step 4); with --allow-cut it writes this pick's, its README saying so first"
else
  "$PY" -m perf.cli.main export-deployment "results/$RUN_ID" 2>&1 |
    "$PY" -m perf.cli.demo_settings --as-demo --own export-deployment "${DEPLOY_KNOBS[@]}" -- "${SWEEP_ARGS[@]}" ||
    echo "== no deployment bundle: the reason is printed above; its flags are export-deployment's:" \
      "\`${VENV:-.venv}/bin/triton-perf export-deployment results/$RUN_ID --variant NAME\` (or --latency-budget-ms MS)" \
      "writes the bundle"
fi
