"""The variants a time budget cut, by whether the run has numbers for them: a variant cut
before it was ever measured is "not measured"; one cut in a resumed session with numbers from
an earlier one is "not measured further in this session" (its numbers stand and may hold the
pick). One source for every place that words the cut list: the recommendation's notes, the
report's budget lines, the console and the deployment's messages.

Every function here takes the run as loaded or as the report and the console show it, one series
per variant and client workload (:func:`perf.records.workloads.split_by_workload`), and finds a
variant's numbers in either (trial 11, F13: the split view has no record named after the variant, so
a variant measured in 2 rounds read "not measured (cut for time)" beside its numbers).
"""

from __future__ import annotations

import math

from core.wording import count, sentence
from perf.analysis.measured import cut_variants, has_numbers, rounds_measured
from perf.markdown import fmt
from perf.records.measured_files import resume_refused
from perf.records.results import RunResult
from perf.records.workloads import variant_name


def need_s(run: RunResult, names: list[str]) -> float | None:
    """The time the plan estimated for the rounds that would measure the cut variants ``names``: the
    largest :attr:`~perf.records.rounds.Cut.need_s` of their last cuts (each plan's estimate holds the
    variants it kept too); ``None`` when no cut recorded one (trial 13, T13-13: "a longer `--time-budget`
    measures them" gave no number). Where some were cut by a plan of a new run and others priced as a final
    group (:attr:`~perf.records.rounds.Cut.final`), the new run's (:func:`by_resume`: it measures them all)."""
    last = {c.variant: c for c in (run.rounds.cuts if run.rounds else []) if c.kind == "variant" and c.variant in names}
    cuts = [c for c in last.values() if c.need_s is not None]
    kind = [c for c in cuts if not c.final] or cuts
    return max(c.need_s for c in kind if c.need_s is not None) if kind else None


def by_resume(run: RunResult, names: list[str]) -> bool:
    """Whether the time of :func:`need_s` is what a ``--resume`` of ``run`` measures ``names`` in: each one's last
    cut priced them in a final group after the rounds (:attr:`~perf.records.rounds.Cut.final`), not a new run's plan."""
    last = {c.variant: c for c in (run.rounds.cuts if run.rounds else []) if c.kind == "variant" and c.variant in names}
    return bool(last) and all(c.final for c in last.values())


#: The share added to an estimate before a ``--time-budget`` is suggested for it, then rounded up to whole minutes
#: (:func:`suggested_s`): visits, loads and the server's start vary from session to session. The one rule of the
#: sweep's and colocate's suggestions (trial 19, T19-15: colocate's "--time-budget 88s" was its estimate to the second
#: and the resume's final step was cut; trial 21, T21-1: the sweep's "`--resume RUN --time-budget 4m` measures them" for
#: about 235 s cut one of them again once its loads were priced anew, 187 s left against 193 s).
MARGIN = 0.2
#: How :data:`MARGIN` is said beside the estimate it covers.
MARGIN_SAID = f"the budget adds {MARGIN:.0%} for what varies between sessions"


def suggested_s(need_s: float) -> int:
    """The ``--time-budget`` (s, whole minutes) suggested for an estimate of ``need_s`` seconds: ``need_s`` and
    :data:`MARGIN` of it, rounded up to whole minutes (at least one)."""
    return 60 * max(1, math.ceil(need_s * (1.0 + MARGIN) / 60.0 - 1e-9))


def failed_budget_s(run: RunResult) -> float | None:
    """The time budget (s) of ``run``'s last session when that session was a resume (:attr:`BudgetRecord.sessions`
    above 1) and still cut variants for time: a budget the next advice must exceed, since it did not cover that work
    (trial 21, T21-1: a resume given the advised ``--time-budget 4m`` cut again and advised ``--time-budget 4m``
    again, a loop); ``None`` otherwise."""
    b = run.rounds.budget if run.rounds is not None else None
    if b is None or b.sessions < 2 or not b.session_budget_s:
        return None
    return float(b.session_budget_s)


