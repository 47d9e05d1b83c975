"""The --time-budget colocate's Ctrl-C line carries covers at least the next step it names (re-check 20, NEW-7: after
Ctrl-C the printed resume carried `--time-budget 47s`, the seconds left of the session, which covered no step:
following it measured nothing). What is left of the session's budget where it covers the next step (trial 20,
T20-11), else what that step needs (perf.colocate.plan.suggested_s: its estimate by the run's own prices, the server's
start and stop included, and 20 % more in whole minutes), with words that say what it covers. The fake co-location
server (tests/support/fake_colocation_server.py) and a cost model whose visits are priced at 20 s each."""

from __future__ import annotations

import math
import re
import shlex
from pathlib import Path

import colocation_source as cs
import pytest
from click.testing import CliRunner
from colocation_repo import colocate_argv, sqrt_costs
from fake_colocation_server import fake_server_source

from perf.cli.main import cli
from perf.colocate import plan
from perf.records import colocation
from perf.records.colocation_measured import ColocationVisit, ModelSample

#: What each visit's wall is recorded as (s): one step of the pass then needs far more than a 3-minute session has left.
SLOW_VISIT_S = 20.0


def _interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wall_s: float, stop: int = 2) -> tuple[str, Path, Path]:
    """A colocate run under --time-budget 3m interrupted (Ctrl-C) after ``stop`` visits recorded at ``wall_s`` each:
    its one-line output, its repository and its results folder."""
    repo, results, argv = colocate_argv(tmp_path)
    visits = {"n": 0}

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        if visits["n"] >= stop:
            raise KeyboardInterrupt
        visits["n"] += 1
        samples = [ModelSample(m, combination[m], thr, p99, 10.0, 100.0) for m, (thr, p99) in sqrt_costs(combination).items()]
        return ColocationVisit(step, round_index, order, dict(combination), samples, wall_s=wall_s)

    fake_server_source(monkeypatch, fake_visit)
    res = CliRunner().invoke(
        cli, [*argv, "--model", "big=big_*", "--model", "small=small_*", "--no-report", "--time-budget", "3m"]
    )
    assert res.exit_code == 130, res.output
    return " ".join(res.output.split()), repo, results


def _printed_budget(said: str) -> tuple[str, str]:
    """The --time-budget of the printed resume command, and the words after the command."""
    printed = re.search(r"continue with (triton-perf colocate --resume .*?--time-budget (\S+)) \((.*)\)$", said)
    assert printed is not None, said
    args = shlex.split(printed.group(1))
    assert args[:3] == ["triton-perf", "colocate", "--resume"] and args[-2] == "--time-budget"
    return printed.group(2), printed.group(3)


def _seconds(flag: str) -> float:
    return float(flag[:-1]) * (60 if flag.endswith("m") else 1)


def test_the_printed_budget_covers_the_next_step_where_the_seconds_left_cover_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said, _repo, results = _interrupted(tmp_path, monkeypatch, SLOW_VISIT_S)
    rec = colocation.load(results / "r")
    assert rec.spent_s is not None
    left = math.floor(180 - rec.spent_s)
    steps, p = plan.rest_of(rec)
    first = plan.estimate(steps[:1], p, None).total_s  # the next step, the server's start and stop included
    assert left < first  # the seconds left cover no step: the old code carried them (--time-budget 17Xs)
    flag, words = _printed_budget(said)
    assert flag != f"{left}s" and _seconds(flag) >= first, (flag, first)
    assert flag == plan.budget_flag(plan.suggested_s(first))  # the next step's need, with the margin, in whole minutes
    assert plan.estimate(steps, p, _seconds(flag)).covered >= 1  # a resume given it measures that step
    assert words.startswith(
        f"the {left} s left of this session's time budget cover no step: its --time-budget {flag} covers {steps[0].name()}"
    ), words
    assert "by this run's own prices, the server's start and stop included" in words and plan.MARGIN_WORDS in words


def test_the_seconds_left_are_carried_where_they_cover_the_next_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said, _repo, results = _interrupted(tmp_path, monkeypatch, 0.5)
    rec = colocation.load(results / "r")
    assert rec.spent_s is not None
    left = math.floor(180 - rec.spent_s)
    flag, words = _printed_budget(said)
    assert flag == plan.budget_flag(left)  # as T20-11 made it
    assert words.startswith(f"its --time-budget {flag}, what is left of this session's time budget, covers "), words


def test_one_rule_names_what_the_budget_covers_and_what_the_rest_needs() -> None:
    rec = cs.record(3)
    steps, p = plan.rest_of(rec)
    assert len(steps) > 2
    whole = plan.estimate(steps, p, None).total_s
    first = plan.estimate(steps[:1], p, None).total_s
    assert plan.resume_budget(rec, None, 10.0) == (None, "")  # a session without a budget: a resume runs without one
    given, words = plan.resume_budget(rec, 180.0, 180.0 - 5)  # 5 s left: no step
    assert given == plan.suggested_s(first) and plan.estimate(steps, p, given).covered >= 1
    assert "the 5 s left of this session's time budget cover no step" in words
    if plan.estimate(steps, p, given).covered < len(steps):
        assert words.endswith(
            f"the rest of one pass needs about {math.ceil(whole)} s: --time-budget "
            f"{plan.budget_flag(plan.suggested_s(whole))} covers it"
        )
    given, words = plan.resume_budget(rec, whole + 100, 50.0)  # what is left covers the rest
    assert given == math.floor(whole + 50) and "covers the rest of one pass: about" in words
    assert "cover no step" not in words
