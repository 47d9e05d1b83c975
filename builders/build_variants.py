"""The variant steps of ``builders build`` (moved from :mod:`builders.build`): every planned variant's
config checked against Triton's rules before anything is written (:func:`check_variants`), then one
folder per variant written (:func:`write_repository`), shown going as a counted step: each folder's
warm-up data files take a while for large inputs (trial 16, T16-17: the build said nothing meanwhile).
"""

from __future__ import annotations

from pathlib import Path

from builders.backends import servable
from builders.build_options import BuildOptions, Counted, Progress
from builders.build_verify import device_refusal
from builders.config.pbtxt import make_config
from builders.config.variants import GridPlan, Skipped, Variant
from builders.export.artifacts import ExportResult
from builders.model.artifact_io import read_artifact_io
from builders.model.artifact_signature import ArtifactIO
from builders.model.spec import ModelSpec
from builders.repository.records import IndexEntry, served_names
from builders.repository.writer import link_or_copy, write_variant
from core.wording import count

#: One variant folder to write: the variant, its export, its served spec and the artifact's I/O.
Write = tuple[Variant, ExportResult, ModelSpec, ArtifactIO | None]


def check_variants(
    opts: BuildOptions, plan: GridPlan, exported: dict[tuple[str, str], ExportResult], spec: ModelSpec, warmup: int, say: Progress
) -> list[Write]:
    """Check-variants step: the config of every planned variant of each passed export, checked
    against Triton's rules before anything is written (:func:`builders.config.pbtxt.make_config`).

    A variant whose device the export cannot be served on (a device constant frozen into
    its TorchScript graph) is skipped and added to ``plan.skipped``; a TensorRT export gets no
    python-backend variant.

    Raises:
        ConfigError: a variant's config breaks a rule for its artifact (nothing is written).
    """
    writes: list[Write] = []
    for fmt, precision in exported:
        if not servable(fmt, opts.serving):
            say("trt: the python backend cannot serve TensorRT plans; no variants written for it (use --serving native)")
            continue
        result = exported[(fmt, precision)]
        vspec = spec.renamed(served_names(result.format, opts.serving, result.extra))  # the served tensor names
        io = read_artifact_io(result.format, result.path)
        for v in (v for v in plan.variants if (v.format, v.precision) == (fmt, precision)):
            refusal = device_refusal(result, "cuda" if v.kind == "gpu" else "cpu")
            if refusal:
                plan.skipped.append(Skipped(v.name, refusal))
                say(f"skipped {v.name}: {refusal}")
                continue
            make_config(v, vspec, opts.serving, io=io, warmup_count=warmup)
            writes.append((v, result, vspec, io))
    return writes


def write_repository(
    opts: BuildOptions,
    writes: list[Write],
    out: Path,
    warmup: int,
    variant_dirs: list[Path],
    entries: list[IndexEntry],
    counted: Counted | None = None,
) -> None:
    """Write-repository step: one folder per checked variant (:func:`check_variants`), its
    export moved into the build folder; ONNX external data files are linked beside the graph.

    Args:
        opts: What was built (repository, serving).
        writes: The variants to write.
        out: The build folder (recorded in each index entry).
        warmup: Runs of each ``model_warmup`` sample.
        variant_dirs: Filled with the variant folders written.
        entries: Filled with their index entries (also when a later one fails to be written).
        counted: Shown each folder written (its warm-up data files take a while: trial 16, T16-17).
    """
    what = writing_words(len(writes), any(v.warmup for v, *_ in writes))
    for i, (v, result, vspec, io) in enumerate(writes):
        if counted is not None:
            counted(what, i, len(writes))
        vdir = write_variant(opts.repository, v, result.path, vspec, opts.serving, io=io, warmup_count=warmup)
        for data in result.extra.get("external_data", []):  # ONNX weights stored beside the graph
            link_or_copy(result.path.parent / data["file"], vdir / "1" / data["file"])
        variant_dirs.append(vdir)
        entries.append(IndexEntry.of(v, opts.serving, str(out.resolve()), opts.command))
    if counted is not None and writes:
        counted(what, len(writes), len(writes))


def writing_words(folders: int, warm: bool) -> str:
    """The write step's progress line: ``"writing 8 variant folders (config, model)"``, with ``warm-up data`` only
    where a variant has a ``model_warmup`` (``warm``; trial 27, T27-10: said of a build with no warm-up)."""
    return f"writing {count(folders, 'variant folder')} (config, {'warm-up data, ' if warm else ''}model)"
