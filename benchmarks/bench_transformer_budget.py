"""A 4-variant x 2-level sweep of a transformer-sized model within ``--time-budget 6m``.

Usage::

    .venv/bin/python benchmarks/bench_transformer_budget.py                  # 6m budget, c = 1,4
    .venv/bin/python benchmarks/bench_transformer_budget.py --time-budget 4m --out results/bench_tb.json

The model is ``benchmarks/minilm_sized.py`` (all-MiniLM-L6-v2's sizes, random weights, 22.6 M
parameters), built for ONNX as a user's model is (``builders build --model
benchmarks.minilm_sized:minilm`` with an input spec: ``input_ids`` ids in [0, 30521],
``attention_mask`` a mask, ``seq`` 16..128, opt 128) into 4 variants (KIND_CPU x1 / x2,
dynamic batching off / 500 µs, max_batch_size 8), then swept with the default design
(interleaved rounds) at concurrency 1 and 4 on the bundled server, with the in-process
baseline inside the same budget, exactly as ``perf/run_sweep.sh`` runs it. Printed and saved:
the build time, the sweep's wall time against its budget, the plan's estimate and the real
time, the rounds, what was cut for time, and the pick with its tie set. The numbers are this
host at this moment; nothing here asserts a result.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BUILD = [
    "--model", "benchmarks.minilm_sized:minilm", "--name", "minilm", "--format", "onnx",
    "--input", "input_ids:int64:seq:0..30521", "--input", "attention_mask:int64:seq:mask",
    "--output", "embeddings", "--dynamic-axis", "seq=16,128,128",
    "--instance-counts", "1,2", "--dynamic-batching", "off,500", "--max-batch-sizes", "8",
]  # fmt: skip


def _run(cmd: list[str], log: Path) -> float:
    """Run ``cmd`` from the repository root, its output to ``log``; its wall time (s).

    Raises:
        SystemExit: the command failed (its log's tail is printed).
    """
    t0 = time.perf_counter()
    with log.open("w") as out:
        rc = subprocess.run(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    if rc not in (0, 3):  # 3: a variant failed, the run is still written
        sys.stderr.write(log.read_text()[-3000:])
        raise SystemExit(f"{cmd[0]} ... exited {rc} (log: {log})")
    return time.perf_counter() - t0


def summary(run_dir: Path, wall_s: float, build_s: float, budget: str) -> dict[str, Any]:
    """What the sweep planned, spent, cut and picked."""
    from perf.analysis.recommendation.recommend import recommend
    from perf.records import results

    run = results.load(run_dir)
    rec = recommend(run)
    pick = rec.best_peak
    rr = run.rounds
    b = rr.budget if rr else None
    return {
        "build_s": round(build_s, 1),
        "time_budget": budget,
        "budget_s": b.budget_s if b else None,
        "estimate_s": b.estimate_s if b else None,
        "sweep_spent_s": b.spent_s if b else None,
        "baseline_s": b.baseline_s if b else None,
        "wall_s": round(wall_s, 1),
        "within_budget": bool(b and b.budget_s and wall_s <= b.budget_s),
        "rounds": len(rr.rounds) if rr else None,
        "rounds_ended": rr.ended if rr else None,
        "cuts": [c.reason for c in rr.cuts] if rr else [],
        "variants": {v.name: v.status for v in run.variants},
        "pick": pick.variant if pick else None,
        "pick_concurrency": pick.concurrency if pick else None,
        "pick_infer_per_s": pick.throughput_infer_per_s if pick else None,
        "tie_set": list(pick.tie_set) if pick else [],
        "verdict": pick.verdict() if pick and pick.confidence is not None else None,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--time-budget", default="6m", help="the sweep's --time-budget (default 6m)")
    p.add_argument("--concurrency", default="1,4", help="levels (default 1,4)")
    p.add_argument("--out", type=Path, default=Path("results/bench_transformer_budget.json"), help="JSON output file")
    args = p.parse_args(argv)
    py = str(ROOT / ".venv/bin/python")
    with tempfile.TemporaryDirectory(prefix="bench_tb_") as tmp:
        root = Path(tmp)
        build_s = _run(
            [py, "-m", "builders.cli.main", "build", *BUILD, "--repository", str(root / "repo"), "--build-dir", str(root / "b")],
            root / "build.log",
        )
        sweep = [str(ROOT / "perf/run_sweep.sh"), "--runtime", "bundled", "--repository", str(root / "repo")]
        sweep += ["--concurrency", args.concurrency, "--time-budget", args.time_budget]
        sweep += ["--results-dir", str(root / "results"), "--run-id", "tb", "--allow-failed-variants"]
        wall = _run(sweep, root / "sweep.log")
        out = summary(root / "results" / "tb", wall, build_s, args.time_budget)
        out["report_budget_line"] = next(
            (ln for ln in (root / "results/tb/report.md").read_text().splitlines() if "Time budget" in ln), None
        )
    out |= {
        "benchmark": "bench_transformer_budget",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"machine": platform.machine(), "cpu_count": os.cpu_count(), "loadavg_end": os.getloadavg()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    for k in ("build_s", "time_budget", "estimate_s", "sweep_spent_s", "baseline_s", "wall_s", "within_budget", "rounds"):
        print(f"{k:>16}: {out[k]}")
    print(f"{'rounds ended':>16}: {out['rounds_ended']}")
    print(f"{'pick':>16}: {out['pick']} c={out['pick_concurrency']} ({out['verdict']})")
    for c in out["cuts"]:
        print(f"{'cut':>16}: {c}")
    print(f"{'report':>16}: {out['report_budget_line']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
