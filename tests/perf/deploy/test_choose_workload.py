"""``export-deployment --workload`` (trial 12, F8): a ``--shapes`` run deployed the pick of its first
workload (the smallest input, the highest infer/s) with no way to choose another, and said nothing of
the variants the other workloads pick."""

from __future__ import annotations

import pytest
from factories import level_result, params, run_result, variant_result

from core.errors import FlagError
from perf.deploy.choose import choose_variant

NODB, DB = params(2, model="kws"), params(2, True, model="kws")
#: (variant, size) -> infer/s at c=1 (c=2 adds 10 %): nodb leads at the small size, db at the large one;
#: every level within the budget.
SPEED = {(NODB["name"], 1000): 5000.0, (DB["name"], 1000): 4000.0, (NODB["name"], 16000): 900.0, (DB["name"], 16000): 1300.0}


def _run():
    variants = [
        variant_result(
            params=p,
            levels=[
                level_result(c, SPEED[p["name"], t] * (1 + (c - 1) / 10), 5.0 * c, batch_size=1, shape=f"time={t}")
                for t in (1000, 16000)
                for c in (1, 2)
            ],
        )
        for p in (NODB, DB)
    ]
    return run_result(variants, settings={"latency_budget_ms": 30.0}, finished="then")


def test_the_first_pick_says_its_workload_and_what_the_others_pick() -> None:
    c = choose_variant(_run())
    assert c.variant == NODB["name"] and "for clients sending time=1000" in c.why
    assert c.workloads == (
        f"workload: time=1000; other workloads pick other variants: time=16000: {DB['name']} "
        "-> deploy for one with --workload '<workload>'"
    )


def test_a_workload_is_chosen_by_its_table_name() -> None:
    for text in ("time=16000", " time=16000 "):
        c = choose_variant(_run(), workload_text=text)
        assert c.variant == DB["name"] and c.level.variant == f"{DB['name']} [time=16000]", c.why
        assert "(--workload: that workload's pick in the report)" in c.why
        assert c.workloads is not None and c.workloads.startswith("workload: time=16000;") and NODB["name"] in c.workloads
    named = choose_variant(_run(), NODB["name"], workload_text="time=16000")
    assert named.level.variant == f"{NODB['name']} [time=16000]" and "at time=16000 (--workload)" in named.why


def test_a_workload_the_run_has_not_is_one_error_listing_them() -> None:
    with pytest.raises(
        FlagError, match=r"^'time=8000' is not a client workload of run r: it measured time=1000; time=16000"
    ) as e:
        choose_variant(_run(), workload_text="time=8000")
    assert e.value.flag == "--workload" and "--workload 'time=16000'" in (e.value.hint or "")


def test_the_runs_one_batch_size_may_be_written() -> None:
    """Break test B7: a run measured at batch 1 only was refused `--workload time=16000,b=1` (its tables
    leave b out; the README's example writes it); another batch size is still refused."""
    for text in ("time=16000,b=1", "b=1, time=16000"):
        assert choose_variant(_run(), workload_text=text).variant == DB["name"]
    with pytest.raises(FlagError, match="is not a client workload"):
        choose_variant(_run(), workload_text="time=16000,b=4")


def _one_workload_run():
    """A run without --shapes: every level at the build's opt size time=400, batch size 1."""
    axes = "time=400 (the build's opt size of axis time)"
    variants = [
        variant_result(params=p, levels=[level_result(c, SPEED[p["name"], 1000] * c, 5.0 * c) for c in (1, 2)], dynamic_axes=axes)
        for p in (NODB, DB)
    ]
    return run_result(variants, settings={"latency_budget_ms": 30.0}, finished="then")


def test_the_one_workload_of_a_run_without_shapes_may_be_named() -> None:
    """Break test B7: a run without --shapes (all levels at time=400, b=1) refused `--workload time=400` and
    `--workload b=1` as "not a client workload ... it measured one workload only": the bundle is the same
    as without --workload; a workload it did not measure is refused, naming the one it did."""
    plain = choose_variant(_one_workload_run())
    for text in ("time=400", "b=1", "time=400, b=1", " b=1,time=400 "):
        named = choose_variant(_one_workload_run(), workload_text=text)
        assert (named.variant, named.level, named.why) == (plain.variant, plain.level, plain.why)
    for text in ("time=500", "time=400,b=4"):
        with pytest.raises(
            FlagError, match=rf"^'{text}' is not a client workload of run r: it measured one workload only, time=400, b=1 "
        ):
            choose_variant(_one_workload_run(), workload_text=text)
    with pytest.raises(FlagError, match=r"^'' names no client workload: it measured one workload only, time=400, b=1 "):
        choose_variant(_one_workload_run(), workload_text="")


