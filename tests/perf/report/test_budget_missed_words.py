"""A latency budget no level meets is said in one sentence everywhere (perf.analysis.recommendation.missed):
the Recommendation's notes (report.md, the console summary), the conclusions, the plots' mark of the
closest level and export-deployment's refusal. Five places wrote it in five wordings: the conclusions and
the plots named the lowest p99 under a p95 budget (another level than the notes named), a rounds run's
closest level was its median over every round (not the quieter rounds the budget judged it on) with no
host-busy flag, and export-deployment said "no level meets" twice (its own words, then the notes in brackets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result

from core.errors import PerfError
from perf.analysis.ranking.budget_latency import RULE_WORDS
from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary
from perf.deploy.choose import choose_variant
from perf.plots.picks import LOWEST, pick_points
from perf.records import results
from perf.records.levels import LevelResult
from perf.records.rounds import RoundsRecord
from perf.report.write import write_report


def _p95_run():
    """A sequential run under a p95 budget of 4 ms: `low99` has the lowest p99, `low95` the lowest p95."""
    return run_result(
        [
            variant_result("low99", [level_result(1, 500.0, 5.0, latency_p95_ms=4.8)]),
            variant_result("low95", [level_result(1, 400.0, 6.0, latency_p95_ms=4.5)]),
        ],
        settings={"latency_budget_ms": 4.0, "latency_percentile": 95},
        finished="now",
    )


def _rounds(p99: tuple[float, ...], busy: tuple[bool, ...]) -> list[LevelResult]:
    return [
        LevelResult(1, 1, r, throughput_infer_per_s=300.0, latency_p99_ms=p, host_busy_pct=120.0 if b else 2.0, host_busy=b)
        for r, (p, b) in enumerate(zip(p99, busy, strict=True))
    ]


def _rounds_run():
    """A rounds run under a p99 budget of 4.5 ms: `busy` was host busy in all 3 rounds (median 5.89 ms, not
    verified here); `quiet` has 3 rounds not host busy at 5 ms and 3 host busy at 9 ms (median 7 ms over all
    6, judged on its quieter 5 ms): the budget came closest at `quiet`."""
    run = run_result(
        [
            variant_result("busy", _rounds((3.99, 5.89, 8.77), (True,) * 3)),
            variant_result("quiet", _rounds((5.0,) * 3 + (9.0,) * 3, (False,) * 3 + (True,) * 3)),
        ],
        settings={"latency_budget_ms": 4.5, "design": "rounds"},
        finished="now",
    )
    run.rounds = RoundsRecord(seed=1)
    return run


P95_SAID = "No level meets the p95 budget of 4.00 ms; the lowest p95 measured is 4.50 ms (`low95` at concurrency 1)."
ROUNDS_SAID = (
    f"No level meets the p99 budget of 4.50 ms (each level judged on {RULE_WORDS}); the lowest p99 measured is "
    "5.00 ms (`quiet` at concurrency 1 † host busy; median of its 3 rounds not host busy of 6 (3 host busy; 7.00 ms "
    "over all 6))."
)


@pytest.mark.parametrize(("make", "said"), [(_p95_run, P95_SAID), (_rounds_run, ROUNDS_SAID)], ids=["p95", "rounds"])
def test_every_place_says_the_budget_no_level_meets_in_one_sentence(tmp_path: Path, make, said: str) -> None:
    run = make()
    rec = recommend(run, run.settings["latency_budget_ms"])
    assert rec.best_under_budget is None
    assert [n for n in rec.notes if n.startswith("No level meets")] == [said]
    notes = summary(run).notes  # the console: once
    assert notes.count(said) == 1 and sum("no level meets" in n.lower() for n in notes) == 1
    results.save(run, tmp_path)
    report = write_report(tmp_path).read_text()
    assert report.count(said) == 1  # the Recommendation, whole; the conclusions point to it (s17a's left-alone repeat)
    pointer = f"No level meets {rec.missed.budget_words()} (the closest: see Recommendation)."
    assert report.count(pointer) == 1 and report.index(said) < report.index(pointer)
    assert report.lower().count("no level meets") == 2
    with pytest.raises(PerfError) as refused:  # export-deployment: the sentence once, in its words
        choose_variant(run)
    message = str(refused.value)
    assert (
        f"nothing to deploy from run {run.run_id}: no level meets its {said.removeprefix('No level meets the ')[:-1]};" in message
    )
    assert message.lower().count("no level meets") == 1
    assert f"the lowest p{rec.missed.percentile}," in refused.value.hint  # the hint at the budget's percentile
    from perf.cli.deploy import export_deployment

    (help_text,) = [p.help for p in export_deployment.params if p.name == "variant"]
    assert "lowest p99" not in (help_text or "") and "lowest latency at the budget's percentile" in (help_text or "")
    (low,) = [p for p in pick_points(rec) if p.kind == LOWEST]  # the plots mark the level the sentence names
    assert said.split("(`")[-1].startswith(f"{low.choice.variant}` at concurrency {low.choice.concurrency}")
    assert rec.missed is not None and low.what == rec.missed.label()
    assert f"measured {said.split(' measured is ')[1].split(' ms')[0]} ms" in low.what


def test_a_level_too_busy_to_judge_is_said_not_verified_here() -> None:
    run = _rounds_run()
    run.variants = run.variants[:1]  # `busy` alone: every round host busy
    said = recommend(run, 4.5).missed
    assert said is not None
    assert said.closest() == (
        "the lowest p99 measured is 5.89 ms (`busy` at concurrency 1 † host busy; median of 3 rounds, all 3 host busy, "
        "not verified here)"
    )
