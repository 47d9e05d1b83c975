"""The report's pair comparisons (perf.analysis.stats.pairs, perf.report.conclusions.written) pair two variants only when
every other variant parameter is equal. Synthetic runs, no server."""

from __future__ import annotations

import dataclasses
import itertools

from builders.config.variants import Variant
from perf.analysis.effects.main_effects import interactions, main_effects
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.pairs import BATCHING, pairs
from perf.analysis.stats.points import run_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.report.appendix import appendix_lines

BASE = Variant("mlp", "onnx")  # cpu x1, no batching, mbs 64, fp32
GRID = [
    BASE,
    dataclasses.replace(BASE, dynamic_batching=True, max_queue_delay_us=500),
    dataclasses.replace(BASE, dynamic_batching=True, max_queue_delay_us=100, preferred_batch_sizes=(8, 16)),
    dataclasses.replace(BASE, count=2),
    dataclasses.replace(BASE, count=2, warmup="zero"),  # instances AND warmup: never "more instances" vs BASE
    dataclasses.replace(BASE, warmup="zero"),
    dataclasses.replace(BASE, format="torchscript"),
    dataclasses.replace(BASE, format="torchscript", warmup="zero"),
    dataclasses.replace(BASE, count=2, precision="fp16"),
    dataclasses.replace(BASE, dynamic_batching=True, max_queue_delay_us=500, max_batch_size=32),
    dataclasses.replace(BASE, kind="gpu"),
    dataclasses.replace(BASE, kind="gpu", trt_accelerator="fp16"),
    dataclasses.replace(BASE, kind="gpu", count=2, trt_accelerator="fp16"),  # instances AND ORT-TRT vs gpu x1
    dataclasses.replace(BASE, kind="gpu", count=2, gpus=(0,)),
]


def lv(c: int, thr: float, p99: float) -> LevelResult:
    return LevelResult(
        c, 1, 0, throughput_infer_per_s=thr, latency_p99_ms=p99, server_queue_us=10.0, server_compute_infer_us=100.0
    )


def make_run(extra: list[VariantResult] = ()) -> RunResult:
    # params as the sweep stores them: the repository index entry (Variant.to_json() plus serving, build)
    vs = [
        VariantResult(
            v.name,
            {**v.to_json(), "serving": "native", "build": "builds/mlp"},
            "ok",
            None,
            [lv(1, 100 + i, 1.0), lv(4, 300 + 10 * i, 2.0)],
        )
        for i, v in enumerate(GRID)
    ]
    return RunResult("r", "now", {"host": "h", "server": {"runtime": "container"}}, {}, vs + list(extra))


def _fields(v: Variant) -> dict:
    return {f.name: getattr(v, f.name) for f in dataclasses.fields(Variant)}


def test_pairs_never_differ_in_two_settings():
    found = pairs(make_run().variants)
    assert found
    by_name = {v.name: v for v in GRID}
    for pr in found:
        a, b = _fields(by_name[pr.reference.name]), _fields(by_name[pr.changed.name])
        differ = {k for k in a if a[k] != b[k]}  # computed here, not by perf.analysis.stats.pairs
        assert differ == set(pr.differ), pr
        allowed = {"batching": set(BATCHING), "instances": {"count"}, "format": {"format"}}[pr.kind]
        assert differ and differ <= allowed, pr


def test_pairs_made_are_exactly_the_one_setting_pairs():
    found = {(pr.kind, pr.reference.name, pr.changed.name) for pr in pairs(make_run().variants)}
    expected = set()
    for (i, a), (j, b) in itertools.permutations(enumerate(GRID), 2):
        fa, fb = _fields(a), _fields(b)
        differ = {k for k in fa if fa[k] != fb[k]}
        if not a.dynamic_batching and b.dynamic_batching and differ <= set(BATCHING):
            expected.add(("batching", a.name, b.name))
        elif differ == {"count"} and a.count == 1 < b.count:
            expected.add(("instances", a.name, b.name))
        elif differ == {"format"} and i < j:
            expected.add(("format", a.name, b.name))
    assert found == expected
    names = {(k, a, b) for k, a, b in found}
    assert ("instances", "mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_nodb_mbs64") in names
    assert ("instances", "mlp_onnx_cpu1_nodb_mbs64_warm-zero", "mlp_onnx_cpu2_nodb_mbs64_warm-zero") in names
    assert ("format", "mlp_onnx_cpu1_nodb_mbs64", "mlp_ts_cpu1_nodb_mbs64") in names
    assert ("batching", "mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu1_db100p8-16_mbs64") in names
    # the pairs the old hand-kept key list made: they differ in two settings
    for bad in [
        ("instances", "mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_nodb_mbs64_warm-zero"),
        ("instances", "mlp_onnx_gpu1_nodb_mbs64", "mlp_onnx_gpu2_nodb_mbs64_ortrt-fp16"),
        ("instances", "mlp_onnx_gpu1_nodb_mbs64", "mlp_onnx_gpu2g0_nodb_mbs64"),
        ("format", "mlp_onnx_cpu1_nodb_mbs64", "mlp_ts_cpu1_nodb_mbs64_warm-zero"),
        ("batching", "mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu1_db500_mbs32"),
    ]:
        assert bad not in names


def test_variant_without_params_is_never_paired():
    twin = GRID[3].to_json()  # cpu x2: would pair with BASE
    extra = [
        VariantResult("no_params", None, "ok", None, [lv(1, 1, 1), lv(4, 2, 2)]),
        VariantResult("bad_params", {"count": 2}, "ok", None, [lv(1, 1, 1), lv(4, 2, 2)]),
        VariantResult("bad_rule", {**twin, "kind": "cpu", "trt_accelerator": "fp16"}, "ok", None, [lv(1, 1, 1)]),
    ]
    found = pairs(make_run(extra).variants)
    assert not [pr for pr in found if {pr.reference.name, pr.changed.name} & {"no_params", "bad_params", "bad_rule"}]


def test_conclusions_name_the_differing_parameter():
    """The fair pairs, listed in the report's appendix, name the parameters that differ."""
    run = make_run()
    rec, points = recommend(run), run_points(run)
    effects = main_effects(run, points)
    text = "\n".join(appendix_lines(run, rec, points, effects, interactions(effects)))
    assert (
        "More instances (only `count` differs): 2 vs 1 instance (`mlp_onnx_cpu2_nodb_mbs64` vs "
        "`mlp_onnx_cpu1_nodb_mbs64`) at concurrency 4"
    ) in text
    assert (
        "Dynamic batching on vs off (only `dynamic_batching`, `max_queue_delay_us`, `preferred_batch_sizes` differ): "
        "`mlp_onnx_cpu1_db100p8-16_mbs64` vs `mlp_onnx_cpu1_nodb_mbs64`"
    ) in text
    assert "Format (only `format` differs): torchscript vs onnx (`mlp_ts_cpu1_nodb_mbs64` vs `mlp_onnx_cpu1_nodb_mbs64`)" in text
    assert "(`mlp_onnx_cpu2_nodb_mbs64_warm-zero` vs `mlp_onnx_cpu1_nodb_mbs64`)" not in text
    assert "(`mlp_onnx_gpu2_nodb_mbs64_ortrt-fp16` vs `mlp_onnx_gpu1_nodb_mbs64`)" not in text
    assert "every other parameter is equal" in text
