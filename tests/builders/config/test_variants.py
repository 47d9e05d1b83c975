"""The variant grid: names, Triton's rules on each variant, GPU skipping, the `variants` command."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from builders.cli.main import cli
from builders.config.variants import Variant, VariantGrid
from core.errors import ConfigError, GpuRequiredError


def test_names_say_what_the_variant_is():
    assert Variant("mlp", "onnx", count=2, dynamic_batching=True, max_queue_delay_us=500).name == "mlp_onnx_cpu2_db500_mbs64"
    v = Variant(
        "mlp",
        "onnx",
        kind="gpu",
        gpus=(0, 1),
        dynamic_batching=True,
        max_queue_delay_us=100,
        preferred_batch_sizes=(8, 16),
        warmup="zero",
        trt_accelerator="fp16",
    )
    assert v.name == "mlp_onnx_gpu1g0-1_db100p8-16_mbs64_ortrt-fp16_warm-zero"
    assert Variant("mlp", "torchscript", "fp16", max_batch_size=0).name == "mlp_ts-fp16_cpu1_nodb_mbs0"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"model": "../etc"}, "model name"),
        ({"model": "a b"}, "model name"),
        ({"max_batch_size": 0, "dynamic_batching": True}, "dynamic_batching"),
        (
            {"max_batch_size": 8, "dynamic_batching": True, "preferred_batch_sizes": (16,)},
            "dynamic_batching.preferred_batch_size",
        ),
        ({"preferred_batch_sizes": (4,)}, "dynamic_batching.preferred_batch_size"),
        ({"count": 0}, "instance_group.count"),
        ({"gpus": (0,)}, "instance_group.gpus"),
        ({"max_batch_size": -1}, "max_batch_size"),
        ({"warmup": "ones"}, "model_warmup"),
        ({"trt_accelerator": "fp16"}, "gpu_execution_accelerator"),
        ({"format": "torchscript", "kind": "gpu", "trt_accelerator": "fp16"}, "gpu_execution_accelerator"),
    ],
)
def test_invalid_variants_name_the_field(kwargs, field):
    args = {"model": "m", "format": "onnx", **kwargs}
    with pytest.raises(ConfigError) as e:
        Variant(**args)
    assert field in str(e.value)


def test_json_round_trip():
    v = Variant(
        "m",
        "onnx",
        kind="gpu",
        gpus=(1,),
        dynamic_batching=True,
        preferred_batch_sizes=(2,),
        warmup="random",
        trt_accelerator="fp32",
    )
    d = v.to_json()
    assert d["name"] == v.name and Variant.from_json(d) == v


def test_max_batch_size_zero_gets_no_dynamic_batching_and_says_so():
    plan = VariantGrid(counts=(1,), queue_delays_us=(None, 100), max_batch_sizes=(0, 8)).plan("m", ("onnx",))
    assert [(v.max_batch_size, v.dynamic_batching) for v in plan.variants] == [(0, False), (8, False), (8, True)]
    assert [s.what for s in plan.skipped] == ["max_batch_size 0 with dynamic batching"]


def test_preferred_sizes_are_dropped_per_max_batch_size_and_refused_above_all():
    plan = VariantGrid(counts=(1,), queue_delays_us=(50,), preferred_batch_sizes=(4, 16), max_batch_sizes=(8, 32)).plan(
        "m", ("onnx",)
    )
    assert [v.preferred_batch_sizes for v in plan.variants] == [(4,), (4, 16)]
    with pytest.raises(ConfigError, match="preferred_batch_size"):
        VariantGrid(preferred_batch_sizes=(64,), max_batch_sizes=(8, 16))


def test_gpu_variants_are_skipped_without_a_gpu_and_listed():
    grid = VariantGrid(kinds=("cpu", "gpu"), counts=(1,), queue_delays_us=(None,), gpus=(0,))
    no_gpu = grid.plan("m", ("onnx",), server_gpu=False)
    assert {v.kind for v in no_gpu.variants} == {"cpu"}
    assert [s.what for s in no_gpu.skipped] == ["instance kind gpu"]
    with_gpu = grid.plan("m", ("onnx",), server_gpu=True)
    assert [(v.kind, v.gpus) for v in with_gpu.variants] == [("cpu", ()), ("gpu", (0,))]
    assert with_gpu.skipped == []


def test_gpu_only_on_a_gpu_less_server_is_a_clear_error():
    with pytest.raises(GpuRequiredError, match="KIND_GPU"):
        VariantGrid(kinds=("gpu",), server_gpu=False).variants("m", ("onnx",))


def test_auto_kind_follows_the_server():
    grid = VariantGrid(kinds=("auto", "cpu"), counts=(1,), queue_delays_us=(None,))
    assert [v.kind for v in grid.variants("m", ("onnx",), server_gpu=True)] == ["gpu", "cpu"]
    assert [v.kind for v in grid.variants("m", ("onnx",), server_gpu=False)] == ["cpu"]


def test_trt_accelerator_only_multiplies_onnx_gpu_variants_and_not_with_python_serving():
    grid = VariantGrid(
        kinds=("cpu", "gpu"), counts=(1,), queue_delays_us=(None,), trt_accelerators=(None, "fp16"), server_gpu=True
    )
    names = [v.name for v in grid.variants("m", ("torchscript", "onnx"), serving="native")]
    assert names == [
        "m_ts_cpu1_nodb_mbs64",
        "m_ts_gpu1_nodb_mbs64",
        "m_onnx_cpu1_nodb_mbs64",
        "m_onnx_gpu1_nodb_mbs64",
        "m_onnx_gpu1_nodb_mbs64_ortrt-fp16_warm-zero",  # engines built at load: model_warmup always
    ]
    both = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), warmups=(None, "zero"), trt_accelerators=("fp16",))
    assert [v.name for v in both.variants("m", ("onnx",), serving="native", server_gpu=True)] == [
        "m_onnx_gpu1_nodb_mbs64_ortrt-fp16_warm-zero"
    ]  # off and zero are the same ORT-TRT variant: once
    bundled = grid.plan("m", ("onnx",), serving="python")
    assert all(v.trt_accelerator is None for v in bundled.variants)
    assert [s.what for s in bundled.skipped] == ["TensorRT accelerator fp16"]


def test_warmup_axis():
    names = [
        v.name
        for v in VariantGrid(counts=(1,), queue_delays_us=(None,), warmups=(None, "random", "zero")).variants("m", ("onnx",))
    ]
    assert names == ["m_onnx_cpu1_nodb_mbs64", "m_onnx_cpu1_nodb_mbs64_warm-random", "m_onnx_cpu1_nodb_mbs64_warm-zero"]


def test_variants_command_prints_the_grid_and_what_it_skipped():
    r = CliRunner().invoke(
        cli,
        [
            "variants",
            "--model",
            "tiny",
            "--format",
            "onnx",
            "--instance-kind",
            "cpu",
            "--instance-kind",
            "gpu",
            "--no-server-gpu",
            "--instance-counts",
            "1",
            "--max-batch-sizes",
            "0,8",
            "--warmup",
            "off,zero",
        ],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 0, r.output
    assert "6 variants" in r.output and "tiny_onnx_cpu1_nodb_mbs0_warm-zero" in r.output
    assert "skipped instance kind gpu" in r.output and "skipped max_batch_size 0 with dynamic batching" in r.output


def test_variants_command_refuses_gpu_only_without_a_gpu():
    r = CliRunner().invoke(cli, ["variants", "--instance-kind", "gpu", "--no-server-gpu"])
    assert isinstance(r.exception, GpuRequiredError)


def test_variants_command_rejects_unknown_warmup():
    r = CliRunner().invoke(cli, ["variants", "--warmup", "ones"])
    assert r.exit_code == 2 and "--warmup" in r.output


def test_a_queue_delay_reads_its_own_unit_and_says_what_to_write_for_another() -> None:
    """Trial 7: `--dynamic-batching 500us` was refused without saying what to write; the delays
    are µs, so µs is read (as `--latency-budget-ms` reads `50ms`: core.units.parse_in, one rule),
    and another unit is refused with the value in µs."""
    from builders.config.variants import parse_queue_delays

    assert parse_queue_delays("off,500us,100 µs,200") == (None, 500, 100, 200)
    with pytest.raises(ConfigError, match=r"queue delay '0.5ms' is in ms: it is given in microseconds \(write 500 or 500us\)"):
        parse_queue_delays("0.5ms")
    with pytest.raises(ConfigError, match=r"not a whole number of µs >= 0 \(write 0 or 1; 0.5 ms would be 500\)"):
        parse_queue_delays("0.5")
    with pytest.raises(ConfigError, match="neither 'off' nor a queue delay in µs: write off, or 500") as e:
        parse_queue_delays("fast")
    assert "e.g. --dynamic-batching off,500" in (e.value.hint or "")


@pytest.mark.parametrize("word", ["on", "ON", "true", "yes"])
def test_dynamic_batching_on_says_the_delay_to_write(word) -> None:
    """Trial 8 F17: `--dynamic-batching on` was refused without the value to write; the tables call
    the default "on, 500 µs". The message is in click's error line itself (click shows no hint)."""
    r = CliRunner().invoke(cli, ["variants", "--dynamic-batching", word])
    assert r.exit_code == 2
    assert "needs its queue delay in µs: write 500 (on, 500 µs: the default delay) or 0 (on, no delay)" in r.output


