"""The Conclusions' "Why" compares the pick with a variant one setting apart, or names every
setting they differ in (trial 6: the pick, 2 instances with dynamic batching, against a 1-instance
unbatched variant: "Here dynamic batching paid", crediting batching with both differences).
Session 6 (reviewer): a db500 pick was contrasted with db100 (only the queue delay differs) and
the Why said "differs in dynamic batching": now it says what differs, and prefers batching on vs off."""

from __future__ import annotations

from factories import levels, params, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.report.conclusions.written import conclusions


def _params(count: int, db: bool | int) -> dict:
    """:func:`params`, with a queue delay of ``db`` µs when it is a number (``db100``)."""
    p = params(count, bool(db))
    if db is not True and db:
        p = p | {"max_queue_delay_us": db, "name": p["name"].replace("db500", f"db{db}")}
    return p


def _why(names: tuple[tuple[int, bool | int], ...]) -> str:
    grid = {
        (1, False): ([100, 180, 200], [1.2, 1.5, 2.5], None),
        (2, False): ([101, 190, 300], [1.2, 1.3, 1.6], None),
        (2, True): ([95, 300, 600], [1.8, 2.0, 2.4], [1, 3.5, 7]),
        (2, 100): ([98, 250, 450], [1.5, 1.8, 2.2], [1, 2.5, 5]),
    }
    variants = [
        variant_result(params=_params(c, db), levels=levels(*grid[(c, db)][:2], batch=grid[(c, db)][2])) for c, db in names
    ]
    for v in variants:  # batches of 3.5-7 inferences cost 40 % of their unbatched compute per inference
        for lv in v.levels:
            if (lv.avg_server_batch_size or 1) > 1:
                lv.server_compute_infer_us = 0.4 * (lv.server_compute_infer_us or 0)
    run = run_result(variants, environment={"cpu_count": 8}, settings={"concurrency": [1, 2, 4]})
    text = "\n".join(conclusions(run, recommend(run)))
    return next(ln for ln in text.splitlines() if ln.startswith("**Why.**"))


def test_the_pick_is_explained_against_a_variant_one_setting_apart() -> None:
    why = _why(((1, False), (2, False), (2, True)))
    assert "At the same load, `mlp_onnx_cpu2_nodb_mbs64`" in why and "`mlp_onnx_cpu1_nodb_mbs64`" not in why
    assert "(it differs from the pick in dynamic batching on (queue delay 500 µs) vs off)" in why
    assert "Here dynamic batching paid" in why


def test_a_variant_two_settings_apart_is_said_so_and_batching_not_credited_alone() -> None:
    why = _why(((1, False), (2, True)))
    assert "At the same load, `mlp_onnx_cpu1_nodb_mbs64`" in why
    assert "(it differs from the pick in dynamic batching on (queue delay 500 µs) vs off, instance count 2 vs 1)" in why
    assert "dynamic batching paid" not in why and "dynamic batching together with instance count 2 vs 1 paid" in why


def test_batching_on_vs_off_is_preferred_to_a_queue_delay_apart() -> None:
    """db500's pick, with db100 (queue delay only) listed before nodb: the contrast is batching on vs off."""
    why = _why(((2, 100), (2, False), (2, True)))
    assert "At the same load, `mlp_onnx_cpu2_nodb_mbs64`" in why and "`mlp_onnx_cpu2_db100_mbs64`" not in why
    assert "(it differs from the pick in dynamic batching on (queue delay 500 µs) vs off)" in why


def test_a_contrast_a_queue_delay_apart_says_the_queue_delay_not_dynamic_batching() -> None:
    why = _why(((2, 100), (2, True)))
    assert "At the same load, `mlp_onnx_cpu2_db100_mbs64`" in why
    assert "(it differs from the pick in queue delay 500 vs 100 µs)" in why
    assert "differs from the pick in dynamic batching" not in why and "dynamic batching paid" not in why
