"""An exporter's ordered strategies, each tried until one gives an export that *verifies*.

Every exporter with fallbacks (TorchScript: script, then trace; ONNX: dynamo, then the
TorchScript-based exporter) hands its strategies to :func:`first_verified`. A strategy
fails when its exporter raises (stage ``export``) *or* when the export it wrote disagrees
with eager PyTorch (stage ``verify``); either way the next strategy is tried and the
attempt is recorded (:class:`builders.export.artifacts.Attempt`). An LSTM with a dynamic
sequence axis is the classic case: the dynamo exporter's graph runs but fails verification,
the TorchScript-based exporter's graph is right.

It also captures ``torch.jit.TracerWarning`` on every path that traces (``torch.jit.trace``,
the TorchScript-based ONNX exporter), so that a mismatch can be explained (see
:mod:`builders.verify.explain`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from builders.export.artifacts import Attempt, ExportResult
from builders.export.capture import native_output
from core.errors import ExportError, VerificationError
from core.processes import raise_recorded_stop
from core.wording import sentence

log = logging.getLogger(__name__)

#: One strategy: its name and a function that writes the export and returns it (attempts empty).
Strategy = tuple[str, Callable[[], ExportResult]]
#: Verification of one export: raises VerificationError when it disagrees with eager PyTorch.
Verify = Callable[[ExportResult], Any]
#: Called with a strategy's name just before it exports, and the attempts before it (each failed: the build says a
#: failure as it happens, not only below its final table; trial 22, F-silent-dynamo).
Starting = Callable[[str, Sequence[Attempt]], None]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def first_verified(
    fmt: str,
    strategies: Sequence[Strategy],
    verify: Verify | None = None,
    hint: str = "",
    starting: Starting | None = None,
) -> ExportResult:
    """Try ``strategies`` in order; return the first export that ``verify`` accepts.

    Args:
        fmt: The format, for messages.
        strategies: ``(name, make)`` pairs; ``make()`` writes the artifact and returns it.
        verify: Called on each export; raising :class:`~core.errors.VerificationError` moves
            on to the next strategy. ``None``: the first export is accepted unverified.
        hint: What to do when every strategy failed to export.
        starting: Called with a strategy's name just before it exports, and the attempts that failed before it
            (a build shows the export going, the dynamo exporter alone can take a minute, and says a failure as it
            happens); ``None``: nothing is called.

    Returns:
        The accepted export, with every attempt (failed ones first) in ``attempts``.

    Raises:
        VerificationError: an export was made but none verified: the last verification
            error, with each strategy's outcome appended (``error.attempts`` holds them).
        ExportError: no strategy exported (``error.attempts`` holds them).
        ToolkitError: any other error of ``verify`` (a missing GPU...), at once.
        KeyboardInterrupt: a stop came during a strategy or its verification, inside
            :func:`core.processes.recorded_stops` (a build), even one the exporter swallowed or
            wrapped in an ordinary error: no strategy after it is tried.
    """
    attempts: list[Attempt] = []
    failed: VerificationError | None = None
    for name, make in strategies:
        if starting is not None:
            starting(name, list(attempts))
        t0 = time.perf_counter()
        made: ExportResult | None = None
        problem: Exception | None = None
        with native_output() as native:  # C++ dumps go to the attempt's record, not the console
            try:
                made = make()
            except Exception as e:  # any failure of one strategy moves on to the next
                problem = e
        raise_recorded_stop()  # a stop the exporter swallowed or wrapped is no failure of it (trial 28, T28-11)
        if made is None:
            error_line = summarize_error(problem) if problem else "no export"
            attempts.append(Attempt(name, False, error_line, time.perf_counter() - t0, output=native.text or None))
            log.info("%s %s failed: %s", fmt, name, attempts[-1].error)
            continue
        result = made
        result.attempts = list(attempts)  # the failed ones before it, for ``verify``'s words; all of them once accepted
        dt = time.perf_counter() - t0
        rejected: VerificationError | None = None
        with native_output() as checked:
            try:
                if verify is not None:
                    verify(result)
            except VerificationError as e:
                rejected = e
        raise_recorded_stop()  # nor of its verification (ONNX Runtime, TensorRT, torch.jit run inside)
        output = "\n".join(t for t in (native.text, checked.text) if t) or None
        if rejected is not None:
            attempts.append(Attempt(name, False, summarize_error(rejected), dt, "verify", list(result.tracer_warnings), output))
            log.info("%s %s exported but failed verification: %s", fmt, name, attempts[-1].error)
            failed = rejected
            continue
        attempts.append(Attempt(name, True, None, dt, "export", list(result.tracer_warnings), output))
        log.info("%s export via %s in %.2f s", fmt, name, dt)
        result.attempts = attempts
        return result
    tried = "; ".join(f"{a.strategy}: {'verification' if a.stage == 'verify' else 'export'} failed" for a in attempts)
    if failed is not None:
        error: ExportError | VerificationError = VerificationError(
            f"{failed.message}\n  no {fmt} strategy gave a verified export ({tried}; every error is in the manifest)",
            hint=failed.hint,
            log_path=failed.log_path,
        )
    else:
        error = ExportError(
            f"{fmt} export failed with every strategy: " + "; ".join(f"{a.strategy}: {a.error}" for a in attempts),
            hint=hint or None,
        )
    error.attempts = attempts  # read by attempts_of()
    raise error


def attempts_of(error: BaseException) -> list[Attempt]:
    """The attempts recorded on an error raised by :func:`first_verified` (else none)."""
    return list(getattr(error, "attempts", []))


@contextlib.contextmanager
def tracer_warnings(into: list[str]) -> Iterator[None]:
    """Record every ``torch.jit.TracerWarning`` raised inside (first sentence, each once) in ``into``.

    Other warnings pass through unchanged. The toolkit shows them once per export (the
    build's progress) and keeps them in the manifest; they are logged at DEBUG here.
    """
    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", torch.jit.TracerWarning)
        yield
    for w in caught:
        if issubclass(w.category, torch.jit.TracerWarning):
            msg = _first_sentence(str(w.message))
            if msg not in into:
                log.debug("torch.jit tracer: %s", msg)
                into.append(msg)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _first_sentence(text: str) -> str:
    """``"Converting a tensor to a Python boolean might cause the trace to be incorrect."``
    out of torch's several-sentence warning."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    head, dot, _rest = line.partition(". ")
    return sentence(head) if dot else line


def summarize_error(e: BaseException, limit: int = 500) -> str:
    """One line for an attempt record: the exception type, its first non-empty line with the
    detail the lines below it hold (:func:`error_detail`: the op, what it expected, where in the
    model's source), and the first line of its cause (exporters wrap the informative error in a
    generic one). TorchScript's "Arguments for call are not valid." named no call before."""

    def first(x: BaseException) -> str:
        text = x.message if isinstance(x, VerificationError) else str(x)
        lines = [ln.strip() for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
        detail = error_detail(lines[1:])
        return f"{type(x).__name__}: {lines[0] if lines else ''}".rstrip(": ") + (f" ({detail})" if detail else "")

    text = first(e)
    if e.__cause__ is not None:
        text += f" <- {first(e.__cause__)}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


_WHERE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_OP = re.compile(r"^(?P<op>[\w.]+::[\w.]+)\(")


def error_detail(lines: Sequence[str], width: int = 160) -> str:
    """What the lines after an exporter error's first say, in one short phrase: the op of the
    first schema listed (``aten::cat``), the first "Expected ..." line, and the source line a
    TorchScript error points at (``at model.py:4: torch.cat(x, 1, 2)``); else the next line
    (each part cut at ``width`` characters). ``""`` when there is nothing more.

    Args:
        lines: The message's non-empty lines after the first, stripped.
        width: The longest part kept (characters).
    """
    parts: list[str] = []
    op = next((m["op"] for ln in lines if (m := _OP.match(ln))), None)
    expected = next((ln for ln in lines if ln.startswith("Expected ")), None)
    if op:
        parts.append(op)
    if expected:
        parts.append(expected)
    here = next((i for i, ln in enumerate(lines) if ln.endswith("<--- HERE")), None)
    if here is not None and here > 0:
        where = next((m for ln in reversed(lines[:here]) if (m := _WHERE.search(ln))), None)
        at = f"{where['file'].rsplit('/', 1)[-1]}:{where['line']}: " if where else ""
        parts.append(f"at {at}{lines[here - 1]}")
    if not parts and lines:
        parts.append(lines[0])
    return "; ".join(p if len(p) <= width else p[: width - 1] + "…" for p in parts)