def advised(need_s: float, failed_s: float | None = None, them: str = "them") -> tuple[int, str]:
    """The minutes of the ``--time-budget`` suggested for ``need_s`` seconds (:func:`suggested_s`), at least one
    above ``failed_s`` (:func:`failed_budget_s`), and the words that say the latter (``""`` where it did not count)."""
    whole = suggested_s(need_s)
    if failed_s is None or whole > failed_s:
        return whole // 60, ""
    return math.floor(failed_s / 60 + 1e-9) + 1, f", and is above this session's {fmt(failed_s, 0)} s, which did not cover {them}"


def budget_words(need: float | None, them: str, resume: str | None = None, failed_s: float | None = None) -> str:
    """The ``--time-budget`` that covers the rounds the plan estimated for cut variants (``need``, s: :func:`need_s`):
    :func:`suggested_s` of it (the estimate and :data:`MARGIN`, in whole minutes), said with the estimate:
    ``"`--time-budget 9m` measures them (the plan estimated about 412 s for the rounds a verdict needs of them, the
    server's start aside; the budget adds 20 % for what varies between sessions)"``; without an estimate (a run
    recorded before it was kept) ``"a longer `--time-budget` measures them"``. ``them``: ``"them"``, ``"it further"``...
    (trial 16, T16-10: a resume cut the variant with the top 1-round median, and the hint said only "a longer
    --time-budget"). ``resume``: the run's id where ``need`` prices a final group after its rounds (:func:`by_resume`):
    the command is that run's resume, ``"`--resume RUN --time-budget 2m` measures it (in a final group with the tie
    set: about 77 s ...)"`` (trial 19, T19-1: "`--time-budget 2m` measures it" after the 3-minute run that cut it).
    ``failed_s``: a resumed session's budget that did not cover them (:func:`failed_budget_s`): the budget said is
    at least a minute above it, and says so (trial 21, T21-1: the same ``--time-budget 4m`` advised again)."""
    if need is None:
        return f"a longer `--time-budget` measures {them}"
    minutes, above = advised(need, failed_s, them.split()[0])
    if resume is not None:
        return (
            f"`--resume {resume} --time-budget {minutes}m` measures {them} (in a final group with the tie set: about "
            f"{fmt(need, 0)} s for the rounds a verdict needs, the server's start aside; {MARGIN_SAID}{above})"
        )
    return (
        f"`--time-budget {minutes}m` measures {them} (the plan estimated about {fmt(need, 0)} s for the rounds "
        f"a verdict needs of {them.split()[0]}, the server's start aside; {MARGIN_SAID}{above})"
    )


def unmeasured_text(run: RunResult, name: str) -> str | None:
    """Why variant ``name`` has no numbers, in the words every per-variant line uses (the
    Saturation list, the appendix's knees, the search table, the conclusions): ``"not measured
    (cut for time)"``, ``"not measured (not reached: the run stopped before it)"``, ``"not
    measured (failed)"``...; ``None`` when it has numbers. Trial 9, F27: a variant cut for time
    was said to have "fewer than 2 levels measured": it had none."""
    if has_numbers(run, name):
        return None
    vr = run.variant(name)
    if name in cut_variants(run)[0] or (vr is not None and (vr.error or "").startswith("cut for time")):
        cause = "cut for time"
    elif vr is not None and vr.status == "pending":
        cause = "not reached: the run stopped before it"
    else:
        cause = vr.status if vr is not None else "not in the run"
    return f"not measured ({cause})"


#: The subject of :func:`unmeasured_caveat` where the run names no pick (no level meets the budget, none peaks).
NO_PICK_SUBJECT = "These results are"


def caveat_subject(best_under: object | None, best_peak: object | None, budget_ms: float | None) -> str:
    """What :func:`unmeasured_caveat` says is "the best of N variants": the pick (the best level under the budget, or
    the best peak without a budget), the best peak where no level meets the budget, else the results (trial 22: "The
    pick is the best of 7 of the 8 variants" above "No level meets the p99 budget of 1.00 ms", no pick named)."""
    if best_under is not None or (budget_ms is None and best_peak is not None):
        return "The pick is"
    return "The best peak is" if best_peak is not None else NO_PICK_SUBJECT


