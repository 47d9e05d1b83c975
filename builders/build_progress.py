"""What ``builders build`` shows while a long step of one unit runs: an export strategy (the ONNX
dynamo export of a text encoder takes ~45 s), a TensorRT plan build (minutes on a GPU host).

Trial 16, T16-17: such steps said nothing while they ran. Each is now a step of the build's
:class:`core.progress.Counted` callback, started with what it does and, when it is known, how long
the same work took before (:func:`previous_took`: this build's export of another precision, else the
earlier build's record), so the CLI draws its time going and logs it now and then off a terminal.
The variant folders (with their warm-up data files) are a counted step of their own
(:func:`builders.build.build`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence

from builders.export.artifacts import Attempt, ExportResult
from builders.repository.records import BuildManifest, ExportRecord
from core.progress import Counted


class LongStep:
    """One long step at a time, shown through ``counted`` (``None``: nothing is shown): :meth:`start`
    reports ``(what, 0, 1)``, :meth:`end` ``(what, 1, 1)``; starting another ends the one before."""

    def __init__(self, counted: Counted | None):
        self.counted = counted
        self.what: str | None = None

    def start(self, what: str) -> None:
        """``what`` begins (the step before it, if any, is over)."""
        self.end()
        self.what = what
        if self.counted is not None:
            self.counted(what, 0, 1)

    def end(self) -> None:
        """The running step is over (nothing when none runs)."""
        if self.what is not None and self.counted is not None:
            self.counted(self.what, 1, 1)
        self.what = None

    @contextlib.contextmanager
    def running(self, what: str) -> Iterator[None]:
        """``what`` runs for the block (ended when the block ends, also by an error)."""
        self.start(what)
        try:
            yield
        finally:
            self.end()


def previous_took(
    fmt: str,
    precision: str,
    strategy: str | None,
    done: Mapping[tuple[str, str], ExportResult],
    old: BuildManifest | None,
) -> str:
    """How long the same work took before, as a progress line ends: ``" (the fp32 export via dynamo took
    45.1 s)"``, ``" (the earlier build's fp16 export via dynamo took 51.0 s)"``; ``""`` when it is not known.

    The same strategy (``strategy``; ``None``: the export as a whole, a TensorRT build) of the same format:
    this build's latest export of another precision (its attempt of that strategy, failed or not), else the
    earlier build's record of this precision, else of another.

    Args:
        fmt: The format being exported.
        precision: The precision being exported.
        strategy: The strategy starting (``"dynamo"``...), ``None`` for the whole export.
        done: This build's exports so far, by ``(format, precision)``.
        old: The earlier build's manifest (``None``: none).
    """
    for (f, p), result in reversed(list(done.items())):
        if f == fmt and (s := _seconds(result.attempts, result.export_s, strategy)) is not None:
            return f" (the {p} {_what(fmt, strategy)} took {s:.1f} s)"
    earlier = [e for e in (old.exports if old else []) if isinstance(e, ExportRecord) and e.format == fmt]
    for e in sorted(earlier, key=lambda e: e.precision != precision):  # this precision first
        if (s := _seconds(e.attempts, e.export_s, strategy)) is not None:
            return f" (the earlier build's {e.precision} {_what(fmt, strategy)} took {s:.1f} s)"
    return ""


def _what(fmt: str, strategy: str | None) -> str:
    """``"export via dynamo"``, ``"plan"`` (a TensorRT build), ``"export"``."""
    if fmt == "trt":
        return "plan"
    return f"export via {strategy}" if strategy else "export"


def _seconds(attempts: Iterable[Attempt], export_s: float, strategy: str | None) -> float | None:
    """The time of ``strategy``'s last attempt in ``attempts`` (s); without a strategy, ``export_s``."""
    if strategy is None:
        return export_s
    return next((a.seconds for a in reversed(list(attempts)) if a.strategy == strategy and a.seconds > 0), None)


def failed_attempt(attempt: Attempt, then: str) -> str:
    """The progress line's words for a strategy that failed, said as the next one (``then``) starts (trial 22,
    F-silent-dynamo: 45 s of a failed dynamo export went by unsaid, said only below the final table): ``"the dynamo
    export failed after 45.1 s (Unsupported: ...); trying torchscript"``."""
    if attempt.stage == "verify":
        return f"the {attempt.strategy} export failed verification ({attempt.error}); trying {then}"
    return f"the {attempt.strategy} export failed after {attempt.seconds:.1f} s ({attempt.error}); trying {then}"


def after_failed(attempts: Sequence[Attempt], export_s: float) -> str:
    """What an export's "exported via X in Y s" adds when strategies failed before it: ``" (after the dynamo attempt,
    which failed in 45.1 s: 45.3 s in all)"``; ``""`` when none did (its own time is then the whole)."""
    failed = [a for a in attempts if not a.ok]
    if not failed:
        return ""
    each = ", ".join(f"the {a.strategy} attempt" for a in failed)
    times = " and ".join(f"{a.seconds:.1f} s" for a in failed)
    total = export_s + sum(a.seconds for a in failed)
    return f" (after {each}, which failed in {times}: {total:.1f} s in all)"
