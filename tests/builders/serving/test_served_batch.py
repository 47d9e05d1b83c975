"""The python-backend model's batching (builders/serving/served_batch.py): one request passes through
untouched, several are merged with one concatenate and split back into views; on the real
server the single-request and merged-requests paths serve the same outputs."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from builders.serving import served_batch


def _requests(sizes: list[int]) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    return [{"x": rng.standard_normal((b, 3)).astype(np.float32), "m": np.ones((b, 2), np.int64)} for b in sizes]


def test_one_request_is_passed_through_without_a_copy():
    arrays = _requests([4])
    merged, sizes = served_batch.merge(arrays, ["x", "m"])
    assert merged is arrays[0] and sizes == [4]
    outputs = {"y": np.arange(8.0).reshape(4, 2)}
    assert served_batch.split(outputs, sizes, ["y"]) == [outputs]


def test_several_requests_are_concatenated_once_and_split_into_views():
    arrays = _requests([1, 3, 2])
    merged, sizes = served_batch.merge(arrays, ["x", "m"])
    assert sizes == [1, 3, 2]
    np.testing.assert_array_equal(merged["x"], np.concatenate([a["x"] for a in arrays]))
    outputs = {"y": merged["x"] * 2, "z": merged["m"][:, :1]}
    parts = served_batch.split(outputs, sizes, ["y", "z"])
    assert [p["y"].shape[0] for p in parts] == [1, 3, 2]
    for a, p in zip(arrays, parts):
        np.testing.assert_array_equal(p["y"], a["x"] * 2)
        assert np.shares_memory(p["y"], outputs["y"])  # a view of the batch, not a copy


@pytest.mark.parametrize("sizes", [[1, 3, 2], [1] * 8, [5, 1]])
def test_split_gives_the_parts_np_split_gives(sizes: list[int]):
    """Even when the artifact returned more rows than the batch (the last request takes the
    rest, as it did with np.split: the served check then refuses or serves them the same way)."""
    rng = np.random.default_rng(1)
    for rows in (sum(sizes), sum(sizes) + 2):
        outputs = {"y": rng.standard_normal((rows, 4)), "z": np.arange(rows)}
        want = [dict(zip("yz", p)) for p in zip(*(np.split(outputs[n], np.cumsum(sizes)[:-1]) for n in "yz"))]
        got = served_batch.split(outputs, sizes, ["y", "z"])
        assert len(got) == len(want)
        for g, w in zip(got, want):
            for n in "yz":
                assert g[n].shape == w[n].shape and np.array_equal(g[n], w[n])


def test_requests_of_different_per_sample_shapes_are_not_merged():
    a, b = _requests([1, 1])
    assert served_batch.mergeable([a, b], ["x", "m"])
    assert not served_batch.mergeable([a, {**b, "x": np.zeros((1, 4), np.float32)}], ["x", "m"])


@pytest.mark.integration
@pytest.mark.parametrize("fmt", ["torchscript", "onnx"])
def test_single_and_merged_requests_serve_the_same_outputs(tmp_path: Path, fmt: str):
    """Four concurrent requests share one execute() (a 300 ms queue delay; the statistics
    API counts one execution), then each is sent alone: the merged path's outputs are the
    single path's (to float32 rounding: the artifact's kernels may round a row differently
    at another batch size), and each single request's are the artifact's own, bit for bit."""
    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from builders.repository.view import Repository
    from builders.serving.runners import load_runner
    from clients.infer import infer
    from clients.server import ServerOptions, TritonServer
    from core import formats
    from perf.measure.metrics import batch_stats

    res = build(
        BuildOptions(
            "tiny",
            formats=(fmt,),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
            grid=VariantGrid(counts=(1,), queue_delays_us=(300_000,), max_batch_sizes=(4,)),
        )
    )
    (name,) = res.manifest["variants"]
    spec = Repository(tmp_path / "repo").variant(name).served_spec
    assert spec is not None
    requests = [spec.example_inputs(1, seed=i) for i in range(4)]
    merged: dict[int, dict[str, np.ndarray]] = {}
    failed: dict[int, BaseException] = {}

    def send(i: int) -> None:
        try:
            merged[i] = infer(srv.http_url, "http", name, requests[i])
        except BaseException as e:  # a thread's error is otherwise lost: the statistics then read (0, 0)
            failed[i] = e

    with TritonServer(ServerOptions(tmp_path / "repo", runtime="bundled", load_models=(name,))) as srv:
        before = batch_stats(srv.http_url, name)
        threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not [t for t in threads if t.is_alive()], "a request did not end within 60 s"
        assert not failed, failed
        after = batch_stats(srv.http_url, name)
        single = [infer(srv.http_url, "http", name, r) for r in requests]
    assert before is not None and after is not None
    assert (after[0] - before[0], after[1] - before[1]) == (4, 1)  # four requests, one execute()
    run = load_runner(
        fmt,
        tmp_path / "repo" / name / "1" / formats.get(fmt).file,
        [t.name for t in spec.inputs],
        [t.name for t in spec.outputs],
    )
    for i, r in enumerate(requests):
        own = run(r)
        assert set(single[i]) == set(merged[i]) == set(own)
        for k in own:
            np.testing.assert_array_equal(single[i][k], own[k])  # the single path adds nothing
            np.testing.assert_allclose(merged[i][k], single[i][k], rtol=1e-6, atol=1e-6)
            assert merged[i][k].dtype == single[i][k].dtype and merged[i][k].shape == single[i][k].shape
