"""Several models on one server: the coordinate search against brute force over the combinations,
back to back, on the bundled server.

Usage::

    .venv/bin/python benchmarks/bench_colocation.py                    # mlp + tiny, 2 x 2 variants
    .venv/bin/python benchmarks/bench_colocation.py --queue-delays none,500 --out results/bench_colocation.json

The models: the demo's mlp and the tiny MLP, both ONNX, KIND_CPU x1 and x2 (``--queue-delays``
adds dynamic-batching variants: ``none,500`` doubles each model's variants), max_batch_size 8,
built into one repository. The same repository is run twice, one after the other, with the same
traffic mix (``--mix``, concurrency 2 each by default), windows and p99 budget: ``triton-perf
colocate``'s coordinate search, then brute force (every combination measured in the same rounds,
:mod:`perf.colocate.brute`). Neither has a time budget.

Printed and saved: each model's throughput alone and co-located in the search's pick (medians of the
same final rounds, with the paired ratio), each run's pick, its combinations measured of the total,
its visits and its wall time, whether the search's pick is brute force's, and when not, the two
compared by the paired rule in brute force's rounds (a difference, or the search's pick in brute
force's tie set). The run folders are kept beside ``--out``. The timings are this machine at this
moment (shared and noisy); nothing here asserts a speed or a pick.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


_RECORDS: dict[str, Any] = {}


def _versus(brute: Any, other: dict[str, str] | None) -> str:
    """Brute force's pick against ``other`` in brute force's own rounds, by the paired rule."""
    from perf.colocate import judge

    if brute.pick is None or other is None:
        return "no pick to compare"
    if judge.key(brute.pick) == judge.key(other):
        return "the same combination"
    step = brute.steps[0]
    p = judge.compare(brute.visits, step.index, brute.pick, other, step.rounds, brute.models)
    if p is None:
        return "not measured in the same rounds"
    word = {"higher": "brute force's pick is ahead", "lower": "the search's pick is ahead"}.get(
        p.verdict, "not distinguishable at this noise (the search's pick is in brute force's tie set)"
    )
    return f"{word}: brute / search weighted throughput {p.spread_text()}"


def _build(root: Path, delays: tuple[int | None, ...]) -> Path:
    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid

    repo = root / "model_repository"
    grid = VariantGrid(counts=(1, 2), queue_delays_us=delays, max_batch_sizes=(8,))
    for model in ("mlp", "tiny"):
        build(BuildOptions(model, formats=("onnx",), grid=grid, repository=repo, build_dir=root / "builds"))
    return repo


def _run(repo: Path, results: Path, run_id: str, args: argparse.Namespace, brute: bool) -> dict[str, Any]:
    from clients.runtimes.options import ServerOptions
    from perf.colocate.judge import describe
    from perf.colocate.neighbours import neighbour_cost
    from perf.colocate.options import EVERY_MODEL, ColocateOptions
    from perf.colocate.run import Colocate

    opts = ColocateOptions(
        server=ServerOptions(repo, runtime="bundled"),
        models={"mlp": ("mlp_onnx_*",), "tiny": ("tiny_onnx_*",)},
        mix={"mlp": args.mix, "tiny": args.mix},
        latency_budget_ms={EVERY_MODEL: args.latency_budget_ms} if args.latency_budget_ms else {},
        time_budget_s=None,
        window_ms=args.window_ms,
        results_dir=results,
        run_id=run_id,
        seed=7,
        brute=brute,
    )
    start = time.monotonic()
    rec = Colocate(opts).run()
    wall = time.monotonic() - start
    _RECORDS[run_id] = rec
    rows = [
        {
            "model": r.model,
            "variant": r.variant,
            "alone_infer_per_s": r.alone,
            "colocated_infer_per_s": r.together,
            "colocated_over_alone": r.paired.median if r.paired else None,
            "verdict": r.paired.verdict if r.paired else None,
            "p99_ms": r.p99_ms,
            "queue_us": r.queue_us,
            "compute_us": r.compute_us,
        }
        for r in neighbour_cost(rec)
    ]
    return {
        "pick": rec.pick,
        "pick_text": describe(rec.pick) if rec.pick else None,
        "why": rec.pick_reason,
        "combinations_measured": rec.combinations_measured,
        "combinations_total": rec.combinations_total,
        "visits": len(rec.visits),
        "combination_visits": sum(len(v.combination) > 1 for v in rec.visits),
        "wall_s": round(wall, 1),
        "neighbours": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queue-delays", default="none", help="dynamic batching per variant: none and/or µs (none,500)")
    parser.add_argument("--mix", type=int, default=2, help="perf_analyzer concurrency of each model")
    parser.add_argument("--latency-budget-ms", type=float, default=None)
    parser.add_argument("--window-ms", type=int, default=300)
    parser.add_argument("--out", type=Path, default=Path("results/bench_colocation.json"))
    args = parser.parse_args()
    delays = tuple(None if d == "none" else int(d) for d in args.queue_delays.split(","))
    runs = args.out.with_name(args.out.stem + "_runs") / time.strftime("%Y%m%d-%H%M%S")
    with tempfile.TemporaryDirectory(prefix="bench_colocation_") as tmp:
        repo = _build(Path(tmp), delays)
        search = _run(repo, runs, "search", args, brute=False)
        brute = _run(repo, runs, "brute", args, brute=True)
    same = search["pick"] == brute["pick"]
    versus = _versus(_RECORDS["brute"], search["pick"])
    print(f"host: {platform.node()} ({platform.processor() or platform.machine()})")
    print("each model alone vs co-located (the search's pick, medians of the same final rounds):")
    for r in search["neighbours"]:
        ratio = f"{r['colocated_over_alone']:.3g}x ({r['verdict']})" if r["colocated_over_alone"] else "not measured"
        print(
            f"  {r['model']:5s} {r['variant']}: alone {r['alone_infer_per_s'] or 0:,.0f} infer/s, co-located "
            f"{r['colocated_infer_per_s'] or 0:,.0f} infer/s: {ratio}; p99 {r['p99_ms'] or 0:.2f} ms"
        )
    for name, r in (("search", search), ("brute force", brute)):
        print(
            f"{name:11s}: pick {r['pick_text']}; {r['combinations_measured']} of {r['combinations_total']} combinations, "
            f"{r['visits']} visits ({r['combination_visits']} of them combinations), {r['wall_s']:.0f} s"
        )
    print(f"search / brute force wall time: {search['wall_s'] / brute['wall_s']:.2f}; same pick: {same}")
    print(f"brute force's pick against the search's, in brute force's rounds: {versus}")
    print(f"run folders (colocation.json, report.md, raw CSVs): {runs}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "host": platform.node(),
                "args": {**vars(args), "out": str(args.out)},
                "search": search,
                "brute": brute,
                "same_pick": same,
            },
            indent=2,
        )
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
