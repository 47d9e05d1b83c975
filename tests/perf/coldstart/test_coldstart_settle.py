"""The steady reference of a cold start is a settled latency (trial 16, T16-11): ``triton-perf coldstart`` alone
compared each first request with "the median of the requests that followed it", eleven requests that were still
warming up (100-750 ms for a TorchScript model whose sweep p50 was 1-4 ms): ratios understated ~100x, "requests
before steady: 2" and ``--warmup-count 2`` advised from them. Now requests are sent until their latency settles
(:func:`perf.records.coldstart.settles`), and a size that does not settle gets no ratio, count or advice."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from factories import make_run

from perf.coldstart import measure as coldstart
from perf.records.coldstart import SETTLE_PCT, SETTLE_WINDOW, ColdStart, FirstRequests
from perf.report.sections import coldstart as coldstart_report

STEADY_MS = 4.0
#: A TorchScript model's first calls (the profiling executor optimising its graph), then steady around 4 ms.
WARMUP_TAIL = [1640.0, 900.0, 745.0, 700.0, 650.0, 600.0, 400.0, 200.0, 100.0, 50.0, 20.0, 8.0, 5.0]


def _steady(n: int) -> list[float]:
    """``n`` steady latencies around :data:`STEADY_MS`, each within a third of the settle tolerance."""
    wobble = STEADY_MS * SETTLE_PCT / 100 / 3
    return [STEADY_MS + (wobble if i % 2 else -wobble) for i in range(n)]


class _Clock:
    """A fake ``time`` module whose clock a request advances by its latency."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def _send(monkeypatch: pytest.MonkeyPatch, latencies: list[float], budget_s: float) -> list[float]:
    """What :func:`perf.coldstart.measure.send` records from a server answering in ``latencies`` (ms), in order
    (the last repeated once they run out)."""
    clock = _Clock()
    it: Iterator[float] = iter(latencies)

    class _Client:
        def is_server_live(self) -> bool:
            return True

        def infer(self, model: str, request: Any) -> None:
            clock.now += next(it, latencies[-1]) / 1e3

        def close(self) -> None:
            pass

    monkeypatch.setattr(coldstart, "time", clock)
    monkeypatch.setattr(coldstart, "make_client", lambda url, protocol: _Client())
    monkeypatch.setattr(coldstart, "request_inputs", lambda m, inputs: None)
    return coldstart.send("localhost:8000", "http", "m", {}, budget_s)


def _standalone(latencies: list[float]) -> tuple[list[str], str]:
    """The table row (cells) and conclusion of ``triton-perf coldstart`` (no run named) for one variant."""
    run = make_run()
    run.run_id = coldstart_report.STANDALONE_RUN
    run.variants = run.variants[:1]
    v = run.variants[0]
    v.levels = []
    v.cold_start = ColdStart(v.name, load_s=2.0, first=[FirstRequests(1, latencies_ms=latencies)], others_loaded=[])
    items = coldstart_report.entries(run)
    row = next(ln for ln in coldstart_report.table_lines(items) if f"`{v.name}`" in ln)
    return [c.strip() for c in row.split("|")[1:-1]], coldstart_report.conclusion(run, items)


def test_a_long_warm_up_tail_is_sent_through_and_the_first_request_compared_with_the_settled_latency(monkeypatch):
    sent = _send(monkeypatch, WARMUP_TAIL + _steady(40), coldstart.STANDALONE_BUDGET_S)
    assert sent[: len(WARMUP_TAIL)] == pytest.approx(WARMUP_TAIL)  # every warm-up request, then until settled
    assert len(WARMUP_TAIL) < len(sent) < len(WARMUP_TAIL) + 40  # stopped once settled (its medians ignore 2 strays)
    fr = FirstRequests(1, latencies_ms=sent)
    assert fr.settled_ms == pytest.approx(STEADY_MS, rel=SETTLE_PCT / 100)
    assert fr.first_ratio == pytest.approx(WARMUP_TAIL[0] / STEADY_MS, rel=SETTLE_PCT / 100)  # ~400x, not 2x
    assert fr.requests_to_steady() == WARMUP_TAIL.index(5.0)  # 5 ms is the first within 1.5x the 4 ms settled at
    row, text = _standalone(sent)
    assert row[5].endswith(coldstart_report.OWN_MARK) and float(row[5][:-2].replace(",", "")) > 100
    assert row[-1] == str(WARMUP_TAIL.index(5.0))
    assert f"--warmup-count {WARMUP_TAIL.index(5.0)} " in text


