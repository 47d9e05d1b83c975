"""perf.analysis.comparison.verdicts: two synthetic runs compared level by level (no server)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from core.errors import PerfError
from perf.analysis.comparison.runs import compare_runs, matched_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, save
from perf.sweep.refused_run import refused_flags_text


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
    path = compare_runs(a, b, refused=refused_flags_text)
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
    out = compare_runs(runs[0], runs[1], tmp_path / "x" / "cmp.md", refused=refused_flags_text)
    assert out.exists() and out.read_text().startswith("# Comparison: before (A) → after (B)")


def test_compare_errors(runs: tuple[Path, Path], tmp_path: Path):
    with pytest.raises(PerfError, match="no results.json"):
        compare_runs(tmp_path / "missing", runs[1], refused=refused_flags_text)
    save(run("other", "h", {"unrelated": [lv(1, 1, 1)]}), tmp_path / "c")
    with pytest.raises(PerfError, match="share no measured level"):
        compare_runs(runs[0], tmp_path / "c", refused=refused_flags_text)
    with pytest.raises(PerfError, match="compared with itself"):  # also through another spelling of the path
        compare_runs(runs[0], runs[0].parent / "." / runs[0].name, refused=refused_flags_text)
    import shutil

    shutil.copytree(runs[0], tmp_path / "copy")
    with pytest.raises(PerfError, match="one is a copy of the other"):
        compare_runs(runs[0], tmp_path / "copy", refused=refused_flags_text)


def test_compare_out_never_writes_over_a_file_that_is_not_a_comparison(runs: tuple[Path, Path], tmp_path: Path):
    """`compare A B --out B/report.md` replaced the run's report: only a comparison is written anew."""
    report = runs[1] / "report.md"
    report.write_text("# Sweep after\nthe run's own report\n")
    for out in (report, runs[1] / "results.json"):
        before = out.read_bytes()
        with pytest.raises(PerfError, match="exists and is not a comparison.*nothing written, it is kept"):
            compare_runs(runs[0], runs[1], out, refused=refused_flags_text)
        assert out.read_bytes() == before
    with pytest.raises(PerfError, match="is a folder"):
        compare_runs(runs[0], runs[1], tmp_path, refused=refused_flags_text)
    again = compare_runs(runs[0], runs[1], refused=refused_flags_text)  # the default file: written, then written anew
    assert compare_runs(runs[0], runs[1], refused=refused_flags_text) == again and again.read_text().startswith("# Comparison: ")


# ---------------------------------------------------------------- two rounds runs (issue 26)


def rounds_run(run_id: str, variants: dict[str, list[LevelResult]], *, cut: dict[str, str] | None = None) -> RunResult:
    """A rounds run: each level's ``trial`` is its round; ``cut``: variants listed but never measured."""
    from perf.records.rounds import RoundRecord, RoundRules, RoundsRecord, Visit

    out = run(run_id, "hostA", variants)
    out.settings = {"protocol": "grpc", "measurement_interval_ms": 5000, "design": "rounds"}  # 5000: the sequential flag's
    n = max((lv.trial for ls in variants.values() for lv in ls), default=-1) + 1
    visits = [[Visit(name, lv.concurrency) for name, ls in variants.items() for lv in ls if lv.trial == i] for i in range(n)]
    rounds = [RoundRecord(i, 0, 1 + i, "t", order=order) for i, order in enumerate(visits)]  # a round holds its visits
    out.rounds = RoundsRecord(1, RoundRules(window_ms=300), rounds=rounds)
    for name, why in (cut or {}).items():
        out.variants.append(VariantResult(name, None, "skipped", f"cut for time: {why}", []))
    return out


def per_round(c: int, thr: list[float], p99: float = 2.0, busy: int | None = None) -> list[LevelResult]:
    return [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=p99 + r / 100, host_busy=r == busy)
        for r, t in enumerate(thr)
    ]


@pytest.fixture()
def two_rounds_runs(tmp_path: Path) -> str:
    a = rounds_run(
        "before",
        {
            "faster": per_round(1, [100, 102, 98, 101, 99, 100]),
            "same": per_round(1, [100, 110, 90, 105, 95, 100]),
            "short": per_round(1, [100, 101, 99]),
            "busy": per_round(1, [100, 101, 99, 100, 100, 100], busy=2),
        },
        cut={"never": "5 variants need about 400 s for the 6 rounds a verdict needs"},
    )
    b = rounds_run(
        "after",
        {
            "faster": per_round(1, [120, 125, 118, 122, 121, 119]),
            "same": per_round(1, [104, 96, 108, 92, 101, 99]),
            "short": per_round(1, [150, 151, 149]),  # +50 % in every round, but 3 and 3 rounds
            "busy": per_round(1, [130, 131, 129, 130, 130, 130]),
        },
    )
    save(a, tmp_path / "a")
    save(b, tmp_path / "b")
    return compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()


