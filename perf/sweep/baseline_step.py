"""The in-process baseline's step of a sweep (:class:`BaselineStep`, moved from :mod:`perf.sweep.run`):
its estimate (the one number the plan, the budget and a skip use), the hint of the budget that keeps it,
why a shape sweep has no level to compare it with, and its measurement after the sweep inside the
time budget: skipped, with the reason recorded, when what is left would not cover its estimate.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format
from tritonclient.grpc import model_config_pb2 as mc

from core.wording import count
from perf.analysis.baseline_owed import baseline_kept
from perf.analysis.efficiency import sizes_apart
from perf.analysis.measured import cut_variants, has_numbers
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.recommendation import cuts
from perf.markdown import apart, fmt
from perf.profile.baseline import SWEEP_TIMING, BaselineOptions, measure_after_sweep
from perf.profile.estimate import BaselineEstimate
from perf.profile.estimate import estimate as estimate_baseline
from perf.profile.replacing import rest_words
from perf.records.rounds import Cut
from perf.search import budget as budgets
from perf.search import promise
from perf.search.rounds import Rounds
from perf.sweep import load_cuts
from perf.sweep.baseline_words import baseline_fits, baseline_start_s, keeps_hint, skip_counts
from perf.sweep.rounds import RoundsSweep

log = logging.getLogger(__name__)

#: How the note on a baseline the time budget cut after it started begins (:meth:`BaselineStep._after_cut`; the
#: demo finds it by this to say its advice as ``DEMO_TIME_BUDGET``: :func:`perf.cli.demo_settings.advice`).
CUT_NOTE = "in-process baseline cut for time"


class BaselineStep(RoundsSweep):
    """The in-process baseline's part of a sweep (module docstring)."""

    #: The time budget that keeps the in-process baseline, in the plan's words (:meth:`_keeps_baseline`).
    baseline_keeps = ""
    #: The plan's estimate of the baseline (s) this session's plan line said, its start from it
    #: (:func:`~perf.sweep.baseline_words.baseline_start_s`); ``None``: no plan line said one.
    baseline_planned_s: float | None = None
    #: The plan's ``(variants, time left)`` its :attr:`baseline_keeps` was found for (:meth:`_keeps_now`).
    baseline_keeps_at: tuple[list[str], float | None] | None = None
    #: The ladder, prices and rounds done the session's plan was made on (:mod:`perf.sweep.budget_scope`; ``None``: the
    #: whole ladder at the cost model's prices), which the budget that keeps the baseline is found with.
    plan_terms: tuple[Sequence[int], budgets.Prices, int] | None = None
    #: The budget (s) this session's plan line said was "kept from the budget" for the baseline (the rounds' deadline
    #: ends that much early: :attr:`perf.search.budget.Fit.reserve_s`); 0: none kept (:meth:`_kept_words`).
    baseline_reserved_s = 0.0
    #: Whether a stop came while the in-process baseline was measured (its line says so: trial 24, T24-17).
    stopped_in_baseline = False

    def _configs(self) -> dict[str, dict | None]:
        """Each planned variant's ``config.pbtxt`` (JSON form): the cut's settings where a variant has no recorded parameters."""
        return {n: p.config for n, p in self.plans.items()}

    @functools.cached_property
    def _parsed_configs(self) -> dict[str, mc.ModelConfig]:
        """Each planned variant's ``config.pbtxt`` as read when it was planned (:meth:`_configs`), parsed once:
        the baseline's estimate reads no config file again (it is asked for at every cut the budget weighs)."""
        return {n: json_format.ParseDict(c, mc.ModelConfig()) for n, c in self._configs().items() if c is not None}

    def baseline_names(self, names: Sequence[str]) -> list[str]:
        """The variants the in-process baseline after the rounds of ``names`` measures: them and every other variant
        the run has numbers for (an earlier session's: the baseline measures each measured variant of the run,
        :func:`perf.profile.plan.plan_targets`). Trial 22, F-resume-budget-advice: a resume's plan priced the
        baseline of the 4 variants of its rounds at 34 s, and the baseline, of the run's 7 measured ones (3 TorchScript
        variants of 3-69 ms a call among them), was estimated at 426 s at its start and cut for time. Of a run whose
        baseline keeps some (:func:`~perf.analysis.baseline_owed.baseline_kept`, a resume's), the others only: those are
        not measured again (s24b)."""
        kept = baseline_kept(self.run)
        more = (v.name for v in self.run.variants if v.name not in names and has_numbers(self.run, v.name))
        return [n for n in [*names, *more] if n not in kept]

    def baseline_estimate(self, names: Sequence[str]) -> BaselineEstimate:
        """The in-process baseline's time after the rounds of ``names`` (:func:`perf.profile.estimate.estimate` of
        :meth:`baseline_names`): the one number the plan, the budget and a skip use (trial 9, F15: 105 s, then 120 s,
        for 35 s), from the sweep's repository and configs as it read them once."""
        names = self.baseline_names(names)
        if not names:  # the run keeps every one's: nothing measured (no variant given would mean every one)
            return BaselineEstimate(0.0, 0, 0, False)
        sizes = {n: list(self.plans[n].shapes) for n in names if n in self.plans}  # before the run measures them
        opts = BaselineOptions(self.repository.path, run=self.run, sizes=sizes, variants=list(names), timing=SWEEP_TIMING)
        return estimate_baseline(opts, self.repository, self._parsed_configs)

    def _baseline_s(self, names: Sequence[str]) -> float:
        return self.baseline_estimate(names).seconds

    def _baseline_plan_words(self, fit: budgets.Fit) -> str:
        """The plan line's estimate of the baseline (``fit.baseline_s``, of :meth:`baseline_names`): ``", then an estimated
        426 s of in-process baseline for 7 variants (3 of them measured before, not in these rounds) (13 s of it for 6 key
        loads: ...)"``."""
        names = self.baseline_names(fit.variants)  # the run keeps the others' (s24b: they were counted)
        counted, before = self.baseline_estimate(fit.variants), sum(1 for n in names if n not in fit.variants)
        loads = counted.load_words()
        kept = len(baseline_kept(self.run))
        return (
            f", then an estimated {fmt(fit.baseline_s, 0)} s of in-process baseline for {count(len(names), 'variant')}"
            + (f" ({before} of them measured before, not in these rounds)" if before else "")
            + (f" (the run keeps the one of {count(kept, 'other variant')})" if kept else "")
            + (f" ({loads})" if loads else "")
        )

    def _keeps_baseline(self, names: list[str], left: float | None) -> str:
        """The plan's and a skip's one hint (:mod:`perf.sweep.baseline_words`); ``""`` without a budget or baseline."""
        o = self.opts
        if left is None or o.time_budget_s is None or not o.baseline or self._baseline_unusable() is not None:
            return ""
        assert self.run.rounds is not None and self.run.search is not None
        names = promise.by_measurements(names, self.run, self.budget, self._configs())
        ladder, prices, done = getattr(self, "plan_terms", None) or (self.levels, None, 0)  # the plan's (budget_scope)
        minutes = budgets.keeps_baseline(
            *(names, ladder, self.adaptive, self.keys_per_level(), self.run.rounds.rules, self.run.search.rules),
            *(o.time_budget_s - left, o.time_budget_s, {n for n in names if promise.has_numbers(self.run, n)}),
            promise.measured_top(self.run, names),
            self._baseline_s,
            prices=prices,
            done=done,
        )
        return keeps_hint(minutes, self.run_id, o.resume)

    def _keeps_now(self, need_s: float) -> str:
        """The hint of the budget that keeps the baseline, found again with its estimate of now (``need_s``, from the
        levels measured) where it differs from the plan's: the plan's minutes were found for its estimate then
        (trial 16, T16-19: "--time-budget 4m keeps it" beside an estimate of 385 s, the plan's having been 33 s).
        Where the run leaves variants to a resume's final group, the resume's (:meth:`_resume_keeps`)."""
        if resume := self._resume_keeps(need_s):
            return resume
        if self.baseline_keeps_at is None or self.baseline_planned_s is None or need_s <= self.baseline_planned_s:
            return self.baseline_keeps
        return self._keeps_baseline(*self.baseline_keeps_at) or self.baseline_keeps

    def _resume_keeps(self, need_s: float) -> str:
        """Of a run whose time budget left variants to a resume's final group (:func:`perf.analysis.recommendation.cuts.by_resume`):
        the resume that measures them and keeps the baseline (``need_s``, s), with the margin of every suggested budget,
        above a resumed session's budget that did not cover them (trial 21, T21-1: beside "`--resume RUN --time-budget 4m`
        measures them", "--time-budget 4m keeps it" named a new run's budget; the resume given 4m measured the
        variants in 179 s of 240 s and skipped the baseline, then said only "a longer --time-budget keeps it"); ``""``
        otherwise."""
        if self.opts.time_budget_s is None or self.run.rounds is None:
            return ""
        never = cut_variants(self.run)[0]
        group = cuts.need_s(self.run, never) if never and cuts.by_resume(self.run, never) else None
        if group is None:
            return ""
        minutes, above = cuts.advised(group + need_s, cuts.failed_budget_s(self.run))
        plan = self.baseline_keeps.removesuffix(" keeps it")  # the plan line's, this session's (trial 22: 13m, then 11m)
        other = (
            f"; the plan line's `{plan}` was this session's budget from its start, its rounds included"
            if plan.startswith("--resume") and not plan.endswith(f" {minutes}m")
            else ""
        )
        return (
            f"`--resume {self.run_id} --time-budget {minutes}m` measures them and keeps it (about {fmt(group, 0)} s for "
            f"their final group with the tie set and {fmt(need_s, 0)} s for it; {cuts.MARGIN_SAID}{above}{other})"
        )

    def _reprice_kept(self, engine: Rounds, loaded: list[str]) -> None:
        """The time the plan kept for the in-process baseline (:attr:`baseline_reserved_s`), priced again once the
        group's loads are measured (its key loads at the server's measured loads of their format,
        :func:`perf.profile.estimate.key_loads`, where the plan assumed :data:`perf.profile.estimate.KEY_LOAD_S`):
        the rounds' end (``engine.deadline``) moves by the difference, the baseline starts by the new estimate, and
        the change is said (trial 17, T17-11: 22 s kept at 0.5 s a key, the baseline's loads took 12 s, and it
        was skipped). Before the plan is fitted again to the loads, so the rounds are fitted to what is left."""
        kept = self.baseline_reserved_s
        if not kept or engine.deadline is None or self._plan is None:
            return
        counted = self.baseline_estimate(loaded)
        need = counted.seconds
        if abs(need - kept) < 0.5:
            return
        text = f"rounds: the {fmt(kept, 0)} s kept for the in-process baseline priced again after the loads: {fmt(need, 0)} s "
        text += f"({counted.load_words()}); "
        unloads = len(loaded) * self._unload_s()  # a round of them and their unloads, as the engine judges them
        one = load_cuts.first_round_s(engine, self._plan, loaded, 0, 0.0, self._unload_s(), self.keys_per_level()) - unloads
        if engine.deadline + kept - need - engine.clock() < MIN_ROUNDS * one + unloads:
            # the plan's rule: kept only beside the rounds a verdict needs (perf.search.budget.fit); else it yields
            engine.deadline += kept
            engine.kept_s = self.baseline_reserved_s = 0.0
            self.baseline_planned_s = need
            text += (
                f"no longer kept from the budget: beside the {MIN_ROUNDS} rounds a verdict needs it does not fit; it starts if "
                f"the rounds leave {baseline_start_s(need)} s or more"
            )
        else:
            engine.deadline += kept - need
            engine.kept_s = self.baseline_reserved_s = self.baseline_planned_s = need
            text += f"the rounds end {fmt(abs(need - kept), 0)} s {'earlier' if need > kept else 'later'}"
        self.progress({"event": "plan", "text": text, "estimate_s": counted.seconds, "warn": True})  # said once

    def _baseline_unusable(self) -> str | None:
        """Why an in-process baseline would compare with no level: a shape sweep whose every swept size is a
        mixed range (``--shapes time=1000..16000``), which no in-process call runs
        (:func:`perf.analysis.efficiency.sizes_apart`, the baseline's and the report's one rule); ``None`` otherwise."""
        return sizes_apart({n: list(p.shapes) for n, p in self.plans.items()})

    def _baseline(self, deadline: float | None) -> None:
        """The in-process baseline, inside the time budget (module docstring)."""
        o = self.opts
        if not o.baseline:
            return
        if any(s.host != "this host" for s in self.run.servers):
            log.info("in-process baseline not measured: the servers ran on another host than this one")
            return
        if why := self._baseline_unusable():
            log.warning("in-process baseline not measured: %s", why)
            return
        measured = [v.name for v in self.run.variants if v.status == "ok"]
        if not measured:  # nothing to compare with: no cut to list
            return
        if not set(measured) - baseline_kept(self.run):  # the run has every one's (s24b: measured again, all of them)
            log.info(
                "in-process baseline: the run has it for every measured variant, kept (`triton-perf baseline %s --replace` "
                "measures it again)",
                self.run_dir,
            )
            return
        if self.run.rounds is not None:  # an earlier session's skip: this one's decision replaces it
            self.run.rounds.cuts = [c for c in self.run.rounds.cuts if c.kind != "baseline"]
        counted = self.baseline_estimate(measured)
        need, planned = counted.seconds, self.baseline_planned_s
        start = baseline_start_s(planned if planned is not None else need)  # what the plan line said
        left = None if deadline is None else deadline - time.monotonic()
        first = left is not None and baseline_fits(left, start) and left < counted.first_s  # nothing would be timed
        if left is not None and (first or not baseline_fits(left, start)) and self.run.rounds is not None:
            said = (
                "" if planned is None or planned == need else f", as the plan said from its estimate then ({fmt(planned, 0)} s)"
            )
            d = apart(max(left, 0.0), counted.first_s if first else start)  # under what it needs, said so (T19-8)
            needs = (  # said before its loads, not after them (trial 22, F-baseline-waste)
                f"its first model's loads, warm-up and first round need an estimated {fmt(counted.first_s, d)} s of the "
                f"{fmt(need, 0)} s it needs ({skip_counts(counted)}): nothing was loaded"
                if first
                else f"it needs an estimated {fmt(need, 0)} s ({skip_counts(counted)}) and starts with {start} s{said}"
            )
            why = (
                f"skipped: {fmt(max(left, 0.0), d)} s of the time budget left, {needs}; {self._kept_words(left, d)}"
                f"`triton-perf baseline {self.run_dir}` measures it afterwards, without a time budget; "  # trial 20, T20-2
                f"{self._keeps_now(need) or 'a longer --time-budget keeps it'}"
            )
            self.run.rounds.cut(Cut("baseline", why))
            log.warning("in-process baseline %s", why)
            self._save()
            return
        if left is not None and left < need:
            d = apart(left, need)
            log.info("in-process baseline: %s s left of an estimated %s s needed: it times what fits", fmt(left, d), fmt(need, d))
        began = time.monotonic()
        try:
            measure_after_sweep(self.run, self.run_dir, Path(o.server.repository), self.progress, deadline)
        except KeyboardInterrupt:
            self.stopped_in_baseline = True  # the stop's line names what it stopped (trial 24, T24-17)
            raise
        if self.run.rounds is not None and self.run.rounds.budget is not None:
            earlier = self.run.rounds.budget.baseline_s or 0.0  # an earlier session's, part-way: spent too (T23-4)
            self.run.rounds.budget.baseline_s = round(earlier + time.monotonic() - began, 1)
            self._save()
        self._after_cut(deadline, need, self._kept_words(left))

    def _kept_words(self, left_s: float | None, digits: int = 0) -> str:
        """What became of the time the plan line said was "kept from the budget", for a baseline the budget then
        skipped or cut (trial 17, T17-11: "an estimated 22 s ... kept from the budget", the rounds ended on time, and
        the baseline's loads and warm-up took 12 s of the 20 s left, its first round not fitting the rest: the
        words said nothing of the time kept). ``left_s``: the budget left when it was to start (said with ``digits``
        decimals, as the line says it beside); ``""`` when none was kept.
        """
        kept = self.baseline_reserved_s
        if not kept or left_s is None:
            return ""
        left = max(left_s, 0.0)
        spent = (
            f"the rounds and their unloads ran {fmt(kept - left, digits)} s into it, leaving {fmt(left, digits)} s"
            if kept - left >= 0.5
            else f"{fmt(left, digits)} s were left when it started"
        )
        return f"the plan kept {fmt(kept, 0)} s of the time budget for it (its estimate then); {spent}; "

    def _after_cut(self, deadline: float | None, need_s: float, kept: str = "") -> None:
        """A baseline that started but that the time budget cut (a model not timed, or timed in fewer rounds)
        says what measures the rest, on the console and in the report's notes (trial 14, T14-4: "not measured:
        the time budget ran out before its first round", the loads having spent what the rounds left, and no
        word of `triton-perf baseline RUN`, which the README names)."""
        b = self.run.baseline
        if deadline is None or b is None:
            return
        cut = [*b.unmeasured_models(), *b.cut_short()]
        if not cut:
            return
        # what `baseline RUN` would measure of it (s24b: `--replace` was advised, which measures every variant again,
        # while the variants not timed are owed, measured by the command itself, the rest kept)
        rest = rest_words(self.run, self.run_dir)
        again = " --replace" if any(p.ok for p in b.points) else ""  # what it timed is kept (perf.profile.replacing)
        hint = (
            f"{kept}afterwards, without a time budget, {rest}"
            if rest
            else f"{kept}`triton-perf baseline {self.run_dir}{again}` measures it again afterwards, without a time budget"
        ) + f"; {self._keeps_now(need_s) or 'a longer --time-budget keeps it'}"
        b.notes.append(f"{CUT_NOTE} ({', '.join(f'`{m}`' for m in cut)}): {hint}")
        log.warning("%s", b.notes[-1])
        self._save()
