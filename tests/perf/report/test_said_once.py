"""Each passage of report.md said once, the other places pointing to it (trial 19, T19-17: the rule for fewer
rounds under both rankings' tables, a flagged level's words per level, why a curve has no knee in the knee list's
stead in the Conclusions, a paragraph of 4,036 characters). No server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from factories import level_result, make_run, run_result, variant_result
from synthetic_runs import GRID_48, auto_ladder, synthetic_run

from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.plots import figures as plots
from perf.records import results
from perf.records.rounds import RoundsRecord
from perf.report.conclusions.written import conclusions
from perf.report.sections.knees import knee_lines
from perf.report.write import write_report


def _variant(name: str, thr: list[float], p99: float):
    return variant_result(name, [level_result(4, t, p99, trial=r, spread=True) for r, t in enumerate(thr)])


def test_the_rule_for_fewer_rounds_is_said_once_under_both_rankings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    variants = [_variant("lead", [1000, 1010, 990], 3.0), _variant("once", [420], 3.0), _variant("close", [950, 800, 700], 3.0)]
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    ranking = text.split("## Paired ranking")[1].split("\n## ")[0]
    assert ranking.count("- **Best under the p99 budget") == 1 and ranking.count("- **Best ") == 2  # two tables
    assert text.count("- A comparison with fewer than 6 common rounds is called only on a large, consistent gap") == 1
    assert ranking.rindex("A comparison with fewer than 6") > ranking.rindex("| `")  # under the last table


def test_levels_flagged_in_the_same_words_share_one_item():
    run = synthetic_run(GRID_48, auto_ladder)  # levels of its variants repeat each other's numbers
    rec = recommend(run, 25.0)
    pts = run_points(run)
    flagged = [p for v in run.variants if v.status != "failed" for p in pts[v.name] if candidate(p) and p.status != "ok"]
    assert rec.flagged_levels == len(flagged) > len(rec.flagged)  # the count is of levels, the items fewer
    said = [item for item in rec.flagged if "(the words of `" not in item]
    words = [m.group(1) for item in said if (m := re.search(r": host busy (\(.*\))$", item))]
    assert len(words) == len(set(words))  # each level's words once; the others point to the item that said them
    assert any("(the words of `" in item for item in rec.flagged)
    assert any(re.search(r"at concurrency \d+, \d+", item) for item in rec.flagged)  # a variant's levels together


def test_why_a_curve_has_no_knee_is_said_in_the_knee_list_and_the_conclusions_point_to_it():
    run = make_run()
    rec = recommend(run)
    pts = run_points(run)
    knees = "\n".join(knee_lines(rec, pts, run=run))
    open_ = [n for n, k in rec.knees.items() if k is None and n not in rec.falls and len(pts[n]) > 1]
    assert open_
    for n in open_:
        line = next(ln for ln in knees.splitlines() if ln.startswith(f"  - `{n}`: no knee within the swept range ("))
        why = line.split("no knee within the swept range (", 1)[1][:-1]
        assert why and why not in "\n".join(conclusions(run, rec))
    when = "\n".join(conclusions(run, rec)).split("**When this holds.**")[1]
    assert "each variant's knee, fall or why it has neither: **Saturation (knee)** in the Recommendation" in when
    assert all(len(ln) <= 1200 for ln in when.splitlines()) and when.count("\n- ") >= 1  # a short sentence, bullets


def test_a_best_peak_at_the_best_under_the_budgets_level_is_one_line_pointing_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """s17a's left-alone repeat (re-check 19's rc19d): both picks at one level said its verdict, its tie set and the
    why of a peak not told twice, word for word, 1,100 characters."""
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    variants = [_variant("lead", [1000, 1010, 990], 3.0), _variant("close", [950, 800, 700], 3.0)]
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))
    rec = recommend(run, 10.0)
    under, peak = rec.best_under_budget, rec.best_peak
    assert under is not None and peak is not None and (under.variant, under.concurrency) == (peak.variant, peak.concurrency)
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    section = text.split("## Recommendation")[1].split("\n## ")[0]
    assert "the same level as the best under the budget above, said there with its verdicts: `lead` at concurrency 4: " in section
    verdict = under.verdict(True)
    assert len(verdict) > 40 and section.count(verdict) == 1, section
