"""A resumed run's cold starts (trial 7, F11): a record without a measurement never wins over one
with, a load an interruption cut short is measured again, the reason given for a missing first
request is true of it, and a run of several sessions says which session each cold start and
each server is from. Hand-made records and a stand-in server."""

from __future__ import annotations

import pytest
from factories import make_run

from perf.coldstart import measure
from perf.records.coldstart import ColdStart, FirstRequests
from perf.records.results import Session, VariantResult
from perf.records.servers import MeasuringServer
from perf.report.sections import coldstart as coldstart_report
from perf.report.sections import servers as servers_report


class _Interrupted:
    """A server whose load request is cut short by Ctrl-C (the log is never read)."""

    log_path = measure.Path("/nonexistent/server.log")

    def load(self, name: str) -> None:
        raise KeyboardInterrupt


def _measured(name: str, session: int) -> ColdStart:
    return ColdStart(name, load_s=3.19, first=[FirstRequests(1, latencies_ms=[108.4, 3, 3, 3, 3])], session=session)


def test_an_interrupted_load_leaves_an_incomplete_record_that_a_resumed_session_measures_again() -> None:
    vr = VariantResult("tabular_onnx_cpu1_nodb_mbs64", None)
    with pytest.raises(KeyboardInterrupt):
        measure.load(_Interrupted(), vr, session=1)  # type: ignore[arg-type]
    record = vr.cold_start
    assert record is not None and record.load_s is None and not record.measured and not record.complete
    assert measure.wanted(vr)  # the resumed session measures it (the old code kept the empty record)
    # its words: never "no request answered" for requests that were never sent
    assert record.why_not_measured == "not measured: its session ended before the load answered (interrupted)"
    half = ColdStart(vr.name, load_s=2.5, session=1)  # interrupted before its first requests
    assert not half.complete and "before its first requests were sent" in (half.why_not_measured or "")
    asked = ColdStart(vr.name, load_s=2.5, first=[FirstRequests(1, error="connection refused")])
    assert asked.complete and asked.why_not_measured == "not measured: no request answered (connection refused)"


def test_a_load_cut_short_never_replaces_a_measured_cold_start() -> None:
    vr = VariantResult("tabular_onnx_cpu1_db500_mbs64", None)
    vr.cold_start = ColdStart(vr.name, load_s=3.19, session=1)  # measured load, first requests cut short
    with pytest.raises(KeyboardInterrupt):
        measure.load(_Interrupted(), vr, session=2)  # type: ignore[arg-type]
    assert vr.cold_start.load_s == 3.19 and vr.cold_start.session == 1
    vr.cold_start = _measured(vr.name, 1)  # complete: a later session's load keeps it
    assert not measure.wanted(vr)


def test_a_run_of_several_sessions_says_which_session_each_cold_start_and_server_is_from() -> None:
    run = make_run()
    run.sessions = [Session("2026-12-02T11:18:13+0000", "interrupted"), Session("2026-12-02T11:19:50+0000", "finished")]
    a, b = run.variants[0], run.variants[1]
    a.cold_start = _measured(a.name, 1)
    b.cold_start = ColdStart(b.name, session=1)  # the interrupted load, as trial 7's results.json held it
    lines = coldstart_report.section(run)
    text = "\n".join(lines)
    header = next(ln for ln in lines if ln.startswith("| variant"))
    assert [c.strip() for c in header.split("|")[1:3]] == ["variant", "session"]
    row_a = [c.strip() for c in next(ln for ln in lines if f"`{a.name}`" in ln).split("|")[1:-1]]
    row_b = [c.strip() for c in next(ln for ln in lines if f"`{b.name}`" in ln).split("|")[1:-1]]
    assert row_a[1] == "session 1, interrupted" and row_a[3] == "3.19"
    assert "no request answered" not in text and "before the load answered" in row_b[5]  # the first-request column
    assert "The run has 2 sessions" in text
    run.servers = [
        MeasuringServer("localhost:53043", "g", "m", "bundled", "2.51.0", "this host", cpu_memory_total_bytes=2.5e10, session=1),
        MeasuringServer("localhost:53553", "g", "m", "bundled", "2.51.0", "this host", cpu_memory_total_bytes=2.5e10, session=2),
    ]
    table = "\n".join(servers_report.servers_section(run))
    assert "`localhost:53043` (session 1, interrupted)" in table and "`localhost:53553` (session 2, resumed)" in table
    run.sessions = run.sessions[:1]  # one session: no column, no label
    assert "session" not in next(ln for ln in coldstart_report.section(run) if ln.startswith("| variant"))
