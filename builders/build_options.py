"""What ``builders build`` is asked (:class:`BuildOptions`), what it wrote (:class:`BuildResult`), and what its
export step reads (:class:`ExportStep`, moved from :mod:`builders.build_exports`: the steps below it read it too)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from builders.backends import DEFAULT_SERVING
from builders.config.variants import GridPlan, VariantGrid
from builders.export.onnx import DEFAULT_OPSET
from builders.export.tensorrt import DEFAULT_WORKSPACE_BYTES
from builders.model.models import check_model_form
from builders.model.spec import ModelSpec
from builders.repository.build_folder import Staging
from builders.repository.records import BuildManifest
from builders.repository.view import DEFAULT_REPOSITORY
from core import progress

#: The progress callback: called with one line per build step (``"onnx fp32: exporting"``).
Progress = Callable[[str], None]
#: The progress of a long step: ``(what, done, total, sizes)`` units (``"torchscript fp16: verifying on cpu"``,
#: 12, 25: verification's points × draws; ``"onnx fp32: exporting via dynamo"``, 0 then 1, 1), which the CLI draws
#: as it goes (:class:`core.progress.CountedProgress`).
Counted = progress.Counted


@dataclass(config=ConfigDict(arbitrary_types_allowed=True))
class BuildOptions:
    """Everything ``builders build`` needs.

    Checked when made (a pydantic dataclass): a path may be given as ``str`` or any
    ``os.PathLike`` and becomes a ``Path``, a list where a tuple is expected becomes a tuple;
    a value of another type raises ``pydantic.ValidationError`` naming the field, before
    anything is built.

    Attributes:
        model: A built-in name (``mlp``, ``tiny``...), ``package.module:factory``, a ``.pt``
            / ``.pt2`` file, or an ``nn.Module`` object (with ``spec`` or ``example_inputs``).
        spec_path: JSON input spec (required for a user's factory; see :class:`ModelSpec`).
        formats: Export formats, subset of ``("torchscript", "onnx", "trt")``.
        precisions: ``fp32``/``fp16``/``bf16``; each is exported and verified separately.
        grid: The variant grid written for every (format, precision).
        serving: ``"python"`` (python-backend models, what the bundled CPU server serves) or
            ``"native"`` (pytorch_libtorch / onnxruntime_onnx / tensorrt_plan).
        repository: Model repository folder (default ``model_repository``).
        build_dir: Where artifacts, manifest and reference data go (``builds/<model>``).
        opset: ONNX opset.
        rtol: Per-output relative tolerance overrides (output name -> rtol); the default
            per precision is :attr:`core.precision.Precision.rtol` (fp32 1e-4, fp16/bf16 1e-2).
        force: Re-export even when an identical build exists.
        replace: Write over variants of the repository whose name this build's variants have
            but that differ from them (another serving, parameters or build folder); without it
            such a build is refused before any export
            (:func:`builders.repository.replacing.refuse_replacing`).
        spec: An input spec given directly (e.g. from ``--input`` flags); wins over ``spec_path``.
        workspace_bytes: TensorRT builder workspace limit, bytes (default 4 GiB).
        timing_cache: TensorRT timing cache file (default ``<build_dir>/<model>/trt_timing.cache``).
        external_data_threshold_bytes: ONNX weights above this many bytes go to
            ``model.onnx.data`` (default 1.8 GiB, under the 2 GiB protobuf limit).
        name: The model's name (build folder ``<build_dir>/<name>``, first part of every
            variant name); default: the built-in's name, the factory's function name, the
            model file's stem, or an ``nn.Module``'s class name in lower case.
        sample_path: The user's own inputs (``.npz``, one array per input name), verified
            beside the generated draws (:func:`builders.verify.input_draws.load_sample`).
        example_inputs: One batch of example inputs for a model given without a spec (an
            ``nn.Module`` in a notebook, say): a tensor, a tuple in ``forward()`` order or a
            dict by input name, each ``[batch, ...]``; every other axis is static
            (:meth:`builders.model.spec.ModelSpec.from_example`).
        plans: TensorRT plans built elsewhere, by precision (``--plan fp16=PATH``; the
            command ``--print-trtexec`` prints builds them): taken instead of building the
            ``trt`` export of that precision (:func:`builders.export.tensorrt.import_plan`),
            verified where TensorRT and a GPU are, else marked not verified here.
        warmup_count: Runs of each ``model_warmup`` sample of the warmup variants
            (``--warmup-count``); ``None``: :data:`builders.config.warmup.DEFAULT_WARMUP_COUNT`,
            recorded in the manifest as a default, not a measurement.
        warmup_count_reason: Why ``warmup_count`` (the measurement ``triton-perf coldstart``
            printed), kept in the manifest.
    """

    model: Any
    spec_path: Path | None = None
    formats: tuple[str, ...] = ("torchscript", "onnx")
    precisions: tuple[str, ...] = ("fp32",)
    grid: VariantGrid = dataclasses.field(default_factory=VariantGrid)
    serving: str = DEFAULT_SERVING
    repository: Path = DEFAULT_REPOSITORY
    build_dir: Path = Path("builds")
    opset: int = DEFAULT_OPSET
    rtol: dict[str, float] = dataclasses.field(default_factory=dict)
    force: bool = False
    replace: bool = False
    spec: ModelSpec | None = None
    workspace_bytes: int = DEFAULT_WORKSPACE_BYTES
    timing_cache: Path | None = None
    external_data_threshold_bytes: int = int(1.8 * 2**30)
    name: str | None = None
    sample_path: Path | None = None
    example_inputs: Any = None
    plans: dict[str, Path] = dataclasses.field(default_factory=dict)
    warmup_count: int | None = None
    warmup_count_reason: str | None = None
    #: The command line that built it as typed, run in its folder (``cd DIR && builders build ...``), recorded in each
    #: index entry and so in every run that measures a variant (trial 27, T27-12); ``None``: built from Python.
    command: str | None = None

    def __post_init__(self) -> None:
        """``model``'s form checked from its text before anything is imported (:func:`builders.model.models.check_model_form`)."""
        check_model_form(self.model)

    def spec_source(self, kind: str) -> str:
        """Where the input spec came from, in words (``kind``: the loaded model's kind), for
        what the manifest records of it (:func:`builders.verify.value_sources.input_ranges`)."""
        if self.spec is not None:  # a command line's words never name a Python field (trial 30, F18)
            return "the --input flags" if self.command is not None else "BuildOptions(spec=...)"
        if self.spec_path is not None:
            return f"the spec file {self.spec_path}"
        if self.example_inputs is not None:
            return "example_inputs (their smallest and largest values)"
        return "the built-in model's spec" if kind == "builtin" else f"the {kind} model's spec"


