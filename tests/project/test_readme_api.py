"""Every Python API README's table of parts names resolves and can be called as a user would (trial 30, F7:
``perf.analysis.comparison.runs.compare_runs`` was named for ``triton-perf compare``, and called with the two
runs raised TypeError: a required keyword-only ``refused`` from a layer above)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _api_names() -> list[str]:
    """The dotted names in the "Python API" column of README's table of parts."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| step | command | Python API |"))
    names = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names += [re.sub(r"\(.*", "", n) for n in re.findall(r"`([^`]+)`", cells[-1])]
    return names


def _resolve(name: str) -> Any:
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise AssertionError(f"{name}: no module of it imports")


def test_the_table_lists_the_api_of_every_step() -> None:
    names = _api_names()
    assert len(names) >= 12 and "perf.report.compare.compare_runs" in names, names


@pytest.mark.parametrize("name", _api_names())
def test_each_named_api_resolves_and_asks_only_for_what_a_user_gives(name: str) -> None:
    """A required keyword-only parameter is one no example of README passes (compare's ``refused``)."""
    obj = _resolve(name)
    assert callable(obj), name
    target = obj.__init__ if inspect.isclass(obj) else obj
    required = [
        p.name
        for p in inspect.signature(target).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty
    ]
    assert not required, f"{name} requires keyword-only {required}: README's users cannot call it as documented"


def test_compare_is_called_as_readme_shows_it(tmp_path: Path) -> None:
    """``compare_runs('results/A', 'results/B')`` with str paths, as `triton-perf compare results/A results/B`."""
    from perf.records.levels import LevelResult
    from perf.records.results import RunResult, VariantResult, save

    env = {"host": "h", "cpu": "c", "cpu_count": 4, "gpus": [], "server": {"runtime": "bundled", "version": "2.51.0"}}
    for run_id, thr in (("A", 100.0), ("B", 120.0)):
        level = LevelResult(1, 1, 0, throughput_infer_per_s=thr, latency_p99_ms=2.0, stable=True)
        save(
            RunResult(run_id, "now", env, {"protocol": "grpc"}, [VariantResult("v", None, "ok", None, [level])]),
            tmp_path / run_id,
        )
    compare_runs = _resolve("perf.report.compare.compare_runs")
    out = compare_runs(str(tmp_path / "A"), str(tmp_path / "B"))
    assert out == tmp_path / "B" / "compare_A.md" and "v" in out.read_text()
