"""The Main effects table accounts for every pair of its ``pairs`` column (trial 9 F5, F14): a cell
counted "3 of 3 pairs" beside a column of 4, and "1 pair ... (2 pair(s) left out)" beside 4, because a
pair whose two levels never shared a round gave no number and was counted nowhere."""

from __future__ import annotations

from factories import params

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.effects.rounds import NEVER_TOGETHER
from perf.analysis.stats.points import run_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.report.sections.effects import cell, effects_section, effects_sentences

LOAD = [1.0, 0.8, 0.6, 0.9, 0.7, 0.95]


def _variant(count: int, db: bool, fmt: str, thr: float, rounds=range(3)) -> VariantResult:
    p = params(count, db, fmt)
    lv = [
        LevelResult(
            c,
            1,
            r,
            throughput_infer_per_s=thr * c * LOAD[r],
            latency_p99_ms=c * 8000.0 / (thr * LOAD[r]),
            avg_server_batch_size=2.0 if db else 1.0,
        )  # fmt: skip
        for r in rounds
        for c in (2, 4)
    ]
    return VariantResult(p["name"], p, "ok", None, lv)


def _run(*variants: VariantResult) -> RunResult:
    run = RunResult("r", "now", {}, {}, list(variants))
    run.rounds = RoundsRecord(seed=1)
    return run


def _effect(run: RunResult, key: str):
    (e,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == key]
    return e


def test_a_pair_that_never_shared_a_round_is_counted_as_left_out() -> None:
    # batching on vs off over 4 pairs: 3 shared rounds 0-2, the 4th's two sides never met
    run = _run(
        _variant(1, False, "onnx", 100.0), _variant(1, True, "onnx", 130.0),
        _variant(2, False, "onnx", 110.0), _variant(2, True, "onnx", 150.0),
        _variant(1, False, "torchscript", 90.0), _variant(1, True, "torchscript", 120.0),
        _variant(2, False, "torchscript", 95.0, rounds=range(3)), _variant(2, True, "torchscript", 140.0, rounds=range(3, 6)),
    )  # fmt: skip
    e = _effect(run, "batching")
    assert len(e.pairs) == 4 and len(e.throughput.values) == 3
    assert e.left_out_by_reason("throughput") == {"not measured fairly": 1}
    text = cell(e, "throughput")
    assert text.endswith("; 1 of the 4 pairs left out as no evidence (1 *not measured fairly*)")
    section = "\n".join(effects_section([e], [], rounds=True))
    assert "| dynamic batching | batching on vs batching off |       4 |" in section


def test_every_pair_left_out_is_named_with_its_reason_and_count() -> None:
    # all 4 pairs' two sides never met: the effect is no evidence, said so (was: "not significant", counted nowhere)
    run = _run(
        *(_variant(c, False, f, 100.0, rounds=range(3)) for c in (1, 2) for f in ("onnx", "torchscript")),
        *(_variant(c, True, f, 130.0, rounds=range(3, 6)) for c in (1, 2) for f in ("onnx", "torchscript")),
    )
    e = _effect(run, "batching")
    assert e.throughput is None and e.note("throughput") == NEVER_TOGETHER
    assert e.left_out("throughput") == 4
    assert "none is evidence here (why: the table above): batching on vs batching off." in effects_sentences([e], True)
    assert e.note("throughput").startswith("not measured fairly")  # the table's cell (cell()): why, said once


def test_reasons_of_several_kinds_each_say_how_many_pairs() -> None:
    # one pair never shared a round, the other's levels both at concurrency 1 where batching cannot act
    a, b = _variant(1, False, "onnx", 100.0, rounds=range(3)), _variant(1, True, "onnx", 130.0, rounds=range(3, 6))
    c, d = _variant(2, False, "onnx", 100.0), _variant(2, True, "onnx", 130.0)
    for v in (c, d):
        v.levels = [
            LevelResult(1, 1, r, throughput_infer_per_s=100.0, latency_p99_ms=5.0, avg_server_batch_size=1.0) for r in range(3)
        ]
    e = _effect(_run(a, b, c, d), "batching")
    assert e.note("throughput") == (
        f"{NEVER_TOGETHER} (1 of 2 pairs); cannot act at this load: only one request in flight (concurrency 1) (1 of 2 pairs)"
    )
