"""Why a run's variant is not in its repository, as its build folder's manifest tells it: a build of other
weights replaced the export it served (and removed the variant), or the build folder records none of it now.

:func:`perf.records.measured_files.refuse_missing` says it instead of "``make clean`` deletes variant folders ...
rebuild it" when the manifest shows the rebuild would build other weights than the run measured (trial 24, T24-16:
``export-deployment`` of a run whose ONNX variants a retrained model's build had removed blamed ``make clean`` and
advised the rebuild that builds the new weights).
"""

from __future__ import annotations

from pathlib import Path

from builders.repository.manifest import MANIFEST, read_manifest
from core import formats
from core.errors import ConfigError
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
