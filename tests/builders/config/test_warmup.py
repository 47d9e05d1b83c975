"""Generated model_warmup covers every batch size and shape a variant will be sent (issue 17 item 2)."""

from __future__ import annotations

import pytest

from builders.config.pbtxt import make_config
from builders.config.variants import Variant
from builders.config.warmup import DEFAULT_WARMUP_COUNT, warmup_batches, warmup_count
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import ConfigError

TINY = ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (8,)),))
SEQ = ModelSpec(
    (TensorSpec("input_ids", "int64", ("seq",), (0, 999)),),
    (TensorSpec("logits", "float32", ("seq", 4)),),
    {"seq": (2, 32, 128)},
)


def _samples(cfg):
    return [(w.batch_size, list(w.inputs[next(iter(w.inputs))].dims), w.count) for w in cfg.model_warmup]


@pytest.mark.parametrize(
    ("mbs", "preferred", "expected"),
    [(64, (4, 16), [1, 4, 16, 64]), (8, (8,), [1, 8]), (64, (), [1, 64]), (1, (), [1]), (0, (), [1])],
)
def test_warmup_covers_every_preferred_batch_size_and_max_batch_size(mbs, preferred, expected):
    db = bool(preferred) or mbs > 0
    v = Variant("m", "onnx", max_batch_size=mbs, dynamic_batching=db and mbs > 0, preferred_batch_sizes=preferred, warmup="zero")
    cfg = make_config(v, TINY, "native")
    assert warmup_batches(cfg) == expected
    assert [b for b, _dims, _n in _samples(cfg)] == expected  # one sample per batch size, nothing else
    assert all(n == DEFAULT_WARMUP_COUNT for *_x, n in _samples(cfg))


def test_warmup_covers_the_dynamic_axis_ends_at_the_smallest_and_largest_batch():
    v = Variant("m", "onnx", max_batch_size=16, dynamic_batching=True, preferred_batch_sizes=(4,), warmup="random")
    cfg = make_config(v, SEQ, "native")
    got = {(b, dims[0]) for b, dims, _n in _samples(cfg)}
    assert got == {(1, 32), (4, 32), (16, 32), (1, 2), (1, 128), (16, 2), (16, 128)}
    names = [w.name for w in cfg.model_warmup]
    assert "random_batch4" in names and "random_batch16_seq128" in names and len(names) == len(set(names))


def test_warmup_count_is_the_measured_one_when_given_and_a_stated_default_otherwise():
    v = Variant("m", "onnx", max_batch_size=8, warmup="zero")
    cfg = make_config(v, TINY, "native", warmup_count=7)
    assert {w.count for w in cfg.model_warmup} == {7}
    default = warmup_count()
    assert (default.count, default.measured) == (DEFAULT_WARMUP_COUNT, False) and "not measured" in default.reason
    given = warmup_count(5, "triton-perf coldstart: steady from request 5")
    assert (given.count, given.measured, given.reason) == (5, True, "triton-perf coldstart: steady from request 5")
    assert not warmup_count(5).measured
    with pytest.raises(ConfigError, match="at least once"):
        warmup_count(0)


def test_no_warmup_no_samples():
    assert not make_config(Variant("m", "onnx", max_batch_size=8), TINY, "native").model_warmup


@pytest.mark.slow  # real export (torch.jit.script)
def test_build_writes_the_count_into_every_sample_and_records_why_in_the_manifest(tmp_path):
    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from builders.repository.records import MANIFEST_KIND

    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,), warmups=(None, "zero"))
    opts = BuildOptions("tiny", formats=("torchscript",), grid=grid, repository=tmp_path / "repo", build_dir=tmp_path / "b")
    first = MANIFEST_KIND.parse(build(opts).manifest, "test")
    assert first.warmup_count is not None and not first.warmup_count.measured
    warm = next(n for n in first.variants if n.endswith("_warm-zero"))
    cfg_text = (tmp_path / "repo" / warm / "config.pbtxt").read_text()
    assert cfg_text.count(f"count: {DEFAULT_WARMUP_COUNT}\n") == 2  # batch 1 and max_batch_size 4
    opts.warmup_count, opts.warmup_count_reason = 6, "measured: steady from request 6"
    again = MANIFEST_KIND.parse(build(opts).manifest, "test")
    assert again.warmup_count is not None and (again.warmup_count.count, again.warmup_count.measured) == (6, True)
    assert (tmp_path / "repo" / warm / "config.pbtxt").read_text().count("count: 6\n") == 2
