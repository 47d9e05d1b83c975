"""README's "Make it faster / shorter" names every sweep flag that changes how long a level or the sweep takes, with
what it trades (trial 26, T26-13: `--no-report`, `--stability-percentage` and `--measurement-mode` were in `--help`
only). A new measurement flag is either such a knob, said there, or listed here with why it is not."""

from __future__ import annotations

from pathlib import Path

from core.options import specs
from perf.cli.sweep import COMMAND_FLAGS, OMIT
from perf.records.settings import MEASURE_PANEL
from perf.sweep.options import SweepOptions

ROOT = Path(__file__).resolve().parents[2]

#: The measurement panel's flags that do not change how long a level takes, and why.
NOT_SPEED = {
    "--protocol": "HTTP or gRPC: the same windows",
    "--perf-analyzer-arg": "perf_analyzer's own flags, passed through: the sweep's flags say the window",
    "--perf-analyzer": "which binary",
    "--input-data": "what is sent, not for how long",
    "--shape": "what is sent, not for how long",
    "--seed": "the order of the visits in a round",
}
#: The sweep's flags outside the measurement panel that bound or shorten it.
SPEED = ("--time-budget", "--concurrency", "--variants", "--no-baseline", "--no-report")


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("### Make it faster / shorter", 1)[1].split("\n### ", 1)[0]


def test_every_flag_that_changes_a_levels_length_is_in_make_it_faster() -> None:
    measure = [s.decls[0] for s in specs(SweepOptions, omit=OMIT) if s.panel == MEASURE_PANEL]
    assert set(NOT_SPEED) <= set(measure), set(NOT_SPEED) - set(measure)
    flags = {s.decls[0] for s in [*specs(SweepOptions, omit=OMIT), *COMMAND_FLAGS]}
    assert set(SPEED) <= flags
    section = _section()
    missing = [f for f in [*measure, *SPEED] if f not in NOT_SPEED and f"`{f}" not in section]
    assert not missing, f"flags that change a sweep's length, not in README's 'Make it faster / shorter': {missing}"
