"""The variants a time budget cut, by whether the run has numbers for them: a variant cut
before it was ever measured is "not measured"; one cut in a resumed session with numbers from
an earlier one is "not measured further in this session" (its numbers stand and may hold the
pick). One source for every place that words the cut list: the recommendation's notes, the
report's budget lines, the console and the deployment's messages.
"""

from __future__ import annotations

from perf.records.results import RunResult
from perf.records.workloads import variant_name


def has_numbers(run: RunResult, name: str) -> bool:
    """Whether ``run`` holds a measured level of ``name`` (one with a throughput)."""
    vr = run.variant(name)
    return vr is not None and any(lv.ok for lv in vr.levels)


def cut_variants(run: RunResult) -> tuple[list[str], list[str]]:
    """``(never measured, measured before)``: the variants ``run``'s time budget cut, in its cut order."""
    cuts = run.rounds.cuts if run.rounds else []  # a variant cut in two sessions (a resume) is one variant
    names = list(dict.fromkeys(c.variant for c in cuts if c.kind == "variant" and c.variant))
    return [n for n in names if not has_numbers(run, n)], [n for n in names if has_numbers(run, n)]


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


def unmeasured_caveat(run: RunResult) -> str | None:
    """The one sentence every place that states ``run``'s pick says when the time budget cut variants
    before they were ever measured (the report's Recommendation, the console summary, the
    deployment's console and the first lines of its bundle's README: trial 8, F22, a pick of 3 of 8
    variants was deployed with no word of the other 5; trial 9, F26, said only as a note below the
    pick): ``"The pick is the best of 5 of the 8 variants; not measured (cut for time): `a`, `b`,
    `c`; a longer `--time-budget` measures them."`` (5: the variants with numbers); ``None`` when
    every variant has numbers or was not cut."""
    never = cut_variants(run)[0]
    if not never:
        return None
    have = len({variant_name(v) for v in run.variants if has_numbers(run, v.name)})  # variants, their series apart
    return (
        f"The pick is the best of {have} of the {len({variant_name(v) for v in run.variants})} variants; not measured (cut for time): "
        f"{', '.join(f'`{n}`' for n in never)}; a longer `--time-budget` measures them."
    )


def cut_notes(run: RunResult) -> list[str]:
    """The recommendation's sentences on the cut variants: the never-measured ones leave the pick
    the best of the measured ones only (:func:`unmeasured_caveat`); the others were measured before
    and are in the ranking."""
    before = cut_variants(run)[1]
    caveat = unmeasured_caveat(run)
    notes = [caveat] if caveat else []
    if before:
        notes.append(
            f"Not measured further in this session (cut for time): {', '.join(f'`{n}`' for n in before)}; "
            "their numbers from the run's earlier sessions are in the ranking."
        )
    return notes
