"""A run measured at several client batch sizes (``--batch-sizes 1,8``) is reported as one series per
(variant, batch size) (perf.records.workloads.split_by_workload); a count of *variants* counts the
variants by name, their series apart (trial 10, F9: "the best of 6 of the 11 variants" for 3 of 8,
"brute force over the same ladder ...: 33" for 8 variants x 2 batch sizes x 3 levels = 48)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.cuts import unmeasured_caveat
from perf.records.rounds import Cut, RoundsRecord
from perf.records.search import SearchRecord
from perf.records.workloads import split_by_workload, variant_name
from perf.report.sections.search import search_lines


def _run():
    measured = [
        variant_result(
            n,
            [level_result(c, thr * c * b, 2.0 * c * b, batch_size=b, trial=r) for c in (1, 2) for b in (1, 8) for r in range(3)],
        )
        for n, thr in (("fast", 300.0), ("slow", 100.0))
    ]
    cut = [variant_result(n, status="skipped", error="cut for time") for n in ("cut_a", "cut_b", "cut_c")]
    run = run_result([*measured, *cut], finished="x")
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: cut for time", n) for n in ("cut_a", "cut_b", "cut_c")])
    run.search = SearchRecord("prune", False, order=["fast", "slow", "cut_a", "cut_b", "cut_c"])
    return split_by_workload(run)


def test_a_split_run_counts_variants_not_series():
    run = _run()
    assert [variant_name(v) for v in run.variants] == ["fast", "fast", "slow", "slow", "cut_a", "cut_b", "cut_c"]
    assert unmeasured_caveat(run).startswith("The pick is the best of 2 of the 5 variants;")
    line = next(x for x in search_lines(run) if x.startswith("- Measured "))
    assert "over 2 of the 5 variants at 2 client batch sizes" in line, line


def test_a_picks_others_are_the_series_of_its_own_workload_only():
    """Trial 10, F12: a b=1 pick under a what-if budget listed the b=8 series (no level within the
    budget) among its "others ... no level within the budget"; they are another workload's, no rivals."""
    from perf.analysis.ranking.rank import rank_variants

    run = _run()
    ranking = rank_variants(run.variants, 3.0, cores=None)  # p99 2 ms at c=1, b=1 only: no b=8 level within it
    lead = ranking.leader.side.variant
    assert lead == "fast [b=1]"
    assert "fast [b=8]" in ranking.other_sizes and "slow [b=8]" in ranking.other_sizes
    assert not any("[b=8]" in n for n in ranking.unranked), ranking.unranked


def test_variant_of_undoes_series_name():
    """One rule strips a workload's label (perf.search.by_workload and .decided call it, no copy of their own)."""
    from perf.records.workloads import series_name, variant_of
    from perf.search import by_workload
    from perf.search.ending import decided

    assert variant_of(series_name("m", "seq=64, b=8"), "seq=64, b=8") == "m"
    assert variant_of("m [b=8]", "b=1") == "m [b=8]"
    assert variant_of("m", None) == "m"
    assert by_workload.variant_of is variant_of and decided.variant_of is variant_of
