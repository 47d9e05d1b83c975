"""The Conclusions' "Why" compares the pick with a variant one setting apart, or names every
setting they differ in (trial 6: the pick, 2 instances with dynamic batching, against a 1-instance
unbatched variant: "Here dynamic batching paid", crediting batching with both differences)."""

from __future__ import annotations

from factories import levels, params, run_result, variant_result

from perf.analysis.recommendation import recommend
from perf.report.conclusions import conclusions


def _why(names: tuple[tuple[int, bool], ...]) -> str:
    grid = {
        (1, False): ([100, 180, 200], [1.2, 1.5, 2.5], None),
        (2, False): ([101, 190, 300], [1.2, 1.3, 1.6], None),
        (2, True): ([95, 300, 600], [1.8, 2.0, 2.4], [1, 3.5, 7]),
    }
    variants = [
        variant_result(params=params(c, db), levels=levels(*grid[(c, db)][:2], batch=grid[(c, db)][2])) for c, db in names
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
    assert "(it differs from the pick in dynamic batching)" in why
    assert "Here dynamic batching paid" in why


def test_a_variant_two_settings_apart_is_said_so_and_batching_not_credited_alone() -> None:
    why = _why(((1, False), (2, True)))
    assert "At the same load, `mlp_onnx_cpu1_nodb_mbs64`" in why
    assert "(it differs from the pick in dynamic batching, instance count 2 vs 1)" in why
    assert "dynamic batching paid" not in why and "dynamic batching together with instance count 2 vs 1 paid" in why
