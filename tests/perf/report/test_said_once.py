"""Each passage of report.md said once, the other places pointing to it (trial 19, T19-17: the rule for fewer
rounds under both rankings' tables, a flagged level's words per level, why a curve has no knee in the knee list's
stead in the Conclusions, a paragraph of 4,036 characters). No server."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from factories import level_result, make_run, run_result, variant_result
from readable import said_twice
from synthetic_runs import GRID_48, auto_ladder, synthetic_run

from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.notes import merged, template
from perf.analysis.stats.points import run_points
from perf.plots import figures as plots
from perf.records import results
from perf.records.rounds import RoundsRecord
from perf.report.conclusions.written import conclusions
from perf.report.sections.knees import knee_lines
from perf.report.sections.ranking import same_leader
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
    reasons = [ln.strip()[2:] for item in rec.flagged for ln in item.splitlines()[1:]]
    said = [r for r in reasons if "the reasons of `" not in r]
    assert said and len(said) == len(set(said))  # each level's reasons once; the others point to the item that said them
    assert any("the reasons of `" in r for r in reasons)
    assert any(re.search(r"at concurrency \d+, \d+", item) for item in rec.flagged)  # a variant's levels together
    assert [item.splitlines()[0] for item in rec.flagged] == rec.flagged_brief  # report.md's list, the appendix's heads


def test_a_variants_levels_flagged_for_the_same_reasons_share_one_item_with_their_numbers_as_ranges(tmp_path: Path):
    """Session 22: each level's reasons said in full, ~300 characters a level, made report.md's flagged list a third of
    its Recommendation, and two levels whose numbers matched by chance (73 % in a first measurement) said 150
    characters twice (test_report_scale's demo run failed the said-twice check). report.md lists the levels with their
    flags; the appendix says the reasons once per variant, the numbers that differ as their min–max."""
    busy = "other processes used {} % of a core during the level ({} % in a first measurement; threshold 10 %)"
    levels = [
        level_result(c, 100.0 * c, 5.0, host_busy=True, notes=[busy.format(u, f)])
        for c, u, f in ((1, 89, 73), (2, 92, 73), (4, 95, 82))
    ]
    run = run_result([variant_result("v", levels)], settings={"latency_budget_ms": 10.0})
    rec = recommend(run, 10.0)
    assert rec.flagged_brief == ["`v` at concurrency 1, 2, 4: host busy"]
    assert rec.flagged == [
        "`v` at concurrency 1, 2, 4: host busy\n  - host busy (other processes used 89–95 % of a core during the level "
        "(73–82 % in a first measurement; threshold 10 %))"
    ]
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "  - host busy: 3 levels, of `v` (3)\n" in text and "89–95 %" not in text  # counted (s22z, Z-3)
    assert "why each: appendix.md, section “Flagged levels”" in text
    assert "89–95 % of a core" in (tmp_path / "appendix.md").read_text()


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


def _workloads_run(lead: list[float], close: list[float]):
    """Two variants at two client workloads (frames=16, frames=98), each of its rounds at c=4 only: at frames=98
    `b` is both the best under the budget and the best measured, one level (s18c: the kind of fe94cf2, per workload)."""

    def series(thr: list[float], shape: str, p99: float) -> list:
        return [level_result(4, t, p99, trial=r, shape=shape, spread=True) for r, t in enumerate(thr)]

    variants = [
        variant_result("a", series(lead, "frames=16", 3.0) + series([t * 0.4 for t in close], "frames=98", 6.0)),
        variant_result("b", series(close, "frames=16", 4.0) + series([t * 0.7 for t in lead], "frames=98", 7.0)),
    ]
    return run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))


def test_a_workloads_two_picks_at_one_level_are_one_line_by_the_top_picks_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A per-workload pick pair at one level (`b [frames=98]` at c=4, both picks) said its verdict twice, as the top
    picks did before fe94cf2; now by the same function (sections.recommendation.peak_lines), one line."""
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    run = _workloads_run([1000, 1010, 990], [500, 420, 460])
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    section = text.split("\n  - frames=98:", 1)[1].split("\n- ", 1)[0]
    assert "    - best under the budget: `b [frames=98]` at concurrency 4: " in section
    pair = "    - best measured (peak not told: one level measured): the same level as the best under the budget above, said there with its verdicts: `b [frames=98]` at concurrency 4: "  # fmt: skip
    assert pair in section and section.count("beats every other ranked variant") == 1, section
    assert not said_twice(section), said_twice(section)[:2]  # the repeat scan finds it (the old code's two lines)


def test_the_paired_rankings_rows_say_their_common_rounds_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Each tie member's verdict cell said its rounds ('too few rounds to tell (2 rounds)' on every row): said once
    under the table where every member shared the same rounds."""
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    variants = [
        _variant("lead", [1000, 1010, 990], 3.0),
        _variant("up", [1020, 1000], 3.0),  # ahead in one round, behind in the other: too few rounds to tell
        _variant("down", [990, 1030], 3.0),
    ]
    run = run_result(variants, rounds=RoundsRecord(seed=1), settings={"design": "rounds"})
    results.save(run, tmp_path)
    ranking = write_report(tmp_path).read_text().split("## Paired ranking")[1].split("\n## ")[0]
    cells = [ln.rsplit("|", 2)[1].strip() for ln in ranking.splitlines() if ln.startswith("| `")]
    assert cells == ["too few rounds to tell", "too few rounds to tell"], cells
    assert "- The runner-ups above without a verdict: each shared 2 rounds with the pick." in ranking
    assert "(2 rounds)" not in ranking


def test_one_level_both_picks_says_its_why_once_in_the_paired_ranking_and_the_conclusions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Re-check 20, NEW-4's rest: for one level both picks name, the Paired ranking gave both rankings whole (the
    same heading numbers, tie set and table) and the Conclusions said the best under the budget's why (a peak not
    told, ~700 characters on a real run) a second time, word for word."""
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    variants = [_variant("lead", [1000, 1010, 990], 3.0), _variant("close", [950, 800, 700], 3.0)]
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))
    rec = recommend(run, 10.0)
    under = rec.best_under_budget
    assert under is not None and under.headroom is not None and len(under.headroom) > 100
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert text.count(under.headroom) == 1  # with the pick, in the Recommendation
    concl = text.split("## Conclusions")[1].split("\n## ")[0]
    assert "best among the levels measured only (the budget not reached: no higher c measured; why: see Recommendation)" in concl
    ranking = text.split("## Paired ranking")[1].split("\n## ")[0]
    assert ranking.count("| `close` ") == 1 and ranking.count("(round-adjusted ") == 1, ranking
    assert "the same level as the best under the budget above, with the same runner-ups, verdicts and notes." in ranking
    assert not said_twice(text), said_twice(text)[:2]


