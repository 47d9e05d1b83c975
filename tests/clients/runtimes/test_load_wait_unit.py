"""The one rule of every wait for a model (trial 30, F21), without a server: a load Triton says failed (its log, its
repository index) ends the wait at once with Triton's words, whether its request answered or not; a wait is bounded
by ``--start-timeout`` and a time budget's end; a message's first line says what happened and the server log's lines
follow it only where there are some."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from clients.runtimes.diagnosis import failed_loads, hung_loads, hung_words, not_ready_hint
from clients.runtimes.loading import LoadDeadline, LoadFailed, _since, await_answer, load_limit

STUB = (
    "I1205 13:54:09.254068 2958 pb_stub.cc:2105]  Failed to preinitialize Python stub: Python model file not found in "
    "'/work/repo/handmade/1/model.py'"
)
WHY = "Failed to preinitialize Python stub: Python model file not found in '/work/repo/handmade/1/model.py'"


def test_a_stub_that_failed_before_it_answered_is_a_load_triton_never_ends_named_by_its_folder() -> None:
    log = f'I1205 13:54:09.241818 2922 model_lifecycle.cc:472] "loading: handmade:1"\n{STUB}\n'
    assert hung_loads(log) == {"handmade": WHY}
    failed = "E1205 02:13:32.167729 10416 model_lifecycle.cc:642] \"failed to load 'other' version 1: Internal: no\""
    assert failed_loads(log + failed) == {"handmade": WHY, "other": "Internal: no"}
    assert hung_loads(failed) == {}  # Triton ends that one itself


def test_the_start_up_words_name_each_model_on_the_first_line_and_say_what_to_do() -> None:
    message, hint = hung_words({"handmade": WHY}, "", Path("/work/repo"), ("handmade", "mlp"))
    assert message == (
        "tritonserver could not start: the python stub of 1 model failed before it answered, a load Triton never ends "
        f"(handmade: {WHY})"
    )
    assert (
        hint
        == "`builders validate /work/repo` names what is wrong; or leave handmade out of --load-model to start the rest (mlp)"
    )


def test_a_failure_seen_while_the_request_is_unanswered_ends_the_wait_at_once() -> None:
    never = threading.Event()
    looks = iter([None, None, WHY])
    t0 = time.monotonic()
    with pytest.raises(LoadFailed) as e:
        await_answer(lambda: never.wait(30), lambda: next(looks), 30, "load handmade")
    assert e.value.message() == WHY and time.monotonic() - t0 < 5  # the old wait ran to its timeout


def test_an_answer_ends_the_wait_as_it_comes_and_an_error_is_raised_as_the_request_raised_it() -> None:
    t0 = time.monotonic()
    assert await_answer(lambda: "loaded", lambda: None, 30, "load m") == "loaded"
    assert time.monotonic() - t0 < 0.2  # no poll interval added to a load's measured time

    def refused() -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await_answer(refused, lambda: None, 30, "load m")
    with pytest.raises(TimeoutError):
        await_answer(lambda: threading.Event().wait(5), lambda: None, 0.5, "load m")


def test_a_load_waits_no_longer_than_the_time_budget_s_end_nor_the_start_timeout() -> None:
    srv = SimpleNamespace(opts=SimpleNamespace(start_timeout_s=120.0), load_deadline=None)
    assert load_limit(srv, None) == (120.0, "--start-timeout", "--start-timeout")
    srv.load_deadline = LoadDeadline(time.monotonic() + 42, "what was left of the 60 s --time-budget")
    limit, words, flag = load_limit(srv, None)
    assert 41 < limit <= 42 and words == "what was left of the 60 s --time-budget" and flag == "--time-budget"
    srv.load_deadline = LoadDeadline(time.monotonic() + 500, "later")
    assert load_limit(srv, 30.0)[:2] == (30.0, "--start-timeout")
    srv.load_deadline = LoadDeadline(time.monotonic() - 5, "spent")
    assert load_limit(srv, None)[0] == 1.0  # a load given at least its answer's time


def test_the_log_heading_comes_only_with_lines_below_it() -> None:
    assert _since(SimpleNamespace(log_since=lambda offset: "(nothing logged)"), 0) == ""
    assert _since(SimpleNamespace(log_since=lambda offset: STUB), 0) == f"\nserver log since the load request:\n{STUB}"


def test_a_load_bounded_by_the_time_budget_says_which_flag_gives_it_more_time() -> None:
    log = 'I1205 13:54:09.241818 2922 model_lifecycle.cc:472] "loading: slow:1"'
    hint = not_ready_hint(log, None, 15, server_started=True, flag="--time-budget")
    assert hint.endswith("if it is only slow, raise --time-budget")


class _Hung:
    """A client whose load request never answers (a python stub that failed before it answered)."""

    def load_model(self, model: str) -> None:
        threading.Event().wait(30)

    def close(self) -> None:
        pass


def test_a_load_clients_check_asks_of_a_running_server_ends_at_the_index_s_reason_or_its_timeout(monkeypatch) -> None:
    from clients.runtimes import loading

    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="its load request had no answer within 0.5 s"):
        loading.load_by_name(_Hung, "localhost:1", "grpc", "m", 0.5)  # gRPC's request had no timeout at all
    assert time.monotonic() - t0 < 5
    entries = iter([{"name": "m", "state": "UNAVAILABLE", "reason": "unloaded"}, None])
    said = {"name": "m", "state": "UNAVAILABLE", "reason": "load failed: no model.py"}
    monkeypatch.setattr(loading, "index_entry", lambda url, model, protocol="http": next(entries, said))
    with pytest.raises(LoadFailed, match="load failed: no model.py"):  # an earlier unload's entry is not this load's
        loading.load_by_name(_Hung, "localhost:1", "http", "m", 30)
    assert time.monotonic() - t0 < 10
