"""Brute force vs the default search on one 12-variant grid, back to back, on the bundled server.

Usage::

    .venv/bin/python benchmarks/bench_search.py                      # mlp, 12 variants, rounds design
    .venv/bin/python benchmarks/bench_search.py --latency-budget-ms 5 --out results/bench_search_budget.json

The grid: mlp, ONNX, KIND_CPU x1 and x2, dynamic batching off / 100 / 500 µs
(``--queue-delays``; add 2000 for 16 variants), max_batch_size 16 and 64. The same repository
is swept twice, one run after the other, both in the default design (interleaved rounds),
both capped at the same top concurrency (``--top``, 16) and **without a time budget** (a
budget would cut either one, and the comparison is what the search itself saves): brute force
measures every variant at every level 1, 2, 4 ... top in every round (``--search brute``, an
explicit level list); the default search climbs each variant's ladder (``--concurrency auto``
capped at the top) and drops the variants the leader beats by the paired rule (``--search``
default: prune above 4 variants). Neither runs the in-process baseline. Printed and saved: the
wall time of each sweep (s), their ratio, the (variant, level) pairs and the rounds each
measured, and each one's pick (best peak; best under the budget when one is given) with its
tie set, and whether the search's pick is brute force's, or in brute force's tie set, or its
tie set holds brute force's pick. The timings are this machine at this moment (shared and
noisy): the ratio is the figure, never a fixed number; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _pick(run: Any, budget: float | None, tol: float) -> dict[str, Any] | None:
    """The recommendation of ``run`` as numbers: best under the budget (when one is given), else best peak."""
    from perf.analysis.recommendation.recommend import recommend, spread
    from perf.analysis.stats.points import run_points

    rec = recommend(run, budget)
    choice = rec.best_under_budget if budget is not None else rec.best_peak
    if choice is None:
        return None
    point = next(p for p in run_points(run)[choice.variant] if p.concurrency == choice.concurrency and p.batch_size == 1)
    return {
        "variant": choice.variant,
        "tie_set": list(choice.tie_set) or [choice.variant],
        "concurrency": choice.concurrency,
        "throughput_infer_per_s": choice.throughput_infer_per_s,
        "latency_p99_ms": choice.latency_p99_ms,
        "spread_infer_per_s": spread(point, tol),
        "status": choice.status,
    }


def _agree(search: dict[str, Any] | None, brute: dict[str, Any] | None) -> str:
    """``"same variant"``, ``"in brute force's tie set"`` / ``"its tie set holds brute force's
    pick"`` (the paired rule could not separate them), or ``"different"``."""
    if search is None or brute is None:
        return "different"
    if search["variant"] == brute["variant"]:
        return "same variant"
    if search["variant"] in brute["tie_set"]:
        return "in brute force's tie set"
    return "its tie set holds brute force's pick" if brute["variant"] in search["tie_set"] else "different"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mlp", help="built-in model (default mlp)")
    p.add_argument("--queue-delays", default="none,100,500", help="dynamic batching queue delays, µs (default none,100,500)")
    p.add_argument("--top", type=int, default=16, help="top concurrency of both sweeps (default 16)")
    p.add_argument("--latency-budget-ms", type=float, default=None, help="p99 budget for both sweeps (default none)")
    p.add_argument("--out", type=Path, default=Path("results/bench_search.json"), help="JSON output file")
    p.add_argument("--keep", type=Path, default=None, help="copy both run folders (results.json, CSVs) here (default: not kept)")
    args = p.parse_args(argv)

    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from clients.server import ServerOptions
    from core.cli import print_table
    from perf.analysis.stats.points import aggregate
    from perf.records.search import SearchRules
    from perf.search.policy import AUTO, ladder
    from perf.sweep.run import SweepOptions, run_sweep

    delays = tuple(None if d.strip().lower() == "none" else int(d) for d in args.queue_delays.split(","))
    rules = SearchRules(max_concurrency=args.top)
    levels = ladder(AUTO, rules)[0]  # 1, 2, 4 ... top: the same levels in both
    with tempfile.TemporaryDirectory(prefix="bench_search_") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        res = build(
            BuildOptions(
                args.model,
                formats=("onnx",),
                repository=root / "repo",
                build_dir=root / "builds",
                grid=VariantGrid(counts=(1, 2), queue_delays_us=delays, max_batch_sizes=(16, 64)),
            )
        )
        build_s = time.perf_counter() - t0
        base = SweepOptions(
            ServerOptions(root / "repo", runtime="bundled"),
            results_dir=root / "results",
            latency_budget_ms=args.latency_budget_ms,
            baseline=False,  # the in-process baseline after a sweep costs the same in both: not part of the search
            time_budget_s=None,
            search_rules=rules,
        )
        sweeps: dict[str, dict[str, Any]] = {}
        for label, opts in (
            ("brute force", dataclasses.replace(base, concurrency=levels, search="brute", run_id="brute")),
            ("default search", dataclasses.replace(base, run_id="search")),
        ):
            t1 = time.perf_counter()
            run, _ = run_sweep(opts)
            wall = time.perf_counter() - t1
            pairs = sum(len({p.concurrency for p in aggregate(v.levels)}) for v in run.variants)
            search = run.search
            sweeps[label] = {
                "wall_s": round(wall, 1),
                "levels": pairs,
                "visits": sum(len(v.levels) for v in run.variants),
                "rounds": len(run.rounds.rounds) if run.rounds else None,
                "rounds_ended": run.rounds.ended if run.rounds else None,
                "settings": {"concurrency": run.settings.get("concurrency"), "search": run.settings.get("search")},
                "pick": _pick(run, args.latency_budget_ms, run.settings.get("stability_pct", 10.0)),
                "decisions": [
                    {"variant": d.variant, "rule": d.rule, "concurrency": d.concurrency, "reason": d.reason}
                    for d in (search.decisions if search else [])
                ],
                "window_spread_pct": sorted(
                    lv.throughput_window_spread_pct
                    for v in run.variants
                    for lv in v.levels
                    if lv.throughput_window_spread_pct is not None
                ),
            }
        if args.keep is not None:
            shutil.copytree(root / "results", args.keep, dirs_exist_ok=True)
    brute, search = sweeps["brute force"], sweeps["default search"]
    ratio = search["wall_s"] / brute["wall_s"]
    agree = _agree(search["pick"], brute["pick"])
    spreads = brute["window_spread_pct"] + search["window_spread_pct"]
    median_spread = spreads[len(spreads) // 2] if spreads else None
    report = {
        "benchmark": "bench_search",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"machine": platform.machine(), "cpu_count": os.cpu_count()},
        "grid": {"model": args.model, "variants": res.manifest["variants"], "top_concurrency": args.top},
        "latency_budget_ms": args.latency_budget_ms,
        "build_s": round(build_s, 1),
        "sweeps": sweeps,
        "ratio": round(ratio, 3),
        "recommendation": agree,
        "median_window_spread_pct": median_spread,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    table = Table(title=f"{len(res.manifest['variants'])} variants: search / brute force wall time = {ratio:.2f}; picks: {agree}")
    for col in ("sweep", "wall s", "levels", "visits", "rounds", "pick", "tie set", "c", "infer/s", "spread", "p99 ms"):
        table.add_column(col)
    for label, s in sweeps.items():
        pk = s["pick"] or {}
        table.add_row(
            label,
            f"{s['wall_s']:.1f}",
            str(s["levels"]),
            str(s["visits"]),
            str(s["rounds"]),
            pk.get("variant", "none"),
            str(len(pk.get("tie_set", []))),
            str(pk.get("concurrency", "—")),
            f"{pk['throughput_infer_per_s']:.0f}" if pk else "—",
            f"± {pk['spread_infer_per_s']:.0f}" if pk else "—",
            f"{pk['latency_p99_ms']:.2f}" if pk else "—",
        )
    print_table(table)
    for d in search["decisions"]:
        print(f"  {d['variant']}: {d['rule']} at c={d['concurrency']}: {d['reason']}")
    if median_spread is not None:
        print(f"median perf_analyzer window spread over both runs: {median_spread:.1f} %")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