def test_one_level_both_picks_with_their_own_verdicts_says_the_why_and_the_numbers_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Re-check 20's rc20m: one level both picks, the best peak tied with a variant over the budget (so the two
    verdicts differ): the best peak's bold title held the why of a peak not told that the pick above had said
    (~560 characters), and the Paired ranking repeated the level's heading numbers."""
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    variants = [_variant("lead", [1000, 1010, 990], 3.0), _variant("over", [995, 1015, 980], 20.0), _variant("slow", [500, 400, 450], 3.0)]  # fmt: skip
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))
    rec = recommend(run, 10.0)
    under, peak = rec.best_under_budget, rec.best_peak
    assert under is not None and peak is not None and (under.variant, peak.variant) == ("lead", "lead")
    assert under.verdict(True) != peak.verdict(True) and peak.unreached is not None
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    section = text.split("## Recommendation")[1].split("\n## ")[0]
    assert (
        "- **Best measured throughput (peak not told: one level measured; why: as said of the pick above):** `lead` at concurrency 4"
        in section
    )
    assert section.count(peak.unreached) == 1
    ranking = text.split("## Paired ranking")[1].split("\n## ")[0]
    assert ranking.count("`lead` at concurrency 4 (round-adjusted") == 1
    assert "the same level as the best under the budget above, ranked against its own runner-ups:" in ranking
    assert ranking.count("| `over` ") == 1 and not said_twice(text)


def test_the_two_rankings_are_one_level_by_their_leaders_side_not_by_their_words():
    """Review r18a: same_ranking matched the rendered headings (name and concurrency) by regex; it compares the leaders'
    sides (variant, concurrency, client batch size, shape), as the Recommendation's peak_lines compares its picks."""
    variants = [_variant("lead", [1000, 1010, 990], 3.0), _variant("close", [950, 800, 700], 3.0)]
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))
    rec = recommend(run, 10.0)
    under, peak = rec.ranking_under_budget, rec.ranking
    assert under is not None and peak is not None and under.leader is not None and peak.leader is not None
    assert same_leader(under, peak) and not same_leader(None, peak) and not same_leader(under, None)
    other = dataclasses.replace(peak.leader, side=dataclasses.replace(peak.leader.side, batch_size=8))
    assert not same_leader(under, dataclasses.replace(peak, leader=other))  # one variant and c, another batch: two levels
    assert not same_leader(under, dataclasses.replace(peak, leader=None))


def test_levels_whose_reasons_hold_ranges_merge_into_one_range() -> None:
    """s22z, Z-2: a level measured in several rounds says its reasons with ranges ("36–38 %"); merging two such levels
    read each range as two numbers and chained them ("36–38–71–82 %"). A range is one slot: the levels' min–max."""
    a = "host busy (in 4 rounds, other processes used 36–38 % of one core during the visit (threshold 10 %))"
    b = "host busy (in 4 rounds, other processes used 71–82 % of one core during the visit (threshold 10 %))"
    c = "host busy (other processes used 90 % of one core during the visit (threshold 10 %))"
    assert merged([a, b]) == a.replace("36–38", "36–82")
    assert template(a) == template(b) != template(c)  # "in 4 rounds, " is a slot of its own: c is said apart
    assert merged([b, b.replace("71–82", "75")]) == b
