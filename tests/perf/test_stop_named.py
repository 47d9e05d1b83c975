"""What stopped a command is named as its console said it, in every line and record (break-it F4: a sweep stopped
by SIGTERM said "interrupted:" and its report "interrupted (Ctrl-C)"; a baseline's rows a SIGTERM left were marked
"interrupted (Ctrl-C)"). One source: :func:`core.console.interrupted_words`."""

from __future__ import annotations

import ast
import signal
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from pydantic import TypeAdapter

from core import console
from perf.profile.baseline import BaselineOptions, baseline_settings
from perf.profile.stopped import interrupted_text, stopped_notes, stopped_study, stopped_trace
from perf.records.baseline import BaselineKey, BaselineResult, BaselineTarget
from perf.records.profile import ProfileRecord
from perf.sweep.preflight import interrupted_text as sweep_interrupted_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def sigterm() -> Iterator[None]:
    console.reset_stop()
    console._STOP["signal"] = signal.SIGTERM  # as core.console._on_stop records it
    yield
    console.reset_stop()


def test_a_sweep_stopped_by_sigterm_says_so_on_the_console(sigterm: None, tmp_path: Path) -> None:
    (tmp_path / "raw").mkdir()
    assert sweep_interrupted_text(tmp_path / "none", "again", "resume").startswith(
        "interrupted (SIGTERM) before the run's first save"
    )


def test_the_rows_and_notes_a_sigterm_left_name_it_and_load_again(sigterm: None) -> None:
    trace = stopped_trace(BaselineKey("mlp", "onnx"), (1, None), in_flight=True)
    rows = stopped_study(["fp16"], 1, in_flight=False)
    assert trace.status == "interrupted (SIGTERM)" and trace.reason.startswith("SIGTERM came while it ran")
    assert rows[0].status == "interrupted (SIGTERM)" and rows[0].reason == "SIGTERM came before it"
    saved = TypeAdapter(ProfileRecord).dump_python(ProfileRecord(traces=[trace], precision=rows), mode="json")
    back = TypeAdapter(ProfileRecord).validate_python(saved)  # the status is one a record holds
    assert back.traces[0].status == "interrupted (SIGTERM)"
    notes = stopped_notes(["a", "b"], 0, 5)
    assert notes == ["`a`: not measured: interrupted (SIGTERM)", "`b`: not measured: interrupted (SIGTERM) before it"]


def test_a_baseline_note_saved_under_ctrl_c_is_still_read_as_a_stop(sigterm: None) -> None:
    """Notes saved by a Ctrl-C (or by the code before this) are read as a stop's whatever stops this command."""
    target = BaselineTarget("a_onnx", BaselineKey("a", "onnx"))
    settings = baseline_settings(BaselineOptions(Path(".")))
    result = BaselineResult("now", settings, [target], [], ["`a`: not measured: interrupted (Ctrl-C)"])
    said = interrupted_text(cast(Any, SimpleNamespace(result=result, stored=None)))
    assert said.startswith("interrupted (SIGTERM): in-process baseline of 0 of 1 model") and "not measured: a" in said


def _hand_named(tree: ast.AST) -> list[int]:
    """The lines of a module whose code (not a docstring, not a ``Literal[...]`` of statuses) names a stop by hand:
    ``"interrupted (Ctrl-C)"``, or ``f"interrupted ({...})"``."""
    skip = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    skip |= {
        id(c)
        for n in ast.walk(tree)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "Literal"
        for c in ast.walk(n.slice)
    }
    lines = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip and "interrupted (Ctrl-C)" in n.value:
            lines.append(n.lineno)
        if isinstance(n, ast.JoinedStr):
            parts = n.values
            for a, b in zip(parts, parts[1:], strict=False):
                if isinstance(a, ast.Constant) and str(a.value).endswith("interrupted (") and isinstance(b, ast.FormattedValue):
                    lines.append(n.lineno)
    return lines


def test_no_line_or_record_names_a_stop_by_hand() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for top in ("builders", "clients", "core", "perf")
        for p in sorted((ROOT / top).rglob("*.py"))
        if p.name != "console.py" or p.parent.name != "core"  # the one source
        for n in _hand_named(ast.parse(p.read_text()))
    ]
    assert not found, f"name what stopped a command with core.console.interrupted_words(), not by hand: {found}"
