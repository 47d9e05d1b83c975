"""A shape sweep whose swept sizes leave out the build's reference size keeps its in-process baseline:
it is timed at the swept sizes (issue 26, F23; trial 6: `--shapes frames=16,98`, the baseline timed at
frames=49 only, which no level sent). A sweep of mixed ranges only measures none, and says why up front
(the report's rule). The report gives a pick at every swept size, not one for the first size only."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from factories import level_result, run_result, variant_result

from perf.analysis.efficiency import sizes_apart
from perf.records import results
from perf.records.rounds import RoundsRecord
from perf.report.write import write_report
from perf.search.plan import VariantPlan
from perf.sweep.run import Sweep


def sweep_at(shapes: tuple[str, ...]) -> SimpleNamespace:
    """A stand-in sweep of one variant whose spec says frames 1..98, reference (opt) 49, that sends ``shapes``."""
    spec = SimpleNamespace(dynamic_axes={"frames": (1, 49, 98)})
    repo = SimpleNamespace(variant=lambda name: SimpleNamespace(spec=spec))
    plans = {"v": VariantPlan("v", [], shapes=shapes)}
    return SimpleNamespace(opts=SimpleNamespace(sweep_axes={"frames": (16, 98)}), plans=plans, repository=repo)


def test_a_shape_sweep_without_the_reference_size_keeps_the_baseline() -> None:
    assert Sweep._baseline_unusable(sweep_at(("frames=16", "frames=98"))) is None  # type: ignore[arg-type]
    assert Sweep._baseline_unusable(sweep_at(("frames=16", "frames=49"))) is None  # type: ignore[arg-type]


def test_a_mixed_range_skips_the_baseline_up_front_as_the_report_would() -> None:
    """A mixed --shapes range was 'usable' up front (its fixed sizes, none, matched vacuously), so the budget
    kept time for a baseline the report then had no level to compare with: one rule now,
    perf.analysis.efficiency.sizes_apart, with the report's words."""
    why = Sweep._baseline_unusable(sweep_at(("frames=16..98",)))  # type: ignore[arg-type]
    assert why == sizes_apart({"v": ["frames=16..98"]}) and why is not None and "a mixed range (frames=16..98 (mixed))" in why
    assert Sweep._baseline_unusable(sweep_at(("frames=16..98", "frames=49"))) is None  # type: ignore[arg-type]


def test_the_report_gives_a_pick_at_every_swept_size(tmp_path: Path) -> None:
    def series(thr: float, shape: str) -> list:
        return [level_result(4, thr * f, 5.0, trial=r, shape=shape) for r, f in enumerate((1.0, 1.01, 0.99))]

    run = run_result(
        [
            variant_result("a", series(1000, "frames=16") + series(600, "frames=98")),
            variant_result("b", series(500, "frames=16") + series(700, "frames=98")),
        ],
        settings={"latency_budget_ms": 10.0, "design": "rounds"},
        rounds=RoundsRecord(seed=1),
    )
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "- **Client workloads:** the picks above are for clients sending frames=16" in text
    line = text.split("\n  - frames=98:", 1)[1].split("\n- ", 1)[0]  # a workload's picks: a bullet each (9059bc2)
    assert (
        "best under the budget: `b [frames=98]` at concurrency 4" in line
        and "best measured (peak not told: one level measured): the same level as the best under the budget above, said there with its "
        "verdicts: `b [frames=98]`"
        in line
    )  # one level: no peak; both picks at it: one line, as the top picks (s18c)
    assert "No in-process baseline in this run (swept with `--no-baseline`, or before it existed" in text  # not the sizes
