"""A load still to come is priced by its own format's loads (perf.sweep.load_cuts.format_prices): trial 18, T18-5,
the first load, a TorchScript variant's 29.4 s, priced every ONNX load to come (they took 4-6 s) and cut 4 of 8
variants before they were loaded; the rounds then ended with 78 s of the budget left."""

from __future__ import annotations

from types import SimpleNamespace

from factories import params, run_result, variant_result
from simulated_host import FIVE

from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget as budgets
from perf.search.policy import AUTO, ladder
from perf.search.refit import refit
from perf.sweep.load_cuts import format_prices


def _sweep(formats: dict[str, str], loaded: list[str]) -> SimpleNamespace:
    run = run_result([variant_result(n, [], params={**params(1, False), "name": n, "format": f}) for n, f in formats.items()])
    return SimpleNamespace(run=run, _groups_before=0, _load_names=loaded)


def test_a_format_not_loaded_yet_is_priced_at_the_plans_assumption_not_at_another_formats_loads() -> None:
    formats = {"s_ts_a": "torchscript", "s_onnx_b": "onnx", "s_onnx_c": "onnx", "s_ts_d": "torchscript"}
    prices, said = format_prices(_sweep(formats, ["s_ts_a"]), [29.4], ["s_onnx_b", "s_onnx_c", "s_ts_d"], 5.0)
    assert prices == {"s_onnx_b": 5.0, "s_onnx_c": 5.0, "s_ts_d": 29.4}
    assert said == "torchscript loads priced at 29.4 s; onnx ones, not loaded yet, at 5.0 s"
    both, _ = format_prices(_sweep(formats, ["s_ts_a", "s_onnx_b"]), [29.4, 4.0], ["s_onnx_c", "s_ts_d"], 5.0)
    assert both == {"s_onnx_c": 4.0, "s_ts_d": 29.4}  # each format's own, once measured
    assert format_prices(_sweep(formats, ["s_onnx_b"]), [4.0], ["s_onnx_c"], 5.0) == ({}, "")  # one format: the mean
    assert format_prices(_sweep(formats, []), [4.0], ["s_onnx_c"], 5.0) == ({}, "")  # loads not named: the mean


def test_a_plan_fitted_again_keeps_the_variants_its_format_prices_fit() -> None:
    levels, adaptive = ladder(AUTO, SearchRules())
    rules, names = RoundRules(), list(FIVE)
    fit = budgets.fit(names, levels, adaptive, 1, rules, SearchRules(), 150.0, False)
    assert fit.variants == names
    pending = names[1:]
    left = 150.0 - 29.4  # after the first load, a slow format's
    args = (levels, adaptive, 1, rules, SearchRules(), left, set(), pending, 1)
    one_price = refit(fit, names, 29.4, *args)
    assert one_price is not None and len(one_price.variants) < len(names)  # every load to come at 29.4 s: cut
    by_format = refit(fit, names, 29.4, *args, {n: 5.0 for n in pending}, "onnx ones, not loaded yet, at 5.0 s")
    kept = by_format.variants if by_format is not None else names
    assert len(kept) > len(one_price.variants), (kept, one_price.variants)
    cut = [c for c in by_format.cuts if c.kind == "variant"] if by_format is not None else []
    assert all("(the plan assumed 5.0 s; onnx ones, not loaded yet, at 5.0 s)" in c.reason for c in cut)
