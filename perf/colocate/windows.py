"""A co-location visit in which a model's perf_analyzer windows saw no request complete
(perf_analyzer's "Please use a larger time window"), told by the sweep's rule.

As in a sweep (:func:`perf.records.levels.window_failure`, :func:`perf.sweep.design_flags.window_advice`),
such a miss is the load of that moment against the window's length: that model was not measured in that
round, which another round may measure; it is not a failure of the combination. What fixes it is the
run's own window flag (``--round-window``, :attr:`perf.colocate.options.ColocateOptions.window_ms`) at
twice the window, or twice the slowest p99 measured of the variants that missed where that is more; on
a resumed run, which keeps its saved window, a new run's (:func:`perf.sweep.design_flags.act_on`).
Trial 16, T16-12: nine TorchScript visits printed perf_analyzer's raw words, and the run's error named
no flag, beside p99s of 270-614 ms measured in 300 ms windows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from core.flag_words import flag_name
from perf.colocate.options import ColocateOptions
from perf.records.colocation import ColocationRecord
from perf.records.colocation_measured import ModelSample
from perf.records.levels import window_failure
from perf.sweep.design_flags import window_advice

#: The option that sets a visit's windows (its flag: :func:`window_flag`).
WINDOW_FIELD = "window_ms"
#: What a window miss is, on the console and in the record's error.
MISSED_WORDS = "not measured this round"


def window_flag() -> str:
    """The co-location run's window flag (``--round-window``)."""
    return flag_name(ColocateOptions, WINDOW_FIELD)


def slowest_p99(record: ColocationRecord, variants: Iterable[str], more: Sequence[ModelSample] = ()) -> float | None:
    """The highest p99 measured of ``variants`` in the run's visits (and ``more``), ms; ``None``: none measured."""
    names = set(variants)
    samples = [s for v in record.visits for s in v.samples] + list(more)
    got = [s.latency_p99_ms for s in samples if s.variant in names and s.ok and s.latency_p99_ms]
    return max(got, default=None)


def advice(record: ColocationRecord, variants: Iterable[str], resumed: bool, more: Sequence[ModelSample] = ()) -> str:
    """``"try --round-window 1300, twice its slowest p99 measured (614 ms)"`` for ``variants`` that missed
    (module docstring)."""
    slowest = slowest_p99(record, variants, more)
    return window_advice(window_flag(), WINDOW_FIELD, record.window_ms, slowest, resumed)


def hinted(record: ColocationRecord, samples: Sequence[ModelSample], resumed: bool) -> list[ModelSample]:
    """``samples`` of one visit, each window miss's error followed by what it is and the flag that fixes it."""
    out = []
    for s in samples:
        if window_failure(s.error) and window_flag() not in (s.error or ""):
            said = (
                f"{s.error} ({MISSED_WORDS}: no request completed within a {record.window_ms} ms window, which "
                f"{window_flag()} sets: {advice(record, [s.variant], resumed, samples)})"
            )
            s = dataclasses.replace(s, error=said)
        out.append(s)
    return out


def missed_words(record: ColocationRecord, resumed: bool) -> str | None:
    """The run's window misses in one line, with the flag and value to try (for the final error and
    report.md); ``None`` without any."""
    missed = [s for v in record.visits for s in v.samples if window_failure(s.error)]
    if not missed:
        return None
    variants = sorted({s.variant for s in missed})
    models = sorted({s.model for s in missed})
    return (
        f"no request completed within a {record.window_ms} ms window in {len(missed)} "
        f"{'visit' if len(missed) == 1 else 'visits'} of {', '.join(models)} ({', '.join(variants)}), "
        f"which {window_flag()} sets: {advice(record, variants, resumed)}"
    )