def unmeasured_caveat(run: RunResult, subject: str = "The pick is") -> str | None:
    """The one sentence every place that states ``run``'s pick says when the time budget cut variants
    (the report's Recommendation, the console summary, the deployment's console and the first lines
    of its bundle's README: trial 8, F22, a pick of 3 of 8 variants was deployed with no word of the
    other 5; trial 9, F26, said only as a note below the pick): ``"The pick is the best of 5 of the 8
    variants; not measured (cut for time): `a`, `b`, `c`; a longer `--time-budget` measures them."``
    (5: the variants with numbers), and for a variant cut after its first rounds, whose numbers are
    in the ranking (a resume's), ``"The pick is the best of 4 variants, 1 of them measured in 2
    rounds only (`a`: then cut for time, not measured further); `--time-budget 6m` measures it
    further (...)."`` (trial 11, F13; trial 16, T16-10: cut on 1 round, with the top median, and no
    number said what would have kept it); ``None`` when the budget cut no variant. The budget said is
    :func:`budget_words`'. ``subject``: what is the best of them (:func:`caveat_subject`), with "is"; the results of a
    run that names no pick are "of" them, not their best. ``None`` too where no variant has numbers (a run stopped
    before its first measurement): its results are of none, and what it owes is said as an unfinished run's."""
    never, before = cut_variants(run)
    if not never and not before:
        return None
    have = len({variant_name(v) for v in run.variants if has_numbers(run, v.name)})  # variants, their series apart
    if not have:  # nothing measured: no pick of some of them to caveat (break-it F20: "of 0 of the 4", 2 named)
        return None
    total = len({variant_name(v) for v in run.variants})
    of = f"{have} of the {total}" if never else str(total)
    text = f"{subject} of {of} variants" if subject == NO_PICK_SUBJECT else f"{subject} the best of {of} variants"
    if before:
        rounds = {n: rounds_measured(run, n) for n in before}
        most = max(rounds_measured(run, variant_name(v)) for v in run.variants)  # "only" beside the others' rounds
        only = " only" if max(rounds.values()) < most else ""
        if len(set(rounds.values())) == 1:  # "2 rounds (each) only (`a`, `b`: ...)"
            few = count(max(rounds.values()), "round") + (" each" if len(before) > 1 else "") + only
            each = ", ".join(f"`{n}`" for n in before)
        else:  # "fewer rounds only (`a` in 2 rounds, `b` in 1 round: ...)"
            few = "fewer rounds only" if only else "their own rounds"
            each = ", ".join(f"`{n}` in {count(r, 'round')}" for n, r in rounds.items())
        text += f", {len(before)} of them measured in {few} ({each}: then cut for time, not measured further)"
        again = run.run_id if by_resume(run, before) else None
        further = "it further" if len(before) == 1 else "them further"
        text += f"; {_measures(run, need_s(run, before), further, again)}"
    if never:
        again = run.run_id if by_resume(run, never) else None
        never_words = _measures(run, need_s(run, never), "them" if len(never) > 1 else "it", again)
        text += f"; not measured (cut for time): {', '.join(f'`{n}`' for n in never)}; {never_words}"
    return sentence(text)


def _measures(run: RunResult, need: float | None, them: str, resume: str | None) -> str:
    """:func:`budget_words`, or, where a ``--resume`` of ``run`` would be advised and a rebuild replaced files it measured
    (which refuses one), a new run (break-it F18: the report advised a resume its note at the top said is refused)."""
    if resume is not None and resume_refused(run):
        return f"a new run (another --run-id) measures {them}: a --resume of this run is refused (a rebuild replaced files it measured)"
    return budget_words(need, them, resume, failed_budget_s(run))


def cut_notes(run: RunResult, subject: str = "The pick is") -> list[str]:
    """The recommendation's sentences on the cut variants (:func:`unmeasured_caveat`): the never-measured
    ones leave the pick the best of the measured ones only; the others were measured before, and
    their numbers stand, ranked where they have the rounds a verdict needs."""
    before = cut_variants(run)[1]
    caveat = unmeasured_caveat(run, subject)
    notes = [caveat] if caveat else []
    if before:
        names = ", ".join(f"`{n}`" for n in before)  # trial 14, T14-5: "in the ranking" of a variant too few rounds ranked
        notes.append(
            f"The numbers of {names}, measured before the cut, stand: ranked where they have the rounds a verdict needs."
        )
    return notes
