"""The generated python-backend model answers a request it cannot run with an error response,
while the other requests of the same dynamic batch still get their outputs."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from clients.infer import infer
from clients.server import ServerOptions, TritonServer
from core.errors import ClientError
from perf.measure.metrics import batch_stats

pytestmark = pytest.mark.integration


def test_a_bad_request_fails_alone_inside_a_dynamic_batch(tmp_path: Path):
    # a 300 ms queue delay makes the batcher put both requests into one execute() call
    res = build(
        BuildOptions(
            "encoder",
            formats=("torchscript",),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
            grid=VariantGrid(counts=(1,), queue_delays_us=(300_000,), max_batch_sizes=(4,)),
        )
    )
    (name,) = res.manifest["variants"]
    vocab_hi = next(t for t in res.manifest["spec"]["inputs"] if t["name"] == "input_ids")["value_range"][1]
    good = {"input_ids": np.ones((1, 8), np.int64), "attention_mask": np.ones((1, 8), np.int64)}
    bad = {**good, "input_ids": np.full((1, 8), vocab_hi + 1000, np.int64)}
    results: dict[str, object] = {}

    def send(key: str, inputs: dict) -> None:
        try:
            results[key] = infer(srv.http_url, "http", name, inputs)
        except ClientError as e:
            results[key] = e

    with TritonServer(ServerOptions(tmp_path / "repo", runtime="bundled", load_models=(name,))) as srv:
        before = batch_stats(srv.http_url, name)
        threads = [threading.Thread(target=send, args=(k, v)) for k, v in (("bad", bad), ("good", good))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        after = batch_stats(srv.http_url, name)
        assert srv.is_alive()
    assert isinstance(results["good"], dict), results["good"]  # the good request of the batch is answered
    assert all(np.isfinite(v).all() for v in results["good"].values())
    assert isinstance(results["bad"], ClientError) and "out of range" in str(results["bad"])
    assert after[1] - before[1] == 1  # both requests really shared one execute() call
