"""No console line of a sweep of 8 variants is over core.wording.CONSOLE_WIDTH (300) characters, tables aside, and a
clause several parts share is said once.

Trial 23 (T23-13) and trial 24: console lines of 1,300-2,500 characters: the cut-for-time line repeated "(measured:
1.25 s a visit, 5.3 s a load, 1.8 s an unload)" and the tie set's six names after each cut variant; the resume line
repeated the rounds' end (five variants' "'s p99 over the budget, not verified here (every round host busy; ...)"),
which the rounds line after it said again. The writers run here: the sweep's progress printer (plan lines, search
decisions), the resume line, the rounds' end words, the cut words, and `triton-perf report` on the trial's 8-variant
run (tests/data/trial23_ctr).
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

from click.testing import CliRunner

from core.cli import console as make_console
from core.wording import CONSOLE_WIDTH, fold_clauses, join_once, top_clauses
from perf.cli import main as perf_cli
from perf.cli.sweep_progress import SweepProgress
from perf.search.ending.unverified import assuming
from perf.search.late import late
from perf.sweep.opening import Ended, cut_words

DATA = Path(__file__).resolve().parents[2] / "data"
NAMES = [
    f"ctr_{f}_cpu{c}_{db}_mbs64" for f in ("onnx", "ts") for c in (1, 2) for db in ("nodb", "db500")
]  # the trial's 8 variants
TIE, CUT = NAMES[:6], NAMES[6:]
#: A table's lines (rich's boxes): not held to the width.
BOX = set("┏┃┡│└┗━─╇╈┳┻┓┛┩┐┘┌")


def _printed(events: list[dict]) -> list[str]:
    console = make_console(record=True, file=io.StringIO())  # the sweep's own: off a terminal, unwrapped
    p = SweepProgress(console)
    p.task = p.bar.add_task("x", total=100)  # as the sweep adds it before its events
    for e in events:
        p.on_event(e)
    # rich pads to its width and puts the time column before each log line (and spaces under it): not the text's
    return [re.sub(r"^(\[\d\d:\d\d:\d\d\] | {11})", "", ln.rstrip()) for ln in console.export_text().splitlines()]


def _long(lines: list[str]) -> list[str]:
    return [ln for ln in lines if len(ln) > CONSOLE_WIDTH and not (set(ln) & BOX)]


def _late(left_s: float = 20.0):
    return late(CUT, TIE, 12, [8], 5.3, 1.25, left_s, 1.8)


def _ended_words() -> str:
    found = {n: f"every round host busy; p99 {5 + i}.12 ms over all 3" for i, n in enumerate(TIE[1:])}
    return "ranking under the p99 budget of 5.00 ms decided" + assuming(found, 99) + " (after 6 rounds)"


def test_the_cut_for_time_line_says_the_costs_and_the_tie_set_once() -> None:
    cuts = _late().cuts
    assert len(cuts) == 2
    text = "rounds: cut for time: " + join_once([f"{c.variant} {c.reason}" for c in cuts])  # perf.sweep.rounds
    assert text.count("(measured:") + text.count(": measured:") == 1, text  # old: once per cut variant
    assert all(f"`{n}`" not in c.reason for c in cuts for n in TIE)  # the tie set by its size, named once elsewhere
    assert cut_words(cuts).count("measured: 1.25 s a visit") == 1
    lines = _printed([{"event": "plan", "text": text, "estimate_s": 0.0}])
    assert lines[0].startswith("rounds: cut for time: ") and len(lines) > 1 and not _long(lines)


def test_the_rounds_end_says_a_shared_why_once() -> None:
    said = _ended_words()
    assert said.count("not verified here") == 1 and said.count("every round host busy") == 1, said


def test_the_resume_line_leaves_the_rounds_end_to_the_rounds_line() -> None:
    fit = late(CUT, TIE, 12, [8], 5.3, 1.25, 600.0, 1.8)
    assert fit.variants == CUT
    words = Ended(_ended_words(), fit, TIE).words("a time budget of 600 s")
    assert "not verified here" not in words and "their rounds had ended: why, on the rounds line below" in words
    rounds_line = f"rounds: no more rounds of the 6 ranked variants ({_ended_words()}); {fit.reason}"  # perf.sweep.final
    assert rounds_line.count("not verified here") == 1
    lines = _printed([{"event": "plan", "text": rounds_line, "estimate_s": 0.0}])
    assert lines[0].startswith("rounds: no more rounds") and not _long(lines)
    assert all(len(ln) <= CONSOLE_WIDTH for ln in fold_clauses(f"resume r — kept: ...; will measure: {words}").splitlines())


def test_a_long_line_is_folded_at_its_clauses_every_word_kept() -> None:
    text = "; ".join(f"`{n}` (a, b; c) needs about {i} s" for i, n in enumerate(NAMES * 3))
    folded = fold_clauses(text)
    assert all(len(ln) <= CONSOLE_WIDTH for ln in folded.splitlines())
    assert folded.replace("\n  ", " ") == text  # nothing lost, nothing added but the breaks
    assert top_clauses("a (b; c); `d; e`; f") == ["a (b; c)", "`d; e`", "f"]
    assert fold_clauses("short; line") == "short; line"


def test_the_report_command_on_the_trials_8_variant_run_prints_no_line_over_the_width(tmp_path: Path) -> None:
    run = tmp_path / "ctr-a"
    run.mkdir()
    (run / "results.json").write_bytes(gzip.decompress((DATA / "trial23_ctr" / "results.json.gz").read_bytes()))
    res = CliRunner().invoke(perf_cli.cli, ["report", str(run)])
    assert res.exit_code == 0, res.output
    assert "Recommendation:" in res.output
    assert not _long(res.output.splitlines()), [len(ln) for ln in _long(res.output.splitlines())]


def test_a_ladders_stop_line_is_folded_too() -> None:
    """Trial 23: "`v`: its ladder stops at concurrency 4 for now (re-judged each round): its p99 at concurrency 4 is
    9.92 ms (...), over the budget of 5.00 ms: ..." lines of 600-800 characters, one per variant."""
    from types import SimpleNamespace

    why = "; ".join(f"its p99 at concurrency {c} is {c + 0.92:.2f} ms (median of 3 rounds, all 3 host busy)" for c in range(8))
    d = SimpleNamespace(concurrency=4, reason=why)
    lines = _printed([{"event": "search_decision", "variant": NAMES[0], "decision": d, "provisional": True}])
    assert lines[0].startswith(f"{NAMES[0]}: its ladder stops at concurrency 4 for now") and len(lines) > 1
    assert not _long(lines)
