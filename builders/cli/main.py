"""``builders``: export a PyTorch model, verify it, and write Triton config variants.

A thin shell over :func:`builders.build.build`; ``--help`` imports neither torch nor tensorrt.
"""

from __future__ import annotations

import functools
import json
import math
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from builders import build as build_api
from builders.backends import DEFAULT_SERVING, LEGACY_SERVINGS, SERVINGS, servable
from builders.cli.inspect import inspect
from builders.config.variants import KINDS, VariantGrid, parse_queue_delays
from builders.config.warmup import DEFAULT_WARMUP_COUNT
from builders.export.tensorrt import CONTAINER_BUILD_DIR, trtexec_docker_command
from builders.graph.facts import build_summary_lines
from builders.model.builtin import get_builtin
from builders.model.spec import ModelSpec
from builders.repository.records import MANIFEST_FILE, MANIFEST_KIND, BuildManifest, FailedExport
from builders.repository.validate import relative, summary
from builders.repository.validate import validate as validate_run
from builders.repository.view import DEFAULT_REPOSITORY
from builders.triton.releases import DEFAULT_RELEASE, release
from builders.verify.verdicts import describe
from core.cli import console as make_console
from core.cli import group, list_option, print_table, run_cli, verbosity_option
from core.errors import ConfigError, PartialBuildError, ToolkitError
from core.formats import FORMAT_NAMES
from core.naming import WARMUPS
from core.precision import PRECISION_NAMES, TRT_ACCELERATOR_PRECISIONS
from core.records import load_record


def serving_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--serving python|native`` (and its deprecated alias ``--runtime bundled|native``); adds ``serving``.

    ``--runtime`` is the build switch's old name, kept for one release: it prints a
    deprecation warning and maps through :data:`builders.backends.LEGACY_SERVINGS`
    (``bundled`` -> ``python``, ``native`` -> ``native``). Giving both with different
    meanings is a usage error.
    """

    @click.option(
        "--serving",
        type=click.Choice(SERVINGS),
        default=None,
        help=f"How variants are served: python (a python-backend model.py running the export; what the bundled "
        f"CPU server serves) or native (pytorch_libtorch / onnxruntime_onnx / tensorrt_plan). [default: {DEFAULT_SERVING}]",
    )
    @click.option(
        "--runtime",
        "legacy_runtime",
        type=click.Choice(sorted(LEGACY_SERVINGS)),
        default=None,
        help="Deprecated alias of --serving (bundled = python, native = native); removed in the next release.",
    )
    @functools.wraps(fn)
    def wrapper(*args: Any, serving: str | None, legacy_runtime: str | None, **kwargs: Any) -> Any:
        if legacy_runtime is not None:
            mapped = LEGACY_SERVINGS[legacy_runtime]
            if serving is not None and serving != mapped:
                raise click.BadParameter(
                    f"--runtime {legacy_runtime} (deprecated) means --serving {mapped}, "
                    f"but --serving {serving} was given too; drop --runtime"
                )
            msg = (
                f"--runtime {legacy_runtime} is deprecated for the build and will be removed in the next release: "
                f"use --serving {mapped}"
            )
            click.secho(f"warning: {msg}", fg="yellow", err=True)
            serving = mapped
        return fn(*args, serving=serving or DEFAULT_SERVING, **kwargs)

    return wrapper


def _queue_delay(text: str) -> int | None:
    """One ``--dynamic-batching`` item by :func:`builders.config.variants.parse_queue_delays`: ``off`` -> None, ``500`` -> 500."""
    try:
        return parse_queue_delays(text)[0]
    except ConfigError as e:
        raise ValueError(e.message) from None


def off_or(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """An item converter where ``off`` (or ``none``) means ``None``: ``--warmup off,zero``."""

    def conv(text: str) -> Any:
        return None if text.lower() in ("off", "none") else convert(text)

    return conv


def _grid_default(field: str) -> tuple[Any, ...]:
    """A grid flag's default: :class:`VariantGrid`'s own (the one place it is kept), in the
    flag's words (``None`` -> ``off``)."""
    value = VariantGrid.__dataclass_fields__[field].default
    assert isinstance(value, tuple)
    return tuple("off" if v is None else v for v in value)