def test_requests_that_never_settle_give_no_ratio_count_or_warmup_advice(monkeypatch):
    """The trial's case: the sender stopped while the requests were still slow; a median of them is no steady latency."""
    slow = [1640.5] + [745.0 * 0.97**i for i in range(40)]  # still falling 3 % a request when time runs out
    sent = _send(monkeypatch, slow, coldstart.STANDALONE_BUDGET_S)
    assert sum(sent[:-1]) / 1e3 < coldstart.STANDALONE_BUDGET_S <= sum(sent) / 1e3  # stopped by the time cap
    fr = FirstRequests(1, latencies_ms=sent)
    assert fr.settled_ms is None and fr.first_ratio is None and fr.requests_to_steady() is None
    row, text = _standalone(sent)
    assert row[5] == f"steady not reached within {len(sent)} requests" and row[-1] == "not reached"
    assert "×" not in row[5] and "--warmup-count" not in text
    assert f"steady not reached within {len(sent)} requests): they were still warming up" in text
    assert "no ratio, count of requests before steady or warmup count is drawn from them" in text
    # the trial's own record: 12 requests, a "steady" median of 745 ms, called 2.2x and 2 requests before steady
    trial = FirstRequests(1, latencies_ms=[1640.5, 1400.0, 745.0, 760.0, 730.0, 745.0, 750.0, 740.0, 700.0, 745.0, 755.0, 745.0])
    assert trial.first_ratio is None and trial.requests_to_steady() is None
    assert trial.not_settled == "steady not reached within 12 requests"


def test_requests_steady_from_the_first_settle_at_once(monkeypatch):
    sent = _send(monkeypatch, _steady(100), coldstart.STANDALONE_BUDGET_S)
    assert len(sent) == SETTLE_WINDOW  # stops as soon as the rule can judge
    fr = FirstRequests(1, latencies_ms=sent)
    assert fr.first_ratio == pytest.approx(1.0, rel=SETTLE_PCT / 100) and fr.requests_to_steady() == 0
    row, text = _standalone(sent)
    assert row[-1] == "0" and "--warmup-count 1 " in text


def test_a_sweep_keeps_its_one_second_a_size_and_its_level_still_judges(monkeypatch):
    """In a sweep the steady level is the sweep's p50 at that size: the first requests stop at its time cap even
    unsettled, and the ratio and count come from the level, not from them."""
    sent = _send(monkeypatch, WARMUP_TAIL + _steady(40), coldstart.POINT_BUDGET_S)
    assert len(sent) == coldstart.MIN_REQUESTS  # 1.6 s + 0.9 s ... past the 1 s cap once the fewest were sent
    fr = FirstRequests(1, latencies_ms=sent)
    assert fr.first_ratio is None and fr.requests_to_steady(STEADY_MS) == len(sent)  # none within 1.5 x 4 ms + 1


def test_the_sizes_sent_are_shown_in_the_table_and_the_conclusion():
    run = make_run()
    run.variants = run.variants[:1]
    v = run.variants[0]
    v.cold_start = ColdStart(v.name, load_s=2.0, first=[FirstRequests(1, latencies_ms=_steady(SETTLE_WINDOW))])
    v.cold_start = dataclasses.replace(v.cold_start, sizes="input_ids [128] (--shape)")
    items = coldstart_report.entries(run)
    lines = coldstart_report.table_lines(items)
    assert "inputs sized" in lines[0] and "input_ids [128] (--shape)" in next(ln for ln in lines if f"`{v.name}`" in ln)
    assert "at b1 (inputs sized input_ids [128] (--shape));" in coldstart_report.conclusion(run, items)
