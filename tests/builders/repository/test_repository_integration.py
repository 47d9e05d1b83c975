"""Variants the smoke test does not cover load on the real bundled server and answer correctly:
max_batch_size 0 (full dims), preferred batch sizes, model warmup with random and zero data.

The smoke test (test_smoke_integration.py) covers the shared tiny build's variants
(KIND_CPU x1/x2, dynamic batching off/500 µs, max_batch_size 8); this one writes its own
repository from the same exported files with :func:`builders.repository.writer.write_variant`.
"""

from __future__ import annotations

import json

import pytest

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.repository.validate import validate_repository
from builders.repository.view import Repository
from builders.repository.writer import update_index, write_variant

pytestmark = pytest.mark.integration

VARIANTS = [
    Variant("tiny", "torchscript", max_batch_size=0, warmup="zero"),
    Variant("tiny", "onnx", max_batch_size=0, warmup="random"),
    Variant(
        "tiny",
        "onnx",
        count=2,
        max_batch_size=4,
        dynamic_batching=True,
        max_queue_delay_us=100,
        preferred_batch_sizes=(2, 4),
        warmup="random",
    ),
]


def test_more_variants_load_on_the_bundled_server(tiny_build, tiny_build_dir, tmp_path):
    from clients.check import check_variant
    from clients.server import ServerOptions, TritonServer

    spec = ModelSpec.from_json(tiny_build.manifest["spec"])
    repo = tmp_path / "repo"
    for v in VARIANTS:
        write_variant(repo, v, tiny_build_dir / ("model.pt" if v.format == "torchscript" else "model.onnx"), spec, "python")
    update_index(repo, [{**v.to_json(), "serving": "python", "build": str(tiny_build_dir)} for v in VARIANTS])
    assert validate_repository(repo) == []
    assert [e["name"] for e in json.loads((repo / "index.json").read_text())["variants"]] == sorted(v.name for v in VARIANTS)

    log = tmp_path / "tritonserver.log"
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=log, start_timeout_s=120)) as srv:
        for v in VARIANTS:
            srv.load(v.name)  # Triton runs the warmup samples while loading; raises ServerError if refused
            try:
                result = check_variant(srv.http_url, "http", Repository(repo).variant(v.name))
                assert result.passed, (v.name, result)
            finally:
                srv.unload(v.name)