@dataclasses.dataclass
class BuildResult:
    """What a build wrote: the manifest (as saved), its path, and the variant folders."""

    manifest: dict[str, Any]
    manifest_path: Path
    variant_dirs: list[Path]


@dataclasses.dataclass
class ExportStep:
    """What the export step of one build reads, and the manifest it adds to.

    Attributes:
        opts: What to build.
        say: The progress callback (one line per step).
        module: The eager model (``nn.Module``).
        spec: Its I/O signature, outputs inferred from the eager model.
        model_hash: The weights' hash followed by the model source's fingerprint: the part of
            every reuse key that says which model this is.
        versions: Library versions (part of every reuse key).
        out: The build folder, ``<build_dir>/<model>``.
        old: The manifest of the build found in ``out``; ``None`` when there is none.
        plan: The variant grid, planned before any export.
        sample: The user's own inputs by input name (``--sample``); ``None`` without them.
        manifest: The manifest being filled in; each export adds a record to its ``exports``.
        staging: Where fresh exports are written (moved into ``out`` when the build succeeds).
        counted: The progress of a long step (an export, a TensorRT build, verification's points × draws);
            ``None``: none drawn.
        verified: This build's verifications so far: ``(what, seconds)``, e.g. ``("torchscript fp32 via
            script on cpu", 569.0)``; every one runs the same points × draws (one max_batch_size a build),
            so the latest says up front what the next costs.
        replaced: The lines of exports that replace the earlier build's of other content, said once the build
            commits them (break-it F26: said as they were made, before a refusal that wrote nothing).
    """

    opts: BuildOptions
    say: Progress
    module: Any
    spec: ModelSpec
    model_hash: str
    versions: dict[str, str | None]
    out: Path
    old: BuildManifest | None
    plan: GridPlan
    sample: dict[str, Any] | None
    manifest: dict[str, Any]
    staging: Staging
    counted: Counted | None = None
    verified: list[tuple[str, float]] = dataclasses.field(default_factory=list)
    replaced: list[str] = dataclasses.field(default_factory=list)

    @property
    def max_batch_size(self) -> int:
        """The largest max_batch_size of the grid: what every export is built and verified for."""
        return max(self.opts.grid.max_batch_sizes)
