"""The build's verdict on the export a variant serves, when it is not ``ok``: the one source of
the words every place that names a variant as a pick or a bundle says it with (new-user trial 13,
T13-10: an ONNX fp16 variant whose fp16 the build could not exercise on a CPU host, "not
verified in fp16 on this host", was recommended and bundled with no word of it).

The verdict is the manifest's (:class:`builders.repository.records.DeviceVerdict` of the device
the variant's instances run on: KIND_GPU -> cuda, else cpu), read through
:attr:`builders.repository.view.RepositoryVariant.build_verdict`.
"""

from __future__ import annotations

import dataclasses

from builders.repository.records import ExportRecord
from builders.verify.verdicts import describe, device_kind

#: The status of a verdict nobody could read (:func:`not_verified_here`): not ``ok``, not known (issue 26).
NOT_VERIFIED_HERE = "not_verified_here"


@dataclasses.dataclass(frozen=True)
class BuildVerdict:
    """What the build could not verify of one export, on the device a variant runs on.

    Attributes:
        export: ``"onnx fp16"``.
        status: The verdict (``not_verified_precision``, ``not_verified_device``; ``unknown``: a
            build before verdicts; :data:`NOT_VERIFIED_HERE`: the build's record could not be read).
        words: The build summary's words for it (:func:`builders.verify.verdicts.describe`:
            ``"not verified in fp16 on this host"``).
        reason: Why, as the manifest records it (the kernels' mechanism); ``None`` when not recorded.
    """

    export: str
    status: str
    words: str
    reason: str | None = None

    def short(self) -> str:
        """What a console note beside the pick says: ``"build: onnx fp16 not verified in fp16 on this host"``
        (``"build check not verified here: <reason>"`` when the build's record could not be read)."""
        return self.words if self.status == NOT_VERIFIED_HERE else f"build: {self.export} {self.words}"

    def text(self) -> str:
        """What report.md and a bundle's README say: the verdict, why, and what it means for the pick."""
        why = f" ({self.reason})" if self.reason else ""
        if self.status == NOT_VERIFIED_HERE:
            return f"**{self.words}**: nothing read here says whether its export's outputs agreed with eager PyTorch's"
        if self.status == "not_verified_precision":
            precision = self.export.split()[-1]
            means = (
                f"its outputs agreed with PyTorch's, but its {precision} accuracy is unchecked and, served by such "
                f"kernels, its numbers are not those of {precision} arithmetic (`clients check` marks it pass*)"
            )
        elif self.status == "not_verified_device":
            means = "nothing verified it on the device it is served on"
        else:
            means = "the build recorded no verdict for it (a build before verdicts): rebuild to verify it"
        return f"the build's verdict on its {self.export} export is **{self.words}**{why}: {means}"


def build_verdict(export: ExportRecord | None, kind: str) -> BuildVerdict | None:
    """The build's verdict on ``export`` for a variant of instance kind ``kind`` (``"cpu"``,
    ``"gpu"``), when it is not ``ok``: the verdict of the device those instances run on, else the
    export's overall one; ``None`` when it is ``ok`` or there is no record."""
    if export is None:
        return None
    device = "cuda" if kind == "gpu" else "cpu"
    v = next((v for v in export.verdicts if device_kind(v.verified_on.device) == device), None)
    status = v.status if v is not None else export.status
    if status == "ok":
        return None
    pair = f"{export.format} {export.precision}"
    if status is None:
        return BuildVerdict(pair, "unknown", "not verified by this toolkit's verdicts (an older build)")
    return BuildVerdict(pair, status, describe(status, export.precision, device), v.reason if v is not None else None)


def not_verified_here(export: str, reason: str) -> BuildVerdict:
    """The verdict of a build whose record could not be read (issue 26: a run naming no repository,
    or a repository unreadable or no longer holding the variant's build, read as ``ok``): not ``ok``,
    worded ``"build check not verified here: <reason>"``; ``export``: ``"onnx fp16"``, or the variant's name."""
    return BuildVerdict(export, NOT_VERIFIED_HERE, f"build check not verified here: {reason}", reason)
