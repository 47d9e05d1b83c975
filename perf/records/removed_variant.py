"""Why a run's variant is not in its repository, as its build folder's manifest tells it: a build of other
weights replaced the export it served (and removed the variant), or the build folder records none of it now.

:func:`perf.records.measured_files.refuse_missing` says it instead of "``make clean`` deletes variant folders ...
rebuild it" when the manifest shows the rebuild would build other weights than the run measured (trial 24, T24-16:
``export-deployment`` of a run whose ONNX variants a retrained model's build had removed blamed ``make clean`` and
advised the rebuild that builds the new weights).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from builders.repository.manifest import MANIFEST, read_manifest
from builders.repository.writer import read_index_entries
from core import formats
from core.errors import ConfigError, ToolkitError
from perf.records.results import VariantResult


def removed_by_build(vr: VariantResult | None, measured: dict[str, tuple[str | None, str | None]]) -> tuple[str, bool] | None:
    """Why ``vr``'s variant is gone, in words, when its build folder's manifest says a rebuild there would not give
    what the run measured; ``None`` when it would (or the manifest or the run's record cannot tell: the general words).

    Args:
        vr: The run's record of the variant (its ``params``: ``build``, ``format``, ``precision``).
        measured: The digests the run measured its files with: ``{file name: (sha256, content digest)}``.

    Returns:
        The words, and whether the manifest shows other weights for certain (``False``: it records no export of the
        variant's format and precision now, so what a rebuild would build is not known here).
    """
    params = (vr.params if vr else None) or {}
    build, fmt, precision = params.get("build"), params.get("format"), params.get("precision", "fp32")
    if not build or not fmt:
        return None
    try:
        file = formats.get(str(fmt)).file
    except ConfigError:
        return None
    manifest = read_manifest(Path(build))
    sha, content = measured.get(file, (None, None))
    ran = content or sha
    if manifest is None or ran is None:
        return None
    where = f"{Path(build) / MANIFEST} (its latest build, {manifest.created}, weights_sha256_16 {manifest.weights_sha256_16})"
    export = manifest.export(str(fmt), str(precision))
    if export is None:
        return (
            f"{where} records no {fmt} {precision} export now, so a build removed the variant (this build folder's "
            f"{fmt} {precision} export failed or was not asked for); the run measured {file} {ran[:12]}",
            False,
        )
    if (content and content == export.content_sha256) or (sha and sha == export.sha256):
        return None
    now = export.content_sha256 or export.sha256
    return (
        f"a build of other weights removed it: {where} records its {fmt} {precision} export as other content than the "
        f"run measured ({file}: measured {ran[:12]}, now {now[:12]})",
        True,
    )


def _build_words(command: str) -> list[str]:
    """A build command's words without those that choose how it writes, not what it builds (``--replace``,
    ``--force``, ``--serving X``: :func:`builders.repository.remove.restore_words` adds them)."""
    words, out = command.split(), []
    for i, w in enumerate(words):
        if w in ("--replace", "--force", "--serving") or w.startswith("--serving=") or (i and words[i - 1] == "--serving"):
            continue
        out.append(w)
    return out


def restore_blocked(params: Mapping[str, Any] | None, variant: str, repository: Path) -> str | None:
    """Why the run's recorded build does not restore ``variant``, whose files changed since the run measured them
    (``params``: the run's record of it), in words; ``None`` when it may. The repository's index records that same
    command (``--replace``, ``--force``, ``--serving`` aside) as the build of the files there now: given the files it
    read then, it gives those again, not what the run measured, so the model files it reads (the weights, the model
    source) differ from the run's, and its build folder's manifest names them (trial 31, F12: the printed restore
    command rebuilt the retrained weights, said nothing, and the refusal printed it again)."""
    command = (params or {}).get("build_command")
    try:
        entry = read_index_entries(Path(repository)).get(variant) if command else None
    except ToolkitError:
        return None
    if entry is None or not entry.build_command or _build_words(entry.build_command) != _build_words(str(command)):
        return None
    manifest = read_manifest(Path(entry.build)) if entry.build else None
    read = (
        f" (its build, {manifest.created}: weights_sha256_16 {manifest.weights_sha256_16}, model source_sha256_16 "
        f"{manifest.source_sha256_16}, in {Path(str(entry.build)) / MANIFEST})"
        if manifest is not None
        else ""
    )
    return (
        f"{variant}'s files now were built by the command the run recorded, `{command}`{read}: the model files it reads "
        "(the weights, the model source) are not the ones the run measured, so running it again builds the same"
    )