def grid_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The variant-grid flags, shared by ``build`` and ``variants``; adds ``grid`` (a VariantGrid).

    Every list flag takes a comma list or repeats (``--instance-kind cpu,gpu`` ==
    ``--instance-kind cpu --instance-kind gpu``); ``off`` means "no dynamic batching", "no
    warmup", "no TensorRT accelerator".
    """

    @list_option(
        "--instance-kind",
        "kinds",
        item=click.Choice(KINDS),
        default=_grid_default("kinds"),
        help="Instance kind(s): cpu (KIND_CPU), gpu (KIND_GPU), auto (gpu where the server has a GPU, else cpu). "
        "KIND_GPU variants are skipped (and listed) where the server has no GPU.",
    )
    @list_option(
        "--instance-counts",
        item=click.IntRange(1),
        default=_grid_default("counts"),
        metavar="N[,N...]",
        help="instance_group count values.",
    )
    @list_option(
        "--dynamic-batching",
        "batching",
        item=_queue_delay,
        default=_grid_default("queue_delays_us"),
        metavar="off|US[,...]",
        help="Dynamic batching: off and/or max_queue_delay_microseconds values (µs), e.g. off,100,500.",
    )
    @list_option(
        "--preferred-batch-sizes",
        item=click.IntRange(1),
        metavar="N[,N...]",
        help="dynamic_batching.preferred_batch_size values, e.g. 8,16 [default: none: the batcher's own choice].",
    )
    @list_option(
        "--max-batch-sizes",
        item=click.IntRange(0),
        default=_grid_default("max_batch_sizes"),
        metavar="N[,N...]",
        help="max_batch_size values, e.g. 0,16,64 (0 = no batch axis).",
    )
    @list_option(
        "--gpus",
        item=click.IntRange(0),
        metavar="ID[,ID...]",
        help="GPU ids for KIND_GPU instance groups, e.g. 0,1 [default: all].",
    )
    @list_option(
        "--warmup",
        "warmups",
        item=off_or(click.Choice(WARMUPS)),
        default=_grid_default("warmups"),
        metavar="off|random|zero[,...]",
        help="Model warmup settings (Triton model_warmup with random or zero data), e.g. off,zero.",
    )
    @list_option(
        "--trt-accelerator",
        "accelerators",
        item=off_or(click.Choice(TRT_ACCELERATOR_PRECISIONS)),
        default=_grid_default("trt_accelerators"),
        metavar="off|fp32|fp16[,...]",
        help="ONNX on KIND_GPU: onnxruntime's TensorRT execution accelerator (precision_mode).",
    )
    @click.option(
        "--server-gpu/--no-server-gpu",
        "server_gpu",
        default=None,
        show_default=False,
        help="Whether the server that loads the repository has a GPU [default: whether this host has one].",
    )
    @functools.wraps(fn)
    def wrapper(
        *args: Any,
        kinds: tuple[str, ...],
        instance_counts: tuple[int, ...],
        batching: tuple[int | None, ...],
        preferred_batch_sizes: tuple[int, ...],
        max_batch_sizes: tuple[int, ...],
        gpus: tuple[int, ...],
        warmups: tuple[str | None, ...],
        accelerators: tuple[str | None, ...],
        server_gpu: bool | None,
        **kwargs: Any,
    ) -> Any:
        given: dict[str, Any] = {
            "kinds": kinds,
            "counts": instance_counts,
            "queue_delays_us": batching,
            "preferred_batch_sizes": preferred_batch_sizes,
            "max_batch_sizes": max_batch_sizes,
            "gpus": gpus,
            "warmups": warmups,
            "trt_accelerators": accelerators,
        }
        # an empty list (``--max-batch-sizes ""``) keeps the grid's own default
        grid = VariantGrid(**{k: v for k, v in given.items() if v}, server_gpu=server_gpu)
        return fn(*args, grid=grid, **kwargs)

    return wrapper


def format_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--format`` and ``--precision`` (comma lists or repeated), shared by ``build`` and ``variants``."""
    fn = list_option(
        "--precision",
        "precisions",
        item=click.Choice(PRECISION_NAMES),
        default=("fp32",),
        help="Precision(s) to export and verify, e.g. fp32,fp16.",
    )(fn)
    return list_option(
        "--format",
        "formats",
        item=click.Choice([*FORMAT_NAMES, "all"]),
        default=("torchscript", "onnx"),
        help="Export format(s), e.g. torchscript,onnx; all = every format.",
    )(fn)


SUMMARY_COLUMNS = ("format", "precision", "strategy", "verified on", "worst error per output", "status")