def test_a_queue_delay_in_ms_says_the_us_value_on_the_command_line() -> None:
    r = CliRunner().invoke(cli, ["variants", "--dynamic-batching", "off,0.5ms"])
    assert r.exit_code == 2 and "write 500 or 500us" in r.output and "neither 'off'" not in r.output


def test_gpu_ids_no_variant_takes_are_listed_as_skipped():
    """s19: --instance-kind auto --gpus 0 on a server without a GPU made KIND_CPU variants and dropped the GPU ids
    without a word (--trt-accelerator was listed as skipped); they are listed as skipped too, with why."""
    grid = VariantGrid(kinds=("auto",), counts=(1,), queue_delays_us=(None,), gpus=(0, 1))
    no_gpu = grid.plan("m", ("onnx",), server_gpu=False)
    assert {(v.kind, v.gpus) for v in no_gpu.variants} == {("cpu", ())}
    assert [(s.what, s.reason) for s in no_gpu.skipped] == [
        (
            "--gpus 0,1",
            "instance_group.gpus: GPU ids apply to KIND_GPU instances, and --instance-kind auto made KIND_CPU ones "
            "(the server has no GPU)",
        )
    ]
    assert grid.plan("m", ("onnx",), server_gpu=True).skipped == []


def test_an_empty_grid_is_told_what_skipped_it() -> None:
    """s19: `--instance-kind auto --trt-accelerator fp16` on a server without a GPU skipped every point for the
    accelerator, and the empty grid's hint said "add --dynamic-batching off or a max_batch_size > 0"."""
    acc = VariantGrid(kinds=("auto",), counts=(1,), queue_delays_us=(None,), trt_accelerators=("fp16",))
    plan = acc.plan("m", ("onnx",), server_gpu=False)
    assert not plan.variants
    assert plan.empty_hint() == (
        "widen the grid: add off to --trt-accelerator (e.g. --trt-accelerator off,fp16), or KIND_GPU instances on a GPU server"
    )
    batching = VariantGrid(counts=(1,), queue_delays_us=(100,), max_batch_sizes=(0,)).plan("m", ("onnx",), server_gpu=False)
    assert not batching.variants
    assert batching.empty_hint() == "widen the grid: add --dynamic-batching off or a max_batch_size > 0"


def test_the_skipped_unbatched_points_are_counted_in_the_grids_words_not_as_an_error_in_a_config():
    """Trial 30, F18: the default grid with --max-batch-sizes 0,8 said "skipped max_batch_size 0 with dynamic batching:
    dynamic_batching: is set but max_batch_size is 0 ... (remove dynamic_batching, ...)", with no count."""
    plan = VariantGrid(counts=(1,), queue_delays_us=(None, 100), max_batch_sizes=(0, 8)).plan("m", ("onnx", "torchscript"))
    (skip,) = plan.skipped
    assert skip.reason.startswith("2 grid points not made, as Triton forms no batches for a model that does not batch")
    assert skip.reason.endswith("the grid's 2 max_batch_size 0 variants without dynamic batching are built")
    assert "remove dynamic_batching" not in skip.reason
    only_on = VariantGrid(counts=(1,), queue_delays_us=(100,), max_batch_sizes=(0, 8)).plan("m", ("onnx",))
    assert only_on.skipped[0].reason.startswith("1 grid point not made")
    assert "no max_batch_size 0 variant is built: add off to --dynamic-batching" in only_on.skipped[0].reason
