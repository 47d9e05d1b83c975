"""A time budget's cut before anything is measured keeps every value of every setting (trial 9,
F26: with `--time-budget 2m` the plan cut 3 of 8 variants by the configuration order, batching on
first, so it cut 3 of the 4 batching-off variants, one of which an earlier full run of the same
model had measured 1.6x ahead of every other; the bundle then deployed a batching-on variant)."""

from __future__ import annotations

import itertools

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget
from perf.search.order import order
from perf.search.promise import CUT_ORDER, RULE, by_measurements, settings_of, spread

LADDER = (1, 4)
RULES = RoundRules(window_ms=300)


def _params(fmt: str, count: int, db: bool) -> dict:
    return {
        "model": "forecaster", "format": fmt, "precision": "fp32", "kind": "cpu", "count": count, "max_batch_size": 64,
        "dynamic_batching": db, "max_queue_delay_us": 500 if db else 0, "preferred_batch_sizes": [], "gpus": [],
        "warmup": None, "trt_accelerator": None,
    }  # fmt: skip


def _config(fmt: str, count: int, db: bool) -> dict:
    cfg = {
        "backend": "python",
        "max_batch_size": 64,
        "instance_group": [{"kind": "KIND_CPU", "count": count}],
        "parameters": {"artifact_format": {"string_value": fmt}},
    }
    return cfg | ({"dynamic_batching": {"max_queue_delay_microseconds": 500}} if db else {})


#: The trial's 8 variants: format x instances x batching.
GRID = {
    f"forecaster_{f}_cpu{c}_{'db500' if db else 'nodb'}_mbs64": (f, c, db)
    for f, c, db in itertools.product(("onnx", "ts"), (1, 2), (True, False))
}
CONFIGS = {n: _config(*v) for n, v in GRID.items()}
#: The configuration order (batching on first, fewer CPU instances first), as the sweep gives it.
ORDER = order(CONFIGS)


def _run(params: bool = True) -> RunResult:
    return RunResult("t", "now", variants=[VariantResult(n, _params(*GRID[n]) if params else None) for n in ORDER])


def _kept(names: list[str], n: int) -> list[str]:
    """What a plan that cuts from the end keeps of ``names``: its first ``n``."""
    return names[:n]


def _spread_ok(kept: list[str]) -> None:
    """Every value of each setting keeps a variant, and no value has 2 more than another."""
    for i in range(3):
        counts = [sum(1 for n in kept if GRID[n][i] == value) for value in {v[i] for v in GRID.values()}]
        assert min(counts) >= 1 and max(counts) - min(counts) <= 1, (i, kept)


def test_a_cut_before_any_number_keeps_every_setting_measured_not_the_configuration_order() -> None:
    assert ORDER[-4:] == [n for n in ORDER if "nodb" in n]  # the configuration order puts every batching-off variant last
    for params in (True, False):  # from the recorded parameters, or from the configs when there are none
        ranked = by_measurements(ORDER, _run(params), None, CONFIGS)
        assert sorted(ranked) == sorted(ORDER)
        for keep in range(2, 9):
            _spread_ok(_kept(ranked, keep))


def test_the_plan_cuts_in_that_order_and_says_the_rule() -> None:
    """The trial's plan: 8 variants, a budget for the verdict's rounds of 5 of them."""
    ranked = by_measurements(ORDER, _run(), None, CONFIGS)
    need5 = budget.estimate(5, LADDER, True, 1, RULES, MIN_ROUNDS, False)
    fit = budget.fit(ranked, LADDER, True, 1, RULES, SearchRules(), need5 + 1.0, False)
    cut = [c.variant for c in fit.cuts if c.kind == "variant"]
    assert len(fit.variants) == 5 and len(cut) == 3
    _spread_ok(fit.variants)
    assert sum("nodb" in n for n in cut) <= 2  # the old order cut 3 of the 4 batching-off variants
    for c in fit.cuts:
        if c.kind == "variant":
            assert RULE not in c.reason and "least promising" not in c.reason  # said once, by the report (CUT_ORDER)
    assert "precision, instances, batching, max_batch_size" in CUT_ORDER


def test_measured_variants_stay_ahead_and_their_settings_count() -> None:
    """A resumed run's numbers still rank first; a setting value a measured variant holds needs no
    variant without numbers to keep it."""
    names = ["a_db", "b_db", "c_nodb", "d_nodb"]
    settings = {n: {"batching": n.split("_")[1]} for n in names}
    assert spread(names, settings) == ["a_db", "c_nodb", "b_db", "d_nodb"]  # one of each kept longest
    assert spread(["b_db", "c_nodb", "d_nodb"], settings, kept=["a_db"]) == ["c_nodb", "b_db", "d_nodb"]
    assert spread(names, {}) == names  # no settings known: the configuration order, as before


def test_settings_come_from_the_parameters_else_the_config() -> None:
    p = settings_of(_params("onnx", 2, False))
    assert p["format"] == "'onnx'" and p["count"] == "2" and p["dynamic_batching"] == "False" and "model" not in p
    c = settings_of(None, _config("ts", 2, True))
    assert c["format"] == "'ts'" and c["dynamic_batching"] != settings_of(None, _config("ts", 2, False))["dynamic_batching"]
    assert settings_of(None, None) == {}


def test_both_sources_give_one_key_and_one_spelling_per_setting() -> None:
    """Review of trial 9's F26 fix: the config branch keyed ``instances``/``batching`` and the
    parameters ``count``/``dynamic_batching``, so in a run mixing them no variant of one source
    shared a setting with one of the other; every field a config holds now reads the same."""
    for fmt, count, db in GRID.values():
        from_params, from_config = settings_of(_params(fmt, count, db)), settings_of(None, _config(fmt, count, db))
        assert from_config and all(from_params[k] == v for k, v in from_config.items()), (from_params, from_config)
        assert "precision" not in from_config  # a config does not hold it: it counts for no variant
    native = {"platform": "onnxruntime_onnx", "max_batch_size": 8, "instance_group": [{"kind": "KIND_GPU", "count": 2}]}
    got = settings_of(None, native)
    want = _params("onnx", 2, False) | {"kind": "gpu", "max_batch_size": 8, "max_queue_delay_us": 0}
    assert got == {k: v for k, v in settings_of(want).items() if k in got} and got["format"] == "'onnx'"