def summary_rows(manifest: BuildManifest) -> list[list[str]]:
    """One row per export and device it was verified on (:data:`SUMMARY_COLUMNS`); a failed
    export gets one row with each strategy's failed stage."""
    rows = []
    for e in manifest.exports:
        if isinstance(e, FailedExport):
            tried = (
                "; ".join(
                    f"{a.strategy}: {'verification' if a.stage == 'verify' else 'export'} failed" for a in e.attempts if not a.ok
                )
                or "-"
            )
            rows.append([e.format, e.precision, tried, "-", "-", f"failed ({e.failed})"])
            continue
        verdicts = e.verdicts or []
        if not verdicts:  # a manifest from before verdicts
            rows.append([e.format, e.precision, e.strategy, "-", _errors(e.errors), "unknown (older build)"])
        for v in verdicts:
            on = f"{v.verified_on.runner} ({v.verified_on.device}, computes in {v.verified_on.computes_in})"
            if v.status == "not_verified_device":  # nothing ran: name what would have, not a place it ran
                on = f"nothing (would be {v.verified_on.runner} on {v.verified_on.device})"
            rows.append(
                [
                    e.format,
                    e.precision,
                    e.strategy,
                    on,
                    _errors(v.errors) if v.errors else "-",
                    describe(v.status, e.precision, v.verified_on.device),
                ]
            )
    return rows


def _errors(errors: dict[str, Any]) -> str:
    return "\n".join(f"{name}: abs {o.max_abs_err:.2e}, rel {o.max_rel_err:.2e} (rtol {o.rtol:g})" for name, o in errors.items())


def print_build_summary(manifest: BuildManifest) -> None:
    """Print the build's one-table summary to stdout: a rich table on a terminal, plain text
    otherwise; then why any verdict is not ``ok`` (the reasons recorded in the manifest) and one
    graph-health line per export (:func:`builders.graph.facts.build_summary_lines`)."""
    from rich.markup import escape
    from rich.table import Table
    from tabulate import tabulate

    rows = summary_rows(manifest)
    reasons = dict.fromkeys(
        f"{e.format} {e.precision}: {describe(v.status, e.precision, v.verified_on.device)}: {v.reason}"
        for e in manifest.exports
        if not isinstance(e, FailedExport)
        for v in e.verdicts
        if v.reason
    )
    reasons.update(dict.fromkeys(build_summary_lines(manifest)))
    console = make_console(stderr=False)
    if console.is_terminal:
        table = Table(title=f"build of {escape(manifest.model)}")
        for col in SUMMARY_COLUMNS:
            table.add_column(col, overflow="fold", no_wrap=col in ("format", "precision"))
        for row in rows:
            table.add_row(*(escape(c) for c in row))
        console.print(table)
        for r in reasons:
            console.print(escape(r), highlight=False)
    else:
        click.echo(tabulate(rows, headers=SUMMARY_COLUMNS, tablefmt="simple"))
        for r in reasons:
            click.echo(r)
    if manifest.warmup_count is not None:
        w = manifest.warmup_count
        click.echo(f"model_warmup: each sample runs {w.count}x ({w.reason})")


