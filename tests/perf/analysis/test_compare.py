"""perf.analysis.compare: two synthetic runs compared level by level (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PerfError
from perf.analysis.compare import compare_runs, matched_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, save


def lv(c: int, thr: float, p99: float, trial: int = 0, stable: bool = True) -> LevelResult:
    return LevelResult(c, 1, trial, throughput_infer_per_s=thr, latency_p99_ms=p99, stable=stable)


def run(run_id: str, host: str, variants: dict[str, list[LevelResult]]) -> RunResult:
    env = {
        "host": host,
        "cpu": "Test CPU",
        "cpu_count": 4,
        "gpus": [],
        "server": {"runtime": "bundled", "version": "2.51.0"},
        "perf_analyzer": {"version": "2.51.0"},
    }
    return RunResult(
        run_id, "now", env, {"protocol": "grpc"}, [VariantResult(n, None, "ok", None, ls) for n, ls in variants.items()]
    )


@pytest.fixture()
def runs(tmp_path: Path) -> tuple[Path, Path]:
    a = run(
        "before",
        "hostA",
        {
            "single": [lv(1, 100, 2.0), lv(4, 300, 4.0)],
            "trials": [lv(1, t, 2.0, i) for i, t in enumerate([95, 100, 105])]
            + [lv(4, t, 4.0, i) for i, t in enumerate([290, 300, 310])],
            "gone": [lv(1, 50, 1.0)],
            "mixed": [lv(1, t, 2.0, i) for i, t in enumerate([99, 100, 101])]
            + [lv(4, t, 4.0, i) for i, t in enumerate([299, 300, 301])],
        },
    )
    b = run(
        "after",
        "hostB",
        {
            "single": [lv(1, 102, 2.0), lv(4, 360, 3.0), lv(8, 400, 5.0)],  # +2 % (noise), +20 %; c=8 unmatched
            "trials": [lv(1, t, 2.05, i) for i, t in enumerate([100, 104, 108])]  # +4 %, spread 10-13 -> not significant
            + [lv(4, t, 4.0, i, stable=i != 1) for i, t in enumerate([380, 390, 395])],  # +30 %, significant
            "new": [lv(1, 70, 1.0)],
            # c=1: +54 % measured once in B (A has 3 trials): unknown, not significant and not "yes";
            # c=4: +20 % exceeds A's spread (2) but not B's (60 = 300..360..420 over 3 trials): not significant
            "mixed": [lv(1, 154, 2.0)] + [lv(4, t, 4.0, i) for i, t in enumerate([300, 360, 420])],
        },
    )
    save(a, tmp_path / "a")
    save(b, tmp_path / "b")
    return tmp_path / "a", tmp_path / "b"


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row(text: str, variant: str, conc: int) -> list[str]:
    section = text.split(f"## {variant}\n")[1].split("\n## ")[0]
    return next(cells(r) for r in section.splitlines() if r.startswith("|") and cells(r)[:2] == [str(conc), "1"])


def test_compare_significance(runs: tuple[Path, Path]):
    a, b = runs
    path = compare_runs(a, b)
    assert path == b / "compare_before.md"
    text = path.read_text()
    # single trial on both sides: spread unknown, never "yes" or "no" (no assumed 5 % noise)
    assert row(text, "single", 1)[4:6] == ["+2.0", "spread unknown (1 trial)"]
    assert row(text, "single", 4)[4:6] == ["+20.0", "spread unknown (1 trial)"]
    assert row(text, "single", 4)[8:10] == ["-25.0", "spread unknown (1 trial)"]  # p99 4.0 -> 3.0 ms
    # trials: medians, [min–max] shown, significant only beyond both spreads
    r1 = row(text, "trials", 1)
    assert r1[2] == "100.0 [95.0–105.0]" and r1[3] == "104.0 [100.0–108.0]"
    assert r1[4:6] == ["+4.0", "no"]
    r4 = row(text, "trials", 4)
    assert r4[4:6] == ["+30.0", "yes"] and r4[3].endswith("† unstable")  # one unstable trial flags the level
    assert row(text, "mixed", 1)[4:6] == ["+54.0", "spread unknown (1 trial)"]
    assert row(text, "mixed", 4)[4:6] == ["+20.0", "no"]
    assert not [r for r in text.splitlines() if r.startswith("|") and cells(r)[:2] == ["8", "1"]]  # only measured in B
    assert "Only in A: gone." in text and "Only in B: new." in text
    assert ["host (differs)", "hostA", "hostB"] in [cells(r) for r in text.splitlines() if r.startswith("|")]
    assert (
        "Throughput: 1 significantly higher in B, 0 significantly lower, 2 not significant, 3 with unknown spread, "
        "0 not measured fairly (a side host busy)." in text
    )
    assert "run both sweeps with `--trials 3`" in text
    assert "5 %" not in text and "default" not in text


def test_matched_points_and_out_path(runs: tuple[Path, Path], tmp_path: Path):
    from perf.records.results import load

    pairs = matched_points(load(runs[0]), load(runs[1]))
    assert [(n, p.concurrency) for n, p, _ in pairs] == [
        ("single", 1),
        ("single", 4),
        ("trials", 1),
        ("trials", 4),
        ("mixed", 1),
        ("mixed", 4),
    ]
    out = compare_runs(runs[0], runs[1], tmp_path / "x" / "cmp.md")
    assert out.exists() and out.read_text().startswith("# Comparison: before (A) → after (B)")


def test_compare_errors(runs: tuple[Path, Path], tmp_path: Path):
    with pytest.raises(PerfError, match="no results.json"):
        compare_runs(tmp_path / "missing", runs[1])
    save(run("other", "h", {"unrelated": [lv(1, 1, 1)]}), tmp_path / "c")
    with pytest.raises(PerfError, match="share no measured level"):
        compare_runs(runs[0], tmp_path / "c")
    with pytest.raises(PerfError, match="compared with itself"):  # also through another spelling of the path
        compare_runs(runs[0], runs[0].parent / "." / runs[0].name)
    import shutil

    shutil.copytree(runs[0], tmp_path / "copy")
    with pytest.raises(PerfError, match="one is a copy of the other"):
        compare_runs(runs[0], tmp_path / "copy")
