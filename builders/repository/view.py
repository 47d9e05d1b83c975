"""A Triton model repository read back through one facade (:class:`Repository`).

Layout (Triton docs, "Model Repository"): ``<repo>/<variant>/config.pbtxt`` and
``<repo>/<variant>/<version>/<model file>``; ``<repo>/index.json`` lists every variant, its
parameters and the build it came from (:class:`builders.repository.records.RepositoryIndex`).
:mod:`builders.repository.writer` writes them.

Reading: ``Repository(path).variant(name)`` gives a variant's parameters, input spec, served
tensor names bound to the artifact's tensors, build folder, reference data and the
per-output tolerances recorded at build time. ``clients check``, ``clients infer``, the
sweep and ``scripts/gpu_check.py`` read a repository only through it.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from builders.config.variants import Variant
from builders.model.range_source import InputRange
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.build_verdict import BuildVerdict, build_verdict
from builders.repository.missing import DEFAULT_REPOSITORY as DEFAULT_REPOSITORY  # every command's default -r
from builders.repository.missing import empty_repository, repository_not_found
from builders.repository.patterns import gone_names, gone_words, unmatched_error
from builders.repository.records import (
    INDEX_FILE,
    INDEX_KIND,
    MANIFEST_FILE,
    MANIFEST_KIND,
    BuildManifest,
    ExportRecord,
    IndexEntry,
    RepositoryIndex,
)
from builders.repository.remove import entries_rebuild_words
from builders.verify.verification import REFERENCE, load_reference, output_tolerances
from core.errors import ModelSpecError, RepositoryError
from core.records import load_record

log = logging.getLogger(__name__)


def read_index(repo: Path) -> dict[str, IndexEntry]:
    """Variant name -> index entry (empty when the repository has no index). Entries written
    before the ``runtime`` -> ``serving`` rename are read in the new vocabulary.

    Raises:
        RecordError: the index exists but cannot be read (not JSON, another schema, a bad field).
    """
    path = Path(repo) / INDEX_FILE
    return load_record(path, INDEX_KIND).entries() if path.is_file() else {}


def served_entries(repo: Path, entries: Mapping[str, IndexEntry] | None = None) -> dict[str, IndexEntry]:
    """The variants repository ``repo`` serves: the entries of its index (``entries``, default :func:`read_index`) whose
    variant folder is there. Every command that lists, matches or counts a repository's variants reads them through
    this (trial 26, T26-9: after ``rm -rf model_repository/bb_*``, ``clients check`` named the 8 variants gone as
    known, and ``builders validate`` found no problem). The entries whose folder is gone are :func:`gone_entries`.

    Raises:
        RecordError: the index exists but cannot be read.
    """
    entries = read_index(repo) if entries is None else entries
    return {n: e for n, e in entries.items() if (Path(repo) / n).is_dir()}


def gone_entries(repo: Path, entries: Mapping[str, IndexEntry] | None = None) -> dict[str, IndexEntry]:
    """The entries of ``repo``'s index (``entries``, default :func:`read_index`) whose variant folder is gone (removed
    by hand): ``builders validate`` names them, ``builders prune`` drops them; no command serves or counts them.

    Raises:
        RecordError: the index exists but cannot be read.
    """
    entries = read_index(repo) if entries is None else entries
    return {n: e for n, e in entries.items() if not (Path(repo) / n).is_dir()}


@dataclasses.dataclass(frozen=True)
class TensorBinding:
    """One input or output of a served variant, matched by identity, not position.

    Attributes:
        name: The tensor's name in the input spec, the export and the reference data
            (``reference.npz`` keys ``input:<name>`` / ``output:<name>``).
        served: The name the server knows it by (differs for native TorchScript variants:
            Triton's PyTorch backend names, recorded by the export as ``triton_names``).
        index: Its position among the artifact's inputs, or among ``forward()``'s outputs
            flattened in order (tuple and dict outputs), as recorded by the build.
        spec: Its dtype and per-sample shape.
    """

    name: str
    served: str
    index: int
    spec: TensorSpec


@dataclasses.dataclass(frozen=True)
class RepositoryVariant:
    """Everything the toolkit knows about one variant of a repository, each file read once.

    Attributes:
        name: The variant (model folder) name.
        folder: ``<repository>/<name>``.
        entry: Its index entry; ``None`` for a model folder the index does not list (a
            repository not written by ``builders build``).
        repository: The repository it was read from (its manifests are read once, when
            first asked for).
    """

    name: str
    folder: Path
    entry: IndexEntry | None
    repository: Repository = dataclasses.field(repr=False, compare=False)

    @property
    def manifest(self) -> BuildManifest | None:
        """The build manifest of its build folder, when there is one.

        Raises:
            RecordError: it exists but cannot be read.
        """
        return self.repository.manifest(self.build_dir) if self.build_dir else None

    @functools.cached_property
    def params(self) -> Variant | None:
        """The variant's parameters (:class:`builders.config.variants.Variant`), from the index."""
        return self.entry.variant if self.entry else None

    @property
    def serving(self) -> str | None:
        """``"python"`` or ``"native"`` (how the build wrote the config), from the index."""
        return self.entry.serving if self.entry else None

    @property
    def build_dir(self) -> Path | None:
        """The build folder (manifest, artifacts, reference data), from the index."""
        return Path(self.entry.build) if self.entry and self.entry.build else None

    @functools.cached_property
    def spec(self) -> ModelSpec | None:
        """The model's input spec as built (outputs filled in from the eager model), each integer
        input with the value range the build recorded and its source (the manifest's ``value_ranges``:
        :func:`with_ranges`).

        Raises:
            RecordError: the build manifest cannot be read.
        """
        m = self.manifest
        return with_ranges(m.spec.to_spec(), m.value_ranges) if m else None

    @property
    def export(self) -> ExportRecord | None:
        """The manifest's record of the export this variant serves."""
        p = self.params
        return self.manifest.export(p.format, p.precision) if self.manifest and p else None

    @property
    def build_verdict(self) -> BuildVerdict | None:
        """The build's verdict on the export this variant serves, on the device its instances run
        on, when it is not ``ok`` (:func:`builders.repository.build_verdict.build_verdict`);
        ``None`` when it is, or nothing is known of the variant's build."""
        p = self.params
        return build_verdict(self.export, p.kind) if p else None

    def _served_names(self) -> dict[str, dict[str, str]]:
        export = self.export
        return (export.served_names(self.serving or "") if export else None) or {}

    def _bindings(self, which: str) -> tuple[TensorBinding, ...]:
        spec = self.spec
        if spec is None:
            return ()
        renamed = self._served_names().get(which, {})
        tensors = spec.inputs if which == "inputs" else spec.outputs
        return tuple(TensorBinding(t.name, renamed.get(t.name, t.name), i, t) for i, t in enumerate(tensors))

    @property
    def served_spec(self) -> ModelSpec | None:
        """The input spec with every tensor under its served name: what the variant's
        ``config.pbtxt`` was written from."""
        spec = self.spec
        return spec.renamed(self._served_names()) if spec else None

    @property
    def inputs(self) -> tuple[TensorBinding, ...]:
        """The inputs in ``forward()`` order, with their served names (empty without a manifest)."""
        return self._bindings("inputs")

    @property
    def outputs(self) -> tuple[TensorBinding, ...]:
        """The outputs in the artifact's (flattened ``forward()``) order, with their served
        names (empty without a manifest)."""
        return self._bindings("outputs")

    @property
    def tolerances(self) -> dict[str, float]:
        """Relative tolerance per output (spec name) as recorded at build time: the build's
        ``--rtol`` for that output, else the precision's default
        (:attr:`core.precision.Precision.rtol`); empty without a manifest."""
        p, spec = self.params, self.spec
        if self.manifest is None or p is None or spec is None:
            return {}
        return output_tolerances(spec, p.precision, self.manifest.rtol)

    @property
    def reference_path(self) -> Path | None:
        """``reference.npz`` in the build folder (inputs and eager outputs), if there is a build."""
        return self.build_dir / REFERENCE if self.build_dir else None

    def reference(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The build's reference ``(inputs, expected outputs)``, keyed by spec name.

        Raises:
            RepositoryError: the index names no build folder for this variant.
            ModelSpecError: the reference file is missing.
        """
        if self.build_dir is None:
            raise RepositoryError(
                f"variant {self.name}: the index names no build folder (no reference data)", hint=self.rebuild_words()
            )
        try:
            return load_reference(self.build_dir)
        except ModelSpecError as e:  # its build folder removed: the command the index recorded (s22z, Z-5)
            e.hint = self.rebuild_words()
            raise

    def rebuild_words(self) -> str:
        """How to rebuild it: the command its index entry recorded, else what to give ``builders build``
        (:func:`builders.repository.remove.entries_rebuild_words`)."""
        return entries_rebuild_words(self.folder.parent, [self.entry]) if self.entry else "build it with `builders build`"


def with_ranges(spec: ModelSpec, ranges: Mapping[str, InputRange]) -> ModelSpec:
    """``spec`` with each input of ``ranges`` (a build manifest's ``value_ranges``, by spec name) taking
    the range the build recorded and its source (:attr:`builders.model.tensor.TensorSpec.recorded`):
    what the build verified it with, which every draw and check of a client then reads
    (:func:`builders.model.range_source.input_range`), whatever this toolkit's default is now."""
    inputs = tuple(
        dataclasses.replace(t, value_range=r.range, recorded=r) if (r := ranges.get(t.name)) else t for t in spec.inputs
    )
    return dataclasses.replace(spec, inputs=inputs) if ranges else spec


class Repository:
    """A model repository as the toolkit reads it: one facade over ``index.json``, the build
    manifests and reference data, so that no caller walks those files itself.

    Args:
        path: The repository folder.

    Example::

        v = Repository("model_repository").variant("mlp_onnx_cpu2_db500_mbs64")
        v.params.count, v.spec.inputs, [(o.name, o.served) for o in v.outputs], v.tolerances
    """

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._index: RepositoryIndex | None = None
        self._manifests: dict[Path, BuildManifest | None] = {}

    @property
    def index_path(self) -> Path:
        """``<repository>/index.json`` (:data:`builders.repository.records.INDEX_FILE`)."""
        return self.path / INDEX_FILE

    @property
    def index(self) -> RepositoryIndex:
        """The index (read once; empty when the repository has none).

        Raises:
            RecordError: the index exists but cannot be read.
        """
        if self._index is None:
            self._index = load_record(self.index_path, INDEX_KIND) if self.index_path.is_file() else RepositoryIndex()
        return self._index

    def served(self) -> dict[str, IndexEntry]:
        """The variants it serves: its index's entries whose folder is there (:func:`served_entries`).

        Raises:
            RecordError: the index exists but cannot be read.
        """
        return served_entries(self.path, self.index.entries())

    def model_folders(self) -> list[str]:
        """Model folders (those holding a ``config.pbtxt``), sorted: what a server loads,
        listed in the index or not."""
        if not self.path.is_dir():
            return []
        return sorted(p.name for p in self.path.iterdir() if (p / "config.pbtxt").is_file())

    def names(self, patterns: Sequence[str] = (), *, indexed: bool = True, flag: str | None = "--variants") -> list[str]:
        """Variant names matching ``patterns`` (names or shell patterns such as ``mlp_*``, as
        ``--variants`` takes them), in the order the patterns name them; every variant when
        ``patterns`` is empty.

        Args:
            patterns: Names or patterns.
            indexed: Choose among the index's variants (default), else among the model folders.
            flag: The flag that gave ``patterns`` (default ``--variants``): a pattern that matches nothing is a
                usage error of it (exit 2, :mod:`core.cli`); ``None`` for patterns no flag gave.

        Raises:
            RepositoryError: the repository does not exist or has none to choose from, or a pattern matches nothing
                (the message lists the known names).
        """
        if not self.path.is_dir():
            raise repository_not_found(self.path)
        known = sorted(self.served()) if indexed else self.model_folders()
        where = f"{self.path}/{INDEX_FILE}" if indexed else str(self.path)
        if not known:
            raise empty_repository(
                self.path, f"has no {INDEX_FILE} listing its variants" if indexed else "holds no model folder with a config.pbtxt"
            )
        names: list[str] = []
        missing = []
        for pattern in patterns:
            hits = fnmatch.filter(known, pattern)
            missing += [] if hits else [pattern]
            names += [h for h in hits if h not in names]
        if missing:
            entries = self.index.entries()
            gone = gone_names(self.path, missing, entries)  # matched what was removed: no did-you-mean (s22z, Z-5)
            raise gone_words(unmatched_error(where, missing, known, flag, gone), self.path, missing, entries)
        return names or known

    def manifest(self, build_dir: Path) -> BuildManifest | None:
        """The manifest in ``build_dir`` (read once), ``None`` when there is none.

        Raises:
            RecordError: it exists but cannot be read.
        """
        if build_dir not in self._manifests:
            path = build_dir / MANIFEST_FILE
            self._manifests[build_dir] = load_record(path, MANIFEST_KIND) if path.is_file() else None
        return self._manifests[build_dir]

    def variant(self, name: str) -> RepositoryVariant:
        """The variant ``name``: its index entry (its build manifest is read when first needed).

        A model folder that the index does not list is returned without them.

        Raises:
            RepositoryError: the repository is not there, or neither the index nor a model folder
                knows ``name``.
            RecordError: the index cannot be read.
        """
        if not self.path.is_dir():
            raise repository_not_found(self.path)
        entry = self.index.entries().get(name)
        folder = self.path / name
        if entry is None and not (folder / "config.pbtxt").is_file():
            raise RepositoryError(
                f"{self.path} has no variant {name!r}",
                hint=f"known: {', '.join(sorted(self.served()) or self.model_folders()) or '(none)'}",
            )
        return RepositoryVariant(name, folder, entry, self)

    def variants(self, patterns: Sequence[str] = ()) -> list[RepositoryVariant]:
        """:meth:`variant` of each of :meth:`names` (``patterns``)."""
        return [self.variant(n) for n in self.names(patterns)]
