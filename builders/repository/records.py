"""Typed, versioned records of a build: the manifest (``builds/<model>/manifest.json``) and
the repository index (``<repository>/index.json``).

Both are pydantic models (:class:`core.records.Record`), read through
:func:`core.records.load_record` (schema version checked, older versions migrated, one
:class:`~core.errors.RecordError` naming the file and field otherwise) and written with
:func:`core.records.write_record`. Their JSON Schemas are ``docs/schemas/build_manifest.json``
and ``docs/schemas/repository_index.json``.

Schema history:

- manifest 1: no ``schema`` key; 2: ``schema`` and ``rtol`` (the build's per-output
  tolerance overrides). A version-1 manifest is migrated: ``rtol`` is taken from the
  tolerances its verification recorded where they differ from the precision's default.
  3: per export ``status``, ``verdicts`` (one per device: what verified it, in which
  precision its kernels compute), ``tracer_warnings``; verification points name their
  input ``draw`` and ``device``; attempts their ``stage``; failed exports their attempts.
  Older exports read with ``status`` null (verified before verdicts existed; never reused).
  Later, in version 3: an optional ``graph_health`` per export (:mod:`builders.repository.graph_records`;
  null in manifests written before it); per export ``kept`` (carried over from an earlier build,
  false in manifests written before it); ``draws`` (what each verification draw gives each
  input, empty before it).
- index 1: ``{"schema": 1, "variants": [...], "skipped": [...]}`` (files without ``schema``
  are version 1).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Discriminator, Field, Tag, TypeAdapter, model_validator

from builders.backends import DEFAULT_SERVING, LEGACY_SERVINGS
from builders.config.variants import Skipped, Variant
from builders.config.warmup import WarmupCount
from builders.export.artifacts import Attempt
from builders.model.range_source import InputRange
from builders.model.spec import ModelSpecRecord
from builders.repository.graph_records import GraphHealth
from builders.verify.compare import OutputComparison
from builders.verify.verdicts import Status
from core import precision as precisions
from core.errors import ConfigError
from core.records import Record, RecordKind

#: The manifest's file name in a build folder.
MANIFEST_FILE = "manifest.json"
#: Where a build that failed as a whole records what it tried (a manifest), beside the
#: manifest it leaves as it was.
FAILED_MANIFEST_FILE = "manifest.failed.json"
#: The index's file name in a model repository.
INDEX_FILE = "index.json"
MANIFEST_SCHEMA = 3
INDEX_SCHEMA = 2


KEPT_DESCRIPTION = (
    "not redone by the latest build: carried over from an earlier build of the same model, spec and settings "
    "(builders.repository.build_folder), its files checked unchanged"
)


class OutputError(Record):
    """Worst errors of one output over every verification point."""

    max_abs_err: float
    max_rel_err: float = Field(
        description="max |actual - expected| / max |expected|; for an integer or bool output, the fraction of its elements "
        "that differ (builders.verify.compare)"
    )
    rtol: float = Field(
        description="the relative tolerance the verification applied; for an integer or bool output, the fraction of its "
        "elements allowed to differ"
    )
    differing: int | None = Field(
        None, description="integer or bool output: elements that differ at the point with the largest fraction differing"
    )
    elements: int | None = Field(None, description="integer or bool output: its elements at that point")


class VerificationPoint(Record):
    """One verification point of an export: batch size, dynamic-axis sizes, input draw,
    device, per-output result (none when the draw was skipped)."""

    batch: int
    axes: dict[str, int] = {}
    draw: str = Field(
        "random", description="the input draw (builders.verify.input_draws: random, positive, negative, scaled, zeros, sample)"
    )
    device: str = Field("cpu", description="cpu or cuda")
    outputs: list[OutputComparison] = []
    skipped: str | None = Field(None, description="why this draw was not compared (eager PyTorch not finite on it)")


class VerifiedOn(Record):
    """What ran an export for its verification (:func:`builders.verify.verdicts.verified_on`)."""

    device: str = Field(description="cpu or cuda")
    runner: str = Field(description="the runtime, with the onnxruntime execution provider")
    tf32: str = Field("n/a", description="TF32 policy of fp32 on CUDA")
    computes_in: str | None = Field(
        None, description="the precision the verifying kernels compute in (builders.verify.verdicts.KERNEL_PRECISION)"
    )


class DeviceVerdict(Record):
    """The verdict of one export on one device its variants run on."""

    verified_on: VerifiedOn
    status: Status = Field(
        description="ok, failed, not_verified_precision (the kernels compute in another "
        "precision), not_verified_device (no such device here)"
    )
    reason: str | None = Field(None, description="why the status is not ok")
    verify_s: float = Field(0.0, description="verification wall time on this device, s")
    errors: dict[str, OutputError] = Field({}, description="output name -> worst errors on this device")


class ExportRecord(Record):
    """One export that succeeded: ``ExportResult.to_json()`` plus its verification."""

    format: str
    file: str = Field(description="artifact file name in the build folder (or <precision>/ under it)")
    precision: str = "fp32"
    strategy: str
    attempts: list[Attempt] = []
    export_s: float = Field(description="export wall time, s")
    size_bytes: int
    sha256: str
    content_sha256: str | None = Field(
        None,
        description="digest of what the file holds (builders.export.content): of a TorchScript archive, its entries "
        "with unused pickle memo entries, debug pickles and serialization_id left out; of another file, its sha256. "
        "What decides whether another export is the same model; null: a build before it (sha256 is compared)",
    )
    extra: dict[str, Any] = Field({}, description="format-specific facts (opset, triton_names, external_data...)")
    reused: bool = False
    verify_s: float = Field(0.0, description="verification wall time, s")
    verification: list[VerificationPoint] = []
    errors: dict[str, OutputError] = Field({}, description="output name -> worst errors over all points")
    verified_on: VerifiedOn | None = Field(None, description="what ran the first verification (see verdicts)")
    status: Status | None = Field(
        None,
        description="the export's verdict over its devices (builders.verify.verdicts.overall); "
        "null: verified by a toolkit before verdicts (schema 2)",
    )
    verdicts: list[DeviceVerdict] = Field([], description="one verdict per device the variants run on")
    tracer_warnings: list[str] = Field([], description="torch.jit tracer warnings while exporting (each once)")
    key: str | None = Field(None, description="hash of everything the export depends on (reuse key)")
    graph_health: GraphHealth | None = Field(
        None, description="graph facts (builders.graph.onnx_health; null: TensorRT, or a build before graph health)"
    )
    kept: bool = Field(False, description=KEPT_DESCRIPTION)
    other_model: dict[str, str | None] | None = Field(
        None,
        description="kept although the earlier build it comes from was of another model (other weights or source): this "
        "build's export of its format and precision failed, and a failed export replaces nothing, so its variants serve "
        "that build's export still; the model fields in which that build differs, as it recorded them "
        "(weights_sha256_16, source_sha256_16, source); null: an export of this manifest's model",
    )

    def served_names(self, serving: str) -> dict[str, dict[str, str]] | None:
        """See :func:`served_names`."""
        return served_names(self.format, serving, self.extra)

    def same_content(self, sha256: str | None, content_sha256: str | None) -> bool:
        """Whether a file of these digests holds the model of this export: the same content digest
        where both have one (two exports of the same weights whose bytes differ, break-it F10), else the
        same bytes (a record made before content digests)."""
        if self.content_sha256 is not None and content_sha256 is not None:
            return self.content_sha256 == content_sha256
        return self.sha256 == sha256


class FailedExport(Record):
    """An export or verification that failed, and why (the build raised after writing it)."""

    format: str
    precision: str = "fp32"
    failed: str = Field(description="the stage that failed (export, verify...)")
    error: str
    attempts: list[Attempt] = Field([], description="every strategy tried, with its stage and error")
    kept: bool = Field(False, description=KEPT_DESCRIPTION)


def _export_tag(d: Any) -> str:
    return "FailedExport" if (d.get("failed") if isinstance(d, dict) else isinstance(d, FailedExport)) else "ExportRecord"


#: An entry of ``exports``: a record with ``failed`` is a :class:`FailedExport`.
AnyExport = Annotated[
    Annotated[ExportRecord, Tag("ExportRecord")] | Annotated[FailedExport, Tag("FailedExport")],
    Discriminator(_export_tag),
]


def served_names(fmt: str, serving: str, extra: dict[str, Any]) -> dict[str, dict[str, str]] | None:
    """Names the server uses for an export's tensors when they differ from the spec's.

    Triton's PyTorch backend (native serving) finds TorchScript tensors by the names the
    export recorded in ``extra["triton_names"]`` (``{"inputs": {spec name: served name},
    "outputs": {...}}``); every other case serves the spec's own names (``None``).
    """
    names = extra.get("triton_names")
    if fmt != "torchscript" or serving != "native" or not names:
        return None
    return {"inputs": dict(names.get("inputs", {})), "outputs": dict(names.get("outputs", {}))}


class BuildManifest(Record):
    """``builds/<model>/manifest.json``: what a build exported, verified and wrote."""

    schema_version: int = Field(MANIFEST_SCHEMA, alias="schema")
    model: str
    source: str = Field(
        description="what the model came from: a built-in's name, package.module:factory, the model file's "
        "absolute path, or <module>.<Class> (nn.Module object)"
    )
    model_kind: str | None = None
    created: str = Field(description="ISO time")
    versions: dict[str, str | None] = Field({}, description="python and library versions (null: absent)")
    weights_sha256_16: str | None = None
    source_sha256_16: str | None = None
    spec: ModelSpecRecord
    max_batch_size: int = Field(description="largest max_batch_size of the grid (verified up to it)")
    rtol: dict[str, float] = Field({}, description="the build's --rtol: output name -> relative tolerance")
    exports: list[AnyExport] = []
    variants: list[str] = Field(
        [],
        description="variant names in the repository that serve this manifest's exports: those this build wrote, then "
        "kept_variants",
    )
    kept_variants: list[str] = Field(
        [],
        description="the variants of exports kept from an earlier build (its files unchanged), still in the repository: "
        "the earlier build wrote them; empty in a manifest written before they were recorded apart",
    )
    skipped_variants: list[Skipped] = []
    repository: str | None = Field(None, description="the model repository the variants were written to")
    repositories: list[str] = Field(
        [],
        description="every model repository a build of this folder wrote variants into, oldest first (the latest is "
        "repository); empty: a manifest written before they were recorded, whose earlier repositories are not known",
    )
    repositories_complete: bool = Field(
        False,
        description="whether repositories names every repository since the folder's first build; false: it was begun "
        "from a manifest written before it was recorded (or one that could not be read), so earlier ones are not known",
    )
    warmup_count: WarmupCount | None = Field(None, description="the warmup variants' model_warmup count and why; null: no warmup")
    draws: dict[str, dict[str, str]] = Field(
        {},
        description="verification draw -> input -> what it gave that input (builders.verify.input_draws.describe_draws); "
        "empty: a build before draws were named",
    )
    value_ranges: dict[str, InputRange] = Field(
        {},
        description="integer input (no domain) -> the range its values were verified (and are sent) in and where it "
        "came from (builders.verify.value_sources); empty: no such input, or a build before ranges were recorded",
    )
    input_binding: dict[str, str] = Field(
        {},
        description="spec input -> the forward() argument it is passed as (by position), when the spec's names differ "
        "from forward()'s (builders.model.forward_args.input_binding); empty: they match, or forward()'s names are unknown",
    )

    @property
    def made_variants(self) -> list[str]:
        """The variants this build wrote, in order: :attr:`variants` less :attr:`kept_variants` (issue 26: the demo
        filtered an earlier build's variants of kept exports out of :attr:`variants` itself, by the index)."""
        kept = set(self.kept_variants)
        return [n for n in self.variants if n not in kept]

    def export(self, fmt: str, precision: str = "fp32") -> ExportRecord | None:
        """The successful export of ``fmt`` at ``precision``, if any."""
        return next(
            (e for e in self.exports if isinstance(e, ExportRecord) and (e.format, e.precision) == (fmt, precision)), None
        )


def _migrate_manifest(data: dict[str, Any], found: int) -> dict[str, Any]:
    """Version 1 -> 2: ``rtol`` from the tolerances the verification recorded, where they
    differ from the precision's default (a version-1 build did not record its ``--rtol``).
    Version 2 -> 3 adds only optional fields (an old export's ``status`` stays null)."""
    if found >= 2:
        return data
    rtol: dict[str, float] = {}
    for e in data.get("exports") or []:
        if not isinstance(e, dict) or e.get("failed"):
            continue
        try:
            base = precisions.get(e.get("precision", "fp32")).rtol
        except ConfigError:
            continue
        for name, err in (e.get("errors") or {}).items():
            if isinstance(err, dict) and isinstance(err.get("rtol"), (int, float)) and err["rtol"] != base:
                rtol.setdefault(name, float(err["rtol"]))
    return {**data, "rtol": rtol}


MANIFEST_KIND: RecordKind[BuildManifest] = RecordKind(
    "build manifest",
    BuildManifest,
    MANIFEST_SCHEMA,
    hint="rebuild the model with `builders build` (add --force to re-export)",
    migrate=_migrate_manifest,
)

_VARIANT = TypeAdapter(Variant)


def _variant_fields_schema(schema: dict[str, Any]) -> None:
    """Publish the Variant fields (the index entry's flat parameters) in the entry's schema."""
    vs = _VARIANT.json_schema()
    schema["properties"] = {**vs.get("properties", {}), **schema.get("properties", {})}
    schema["required"] = sorted({*schema.get("required", []), *vs.get("required", [])})


class IndexEntry(Record, extra="allow", json_schema_extra=_variant_fields_schema):
    """One variant in the index: its name (= folder), serving, build folder, and every
    :class:`builders.config.variants.Variant` field, flat (``Variant.to_json()``)."""

    name: str
    serving: str = Field(DEFAULT_SERVING, description="python (python-backend model) or native (Triton's own backend)")
    build: str | None = Field(None, description="absolute path of the build folder (manifest, reference data)")
    build_command: str | None = Field(
        None, description="the command that built it, as typed, in its folder (cd DIR && builders build ...); null: not known"
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_runtime(cls, data: Any) -> Any:
        """An entry written before the rename of the build switch says ``"runtime":
        "bundled"|"native"``; it becomes ``"serving": "python"|"native"``
        (:data:`builders.backends.LEGACY_SERVINGS`)."""
        if isinstance(data, dict) and "runtime" in data:
            old = data["runtime"]
            data = {k: v for k, v in data.items() if k != "runtime"}
            data.setdefault("serving", LEGACY_SERVINGS.get(old, old))
        return data

    @model_validator(mode="after")
    def _check_variant(self) -> IndexEntry:
        self.variant  # noqa: B018 - raises when the parameters are not a valid Variant
        return self

    @property
    def params(self) -> dict[str, Any]:
        """The entry as a flat dict (what ``results.json`` records as a variant's ``params``; no ``build_command``
        where none is known)."""
        return self.model_dump(mode="json", exclude={"build_command"} if self.build_command is None else None)

    @property
    def variant(self) -> Variant:
        """The variant's parameters.

        Raises:
            ValueError: they break a Triton rule or have the wrong type (inside validation
                this becomes a field error of the index file).
        """
        try:
            return Variant.from_json(dict(self.model_extra or {}))
        except (ConfigError, TypeError) as e:
            raise ValueError(f"valid variant parameters ({getattr(e, 'message', e)})") from None

    @classmethod
    def of(cls, variant: Variant, serving: str, build: str | None, command: str | None = None) -> IndexEntry:
        """The entry of ``variant`` written by a build in folder ``build`` by ``command`` (as typed, ``None``: not known)."""
        return cls.model_validate({**variant.to_json(), "serving": serving, "build": build, "build_command": command})


class RepositoryIndex(Record):
    """``<repository>/index.json``: every variant in the repository, sorted by name, and the
    grid points the last build skipped."""

    schema_version: int = Field(INDEX_SCHEMA, alias="schema")
    variants: list[IndexEntry] = []
    skipped: list[Skipped] = []

    def entries(self) -> dict[str, IndexEntry]:
        """Variant name -> entry."""
        return {e.name: e for e in self.variants}


INDEX_KIND: RecordKind[RepositoryIndex] = RecordKind(
    "repository index",
    RepositoryIndex,
    INDEX_SCHEMA,
    hint="rebuild the repository with `builders build`, or pass the repository that build wrote",
)
