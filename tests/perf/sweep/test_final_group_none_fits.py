"""A sweep whose rounds end with time left and variants the plan cut that the left time does not fit says why on
its console, as it says a final group that fits (break-it F9: "cut for time" in the table with 26 s of the budget
unused, and the reason, "after the rounds 32 s of the time budget were left; measuring it ... needs about 33 s",
in report.md only). The sweep's own loop on the simulated host of tests/support/simulated_host.py."""

from __future__ import annotations

from simulated_host import SimLoads, budgeted_sweep

from perf.markdown import fmt

AFTER = "not measured: after the rounds "  # a cut the final group's price made (perf.search.late.late)


def test_cut_variants_the_time_left_does_not_fit_are_said_with_why(monkeypatch) -> None:
    seen = 0
    for budget_s in range(40, 120, 4):
        run, _, _, events, _ = budgeted_sweep(monkeypatch, float(budget_s), 3.0, SimLoads)
        late = [c for c in run.rounds.cuts if c.kind == "variant" and c.reason.startswith(AFTER) and " loads of " not in c.reason]
        said = " ".join(e["text"] for e in events if e["event"] == "plan")
        if not late or "(cut by the plan)" in said:  # none cut so, or a final group measured some
            continue
        seen += 1
        for c in late:  # each named with its price; what they share (when, time left, tie set, costs) said once
            prices = {fmt(c.need_s or 0.0, 0), fmt(c.need_s or 0.0, 1)}  # '56 s (`w_c`)', '74 s (with `w_d` too)' (Z-11)
            assert any(f"{p} s (`{c.variant}`)" in said or f"{p} s (with `{c.variant}` too)" in said for p in prices), (
                budget_s,
                c.reason,
                said,
            )
            when = c.reason.split("; measuring it", 1)[0].removeprefix("not measured: ")
            assert f"{len(late)} variant{'s' if len(late) > 1 else ''} not measured: {when}" in said, (when, said)
        cut_lines = [e["text"] for e in events if e["event"] == "plan" and e["text"].startswith("rounds: cut for time: ")]
        assert all(t.count("s a visit,") == 1 for t in cut_lines), cut_lines
    assert seen >= 1  # the grid reaches rounds that end with cut variants no final group fits
