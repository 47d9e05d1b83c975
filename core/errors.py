"""The toolkit's exceptions: one base class, one subclass per stage.

A :class:`ToolkitError` is a *user* error: something the user can fix (bad model, bad
config, busy port, missing tool). The CLIs print its message and exit 1 without a
traceback; one raised with ``flag=`` is a mistake in what the user typed (a flag's value
malformed, out of range, naming what is not there, or flags that do not go together, found
after parsing) and exits 2, as click's own usage errors (trial 17, T17-15; the table in
:mod:`core.cli`). Any other exception is a bug and keeps its traceback.

Messages follow one shape: what happened, what was expected vs found, what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

E = TypeVar("E", bound=BaseException)


class ToolkitError(Exception):
    """Base of every error a user can cause and fix.

    Args:
        message: What happened, expected vs found.
        hint: What to do about it (appended as ``"-> hint"``).
        log_path: A log file with more detail, when there is one, or a record that holds it (a ``.json``: said as
            ``(record: PATH)``, a log as ``(log: PATH)``).
        flag: The flag (``"--shapes"``) whose value or combination with others the user got wrong, for a
            usage error (exit 2); ``None`` (the default) for a problem found while working (exit 1).
    """

    stage = "toolkit"
    flag: str | None = None

    def __init__(self, message: str, *, hint: str | None = None, log_path: str | None = None, flag: str | None = None):
        self.message = message
        self.hint = hint
        self.log_path = log_path
        self.flag = flag
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = self.message
        if self.hint:
            text += f"\n  -> {self.hint}"
        if self.log_path:  # a record (a build's manifest.json, every export's error) is not a log (trial 25, T25-23)
            text += f"\n  ({'record' if self.log_path.endswith('.json') else 'log'}: {self.log_path})"
        return text


class FlagError(ToolkitError):
    """A flag's value that is well formed but names something the inputs do not have (an axis
    no variant has), found once the command reads them: a usage error (exit 2, turned into
    click's by :class:`core.cli.ToolkitCommand`), not a failure. Any :class:`ToolkitError` raised
    with ``flag=`` is one too; this class is for refusals of no stage of their own.

    Args:
        message: What was wrong, and what the inputs have.
        flag: The flag, e.g. ``"--shapes"``.
        hint: What to do about it.
    """

    stage = "usage"

    def __init__(self, message: str, *, flag: str, hint: str | None = None):
        super().__init__(message, hint=hint, flag=flag)


class ModelSpecError(ToolkitError):
    """A model or its input specification could not be loaded or is inconsistent."""

    stage = "model"


class DataTypeError(ModelSpecError):
    """A tensor data type is unknown, or has no counterpart in the framework it must go to
    (bfloat16 in numpy, strings in torch). Raised by :mod:`core.dtypes` only."""

    stage = "dtype"


class ExportError(ToolkitError):
    """Every strategy for one export format failed; ``attempts`` holds each strategy's
    outcome (``builders.export.chain.Attempt``) when ``first_verified`` raised it."""

    stage = "export"
    attempts: Sequence[Any] = ()


class PartialBuildError(ToolkitError):
    """Some (format, precision) exports of a build failed; the variants of those that passed
    were written. ``result`` is what the build wrote (``builders.build.BuildResult``),
    ``failed`` the ``(format, precision, error)`` of each failed export."""

    stage = "build"

    def __init__(
        self,
        message: str,
        *,
        result: object = None,
        failed: list | None = None,
        hint: str | None = None,
        log_path: str | None = None,
    ):
        self.result = result
        self.failed = failed or []
        super().__init__(message, hint=hint, log_path=log_path)


class VerificationError(ToolkitError):
    """An exported artifact disagrees with eager PyTorch (tolerance, shape, dtype, NaN);
    ``attempts`` holds each strategy's outcome (``builders.export.chain.Attempt``) when
    ``first_verified`` raised it after every strategy."""

    stage = "verify"
    attempts: Sequence[Any] = ()


class ConfigError(ToolkitError):
    """A Triton model configuration breaks one of Triton's rules."""

    stage = "config"


class GpuRequiredError(ToolkitError):
    """A GPU-only path (TensorRT build, KIND_GPU, GPU metrics) was asked for without a GPU."""

    stage = "gpu"


class ServerError(ToolkitError):
    """tritonserver could not be found, started, or reached."""

    stage = "server"


class ClientError(ToolkitError):
    """A request to the server was refused or its answer did not match the reference."""

    stage = "client"


class PerfError(ToolkitError):
    """perf_analyzer could not be found or run, or a sweep's input is invalid."""

    stage = "perf"


class RecordError(ToolkitError):
    """A file the toolkit wrote (build manifest, repository index, ``results.json``, input
    spec) is missing, is not JSON, has another schema version, or a field has the wrong
    type. The message names the file, the field, what was expected and what was found."""

    stage = "record"


class RepositoryError(ToolkitError):
    """A model repository does not hold what was asked for (no index, no such variant, no
    build folder)."""

    stage = "repository"


class BuildBusyError(ToolkitError):
    """Another build of the same model is at work in its build folder (``builds/<model>/``); the
    message names its pid. One build per build folder at a time: they would share its staging folder."""

    stage = "build"


def first_in_chain(exc: BaseException, kind: type[E]) -> E | None:
    """The first exception of ``kind`` in ``exc``'s chain (``exc`` itself, then what it was raised while
    handling, ``__context__``); ``None`` if none. A second Ctrl-C while a command stops after the first
    raises a plain ``KeyboardInterrupt`` whose context holds the first one and what it kept."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__context__
    return None
