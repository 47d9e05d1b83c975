"""Replay a brute-force rounds run through the default search: how many visits the search would
have made, and whether it would have named the same pick, on the very numbers brute force measured.

Usage::

    .venv/bin/python benchmarks/bench_search.py --keep results/bench_search_runs   # keeps both run folders
    .venv/bin/python benchmarks/replay_search.py results/bench_search_runs/brute

The brute-force run measured every (variant, level) in every round. The replay runs the sweep's
own scheduler (:class:`perf.search.rounds.Rounds`, ``--search prune`` over ``--concurrency auto``
capped at the brute run's top level) and answers each of its visits with the level brute force
measured for that variant, concurrency and round: the search sees exactly the noise and the load
brute force saw, so two designs of the search can be compared on the same numbers, without a
server, in seconds. Brute force is replayed through the same scheduler too (its own levels, every
round), as the check that the replay reproduces its run. Both are held to the rounds brute force
measured (``max_rounds``); a replay that asks for more stops there and says so.

Printed and saved: visits and rounds of each, their ratio, the wall time a sweep of that many
visits would take (the real brute run's fixed cost plus its mean visit time per visit, both from
its ``results.json``), each one's tie set and whether the search's pick is in brute force's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", type=Path, help="a brute-force rounds run folder (results.json)")
    p.add_argument("--wall-s", type=float, default=None, help="the brute run's real wall time (s; default: from its rounds)")
    p.add_argument("--out", type=Path, default=Path("results/replay_search.json"), help="JSON output file")
    args = p.parse_args(argv)

    from perf.analysis.ranking.budget_latency import host_cores
    from perf.analysis.ranking.rank import rank_variants
    from perf.records.levels import LevelResult
    from perf.records.results import RunResult, VariantResult, load
    from perf.records.rounds import RoundsRecord
    from perf.records.search import SearchRecord, SearchRules
    from perf.search.plan import LevelKey, plan_levels
    from perf.search.policy import AUTO, ladder
    from perf.search.rounds import Rounds, Setup

    brute = load(args.run_dir)
    if brute.rounds is None or not brute.rounds.rounds:
        print(f"{args.run_dir} is not a rounds run", file=sys.stderr)
        return 2
    measured: dict[tuple[str, int, int], LevelResult] = {}
    for v in brute.variants:
        for lv in v.levels:
            if lv.request_rate is None and lv.batch_size == 1:
                measured[(v.name, lv.concurrency, lv.trial)] = lv
    order = [r.index for r in brute.rounds.rounds]
    top = max(c for _, c, _ in measured)
    rules = dataclasses.replace(brute.rounds.rules, max_rounds=len(order))
    search_rules = dataclasses.replace(brute.search.rules if brute.search else SearchRules(), max_concurrency=top)
    names = [v.name for v in brute.variants if v.levels]
    ran_out: dict[str, int] = {}

    def replay(mode: str, concurrency: Any, label: str) -> dict[str, Any]:
        levels, adaptive = ladder(concurrency, search_rules)
        plans = {n: plan_levels(n, 64, levels, [1]) for n in names}
        run = RunResult(label, "now", variants=[VariantResult(n) for n in names])
        run.search = SearchRecord(mode, adaptive, rules=search_rules)  # type: ignore[arg-type]
        run.rounds = RoundsRecord(seed=brute.rounds.seed if brute.rounds else 0, rules=rules)

        def measure(name: str, key: LevelKey) -> LevelResult | None:
            c, _b, index, _r, _sh = key
            if index >= len(order):
                ran_out[label] = index
                return None
            lv = measured.get((name, c, order[index]))
            return None if lv is None else dataclasses.replace(lv, trial=index)

        setup = Setup(plans, levels, adaptive, search_rules, rules, mode, None)  # type: ignore[arg-type]
        sched = Rounds(run, setup, 1.0)
        t0 = time.perf_counter()
        tie = sched.run_group(names, 0, measure)
        visits = sum(len(r.order) for r in run.rounds.rounds)
        return {
            "visits": visits,
            "rounds": len(run.rounds.rounds),
            "tie_set": tie,
            "ended": run.rounds.ended,
            "replay_s": round(time.perf_counter() - t0, 2),
            "pruned": {d.variant: d.concurrency for d in run.search.decisions if d.rule == "pruned"},
            "visits_by_round": [len(r.order) for r in run.rounds.rounds],
            "levels_by_round": [sorted(f"{v.variant}@{v.concurrency}" for v in r.order) for r in run.rounds.rounds],
        }

    real_visits = sum(len(r.order) for r in brute.rounds.rounds)
    rounds_s = sum(r.wall_s or 0.0 for r in brute.rounds.rounds)
    visit_s = rounds_s / real_visits
    fixed_s = (args.wall_s - rounds_s) if args.wall_s is not None else None
    b = replay("brute", ladder(AUTO, search_rules)[0], "brute")
    s = replay("prune", AUTO, "search")
    real_tie = rank_variants(brute.variants, cores=host_cores(brute)).names
    out: dict[str, Any] = {
        "benchmark": "replay_search",
        "run": str(args.run_dir),
        "brute_real": {"visits": real_visits, "rounds": len(order), "rounds_s": round(rounds_s, 1), "tie_set": real_tie},
        "visit_s": round(visit_s, 3),
        "fixed_s": None if fixed_s is None else round(fixed_s, 1),
        "brute_replay": b,
        "search_replay": s,
        "visits_ratio": round(s["visits"] / b["visits"], 3),
        "ran_out_of_rounds": ran_out,
        "search_pick_in_brute_tie": s["tie_set"][0] in real_tie if s["tie_set"] else False,
    }
    if fixed_s is not None:
        out["wall_ratio_model"] = round((fixed_s + s["visits"] * visit_s) / (fixed_s + b["visits"] * visit_s), 3)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k not in ("brute_replay", "search_replay")}, indent=1))
    for label in ("brute_replay", "search_replay"):
        r = out[label]
        print(f"{label}: {r['visits']} visits {r['visits_by_round']}, {r['rounds']} rounds, tie set {r['tie_set']}; {r['ended']}")
        if r["pruned"]:
            print(f"  pruned: {r['pruned']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
