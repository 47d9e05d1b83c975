"""``builders build``: export a model, verify every export against eager PyTorch, and write
the variant grid (a thin shell over :func:`builders.build.build`). The flags that are
:class:`builders.build.BuildOptions` fields take their type and default from it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from builders import build as build_api
from builders.build import BuildOptions
from builders.build_stop import BuildInterrupted
from builders.cli.flags import EXPORT_PANEL, FORMAT_FLAGS, GRID_FLAGS, SERVING_FLAGS, formats_of, with_grid, with_serving
from builders.cli.summary import print_build_summary, repository_line, say_interrupted
from builders.cli.trtexec import print_trtexec as print_trtexec_commands
from builders.cli.trtexec import say_source
from builders.cli.unread import refuse_unread_build_flags
from builders.config.warmup import DEFAULT_WARMUP_COUNT
from builders.model.spec import ModelSpec
from builders.model.spec_flags import parse_axis_flag
from builders.plan_source import recorded_onnx
from builders.repository.records import FAILED_MANIFEST_FILE, MANIFEST_FILE, MANIFEST_KIND
from builders.triton.releases import DEFAULT_RELEASE, release
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, flag, verbosity_option
from core.cli import console as make_console
from core.errors import FlagError, PartialBuildError, ToolkitError
from core.names import file_problem, read_text
from core.options import REPOSITORY, option, panel
from core.precision import PRECISION_NAMES
from core.progress import on_console, refreshing
from core.records import load_record

MODEL_PANEL = "Model"
TRT_PANEL = "TensorRT"
OUT_PANEL = "Where it goes"


def parse_rtols(items: tuple[str, ...]) -> dict[str, float]:
    """``--rtol OUTPUT=VALUE`` flags -> ``{output: rtol}``.

    Raises:
        click.BadParameter: not ``OUTPUT=VALUE``, or a value that is not a finite number >= 0
            (NaN would make every comparison pass, a negative one every comparison fail).
    """
    out: dict[str, float] = {}
    for item in items:
        output, sep, text = item.partition("=")
        try:
            value = float(text)
        except ValueError:
            sep = ""
        if not sep or not output:
            raise click.BadParameter(f"--rtol expects OUTPUT=VALUE such as OUTPUT__0=1e-3, got {item!r}")
        if not math.isfinite(value) or value < 0:
            raise click.BadParameter(f"--rtol {item!r}: the tolerance must be a finite number >= 0, such as 1e-3")
        out[output] = value
    return out


#: The flags of ``builders build``, by help panel.
BUILD_FLAGS = (
    flag(
        "--model",
        "model",
        default="mlp",
        panel=MODEL_PANEL,
        help="Built-in model (mlp, cnn, encoder, tiny), path/to/file.py:factory or package.module:factory (a "
        "function returning the nn.Module), or a model file: .pt (TorchScript) or .pt2 (torch.export). User models "
        "need --spec or --input. The current directory is importable (as with python -m): --model mymodel:make and "
        "--model mymodel.py:make both call make() in ./mymodel.py.",
    ),
    option(
        BuildOptions,
        "name",
        show_default=False,
        panel=MODEL_PANEL,
        help="Model name: the build folder BUILD_DIR/NAME and the first part of every variant name "
        "[default: the built-in's name, the factory's function name, or the model file's stem].",
    ),
    option(
        BuildOptions,
        "spec_path",
        decls=("--spec",),
        path={"dir_okay": False},
        panel=MODEL_PANEL,
        help="JSON input spec: input names, per-sample shapes with named dynamic axes, dtypes, value ranges "
        "(`builders spec --example` prints one).",
    ),
    flag(
        "--input",
        "inputs",
        multiple=True,
        metavar="NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN]",
        panel=MODEL_PANEL,
        help="One model input, in forward() order (repeat), e.g. input_ids:int64:seq:0..30521, "
        "lengths:int64:1:1..time (a bound may name a dynamic axis: at most its size in the same request), "
        "categories:int64:3:0..4,0..11,0..29 (one range per position of the last axis: a tabular input's columns), "
        "attention_mask:int64:seq:mask (a domain) or pixels:float32:3,224,224.",
    ),
    flag(
        "--output",
        "outputs",
        multiple=True,
        metavar="NAME",
        panel=MODEL_PANEL,
        help="Output names in the order forward() returns them, tuple/dict outputs flattened (repeat).",
    ),
    flag(
        "--dynamic-axis",
        "axes",
        multiple=True,
        metavar="AXIS=MIN,OPT,MAX",
        panel=MODEL_PANEL,
        help="Range of a named dynamic axis used in --input shapes, e.g. seq=1,64,128 (repeat).",
    ),
    *FORMAT_FLAGS,
    option(BuildOptions, "opset", panel=EXPORT_PANEL, help="ONNX opset version."),
    option(
        BuildOptions,
        "rtol",
        decls=("--rtol",),
        repeat=True,
        metavar="OUTPUT=VALUE",
        parse=parse_rtols,
        panel=EXPORT_PANEL,
        help="Relative tolerance of one output, e.g. logits=1e-3 (repeat); for an integer or bool output (argmax labels), "
        "the fraction of its elements allowed to differ [default: by precision: fp32 1e-4, fp16/bf16 1e-2].",
    ),
    option(
        BuildOptions,
        "sample_path",
        decls=("--sample",),
        path={"dir_okay": False, "exists": True},
        panel=EXPORT_PANEL,
        help="Your own inputs (.npz, one array per input name, batch axis first), verified beside the generated draws.",
    ),
    option(
        BuildOptions,
        "force",
        panel=EXPORT_PANEL,
        help="Re-export even when an identical build exists, and replace a build of the same name made from another source.",
    ),
    option(
        BuildOptions,
        "replace",
        panel=EXPORT_PANEL,
        help="Write over variants of the same name that differ (another --serving, grid parameters or build folder); "
        "without it such a build is refused before any export, naming them and the runs in results/ that measured them.",
    ),
    *GRID_FLAGS,
    *SERVING_FLAGS,
    option(
        BuildOptions,
        "warmup_count",
        type=click.IntRange(1),
        panel=GRID_FLAGS[0].panel,
        help="Runs of each model_warmup sample of the --warmup variants: the count `triton-perf coldstart` (or a sweep) "
        f"measured and printed [default: {DEFAULT_WARMUP_COUNT}, recorded as a default, not measured].",
    ),
    option(
        BuildOptions,
        "warmup_count_reason",
        metavar="TEXT",
        panel=GRID_FLAGS[0].panel,
        help="Why --warmup-count is that number (the measurement triton-perf coldstart printed); kept in the build manifest.",
    ),
    option(
        BuildOptions,
        "workspace_bytes",
        decls=("--workspace-mib",),
        scale=2**20,
        type=click.INT,
        panel=TRT_PANEL,
        help="TensorRT builder workspace limit (MiB).",
    ),
    option(
        BuildOptions,
        "timing_cache",
        path={"dir_okay": False},
        panel=TRT_PANEL,
        help="TensorRT timing cache file, reused across builds [default: BUILD_DIR/<model>/trt_timing.cache].",
    ),
    flag(
        "--print-trtexec",
        is_flag=True,
        panel=TRT_PANEL,
        help="Print, per --precision, the whole `docker run` (NVIDIA's TensorRT image of the --target-triton release, the "
        "build folder mounted, paths as seen inside) that builds the TensorRT plan from the build folder's verified fp32 "
        "ONNX export of the model, and the `--plan` command that takes the plans back; nothing is built and the repository "
        "is left as it is. Without such an export it is built first (a build: its variants are written), said before.",
    ),
    flag(
        "--target-triton",
        metavar="RELEASE",
        default=DEFAULT_RELEASE,
        panel=TRT_PANEL,
        help="Triton release (yy.mm) the plans are for: the TensorRT image tag --print-trtexec uses.",
    ),
    flag(
        "--plan",
        "plans",
        multiple=True,
        metavar="[PRECISION=]PATH",
        panel=TRT_PANEL,
        help="A TensorRT plan built elsewhere (by the --print-trtexec command) for the trt export of PRECISION "
        "[default: the one --precision]; verified where TensorRT and a GPU are, else marked not verified here (repeat).",
    ),
    option(
        BuildOptions,
        "repository",
        flag=REPOSITORY,
        panel=OUT_PANEL,
        help="Model repository the variants are written to (one folder per variant, plus index.json).",
    ),
    option(
        BuildOptions,
        "build_dir",
        path={"file_okay": False},
        panel=OUT_PANEL,
        help="Artifacts, manifest.json and reference.npz go to BUILD_DIR/<model>.",
    ),
)


@click.command("build", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@panel(*BUILD_FLAGS)
@verbosity_option
@with_grid
@with_serving
def build(
    model: str,
    name: str | None,
    spec_path: Path | None,
    inputs: tuple[str, ...],
    outputs: tuple[str, ...],
    axes: tuple[str, ...],
    formats: tuple[str, ...],
    precisions: tuple[str, ...],
    grid: Any,
    serving: str,
    repository: Path,
    build_dir: Path,
    opset: int,
    rtol: dict[str, float],
    sample_path: Path | None,
    workspace_bytes: int,
    timing_cache: Path | None,
    print_trtexec: bool,
    target_triton: str,
    plans: tuple[str, ...],
    warmup_count: int | None,
    warmup_count_reason: str | None,
    force: bool,
    replace: bool,
) -> None:
    """Export MODEL, verify every export against eager PyTorch, and write the variant grid."""
    from rich.markup import escape

    spec = None
    if spec_path is not None and (problem := file_problem(spec_path, "spec file", "*.json")) is not None:
        raise FlagError(problem[0], flag="--spec", hint=problem[1])  # a typed path: before the model loads
    if inputs:
        if spec_path:
            raise click.BadParameter("give the input spec either as --spec FILE or as --input flags, not both")
        spec = ModelSpec.from_flags(list(inputs), list(outputs), list(axes))
    elif outputs or axes:
        raise _spec_flags_without_inputs(spec_path, outputs, axes)
    fmts = formats_of(formats)
    build_precisions = precisions
    plan_files = _plan_flags(plans, precisions)
    if plan_files:
        if print_trtexec:
            raise click.UsageError("--print-trtexec prints how to build the plans; --plan takes built ones back: pass one")
        fmts = fmts if "trt" in fmts else (*fmts, "trt")
        build_precisions = tuple(dict.fromkeys((*precisions, *plan_files)))
    if print_trtexec:  # a release the toolkit knows, or one clear error; build what the plans are built from (the fp32 ONNX)
        release(target_triton)
        fmts = tuple(f for f in fmts if f != "trt") or ("onnx",)
        fmts = fmts if "onnx" in fmts else (*fmts, "onnx")
        build_precisions = tuple(dict.fromkeys(("fp32", *precisions)))
    refuse_unread_build_flags(click.get_current_context(), fmts, grid, print_trtexec)
    console = make_console()
    opts = build_api.BuildOptions(
        model=model,
        spec_path=spec_path,
        formats=fmts,
        precisions=build_precisions,
        grid=grid,
        serving=serving,
        repository=repository,
        build_dir=build_dir,
        opset=opset,
        rtol=rtol,
        force=force,
        replace=replace,
        spec=spec,
        workspace_bytes=workspace_bytes,
        timing_cache=timing_cache,
        name=name,
        sample_path=sample_path,
        plans=plan_files,
        warmup_count=warmup_count,
        warmup_count_reason=warmup_count_reason,
    )
    printing = (model, precisions, target_triton, workspace_bytes, timing_cache, build_dir, repository)
    typed = click.get_current_context().get_parameter_source("max_batch_sizes") == click.core.ParameterSource.COMMANDLINE
    recorded = (
        say_source(recorded_onnx(opts, max(grid.max_batch_sizes) if typed else None), repository) if print_trtexec else None
    )
    if recorded is not None:  # the commands only: the repository is left as it is
        print_trtexec_commands(recorded, *printing)
        return
    with console.status("building...") as status, refreshing(on_console(console, status)) as counted:

        def progress(msg: str) -> None:
            counted.end()  # a step's line ends the long step before it
            status.update(escape(msg))
            console.log(escape(msg))

        try:
            result = build_api.build(opts, progress, counted)
        except BuildInterrupted as stop:  # what it left written, what builds the rest; exit 130 (issue 26)
            say_interrupted(stop, status)
        except ToolkitError as e:  # the manifest written before the error says what was verified
            if e.log_path and Path(e.log_path).name in (MANIFEST_FILE, FAILED_MANIFEST_FILE) and Path(e.log_path).is_file():
                status.stop()
                print_build_summary(load_record(Path(e.log_path), MANIFEST_KIND), serving)
            if isinstance(e, PartialBuildError) and isinstance(e.result, build_api.BuildResult):  # what passed was written: where
                click.echo(f"manifest: {e.result.manifest_path}")
                click.echo(repository_line(repository, e.result.variant_dirs))
            raise
    print_build_summary(MANIFEST_KIND.parse(result.manifest, str(result.manifest_path)), serving)
    click.echo(f"manifest: {result.manifest_path}")
    click.echo(repository_line(repository, result.variant_dirs))
    if print_trtexec:
        print_trtexec_commands(result, *printing)


def _spec_flags_without_inputs(spec_path: Path | None, outputs: tuple[str, ...], axes: tuple[str, ...]) -> FlagError:
    """The usage error for ``--output``/``--dynamic-axis`` without ``--input``: it names the flags
    given (trial 13, T13-17: ``--spec FILE --dynamic-axis h=...`` was told about an ``--output`` never
    passed) and where a spec file holds what they say: its ``"outputs"``, and its ``"dynamic_axes"``
    with the given ranges put in (an axis matched to the file's by name, case aside)."""
    given = [f for f, values in (("--output", outputs), ("--dynamic-axis", axes)) if values]
    said = f"{' and '.join(given)} describe" if len(given) > 1 else "it describes"
    try:
        text = read_text(spec_path, "spec file", "a JSON spec", FlagError) if spec_path else "{}"
        entries = dict(json.loads(text).get("dynamic_axes") or {})
    except (ToolkitError, ValueError, AttributeError, TypeError):  # this message only names the file's axes
        entries = {}
    for text in axes:
        try:
            axis, bounds = parse_axis_flag(text)
        except ToolkitError:
            continue
        entries[next((k for k in entries if k.lower() == axis.lower()), axis)] = list(bounds)
    where = []
    if axes:
        example = f" ({json.dumps({'dynamic_axes': entries})[1:-1]})" if entries else ""
        where.append(f'a spec file sizes its axes in its "dynamic_axes"{example}')
    if outputs:
        where.append('a spec file names its outputs in its "outputs"')
    if spec_path is None:
        return FlagError(
            f"{said} a spec given with --input flags, and no --input was given",
            flag=given[0],
            hint="give the model's inputs with --input NAME:DTYPE:DIMS too, or " + "; ".join(where) + " (--spec FILE)",
        )
    return FlagError(
        f"{said} a spec given with --input flags and cannot change the spec file {spec_path} (--spec)",
        flag=given[0],
        hint="; ".join(where) + f": change it in {spec_path} and drop {' and '.join(given)}",
    )


def _plan_flags(values: tuple[str, ...], precisions: tuple[str, ...]) -> dict[str, Path]:
    """``--plan [PRECISION=]PATH`` flags -> ``{precision: path}``; a bare path is for the one ``--precision``.

    Raises:
        click.BadParameter: a bare path with several precisions, or one precision twice.
    """
    out: dict[str, Path] = {}
    for v in values:
        head, sep, tail = v.partition("=")
        if sep and head in PRECISION_NAMES:
            precision, path = head, tail
        elif len(precisions) == 1:
            precision, path = precisions[0], v
        else:
            raise click.BadParameter(f"--plan {v!r}: say which precision it is, e.g. --plan fp16={v}")
        if precision in out:
            raise click.BadParameter(f"--plan: two plans for {precision}")
        out[precision] = Path(path)
    return out
