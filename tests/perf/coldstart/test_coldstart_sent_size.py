"""The size a cold start's first requests were sent at is the one its report names (trial 19, T19-18): a sweep of
``--shapes num_items=1..200`` sent its first requests at the mix's first entry, num_items=133, while the Cold start
table's "inputs sized" column said "num_items=50 (the build's opt size of axis num_items)": the record kept the words
for a size not swept although every request was sent at a swept one. A record now keeps those words only where a
request was sent at a size not swept, and every place that names the size sent names the one sent."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from factories import make_run

from perf.coldstart import measure
from perf.measure.mixed import first_size
from perf.records.coldstart import SETTLE_WINDOW, ColdStart, FirstRequests
from perf.records.results import VariantResult
from perf.report.sections import coldstart as coldstart_report

OPT = "num_items=50 (the build's opt size of axis num_items)"
STEADY = [4.0] * (SETTLE_WINDOW + 2)


def _report(cold: ColdStart) -> tuple[str, str]:
    run = make_run()
    run.variants = run.variants[:1]
    run.variants[0].cold_start = cold
    items = coldstart_report.entries(run)
    row = next(ln for ln in coldstart_report.table_lines(items) if ln.startswith("| `"))
    return row, coldstart_report.conclusion(run, items)


def test_a_mixed_size_cold_start_names_the_size_sent_not_the_builds_opt():
    # a record as the old code wrote it (trial 19's r19a): the opt size's words beside a first request at the mix
    first = FirstRequests(1, shape="num_items=1..200", sent_shape="num_items=133", latencies_ms=[27.3, *STEADY])
    row, words = _report(ColdStart("v", load_s=1.7, first=[first], sizes=OPT))
    assert "num_items=133 (the first of the mix num_items=1..200)" in row and OPT not in row
    assert "num_items=50" not in words and "sent at num_items=133" in words
    # a swept size that is not a mix: that size
    one = FirstRequests(1, shape="num_items=64", latencies_ms=[9.0, *STEADY])
    row, words = _report(ColdStart("v", load_s=1.7, first=[one], sizes=OPT))
    assert "| num_items=64 " in row and "num_items=50" not in row + words
    # a size not swept (the build's opt, --shape): its words, as before (trial 16, T16-11)
    plain = FirstRequests(1, latencies_ms=[9.0, *STEADY])
    row, words = _report(ColdStart("v", load_s=1.7, first=[plain], sizes=OPT))
    assert OPT in row and f"(inputs sized {OPT})" in words


@pytest.mark.parametrize(("points", "said"), [([(1, "num_items=1..200")], None), ([(1, None), (8, None)], OPT)])
def test_the_record_keeps_the_unswept_sizes_only_where_a_request_was_sent_at_one(
    monkeypatch: pytest.MonkeyPatch, points: list[tuple[int, str | None]], said: str | None
):
    """The real path (perf.coldstart.measure.first_requests), its server and requests faked."""
    monkeypatch.setattr(measure, "engine_note", lambda *a: None)
    monkeypatch.setattr(measure, "own_roots", lambda srv: ([], "not sampled here"))
    monkeypatch.setattr(measure, "describe_dynamic", lambda *a, **k: OPT)
    monkeypatch.setattr(measure, "generate_inputs", lambda *a, **k: {})
    monkeypatch.setattr(measure, "send", lambda *a, **k: list(STEADY))
    srv = SimpleNamespace(http_url="localhost:1", grpc_url="localhost:2")
    config: dict[str, Any] = {"name": "v", "max_batch_size": 8, "input": [], "output": []}
    variant = SimpleNamespace(params=None, served_spec=None)
    vr = VariantResult("v", None)
    record = measure.first_requests(srv, vr, config, variant, points)  # type: ignore[arg-type]
    assert record.sizes == said
    if points[0][1]:
        sent = first_size("num_items=1..200")  # the mix's first entry, as perf_analyzer sends it
        assert record.first[0].sent_shape == sent and record.first_sent == f"{sent} (the first of the mix num_items=1..200)"
