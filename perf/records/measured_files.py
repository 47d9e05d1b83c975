"""Whether a run's variants are still the files it measured: the check every command that acts on
a measured variant by name runs first (``triton-perf export-deployment``, a resumed sweep, the
in-process baseline and traces of a run), so that what is deployed or measured further is exactly
what the run's numbers are filed under ("measure exactly what is named", issue 26).

The run's record of the files is the variant's stamp after its load
(:attr:`perf.records.results.VariantResult.served`, :class:`clients.runtimes.identity.ArtifactIdentity`):
each file by size and SHA-256 (runs saved before the content hash: by size and mtime). A rebuild
of the model with other weights writes other files under the same variant names; these commands
refuse them with one error naming the files, measured vs now (:func:`refuse_changed`), instead of
using a model the run never measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from clients.runtimes.identity import ArtifactIdentity, compare_files, found_artifact
from core.errors import PerfError
from perf.records.results import RunResult, VariantResult


@dataclasses.dataclass(frozen=True)
class FilesCheck:
    """How a variant's folder now stands to what a run measured.

    Attributes:
        variant: The variant.
        verdict: ``"same"`` (every file has the measured SHA-256), ``"changed"``, or ``"not
            verified"`` (the run recorded no content hash, or no files at all).
        lines: The differing files (``changed``), or why it is not verified.
    """

    variant: str
    verdict: Literal["same", "changed", "not verified"]
    lines: tuple[str, ...] = ()

    def text(self) -> str:
        """The verdict in one sentence, for a console line or a bundle's README."""
        if self.verdict == "same":
            return f"the model files of {self.variant} are the ones the run measured (same SHA-256)"
        if self.verdict == "changed":
            return f"the model files of {self.variant} are not the ones the run measured: {'; '.join(self.lines)}"
        return f"the model files of {self.variant} are not verified here: {'; '.join(self.lines)}"


def measured_artifact(vr: VariantResult | None) -> ArtifactIdentity | None:
    """The files the run measured ``vr`` with: the artifact of its last stamp after a load
    (``None``: nothing recorded — a run saved before schema 3, a model the toolkit did not load)."""
    stamps = [s.artifact for s in (vr.served if vr else []) if s.moment == "after load" and s.artifact is not None]
    return stamps[-1] if stamps else None


def check_files(run: RunResult, variant: str, repository: Path) -> FilesCheck:
    """Compare ``repository/variant``'s version folders now with what ``run`` measured."""
    recorded = measured_artifact(run.variant(variant))
    if recorded is None:
        return FilesCheck(variant, "not verified", ("the run recorded no identity of the files it measured",))
    now = compare_files(recorded, found_artifact(Path(repository) / variant))
    if now.changed:
        return FilesCheck(variant, "changed", now.changed)
    if now.unverified:
        return FilesCheck(
            variant,
            "not verified",
            (
                f"the run recorded {', '.join(now.unverified)} by size and modification time only (no content hash), both unchanged",
            ),
        )
    return FilesCheck(variant, "same")


def refuse_changed(
    run: RunResult, variants: Iterable[str], repository: Path, doing: str, allow: str | None = None
) -> list[FilesCheck]:
    """:func:`check_files` of each measured variant; raises when one changed.

    Args:
        run: The run.
        variants: The variants the command acts on (those the run has no stamp of, or whose folder
            is gone, are not checked: the command says so itself).
        repository: The repository folder the command reads them from.
        doing: What the command would do with them, for the message (``"bundle"``).
        allow: The flag that accepts changed files on purpose, named in the hint (``None``: none).

    Returns:
        The checks of the variants the run measured.

    Raises:
        PerfError: a variant's files differ from the measured ones (each file named, measured vs now).
    """
    checks = [
        check_files(run, v, repository)
        for v in variants
        if (vr := run.variant(v)) is not None and vr.served and (Path(repository) / v).is_dir()
    ]
    changed = [c for c in checks if c.verdict == "changed"]
    if changed:
        what = "; ".join(f"{c.variant}: {'; '.join(c.lines)}" for c in changed)
        raise PerfError(
            f"the model files in {repository} are not the ones run {run.run_id} measured ({what}): a {doing} of them "
            "would not be what the run's numbers are filed under",
            hint="a rebuild replaced them: sweep the rebuilt variants in a new run (perf/run_sweep.sh --run-id NEW), or "
            "rebuild the model the run measured"
            + (f"; {allow} uses the files as they are now, said in what it writes" if allow else ""),
        )
    return checks