def test_an_axis_typo_in_workload_gets_the_closest_axis(tmp_path) -> None:
    """Break test B7: `--workload tme=400` got the list of workloads with no "did you mean 'time'" (the
    sweep's --shapes suggests it); the real command says it once, as a usage error."""
    from click.testing import CliRunner

    from perf.cli.main import cli
    from perf.records import results

    with pytest.raises(
        FlagError, match=r"^'tme=16000' is not a client workload of run r: 'tme' \(did you mean 'time'\?\) names no axis"
    ):
        choose_variant(_run(), workload_text="tme=16000")
    with pytest.raises(
        FlagError, match=r"'tme=400' .*'tme' \(did you mean 'time'\?\).*it measured one workload only, time=400, b=1"
    ):
        choose_variant(_one_workload_run(), workload_text="tme=400")
    results.save(_run(), tmp_path / "run")
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path / "run"), "--workload", "tme=16000"], terminal_width=400)
    assert res.exit_code == 2, res.output
    assert (
        "Invalid value for --workload: 'tme=16000' is not a client workload of run r: 'tme' (did you mean 'time'?)" in res.output
    )


@pytest.mark.parametrize("typed", ["TIME", "Time", "TME"])
def test_an_axis_in_another_case_gets_the_closest_axis(typed: str) -> None:
    """Issue 26: `--workload TIME=...` got no "did you mean 'time'?" while `tme` did (the match compared case)."""
    with pytest.raises(FlagError, match=rf"'{typed}' \(did you mean 'time'\?\) names no axis"):
        choose_variant(_run(), workload_text=f"{typed}=16000")


@pytest.mark.parametrize("named", [None, NODB["name"]], ids=["recommendation", "named variant"])
def test_the_runs_recommendation_is_computed_once_per_bundle(named: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """choose_variant ranked the whole run two or three times for one bundle (the pick, the report's first
    workload for a named variant, the other workloads' picks): it is computed once and read by each step
    (a named variant's own ranking, over its series alone with ``fit=``, is another ranking)."""
    import perf.deploy.choose
    from perf.analysis.recommendation.recommend import recommend

    calls = []

    def counted(run, *args, **kwargs):
        calls.append(kwargs.get("fit"))
        return recommend(run, *args, **kwargs)

    monkeypatch.setattr(perf.deploy.choose, "recommend", counted)
    chosen = choose_variant(_run(), named)
    assert chosen.workloads is not None  # every step that reads the run's ranking ran
    assert [fit for fit in calls if fit is None] == [None]


def _two_batch_sizes_run():
    """A run without --shapes at --batch-sizes 1,4: every level at the build's opt size H=32 (s22z, Z-18)."""
    axes = "H=32 (the build's opt size of axis H); W=32 (the build's opt size of axis W)"
    variants = [
        variant_result(
            params=p,
            levels=[level_result(c, SPEED[p["name"], 1000] * c * b, 5.0 * c, batch_size=b) for b in (1, 4) for c in (1, 2)],
            dynamic_axes=axes,
        )
        for p in (NODB, DB)
    ]
    return run_result(variants, settings={"latency_budget_ms": 30.0}, finished="then")


def test_a_workload_may_name_the_sizes_every_level_was_measured_at() -> None:
    """s22z, Z-18: `--workload H=32,b=1` of a run at H=32 and --batch-sizes 1,4 was refused "'H' names no axis of
    its workloads"; a size the run did not sweep is written as every level was measured, another size is said so."""
    plain = choose_variant(_two_batch_sizes_run(), workload_text="b=1")
    for text in ("H=32,b=1", "b=1, W=32, H=32"):
        named = choose_variant(_two_batch_sizes_run(), workload_text=text)
        assert (named.variant, named.level) == (plain.variant, plain.level)
    with pytest.raises(FlagError, match=r"^'H=64,b=1' is not a client workload of run r: H was 32 at every level, not 64"):
        choose_variant(_two_batch_sizes_run(), workload_text="H=64,b=1")


def test_a_workload_names_one_workload_at_a_time() -> None:
    """s22z, Z-18: `--workload b=4,b=1` got the generic "not a client workload"."""
    with pytest.raises(
        FlagError, match=r"^--workload 'b=4,b=1' names b 2 times \(b=4, b=1\): a deployment bundle is for one"
    ) as e:
        choose_variant(_two_batch_sizes_run(), workload_text="b=4,b=1")
    assert e.value.flag == "--workload" and "give one workload at a time, e.g. --workload 'b=4'" in (e.value.hint or "")