def _formats(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(FORMAT_NAMES if v == "all" else (v,))
    return tuple(dict.fromkeys(out))


@group()
def cli() -> None:
    """Export PyTorch models to TorchScript / ONNX / TensorRT and write Triton model-repository variants."""


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


@cli.command()
@click.option(
    "--model",
    "model",
    default="mlp",
    help="Built-in model (mlp, cnn, encoder, tiny), package.module:factory returning an nn.Module, "
    "or a model file: .pt (TorchScript) or .pt2 (torch.export). User models need --spec or --input. "
    "The current directory is importable (as with python -m): --model mymodel:make finds ./mymodel.py.",
)
@click.option(
    "--name",
    default=None,
    show_default=False,
    help="Model name: the build folder BUILD_DIR/NAME and the first part of every variant name "
    "[default: the built-in's name, the factory's function name, or the model file's stem].",
)
@click.option(
    "--spec",
    "spec_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSON input spec: input names, per-sample shapes with named dynamic axes, dtypes, value ranges "
    "(`builders spec --example` prints one).",
)
@click.option(
    "--input",
    "inputs",
    multiple=True,
    metavar="NAME:DTYPE:SHAPE[:LOW..HIGH]",
    help="One model input, in forward() order (repeat), e.g. input_ids:int64:seq:0..30521 or pixels:float32:3,224,224.",
)
@click.option(
    "--output",
    "outputs",
    multiple=True,
    metavar="NAME",
    help="Output names in the order forward() returns them, tuple/dict outputs flattened (repeat).",
)
@click.option(
    "--dynamic-axis",
    "axes",
    multiple=True,
    metavar="AXIS=MIN,OPT,MAX",
    help="Range of a named dynamic axis used in --input shapes, e.g. seq=1,64,128 (repeat).",
)
@format_options
@grid_options
@serving_option
@click.option(
    "--repository",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_REPOSITORY,
    help="Model repository the variants are written to (one folder per variant, plus index.json).",
)
@click.option(
    "--build-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("builds"),
    show_default=True,
    help="Artifacts, manifest.json and reference.npz go to BUILD_DIR/<model>.",
)
@click.option("--opset", type=int, default=18, show_default=True, help="ONNX opset version.")
@click.option(
    "--rtol",
    "rtols",
    multiple=True,
    metavar="OUTPUT=VALUE",
    help="Relative tolerance of one output, e.g. logits=1e-3 (repeat) [default: by precision: fp32 1e-4, fp16/bf16 1e-2].",
)
@click.option(
    "--sample",
    "sample_path",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Your own inputs (.npz, one array per input name, batch axis first), verified beside the generated draws.",
)
@click.option("--workspace-mib", type=int, default=4096, show_default=True, help="TensorRT builder workspace limit (MiB).")
@click.option(
    "--timing-cache",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TensorRT timing cache file, reused across builds [default: BUILD_DIR/<model>/trt_timing.cache].",
)
@click.option(
    "--print-trtexec",
    is_flag=True,
    help="Build the ONNX export, then print, per --precision, the whole `docker run` (NVIDIA's TensorRT image of the "
    "--target-triton release, the build folder mounted, paths as seen inside) that builds the TensorRT plan, "
    "and the `--plan` command that takes the plans back.",
)
@click.option(
    "--target-triton",
    metavar="RELEASE",
    default=DEFAULT_RELEASE,
    help="Triton release (yy.mm) the plans are for: the TensorRT image tag --print-trtexec uses.",
)
@click.option(
    "--plan",
    "plans",
    multiple=True,
    metavar="[PRECISION=]PATH",
    help="A TensorRT plan built elsewhere (by the --print-trtexec command) for the trt export of PRECISION "
    "[default: the one --precision]; verified where TensorRT and a GPU are, else marked not verified here (repeat).",
)
@click.option(
    "--warmup-count",
    type=click.IntRange(1),
    default=None,
    help="Runs of each model_warmup sample of the --warmup variants: the count `triton-perf coldstart` (or a sweep) measured "
    f"and printed [default: {DEFAULT_WARMUP_COUNT}, recorded as a default, not measured].",
)
@click.option(
    "--warmup-count-reason",
    metavar="TEXT",
    default=None,
    help="Why --warmup-count is that number (the measurement triton-perf coldstart printed); kept in the build manifest.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Re-export even when an identical build exists, and replace a build of the same name made from another source.",
)
@verbosity_option
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
    rtols: tuple[str, ...],
    sample_path: Path | None,
    workspace_mib: int,
    timing_cache: Path | None,
    print_trtexec: bool,
    target_triton: str,
    plans: tuple[str, ...],
    warmup_count: int | None,
    warmup_count_reason: str | None,
    force: bool,
) -> None:
    """Export MODEL, verify every export against eager PyTorch, and write the variant grid."""
    from rich.markup import escape

    rtol = parse_rtols(rtols)
    spec = None
    if inputs:
        if spec_path:
            raise click.BadParameter("give the input spec either as --spec FILE or as --input flags, not both")
        spec = ModelSpec.from_flags(list(inputs), list(outputs), list(axes))
    elif outputs or axes:
        raise click.BadParameter("--output and --dynamic-axis describe a spec given with --input flags")
    fmts = _formats(formats)
    build_precisions = precisions
    plan_files = _plan_flags(plans, precisions)
    if plan_files:
        if print_trtexec:
            raise click.UsageError("--print-trtexec prints how to build the plans; --plan takes built ones back: pass one")
        fmts = fmts if "trt" in fmts else (*fmts, "trt")
        build_precisions = tuple(dict.fromkeys((*precisions, *plan_files)))
    if print_trtexec:
        release(target_triton)  # a release the toolkit knows, or one clear error
    if print_trtexec:  # build what the plans are built from (the fp32 ONNX), not the plans
        fmts = tuple(f for f in fmts if f != "trt") or ("onnx",)
        fmts = fmts if "onnx" in fmts else (*fmts, "onnx")
        build_precisions = tuple(dict.fromkeys(("fp32", *precisions)))
    console = make_console()
    opts = build_api.BuildOptions(
        model,
        spec_path,
        fmts,
        build_precisions,
        grid,
        serving,
        repository,
        build_dir,
        opset,
        rtol,
        force,
        spec=spec,
        workspace_bytes=workspace_mib << 20,
        timing_cache=timing_cache,
        name=name,
        sample_path=sample_path,
        plans=plan_files,
        warmup_count=warmup_count,
        warmup_count_reason=warmup_count_reason,
    )
    with console.status("building...") as status:

        def progress(msg: str) -> None:
            status.update(escape(msg))
            console.log(escape(msg))

        try:
            result = build_api.build(opts, progress)
        except ToolkitError as e:  # the manifest written before the error says what was verified
            if e.log_path and Path(e.log_path).name == MANIFEST_FILE and Path(e.log_path).is_file():
                status.stop()
                print_build_summary(load_record(Path(e.log_path), MANIFEST_KIND))
            if isinstance(e, PartialBuildError) and isinstance(e.result, build_api.BuildResult):  # what passed was written: where
                click.echo(f"manifest: {e.result.manifest_path}")
                click.echo(f"repository: {repository} ({len(e.result.variant_dirs)} variants)")
            raise
    print_build_summary(MANIFEST_KIND.parse(result.manifest, str(result.manifest_path)))
    click.echo(f"manifest: {result.manifest_path}")
    click.echo(f"repository: {repository} ({len(result.variant_dirs)} variants)")
    if print_trtexec:
        built = ModelSpec.from_json(result.manifest["spec"])
        folder = result.manifest_path.parent  # plans of every precision are built from its fp32 model.onnx
        mbs = result.manifest["max_batch_size"]
        click.echo(
            f"\nBuild the TensorRT plan(s) on a host with the serving GPU and Docker (NVIDIA's TensorRT {target_triton} "
            f"image carries the TensorRT of Triton {target_triton}); {folder.resolve()} is mounted at {CONTAINER_BUILD_DIR}:"
        )
        for precision in precisions:
            click.echo(
                "  " + trtexec_docker_command(folder, precision, built, mbs, target_triton, workspace_mib << 20, timing_cache)
            )
        back = [f"--plan={p}={folder / ('model.plan' if p == 'fp32' else f'{p}/model.plan')}" for p in precisions]
        click.echo(
            "then take them back (variants written; verified where TensorRT and a GPU are, else marked not verified here):"
        )
        again = ["builders", "build", "--model", str(model), "--name", result.manifest["model"], "--build-dir", str(build_dir)]
        again += ["--repository", str(repository), "--format", "trt", "--serving", "native", "--instance-kind", "gpu"]
        click.echo("  " + shlex.join([*again, "--server-gpu", *back]) + " [same --input/--spec and grid flags]")


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


