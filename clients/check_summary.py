"""The words under ``clients check``'s table: the rows and variants that passed, and the sizes checked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builders.verify.compare import LABEL_BOUND
from clients.shapes import batch_sizes_text
from core.wording import count, of

#: A failed output's reason, as the summary counts it (:func:`_failed_words`).
OUT_OF_TOLERANCE, OVER_LABEL_BOUND, FAILED_OTHERWISE = (
    "out of tolerance",
    f"over the {LABEL_BOUND}",
    "failed before any bound applied (shape, dtype, NaN or missing: the row says which)",
)


def _within_words(outputs: Sequence[dict[str, Any]]) -> str:
    """The bound the passing ``outputs`` were held to: tolerance (float outputs), the integer/bool-output bound
    (compared by the count of elements that differ, :func:`builders.verify.compare.differing_words`), or both,
    as the table's rows say (s16's left open: "every output within tolerance" under a bool output's row)."""
    labels = sum(1 for o in outputs if o.get("differing") is not None)
    if not labels:
        return "tolerance"
    if labels == len(outputs):
        return f"the {LABEL_BOUND}"
    return f"its bound: tolerance, or the {LABEL_BOUND} for {count(labels, 'integer/bool output')}"


def _failed_words(outputs: Sequence[dict[str, Any]]) -> str:
    """The failed ``outputs`` counted by why they failed: out of tolerance (a float output), over the
    integer/bool-output bound, or before either applied (shape, dtype, NaN, missing)."""
    why: dict[str, int] = {}
    for o in outputs:
        problem = o.get("problem") or ""
        if o.get("differing") is not None and LABEL_BOUND in problem:
            key = OVER_LABEL_BOUND
        elif o.get("differing") is None and problem.startswith("max relative error"):
            key = OUT_OF_TOLERANCE
        else:
            key = FAILED_OTHERWISE
        why[key] = why.get(key, 0) + 1
    return ", ".join(f"{count(n, 'output')} {key}" for key, n in why.items())


def checked_sizes(results: Sequence[Any]) -> str:
    """The batch and dynamic-axis sizes the outputs were compared at: ``"batch 4, ncat=8"``, or
    per variant where they differ (``"batch 4, ncat=8 (2 variants); batch 2, seq=16 (1 variant)"``);
    ``""`` when no result knows them."""
    by: dict[str, set[str]] = {}
    for r in results:
        if r.sizes:
            by.setdefault(batch_sizes_text(r.sizes), set()).add(r.variant)
    if len(by) == 1:
        return next(iter(by))
    return "; ".join(f"{text} ({count(len(vs), 'variant')})" for text, vs in by.items())


def check_summary(results: Sequence[Any]) -> str:
    """The line under ``clients check``'s table (:mod:`core.wording`'s rule on counts: the rows shown).

    The table has one row per output compared (variant, protocol, output), and one row for a
    variant that got no output (the same error on each protocol it was checked over). The line
    counts those rows first, then the variants, each by its name: ``"32 of 32 rows passed (every
    output within tolerance); 8 of 8 variants passed over http and grpc"`` (the bound each output was held to:
    :func:`_within_words`; a failed output by why it failed: :func:`_failed_words`), ``"0 of 2 rows
    passed: 2 rows got no output (the error in the row); 0 of 2 variants passed over http and
    grpc"``; the batch and dynamic-axis sizes checked (:func:`checked_sizes`: one saved batch, so
    "at batch 4, ncat=8 only"); and how many passes did not exercise the variant's precision.
    """
    outputs = [o for r in results for o in r.outputs]
    within = sum(1 for o in outputs if o["passed"])
    blank_rows = len({(r.variant, r.error or "") for r in results if not r.outputs})
    rows = len(outputs) + blank_rows
    line = f"{of(within, rows, 'row')} passed"
    failed = _failed_words([o for o in outputs if not o["passed"]])
    if blank_rows:
        line += f": {count(blank_rows, 'row')} got no output (the error in the row)" + (f", {failed}" if failed else "")
    elif within == rows:
        line += f" (every output within {_within_words(outputs)})"
    else:
        line += f": {failed}"
    checked = checked_sizes(results)
    if checked:
        line += f", at {checked} only (the build's one saved reference batch; other sizes not checked here)"
    variants = list(dict.fromkeys(r.variant for r in results))
    good = [v for v in variants if all(r.passed for r in results if r.variant == v)]
    protocols = " and ".join(dict.fromkeys(r.protocol for r in results))
    line += f"; {of(len(good), len(variants), 'variant')} passed" + (f" over {protocols}" if protocols else "")
    passed = [r for r in results if r.passed]
    caveats = [r for r in passed if r.not_exercised]
    if caveats:
        starred = sum(len(r.outputs) for r in caveats)
        line += (
            f"; {of(starred, within, 'passing row')} did not exercise the variant's precision (pass*: {caveats[0].not_exercised})"
        )
    return line
