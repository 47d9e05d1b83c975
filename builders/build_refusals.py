"""What ``builders build`` raises once its exports are done and nothing can be written: nothing asked for
was built (:func:`refuse_empty_build`), or every variant of what passed was skipped (:func:`nothing_to_serve`);
and the one line that lists failed exports (:func:`failure_lines`)."""

from __future__ import annotations

from pathlib import Path

from builders.backends import servable
from builders.build_exports import Failure
from builders.build_options import BuildOptions, Progress
from builders.config.variants import GridPlan
from builders.export.artifacts import ExportResult
from builders.repository.manifest import MANIFEST
from builders.repository.records import FAILED_MANIFEST_FILE
from core.errors import ConfigError, PartialBuildError


def refuse_empty_build(
    opts: BuildOptions, exported: dict[tuple[str, str], ExportResult], failures: list[Failure], out: Path, say: Progress
) -> None:
    """Stop when nothing asked for was built (an ONNX export made only for TensorRT does not count).

    Raises:
        ToolkitError: the only export's own error, when one failed.
        PartialBuildError: every one of several exports failed.
    """
    if not failures or any(f in opts.formats for f, _ in exported):
        return
    say(f"nothing written: {MANIFEST} and the repository are left as they were; this build's records: {FAILED_MANIFEST_FILE}")
    if len(failures) == 1:
        raise failures[0][2]
    raise PartialBuildError(
        f"every export failed: {failure_lines(failures)}",
        failed=failures,
        log_path=str(out / FAILED_MANIFEST_FILE),
        hint=f"nothing was written to the repository and {out / MANIFEST} is left as it was; fix the first error above",
    )


def nothing_to_serve(opts: BuildOptions, plan: GridPlan, exported: dict[tuple[str, str], ExportResult]) -> ConfigError:
    """The error of a build whose exports passed but whose every variant was skipped: each
    skipped grid point or variant with its reason, and what to change."""
    asked = [(f, p) for f, p in exported if f in opts.formats]
    unservable = [f"{f} {p}: the {opts.serving} backend cannot serve it" for f, p in asked if not servable(f, opts.serving)]
    why = unservable + [f"{sk.what}: {sk.reason}" for sk in plan.skipped]
    hint = "each reason says what to change; `builders variants` with the same grid flags lists what they give"
    if unservable:
        hint = "pass --serving native (Triton's tensorrt_plan backend serves plans); " + hint
    return ConfigError(
        f"nothing to serve: {', '.join(f'{f} {p}' for f, p in asked)} passed, but every variant was skipped "
        f"({'; '.join(why) or 'no variant planned'}); {MANIFEST} and the repository are left as they were",
        hint=hint,
    )


def failure_lines(failures: list[Failure]) -> str:
    """``"onnx bf16 (export): <first line of the error>; ..."``."""
    return "; ".join(f"{f} {p} ({e.stage}): {e.message.splitlines()[0]}" for f, p, e in failures)