@cli.command()
@click.option("--model", default="mlp", help="Model name used in variant names.")
@format_options
@grid_options
@serving_option
def variants(model: str, formats: tuple[str, ...], precisions: tuple[str, ...], grid: Any, serving: str) -> None:
    """Print the variant grid as a table, without building anything; skipped grid points are listed with why."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    fmts = _formats(formats)
    fmts = tuple(f for f in fmts if servable(f, serving))
    plan = grid.plan(model, fmts, precisions, serving=serving)
    table = Table(title=escape(f"{len(plan.variants)} variants ({serving} serving)"))
    table.add_column("name", no_wrap=True)
    for col in ("format", "precision", "instance group", "dynamic batching", "max_batch_size", "warmup", "ORT-TRT"):
        table.add_column(col)
    for v in plan.variants:
        db = (
            f"on, {v.max_queue_delay_us} µs" + (f", preferred {list(v.preferred_batch_sizes)}" if v.preferred_batch_sizes else "")
            if v.dynamic_batching
            else "off"
        )
        group = f"KIND_{v.kind.upper()} x{v.count}" + (f" gpus {list(v.gpus)}" if v.gpus else "")
        table.add_row(
            *(
                escape(str(x))
                for x in (
                    v.name,
                    v.format,
                    v.precision,
                    group,
                    db,
                    v.max_batch_size,
                    v.warmup or "off",
                    v.trt_accelerator or "off",
                )
            )
        )
    console = Console()
    print_table(table, console)
    if not servable("trt", serving) and "trt" in _formats(formats):
        console.print("skipped trt: the python backend cannot serve TensorRT plans (use --serving native)")
    for s in plan.skipped:
        console.print(escape(f"skipped {s.what}: {s.reason}"))
    if not plan.variants:
        raise ConfigError(
            "the variant grid is empty: every grid point was skipped (listed above)",
            hint="widen the grid, e.g. add --dynamic-batching off or a max_batch_size > 0",
        )


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--server-gpu/--no-server-gpu",
    "server_gpu",
    default=None,
    help="Whether the server has a GPU: --no-server-gpu reports KIND_GPU instance groups (default: not checked).",
)
@click.option("--no-artifacts", is_flag=True, help="Do not open model files to compare their inputs and outputs with the config.")
@click.option(
    "--load-artifacts",
    is_flag=True,
    help="Also load TorchScript archives and TensorRT plans (in a separate process): loading them can run code "
    "from the file, so by default only ONNX graphs (plain protobuf) are read.",
)
@click.option(
    "--target-triton",
    metavar="RELEASE",
    default=None,
    help="The Triton release that will serve the repository: container tag (24.10) or, where the table has it, server version (2.56.0). "
    "Checks ONNX IR version/opset against its ONNX Runtime and TensorRT plans against its TensorRT; "
    "a check whose version is not confirmed for that release is listed as not run.",
)
@verbosity_option
def validate(path: Path, server_gpu: bool | None, no_artifacts: bool, load_artifacts: bool, target_triton: str | None) -> None:
    """Check a Triton model repository (or one model folder) and report every problem.

    Checks that each config.pbtxt parses, its name equals its folder, version folders are
    integers, the model file the platform expects exists, inputs/outputs match the artifact
    (ONNX graph and its external data; TorchScript module and TensorRT engine with
    --load-artifacts), outputs match what the build recorded, Triton's batching rules hold
    and, with --target-triton, the artifacts fit that release. Checks that did not run are
    listed. Exits 1 when there is any problem.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    target = release(target_triton) if target_triton is not None else None
    result = validate_run(
        path, server_gpu=server_gpu, check_artifacts=not no_artifacts, load_artifacts=load_artifacts, target=target
    )
    console = Console()
    for title, rows, style in ((f"problems in {path}", result.problems, "red"), ("checks not run", result.skipped, "yellow")):
        if not rows:
            continue
        table = Table(title=escape(title), show_lines=True, title_style=style)
        for col in (
            "file",
            "check" if rows is result.skipped else "field",
            "why" if rows is result.skipped else "problem",
            "what to do",
        ):
            table.add_column(col, overflow="fold")
        for p in rows:
            table.add_row(*(escape(x) for x in (relative(p.file, path), p.field, p.problem, p.fix)))
        print_table(table, console)
    for note in result.notes:
        console.print(escape(note))
    console.print(
        escape(summary(result.problems, path))
        + (f" ({len(result.skipped)} check(s) not run, listed above)" if result.skipped else "")
    )
    if result.problems:
        click.get_current_context().exit(1)


@cli.command()
@click.option(
    "--example",
    is_flag=True,
    help="Print a complete example spec (two int64 inputs with value ranges, a dynamic seq axis, two outputs).",
)
@click.option("--model", "model", metavar="NAME", help="Print the spec of a built-in model (mlp, cnn, encoder, tiny).")
def spec(example: bool, model: str | None) -> None:
    """Print an input spec as JSON: the format `builders build --spec FILE` reads.

    Keys: "inputs" (in forward() order) and "outputs" (in the order forward() returns them,
    tuple/dict outputs flattened; bare names are allowed, dtype and shape are then taken from
    the eager model), each with "name", "dtype" (float32, int64, ...), "shape" (per sample,
    without the batch axis; ints or the name of a dynamic axis) and, for integer inputs,
    "value_range" [low, high] inclusive; "dynamic_axes" maps each axis name to [min, opt, max].
    """
    if example == bool(model):
        raise click.UsageError("give exactly one of --example or --model NAME")
    click.echo(json.dumps(get_builtin(model or "encoder").spec.to_json(), indent=2))


cli.add_command(inspect)


def main() -> None:
    """The ``builders`` console script: run the command group with the toolkit's error handling."""
    run_cli(cli)


if __name__ == "__main__":
    main()
