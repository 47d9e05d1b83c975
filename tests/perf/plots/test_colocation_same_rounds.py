"""The trade-off plot compares each combination with the pick in the same rounds (trial 17, T17-7): the
pick's point was its final step's 6 rounds (a quieter moment, 1,770 weighted infer/s), the others' their
move step's 3 rounds, 1.87x apart on the plot while the report's paired rule tied them in the rounds
they shared. Read back from the plot's artists."""

from __future__ import annotations

import dataclasses
import statistics
from pathlib import Path

from perf.plots.colocation import FEWEST_WORDS, plot_tradeoff
from perf.records.colocation import ColocatedModel, ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample
from perf.report.colocation import report_lines

PICK = {"a": "a_1", "b": "b_1"}
OTHER = {"a": "a_2", "b": "b_1"}
#: step -> combination name -> per round (infer/s of a, infer/s of b); p99 10 ms throughout
MOVE = {"pick": [(500.0, 400.0), (520.0, 410.0), (480.0, 390.0)], "other": [(450.0, 380.0), (470.0, 400.0), (430.0, 370.0)]}
FINAL = [(900.0, 800.0)] * 6  # the pick alone in quieter rounds


def _record() -> ColocationRecord:
    models = [ColocatedModel(m, [f"{m}_1", f"{m}_2"], latency_budget_ms=50.0) for m in ("a", "b")]
    combos = {"pick": PICK, "other": OTHER}
    visits = [
        ColocationVisit(
            0, r, o, dict(combos[n]), [ModelSample(m, combos[n][m], nums[i], 10.0) for i, m in enumerate("ab")], wall_s=1.0
        )
        for o, n in enumerate(MOVE)
        for r, nums in enumerate(MOVE[n])
    ]
    visits += [
        ColocationVisit(1, r, 0, dict(PICK), [ModelSample(m, PICK[m], nums[i], 10.0) for i, m in enumerate("ab")], wall_s=1.0)
        for r, nums in enumerate(FINAL)
    ]
    steps = [
        SearchStep(0, "move", "a", dict(PICK), [dict(PICK), dict(OTHER)], len(MOVE["pick"])),
        SearchStep(1, "final", None, dict(PICK), [dict(PICK)], len(FINAL)),
    ]
    return ColocationRecord("r", "now", "repo", models, steps=steps, visits=visits, pick=dict(PICK))


def test_the_pick_is_drawn_in_the_rounds_it_was_compared_in(tmp_path: Path, kept_figures: list) -> None:
    drawn = plot_tradeoff(_record(), tmp_path / "c.png")
    assert drawn is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    (lines,) = drawn.values()
    final = [label for label in lines if label.startswith("the pick (")]
    assert final == ["the pick (step 2, 6 rounds)"]  # the pick's star says which rounds it is
    assert lines[final[0]][1] == [sum(FINAL[0])]
    beside = [label for label in lines if label.startswith("the pick in the rounds")]
    assert len(beside) == 1
    move_sum = statistics.median(sum(r) for r in MOVE["pick"])
    assert lines[beside[0]][1] == [move_sum]  # the pick in the move step's rounds, beside the other's point
    other = statistics.median(sum(r) for r in MOVE["other"])
    assert other in next(ys for label, (_, ys) in lines.items() if label.startswith("every model meets its p99 budget,"))
    texts = [t.get_text() for t in ax.texts]
    assert "a_2\nb_1\n(step 1, 3 rounds)" in texts  # each point says which rounds it is the median of
    assert "the pick (step 1)" in texts


def test_the_plot_numbers_steps_as_the_report_does(tmp_path: Path, kept_figures: list) -> None:
    """Trial 18, T18-7: the plot said "step 1" for the step report.md and the console call step 2 (0- vs 1-based)."""
    rec = _record()
    drawn = plot_tradeoff(rec, tmp_path / "c.png")
    assert drawn is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    said = {int(t.get_text().split("(step ")[1].split(",")[0].rstrip(")")) for t in ax.texts if "(step " in t.get_text()}
    rows = [ln for ln in report_lines(rec) if ln.startswith("| ") and ln.split("|")[2].strip() in ("move", "final")]
    numbers = {ln.split("|")[2].strip(): int(ln.split("|")[1]) for ln in rows}
    assert numbers == {"move": 1, "final": 2}  # the report's "The search" table
    labels = [lb for lb in drawn[next(iter(drawn))] if lb.startswith("the pick (")]
    assert labels == [f"the pick (step {numbers['final']}, 6 rounds)"]  # its final step's rounds, numbered as the report
    assert said == {numbers["move"], numbers["final"]} or said == {numbers["move"]}, said


def test_under_fewest_instances_every_label_says_its_instances(tmp_path: Path, kept_figures: list) -> None:
    """Trial 19, T19-16: under --objective fewest-instances the pick (3 instances) was the lowest point, below
    4-instance combinations, and nothing on the plot said the instance counts it was ranked by."""
    rec = _record()
    rec.objective = "fewest-instances"
    rec.models = [dataclasses.replace(m, instances={f"{m.name}_1": 1, f"{m.name}_2": 3}) for m in rec.models]
    drawn = plot_tradeoff(rec, tmp_path / "c.png")
    assert drawn is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    texts = [t.get_text() for t in ax.texts]
    assert "a_2\nb_1\n(4 instances, step 1, 3 rounds)" in texts, texts  # 3 + 1: the objective's count on each point
    assert "a_1\nb_1\n(2 instances, step 2, 6 rounds)" in texts, texts
    assert [lb for lb in drawn[next(iter(drawn))] if lb.startswith("the pick (")] == ["the pick (2 instances, step 2, 6 rounds)"]
    assert ax.get_title().endswith(f"({FEWEST_WORDS})") and "fewest instances" in ax.get_title()


def test_under_the_throughput_objective_no_label_counts_instances(tmp_path: Path, kept_figures: list) -> None:
    assert plot_tradeoff(_record(), tmp_path / "c.png") is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    assert not [t.get_text() for t in ax.texts if "instances" in t.get_text()] and "\n" not in ax.get_title()


def test_the_legend_says_the_target_missed_as_the_table_does(tmp_path: Path) -> None:
    """Re-check 19, NEW-2: the grey x's legend said "a model over its budget" of combinations whose p99 was well
    under the budget and that missed only a required throughput; its words are the table's status now."""
    from perf.colocate import judge
    from perf.colocate.near import status

    rec = _record()
    rec.models = [dataclasses.replace(m, required_throughput=460.0) for m in rec.models]  # b's 380-400 miss it
    drawn = plot_tradeoff(rec, tmp_path / "c.png")
    assert drawn is not None
    (lines,) = drawn.values()
    missed = [label for label in lines if label.startswith("a model misses its p99 budget or required throughput,")]
    assert len(missed) == 1 and not any("over its budget" in label for label in lines), list(lines)
    measured = judge.measured_combinations(rec)
    assert all(c.p99_ms[m] is not None and c.p99_ms[m] < 50.0 for c in measured for m in c.p99_ms)  # under the budget
    cells = {status(rec, c).cell for c in measured if not status(rec, c).met}
    assert cells and all("required" in cell for cell in cells)  # the table says the same: a required throughput missed
    assert "b 380 infer/s < 460 required |" in "\n".join(report_lines(rec))  # the table's cell
    rec.models = [dataclasses.replace(m, latency_budget_ms=None) for m in rec.models]
    (lines,) = plot_tradeoff(rec, tmp_path / "d.png").values()  # type: ignore[union-attr]
    assert any(label.startswith("a model misses its required throughput,") for label in lines), list(lines)
