"""What ``builders build`` says when Ctrl-C stops it (issue 26: it ended in a bare "aborted").

A build is all or nothing until its exports are committed (:class:`builders.repository.staging.Staging`):
a Ctrl-C before then leaves the build folder, its manifest and the repository as they were, and the
exports verified so far go with it; a Ctrl-C while the variant folders are written leaves those
written (in the repository's index) and the manifest recording the exports. :class:`BuildInterrupted`
carries the words for each; the command says them and exits 130.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from core.processes import stop_recorded
from core.wording import count, of


class BuildInterrupted(KeyboardInterrupt):
    """A build stopped by Ctrl-C: still a ``KeyboardInterrupt`` to a caller that does not look for it;
    ``text`` says what it left written and what builds the rest."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


def stopped(err: BaseException) -> bool:
    """Whether ``err`` ends the build as a stop: a ``KeyboardInterrupt``, or any error raised while a stop is
    recorded (:func:`core.processes.recorded_stops`: torch.export made a ``TorchExportError`` of a Ctrl-C, trial 28,
    T28-11)."""
    return isinstance(err, KeyboardInterrupt) or stop_recorded()


def while_loading(repository: Path) -> BuildInterrupted:
    """Ctrl-C while the model was loaded and run for its outputs, before its build folder was touched."""
    return BuildInterrupted(
        f"nothing of this build was written: it stopped while the model was loaded and run, before its build folder "
        f"was touched; {repository} is as it was; the same command builds it again"
    )


def before_commit(out: Path, repository: Path, verified: Iterable[tuple[str, str]]) -> BuildInterrupted:
    """Ctrl-C before the exports were moved into ``out``: nothing written; ``verified``: the
    ``(format, precision)`` exports that passed their verification before it (not kept)."""
    done = [f"{f} {p}" for f, p in verified]
    dropped = f"; the exports verified before it ({', '.join(done)}) are not kept" if done else ""
    return BuildInterrupted(
        f"nothing of this build was written: {out} (its manifest) and {repository} are as they were before it"
        f"{dropped}; the same command builds it again"
    )


def while_writing(manifest: Path, repository: Path, written: int, planned: int) -> BuildInterrupted:
    """Ctrl-C while the variant folders were written: ``written`` of ``planned`` are in ``repository``; all of
    them: it came while the last records were written, and the words say the build is complete."""
    if written == planned:
        return BuildInterrupted(
            f"it came as the build's last records were written, and they were: {repository} holds every variant of "
            f"this build ({count(planned, 'variant')}, in its index) and {manifest} records them; the build is complete"
        )
    return BuildInterrupted(
        f"{of(written, planned, 'variant')} written to {repository} (in its index); {manifest} records the "
        "verified exports; the same command again writes the rest"
    )
