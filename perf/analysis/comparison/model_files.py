"""Whether two compared runs measured the same model files (``triton-perf compare``; trial 25, T25-5: a run of the
weights v1 and one of the rebuild, ``model.onnx`` sha256 afbe45145528 vs e2530887ad5f, compared with no word of it,
their levels "matched by variant name").

Each run records the files of every variant it loaded (its stamp after the load, :func:`perf.records.measured_files.stamped`:
each file's SHA-256 and, for TorchScript, its content digest, :mod:`builders.export.content`). The two records of a
variant both runs measured are compared by the one comparison a resumed run and ``export-deployment`` make against the
files now (:func:`clients.runtimes.identity.compare_files`: by content digest where both have one, else by SHA-256). A
variant a run recorded no hash of (a run saved before the hash, or one that did not load it) is *not recorded*: never
said the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from clients.runtimes.identity import ArtifactIdentity, compare_files
from core.wording import count
from perf.records.measured_files import stamped
from perf.records.results import RunResult

#: The start of the Summary bullet said where the files differ (the console prints it: ``runs.HEADLINE_BULLETS``).
BULLET = "- Model files differ"
#: How many groups of variants whose files differ alike the bullet names the files of (the header row names them all).
_DETAILED = 2


@dataclasses.dataclass(frozen=True)
class ModelFiles:
    """How the model files of the variants two runs both measured stand to each other.

    Attributes:
        same: The variants whose files have the same content in both runs.
        differ: Variant -> its differing files, one line each (``compare_files``' words).
        not_recorded: The variants a run recorded no hash of the files of.
    """

    same: tuple[str, ...] = ()
    differ: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    not_recorded: tuple[str, ...] = ()

    def cell(self) -> str:
        """The header row's cell: ``same``, ``differ: VARIANTS`` or ``not recorded`` (of some: named)."""
        if self.differ:
            unknown = f"; not recorded: {', '.join(self.not_recorded)}" if self.not_recorded else ""
            return f"differ: {', '.join(self.differ)}{unknown}"
        if self.not_recorded:
            return "not recorded" + (f": {', '.join(self.not_recorded)}" if self.same else "")
        return "same" if self.same else "—"

    def bullet(self, label_a: str = "A", label_b: str = "B") -> str | None:
        """The Summary bullet where the files differ (one sentence: which variants, their files, and that a difference
        may come from the model, not the setting compared); ``None`` where none differ."""
        if not self.differ:
            return None
        names, alike = list(self.differ), dict[tuple[str, ...], list[str]]()  # a rebuild's variants: said once
        for v in names:
            alike.setdefault(self.differ[v], []).append(v)
        groups = list(alike.items())
        shown = "; ".join(f"{', '.join(vs)}: {', '.join(lines)}" for lines, vs in groups[:_DETAILED])
        rest = sum(len(vs) for _, vs in groups[_DETAILED:])
        more = f"; {count(rest, 'other variant')} otherwise" if rest else ""
        return (
            f"{BULLET} for {count(len(names), 'variant')} measured in both ({shown}{more}): a difference between "
            f"{label_a} and {label_b} in {'its' if len(names) == 1 else 'their'} levels may come from the model, not "
            "the setting compared."
        )


def _hashed(identity: ArtifactIdentity | None) -> bool:
    """Whether ``identity`` records a hash of each of its files (runs before the hash recorded size and mtime only)."""
    return identity is not None and bool(identity.files) and all(f.sha256 for f in identity.files)


def model_files(a: RunResult, b: RunResult, variants: Iterable[str], label_a: str = "A", label_b: str = "B") -> ModelFiles:
    """The model files of ``variants`` (those both runs measured), ``a``'s record against ``b``'s (module docstring)."""
    ha, hb = stamped(a), stamped(b)
    same, unknown, differ = [], [], {}
    for v in dict.fromkeys(variants):
        ia, ib = ha.get(v), hb.get(v)
        if ia is None or ib is None or not (_hashed(ia) and _hashed(ib)):
            unknown.append(v)
            continue
        changed = compare_files(ia, ib, then=f"measured in {label_a}", later=f"measured in {label_b}").changed
        if changed:
            differ[v] = changed
        else:
            same.append(v)
    return ModelFiles(tuple(same), differ, tuple(unknown))
