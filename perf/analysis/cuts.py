"""The variants a time budget cut, by whether the run has numbers for them: a variant cut
before it was ever measured is "not measured"; one cut in a resumed session with numbers from
an earlier one is "not measured further in this session" (its numbers stand and may hold the
pick). One source for every place that words the cut list: the recommendation's notes, the
report's budget lines, the console and the deployment's messages.
"""

from __future__ import annotations

from perf.records.results import RunResult


def has_numbers(run: RunResult, name: str) -> bool:
    """Whether ``run`` holds a measured level of ``name`` (one with a throughput)."""
    vr = run.variant(name)
    return vr is not None and any(lv.ok for lv in vr.levels)


def cut_variants(run: RunResult) -> tuple[list[str], list[str]]:
    """``(never measured, measured before)``: the variants ``run``'s time budget cut, in its cut order."""
    names = [c.variant for c in (run.rounds.cuts if run.rounds else []) if c.kind == "variant" and c.variant]
    return [n for n in names if not has_numbers(run, n)], [n for n in names if has_numbers(run, n)]


def cut_notes(run: RunResult) -> list[str]:
    """The recommendation's sentences on the cut variants: the never-measured ones leave the pick
    the best of the measured ones only; the others were measured before and are in the ranking."""
    never, before = cut_variants(run)
    notes = []
    if never:
        notes.append(
            f"{len(never)} of the {len(run.variants)} variants were not measured (cut for time: "
            f"{', '.join(f'`{n}`' for n in never)}): the pick is the best of the measured ones only; a longer "
            "`--time-budget` measures them."
        )
    if before:
        notes.append(
            f"Not measured further in this session (cut for time): {', '.join(f'`{n}`' for n in before)}; "
            "their numbers from the run's earlier sessions are in the ranking."
        )
    return notes