def test_two_rounds_runs_are_compared_by_an_unpaired_rule_over_their_rounds(two_rounds_runs: str):
    text = two_rounds_runs
    assert "cannot be paired round by round" in text and "rank-sum" in text
    assert "trial spread" not in text and "`--trials 3`" not in text  # the sequential design's rule and advice
    assert row(text, "faster", 1)[4:6] == ["+20.5", "higher (p = 0.0022)"]  # medians 100 -> 120.5
    assert row(text, "same", 1)[5].startswith("not distinguishable (p = ")
    # every round +50 %, yet 3 rounds against 3 cannot reach 5 % (p = 0.1): no call either way
    assert row(text, "short", 1)[4:6] == ["+50.0", "too few rounds to tell (3 and 3)"]
    assert "- Throughput: 2 higher in B, 0 lower, 1 not distinguishable at this noise, 1 too few rounds to tell, 0 " in text


def test_a_rounds_runs_measurement_is_its_rounds_not_the_sequential_window(two_rounds_runs: str):
    env = {cells(r)[0]: cells(r)[1:] for r in two_rounds_runs.splitlines() if r.startswith("|")}
    assert env["measurement"] == ["rounds design: 6 rounds, visits of 300 ms windows"] * 2
    assert "5000" not in two_rounds_runs and "measurement_interval_ms" not in two_rounds_runs


def test_runs_that_ran_other_numbers_of_rounds_are_not_said_to_measure_differently(tmp_path: Path):
    """Trial 28, T28-9: "measurement (differs)" beside "14 rounds" and "9 rounds" of the same design and windows: how
    many rounds a run ran is an outcome, not a setting; another window is a setting, and differs."""
    a = rounds_run("before", {"v": per_round(1, [100, 101, 99, 100, 100, 100])})
    b = rounds_run("after", {"v": per_round(1, [100, 101, 99])})
    save(a, tmp_path / "a")
    save(b, tmp_path / "b")
    text = compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()
    env = {cells(r)[0]: cells(r)[1:] for r in text.splitlines() if r.startswith("|")}
    assert env["measurement"] == [
        "rounds design: 6 rounds, visits of 300 ms windows",
        "rounds design: 3 rounds, visits of 300 ms windows",
    ]
    assert b.rounds is not None
    b.rounds.rules = dataclasses.replace(b.rounds.rules, window_ms=500)
    save(b, tmp_path / "b")
    text = compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()
    assert "measurement (differs)" in {cells(r)[0] for r in text.splitlines() if r.startswith("|")}


def test_a_variant_never_measured_is_not_a_result_of_one_run(two_rounds_runs: str):
    assert "Only in A" not in two_rounds_runs
    assert (
        "- Not measured in A (cut for time: 5 variants need about 400 s for the 6 rounds a verdict needs): never."
        in two_rounds_runs
    )


def test_a_host_busy_level_is_marked_in_the_p99_cells_too(two_rounds_runs: str):
    r = row(two_rounds_runs, "busy", 1)
    assert r[2].endswith("† host busy") and r[6].endswith("† host busy")  # throughput and p99 of A's level
    # one busy round of A: judged on the rounds of each run that were not busy (trial 9 F24: "not measured
    # fairly" on every level of two runs on a busy host answered nothing)
    assert r[4:6] == ["+30.0 q", "higher (p = 0.0043) on its quiet rounds (5 in A, 6 in B)"]
    assert r[9] == "not distinguishable (p = 1) on its quiet rounds (5 in A, 6 in B)"
    assert "judged by the same test on the rounds of each run that were not busy" in two_rounds_runs
    assert "- Not measured fairly:" not in two_rounds_runs


def test_a_level_with_too_few_quiet_rounds_is_not_measured_fairly_and_says_what_to_do(tmp_path: Path):
    busy = per_round(1, [100, 101, 99, 100, 100, 100])
    for lv in busy[:4]:
        lv.host_busy = True
    save(rounds_run("before", {"v": busy}), tmp_path / "a")
    save(rounds_run("after", {"v": per_round(1, [130, 131, 129, 130, 130, 130])}), tmp_path / "b")
    text = compare_runs(tmp_path / "a", tmp_path / "b", refused=refused_flags_text).read_text()
    assert row(text, "v", 1)[4:6] == ["+30.0", "not measured fairly (host busy; quiet rounds 2 in A, 6 in B: too few)"]
    assert "sweep them in one run (its interleaved rounds measure them under the same load" in text
