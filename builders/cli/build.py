"""``builders build``: export a model, verify every export against eager PyTorch, and write
the variant grid (a thin shell over :func:`builders.build.build`). The flags that are
:class:`builders.build.BuildOptions` fields take their type and default from it."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from builders import build as build_api
from builders.build_stop import BuildInterrupted
from builders.cli.build_flags import BUILD_FLAGS
from builders.cli.flags import formats_of, with_grid, with_serving
from builders.cli.summary import print_build_summary, repository_line, say_interrupted
from builders.cli.trtexec import print_trtexec as print_trtexec_commands
from builders.cli.trtexec import say_source
from builders.cli.unread import refuse_unread_build_flags, refuse_unread_printing
from builders.model.spec import ModelSpec
from builders.model.spec_flags import parse_axis_flag
from builders.plan_source import recorded_onnx
from builders.repository.records import FAILED_MANIFEST_FILE, MANIFEST_FILE, MANIFEST_KIND
from builders.triton.releases import release
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, verbosity_option
from core.cli import console as make_console
from core.errors import ConfigError, FlagError, PartialBuildError, ToolkitError
from core.names import close_names, file_problem, read_text
from core.options import given, panel
from core.precision import PRECISION_NAMES
from core.processes import ignored_stops
from core.progress import on_console, refreshing
from core.records import load_record


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
    grid_refusal: ConfigError | None,
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
    refuse_unread_build_flags(click.get_current_context(), fmts, build_precisions, plan_files, grid, serving, print_trtexec)
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
        command=typed_command(),
    )
    printing = (model, precisions, target_triton, workspace_bytes, timing_cache, build_dir, repository)
    typed = given(click.get_current_context())
    recorded = None
    if print_trtexec:
        mbs = max(grid.max_batch_sizes) if "max_batch_sizes" in typed else None
        recorded = say_source(recorded_onnx(opts, mbs, opset if "opset" in typed else None), repository)
    if recorded is not None:  # the commands only: the repository is left as it is
        refuse_unread_printing(click.get_current_context())
        print_trtexec_commands(recorded, *printing)
        return
    if grid_refusal is not None:  # the grid's flags are read (a build): its refusal, before anything is written
        raise grid_refusal
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
    with ignored_stops() as came:  # the build is written: a stop now has nothing left to stop (trial 28, T28-12)
        print_build_summary(MANIFEST_KIND.parse(result.manifest, str(result.manifest_path)), serving)
        click.echo(f"manifest: {result.manifest_path}")
        click.echo(repository_line(repository, result.variant_dirs))
        if print_trtexec:
            print_trtexec_commands(result, *printing)
    if came:
        click.secho(f"{came[0]} came once the build was written: ignored, the build above is complete", fg="yellow", err=True)


def _spec_flags_without_inputs(spec_path: Path | None, outputs: tuple[str, ...], axes: tuple[str, ...]) -> FlagError:
    """The usage error for ``--output``/``--dynamic-axis`` without ``--input``: it names the flags
    given (trial 13, T13-17: ``--spec FILE --dynamic-axis h=...`` was told about an ``--output`` never
    passed) and where a spec file holds what they say: its ``"outputs"``, and its ``"dynamic_axes"``
    with the given ranges put in (an axis matched to the file's by name, case aside), and its ``"multiple_of"`` with a
    given step (``H=64,128,256/32``)."""
    given = [f for f, values in (("--output", outputs), ("--dynamic-axis", axes)) if values]
    said = f"{' and '.join(given)} describe" if len(given) > 1 else "it describes"
    try:
        text = read_text(spec_path, "spec file", "a JSON spec", FlagError) if spec_path else "{}"
        entries = dict(json.loads(text).get("dynamic_axes") or {})
        steps = dict(json.loads(text).get("multiple_of") or {})
    except (ToolkitError, ValueError, AttributeError, TypeError):  # this message only names the file's axes
        entries, steps = {}, {}
    known, unknown = list(entries), []
    for text in axes:
        try:
            axis, bounds, step = parse_axis_flag(text)
        except ToolkitError:
            continue
        match = next((k for k in known if k.lower() == axis.lower()), None)
        if known and match is None:  # trial 22: a typo was put in the example as a new axis no input uses
            unknown.append(axis)
            continue
        entries[match or axis] = list(bounds)
        if step is not None:  # the file's step beside its range (T24-7)
            steps[match or axis] = step
    where = []
    if unknown:
        near = {a: close_names(a, known) for a in unknown}
        named = ", ".join(f"{a!r}" + (f" (did you mean {near[a][0]!r}?)" if near[a] else "") for a in unknown)
        where.append(f"--dynamic-axis {named} {'names' if len(unknown) == 1 else 'name'} no axis of its {', '.join(known)}")
    if axes:
        keys = {"dynamic_axes": entries, **({"multiple_of": steps} if steps else {})}
        example = f" ({json.dumps(keys)[1:-1]})" if entries else ""
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
        FlagError: a path that is not a readable file (a usage error, before any export: it failed after the ONNX
            export, exit 1).
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
        if (problem := file_problem(Path(path), "--plan", "*.plan")) is not None:  # a typed path: before any export
            raise FlagError(problem[0], flag="--plan", hint=problem[1])
        out[precision] = Path(path)
    return out


def typed_command() -> str | None:
    """The ``builders build`` command line as typed and the folder it ran in (``cd DIR && /venv/bin/builders build
    ...``), for the index entries; ``None`` where the process is not that command (a test's runner). The program is
    the one that ran, by its absolute path: a bare ``builders`` is found only with the toolkit's virtual environment
    active (s22z, Z-4: the advice printed ``builders build ...``, "command not found" in a new shell)."""
    if sys.argv[1:2] != ["build"]:
        return None
    ran = Path(sys.argv[0])
    if ran.name == "builders":
        program = [str(ran.absolute())]
    elif ran.parts[-3:] == ("builders", "cli", "main.py"):  # `python -m builders.cli.main build ...` (make demo's)
        program = [sys.executable, "-m", "builders.cli.main"]
    else:
        program = ["builders"]
    return f"cd {shlex.quote(str(Path.cwd()))} && {shlex.join([*program, *sys.argv[1:]])}"
