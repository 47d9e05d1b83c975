"""Trial 17, T17-6: every ``--workload`` spelling the toolkit prints is taken back by
``export-deployment`` (the one command taking ``--workload``). A one-workload mixed-size run took its
label through the check and then died in a KeyError: ``workload_recommendations`` keys a run of one by
``""``. Printed forms: the tables' labels, a series name's ``[...]`` tail, the error's suggestion."""

from __future__ import annotations

import re

import pytest
from factories import level_result, params, run_result, variant_result

from core.errors import FlagError
from perf.deploy.choose import choose_variant
from perf.deploy.workloads import match_workload, only_workload, run_workloads
from perf.records.workloads import split_by_workload, workload

NODB, DB = params(2, model="kws"), params(2, True, model="kws")


def _run(loads: list[tuple[str | None, int]], unmeasured: bool = False):
    """Two variants measured at each (shape, batch size) of ``loads``; ``unmeasured``: a third with no level."""
    variants = [
        variant_result(
            params=p,
            levels=[
                level_result(c, (1000.0 + 100 * i + 300 * k) * c, 5.0 * c, batch_size=b, shape=s)
                for k, (s, b) in enumerate(loads)
                for c in (1, 2)
            ],
            dynamic_axes="time=400 (the build's opt size of axis time)",
        )
        for i, p in enumerate((NODB, DB))
    ]
    if unmeasured:
        variants.append(variant_result(params=params(4, model="kws"), status="skipped", error="cut for time"))
    return run_result(variants, settings={"latency_budget_ms": 30.0}, finished="then")


RUNS = {
    "sizes": [("time=1000", 1), ("time=16000", 1)],
    "batches": [(None, 1), (None, 8)],
    "mixed sizes": [("time=400..16000", 1), ("time=400..1000", 1)],
    "one mixed size": [("time=400..16000", 1)],
    "one fixed size": [("time=1000", 1)],
    "one batch size": [(None, 4)],
}


def _printed(run) -> list[str]:
    """Every workload text the toolkit prints for ``run``: labels, series tails, the error's suggestion."""
    view = split_by_workload(run)
    texts = [*run_workloads(view), *(w for v in view.variants if (w := workload(v)))]
    texts += [] if texts else [only_workload(view)]  # what a run of one unlabelled workload prints
    texts += [f"[{w}]" for v in view.variants if (w := workload(v))]
    with pytest.raises(FlagError) as e:
        choose_variant(run, workload_text="nope=3")
    texts += re.findall(r"--workload '([^']+)'", e.value.hint or "")
    return [t for t in dict.fromkeys(texts) if t]


@pytest.mark.parametrize("kind", RUNS)
@pytest.mark.parametrize("unmeasured", [False, True])
def test_every_printed_workload_is_taken_back(kind: str, unmeasured: bool) -> None:
    run = _run(RUNS[kind], unmeasured)
    texts = _printed(run)
    assert texts, kind
    for text in texts:
        chosen = choose_variant(run, workload_text=text)  # no KeyError, no FlagError
        label = match_workload(split_by_workload(run), text)
        assert label is None or label.strip("[]") in text or text in label, (kind, text, label)
        assert chosen.variant in (NODB["name"], DB["name"])


def test_a_one_workload_mixed_run_deploys_as_without_workload() -> None:
    """The trial's command: a one-workload mixed run, one variant cut before measuring; each spelling
    the trial tried is the bundle written without --workload, and nothing says "each workload has its own pick"."""
    run = _run(RUNS["one mixed size"], unmeasured=True)
    plain = choose_variant(run)
    assert "client workload" not in plain.why and plain.workloads is None
    for text in ("time=400..16000", "time=400..16000 (mixed)", "time=400..16000,b=1", "b=1"):
        named = choose_variant(run, workload_text=text)
        assert (named.variant, named.level, named.why) == (plain.variant, plain.level, plain.why)


@pytest.mark.parametrize("kind", RUNS)
def test_an_unknown_workload_is_one_error_listing_the_valid_ones(kind: str) -> None:
    run = _run(RUNS[kind])
    view = split_by_workload(run)
    with pytest.raises(FlagError, match=r"^'time=123' is not a client workload of run r\b") as e:
        choose_variant(run, workload_text="time=123")
    listed = [w for v in view.variants if (w := workload(v))] or [only_workload(view)]
    assert all(w in e.value.message for w in listed) and e.value.flag == "--workload"
