"""Each client workload climbs its own ladder on a real sweep (perf.search.ladder, rule "Per client workload"):
the bundled tritonserver and the real perf_analyzer on a python-backend model with two caps of its own
(tests/support/python_models.ONE_SAMPLE_SERIAL_MODEL), measured at client batch sizes 1 and 8.

At b=1 its requests take turns (40 ms each: 25 infer/s at every concurrency), so b=1 is flat from c=4 to
c=16, its knee; at b=8 its 8 instances serve in parallel (200 infer/s a request in flight, up to 8), so
b=8 still doubles from c=4 to c=16. One ladder on b=1's numbers (the search series) stopped both at c=16.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from python_models import ONE_SAMPLE_SERIAL_MODEL, write_python_model

from clients.server import ServerOptions
from perf.records.results import VariantResult
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

NAME = "turns_py_cpu8_nodb_mbs8"
NO_BUSY_CHECK = {"host_busy_threshold_pct": 1e6, "host_busy_pause_s": 0.0}


def _measured(v: VariantResult, batch_size: int) -> set[int]:
    return {lv.concurrency for lv in v.levels if lv.batch_size == batch_size and lv.request_rate is None and lv.ok}


def test_a_knee_at_batch_size_1_does_not_stop_the_batch_size_8_ladder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write_python_model(repo, NAME, ONE_SAMPLE_SERIAL_MODEL % {"sleep_ms": 40}, instances=8)
    run, _ = run_sweep(
        SweepOptions(
            ServerOptions(repo, runtime="bundled"),
            variants=(NAME,),
            batch_sizes=(1, 8),
            results_dir=tmp_path / "results",
            warmup_requests=5,
            baseline=False,
            time_budget_s=None,
            **NO_BUSY_CHECK,
        )
    )
    v = run.variant(NAME)
    assert v is not None and run.search is not None and v.status == "ok", v.error
    assert max(_measured(v, 8)) > 16, sorted(_measured(v, 8))  # b=8 climbed on past b=1's knee (was: stopped at 16)
    one = run.search.decision(NAME, (1, None))
    assert one is not None and one.rule == "knee" and max(_measured(v, 1)) == one.concurrency <= 16, one
    eight = run.search.decision(NAME, (8, None))
    assert eight is not None and eight.rule in ("knee", "cap") and eight.concurrency > 16, eight
