"""Whether a bundle's image can load what the bundle serves: the release checks of ``builders
validate --target-triton`` (:mod:`builders.repository.release_checks`: an ONNX graph's opset and IR
version against the image's ONNX Runtime, a plan's TensorRT version against its TensorRT) run on
the bundle's model folders against the release the image is (trial 11, F18: a bundle for Triton
24.10's onnxruntime backend, whose ONNX limits the toolkit has no source for, said nothing of it).

A check that finds a problem refuses the bundle (the image would not load it); a check that cannot
run (no confirmed version for that release, an image that is no release the table knows) is said in
the bundle's README and on the console, never passed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from builders.repository.release_checks import is_release_check
from builders.repository.validate import validate
from builders.triton.releases import coverage, release
from core.errors import ConfigError, PerfError


@dataclasses.dataclass(frozen=True)
class ReleaseCheck:
    """What the release checks said of a bundle's model folders.

    Attributes:
        target: The release the image is, in words (``"Triton 24.10 (...)"``); ``None``: not a
            release the table knows.
        problems: What the image cannot load, each ``"file: check: what"``.
        not_run: The checks that could not run, each with why.
    """

    target: str | None
    problems: tuple[str, ...] = ()
    not_run: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The README's lines (the console prints the same ones): what was checked against which
        release, and each check not run, with the releases the table confirms."""
        if not self.not_run:
            return [
                f"- Checked against {self.target}: the image's backends load the model files (builders validate --target-triton)."
            ]
        return [f"- **Not checked:** {why}" for why in self.not_run] + [
            f"- The checks are confirmed for {coverage()}; `builders validate --target-triton` runs them on a repository."
        ]


def check_release(repository: Path, image: str) -> ReleaseCheck:
    """Run the release checks on every model folder of the bundle's ``repository`` against the
    release ``image`` is (``nvcr.io/nvidia/tritonserver:24.10-py3``: 24.10).

    Args:
        repository: The bundle's model repository.
        image: The server image the manifests run.
    """
    try:
        target = release(image)
    except ConfigError:
        return ReleaseCheck(
            None,
            not_run=(
                f"image `{image}` is not a Triton release builders/triton/releases.py knows, so the ONNX opset/IR "
                "and TensorRT version checks were not run against it",
            ),
        )
    found = validate(repository, target=target)
    problems = tuple(f"{Path(p.file).name}: {p.field}: {p.problem}" for p in found.problems if is_release_check(p))
    not_run = tuple(f"{Path(p.file).name}: {p.field}: {p.problem}" for p in found.skipped if is_release_check(p))
    return ReleaseCheck(target.describe(), problems, not_run)


def refuse_unloadable(checked: ReleaseCheck, image: str) -> None:
    """Refuse a bundle whose image cannot load its model files (``checked.problems``).

    Raises:
        PerfError: naming each problem, the release, and what to do.
    """
    if checked.problems:
        raise PerfError(
            f"the image {image} ({checked.target}) cannot load the bundle's model files: {'; '.join(checked.problems)}",
            hint="pass --image with a release whose backends read them, or re-export for this one (the fix each "
            "problem names); `builders validate REPOSITORY --target-triton TAG` checks a release first",
        )
