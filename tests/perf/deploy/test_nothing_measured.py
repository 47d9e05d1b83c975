"""A run stopped before its first measurement has no pick (break-it F20): its report said "These results are of 0 of
the 4 variants; not measured (cut for time): <2 names>; `--time-budget 2m` measures them", and export-deployment's
hints chained three refusals (--allow-unfinished, then --allow-cut, then "nothing to deploy")."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import run_result, variant_result

from core.errors import PerfError
from perf.analysis.recommendation.cuts import NO_PICK_SUBJECT, unmeasured_caveat
from perf.deploy.choose import choose_variant
from perf.records.rounds import Cut, RoundsRecord

WHY = "cut for time: 4 variants need about 60 s for the 6 rounds a verdict needs, over the 30 s left"


def _stopped():
    """Four variants, two cut for time by the plan, none measured; the run stopped (no ``finished``)."""
    pending = [variant_result(n, [], status="pending") for n in ("a", "b")]
    cut = [variant_result(n, [], status="skipped", error=WHY) for n in ("c", "d")]
    run = run_result([*pending, *cut], settings={}, finished=None)
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", f"not measured: {WHY}", n) for n in ("c", "d")])
    return run


def test_a_run_that_measured_nothing_has_no_cut_caveat() -> None:
    assert unmeasured_caveat(_stopped(), NO_PICK_SUBJECT) is None


@pytest.mark.parametrize("flags", [{}, {"allow_unfinished": True}, {"allow_unfinished": True, "allow_cut": True}])
def test_export_of_a_run_that_measured_nothing_says_nothing_to_deploy_first(flags: dict, tmp_path: Path) -> None:
    with pytest.raises(PerfError) as refused:
        choose_variant(_stopped(), results_dir=tmp_path, **flags)
    said, hint = str(refused.value), refused.value.hint or ""
    assert said.startswith("nothing to deploy: run ") and "measured no level" in said, said
    assert "--allow-" not in said + hint and "--resume" in hint, (said, hint)
