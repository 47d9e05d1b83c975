"""The report's profiler-trace and precision sections (perf/report/sections/profile.py), written from
the run's recorded ProfileRecord; results.json keeps it and old files without it still load."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from factories import make_run

from perf.plots import figures as plots
from perf.records.profile import OperatorTime, PrecisionRow, ProfileRecord, TraceRecord
from perf.records.results import load, save
from perf.report.sections.profile import profile_section
from perf.report.write import write_report


def _profile() -> ProfileRecord:
    ops = [OperatorTime("aten::addmm", 812.5, 4, 91.0), OperatorTime("aten::relu", 20.0, 3, 2.2)]
    return ProfileRecord(
        traces=[
            TraceRecord("eager", "torch.profiler", "cpu", 8, 2, "traces/eager_b8.json", top_operators=ops),
            TraceRecord("trt", "tensorrt", "cuda", 8, status="not run on this host", reason="no CUDA device on this host"),
        ],
        precision=[
            PrecisionRow(
                "eager PyTorch",
                "cpu",
                "fp32",
                "cast",
                "fp32",
                batch_size=8,
                latency_median_ms=1.25,
                latency_iqr_ms=0.05,
                throughput_samples_per_s=6400.0,
                max_abs_err=0.0,
                max_rel_err=0.0,
                rtol=1e-4,
                within_rtol=True,
            ),
            PrecisionRow(
                "eager PyTorch",
                "cpu",
                "bf16",
                "cast",
                "bf16",
                batch_size=8,
                latency_median_ms=2.5,
                latency_iqr_ms=0.1,
                throughput_samples_per_s=3200.0,
                speedup_vs_fp32=0.5,
                max_abs_err=0.0123,
                max_rel_err=0.004,
                rtol=1e-2,
                within_rtol=True,
            ),
            PrecisionRow(
                "eager PyTorch",
                "cuda",
                "fp16",
                "cast",
                "fp16",
                status="not run on this host",
                reason="no CUDA device on this host",
                batch_size=8,
            ),
        ],
    )


def test_sections_link_the_traces_and_tabulate_recorded_numbers():
    text = "\n".join(profile_section(_profile(), operators=None))  # the top-10 tables (terminal, appendix)
    assert "[traces/eager_b8.json](traces/eager_b8.json)" in text
    assert any(ln.split() == ["|", "aten::addmm", "|", "812.5", "|", "4", "|", "91.0", "|"] for ln in text.splitlines())
    assert "trt on cuda, batch 8: not run on this host (no CUDA device on this host)" in text
    assert "0.500×" in text and "0.0123" in text and "yes (rtol 0.01)" in text
    cuda = next(ln for ln in text.splitlines() if ln.startswith("| cuda"))
    assert "not run on this host: no CUDA device on this host" in cuda and " 0 " not in cuda
    assert profile_section(None) == [] and profile_section(ProfileRecord()) == []
    body = "\n".join(profile_section(_profile()))  # report.md: the top operators in one line, the tables in the appendix
    assert "[traces/eager_b8.json](traces/eager_b8.json) — top by self time: aten::addmm 91.0 %; aten::relu 2.2 %" in body
    assert "| aten::addmm" not in body and "[appendix.md](appendix.md)" in body


def test_the_record_is_saved_with_the_run_and_reported(tmp_path: Path):
    run = make_run()
    assert run.profile is None
    run.profile = _profile()
    save(run, tmp_path)
    assert load(tmp_path).profile == run.profile
    (tmp_path / "commands.txt").write_text("perf_analyzer -m x\n")
    text = write_report(tmp_path).read_text()
    assert "## Profiler traces (one batch per format)" in text and "## Precision study" in text


def test_a_moved_precision_study_is_named_in_report_md(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 27, T27-9: the traces and the study moved to the appendix as one part whose pointer was titled
    "Profiler traces" only; `grep -i precision report.md` found nothing, though `make demo` said the report had
    a Precision study section. A trial's own long run (tests/data), so that its profile's sections move."""
    monkeypatch.setattr(plots, "write_plots", lambda run, d, *a, **k: dict.fromkeys(map(str, range(8)), d / "x.png"))
    data = Path(__file__).resolve().parents[2] / "data" / "trial25_seq1" / "results.json.gz"
    (tmp_path / "results.json").write_bytes(gzip.decompress(data.read_bytes()))
    run = load(tmp_path)
    run.profile = _profile()
    save(run, tmp_path)
    report = write_report(tmp_path).read_text()
    assert "## Precision study" in (tmp_path / "appendix.md").read_text()  # moved for the report's length
    lines = report.splitlines()
    at = lines.index("## Precision study")  # its own heading, its own pointer under it
    assert lines[at + 2].startswith("In [appendix.md](appendix.md)"), lines[at : at + 3]
    assert "## Profiler traces (one batch per format)" in lines
