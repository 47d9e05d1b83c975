"""``triton-perf export-deployment``: a deployment bundle for a run's winner (:mod:`perf.deploy.bundle`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from clients.runtimes.options import ServerOptions
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, verbosity_option
from core.options import given, option
from perf.cli.report import say_outdated
from perf.cli.runs import RunFolder
from perf.sweep.options import SweepOptions


@click.command("export-deployment", cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("run_dir", metavar="RUN", type=RunFolder())
@click.option(
    "--variant",
    default=None,
    metavar="NAME",
    help="The measured variant to deploy, at its best level within the latency budget (its best peak, said to be "
    "over the budget, when none is within it) [default: the run's recommendation: the best level within the "
    "budget, else, for a run without a budget, the best peak; when no level meets the budget nothing is deployed "
    "unasked and the message names the --variant of the lowest latency at the budget's percentile and of the best "
    "peak]. The budget is on the run's percentile (its --latency-percentile, p99 by default). A run of several "
    "client workloads (--shapes sizes, several --batch-sizes) deploys the report's first pick, at the workload it "
    "names, and a named variant's level is taken at that workload; the output names it.",
)
@click.option(
    "--workload",
    default=None,
    metavar="WORKLOAD",
    help="The client workload to deploy for in a run of several, as the report's tables name it (e.g. time=16000,b=4; "
    "the b=N of a run of one batch size may be left out) [default: the report's first pick's: of every workload's pick "
    "the one with the most infer/s, for an input-size axis usually the smallest input's]; the output names the variants "
    "the other workloads pick. A run of one workload takes its own (the sizes it sent and its batch size, e.g. "
    "time=400,b=1) and refuses any other.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Bundle folder; a previous bundle there is kept beside it as OUT.previous-N (nothing you changed in it is "
    "lost); a folder that is not a bundle is refused [default: RUN/deployment-VARIANT].",
)
@option(
    ServerOptions,
    "repository",
    default=None,
    path={"file_okay": False, "exists": True},
    help="Repository holding the variant [default: the one the run swept].",
)
@click.option("--name", default=None, help="Kubernetes name of the Deployment and Service [default: triton-VARIANT].")
@click.option(
    "--image",
    default=None,
    help="tritonserver image [default: the image the run's container runtime used, else NVIDIA's image of the "
    "toolkit's default release].",
)
@option(
    SweepOptions,
    "latency_budget_ms",
    help="Latency budget (ms, on the run's percentile) the level is chosen within: the recommendation's, and a "
    "named --variant's [default: the run's own].",
)
@click.option(
    "--allow-unfinished",
    is_flag=True,
    help="Deploy the recommendation of a run that did not finish (interrupted): from what it measured before it "
    "stopped [default: refused; resume the run, or name --variant].",
)
@click.option(
    "--allow-cut",
    is_flag=True,
    help="Deploy the recommendation of a run whose time budget cut variants before they were measured: the best of "
    "the measured ones only [default: refused, naming them and the --time-budget or --resume that measures them; "
    "or name --variant].",
)
@click.option(
    "--allow-changed-model",
    is_flag=True,
    help="Bundle the variant's model files as they are now when they are not the ones the run measured (a rebuild "
    "replaced them) [default: refused, naming the files; the bundle's README says when they were not measured].",
)
@click.option(
    "--allow-refused-flags",
    is_flag=True,
    help="Deploy from a run measured with a flag passed through (--perf-analyzer-arg, --server-arg) that this version "
    "refuses, whose levels may be mislabelled [default: refused, naming the flag and why; the bundle's README says it "
    "first].",
)
@verbosity_option
def export_deployment(
    run_dir: Path,
    variant: str | None,
    workload: str | None,
    out: Path | None,
    repository: Path | None,
    name: str | None,
    image: str | None,
    latency_budget_ms: float | None,
    allow_unfinished: bool,
    allow_cut: bool,
    allow_changed_model: bool,
    allow_refused_flags: bool,
) -> None:
    """Write a deployment bundle for one variant of RUN: its model folder and Kubernetes manifests
    (PersistentVolumeClaim, loader Pod, Deployment, Service) for NVIDIA's tritonserver image.

    Without --variant the run's recommendation is deployed, and the output says so; a run that did not
    finish, or whose time budget cut variants before they were measured, takes --allow-unfinished or
    --allow-cut (its pick is of only some of them). See the
    bundle's README.md and docs/KUBERNETES.md for the kubectl steps. On a `triton-perf colocate`
    run, the bundle is its combination: one repository with each model's chosen variant and the
    manifests of one server loading them all (--name [default: triton-colocate-RUN_ID], --allow-changed-model and --image
    [default: NVIDIA's image of the toolkit's default release] apply; --variant, --workload, --latency-budget-ms,
    --allow-unfinished, --allow-cut and --allow-refused-flags, which read a sweep's run, are refused). A run another
    command is still writing (a sweep, a colocate) is refused: its pick is not made yet.
    """
    from perf.deploy.bundle import export_deployment as export
    from perf.deploy.choose import LEVEL_WORDS
    from perf.records.colocation import is_colocation
    from perf.records.run_lock import refuse_live

    refuse_live(run_dir, "its deployment bundle")  # re-check 19, NEW-4: a bundle of a run still measured
    coloc = is_colocation(run_dir)
    _refuse_sweep_only(run_dir, coloc)
    _refuse_allow_with_variant(variant is not None and not coloc)
    if coloc:
        _export_combination(run_dir, out, repository, name, image, allow_changed_model)
        return
    bundle = export(
        run_dir,
        variant,
        out,
        repository=repository,
        name=name,
        image=image,
        latency_budget_ms=latency_budget_ms,
        allow_unfinished=allow_unfinished,
        allow_changed_model=allow_changed_model,
        workload=workload,
        allow_refused_flags=allow_refused_flags,
        allow_cut=allow_cut,
    )
    c = bundle.chosen
    click.echo(f"variant: {c.variant} ({c.why})")
    if c.refused:  # the README's first line: every number below rests on it
        click.secho(c.refused, fg="yellow", err=True)
    if c.workloads:  # which workload it is for, what the others pick (trial 12, F8)
        click.echo(c.workloads)
    if c.unfinished:
        click.secho(c.unfinished, fg="yellow", err=True)
    if c.unmeasured:  # the pick of the measured variants only: said with it, as the README's first lines
        click.secho(c.unmeasured, fg="yellow", err=True)
    click.echo(f"{LEVEL_WORDS}: {c.level.describe()}")
    for caveat in c.caveats:  # the README's list (perf.deploy.caveats.level_caveats)
        click.secho(f"note: {caveat}", fg="yellow", err=True)
    if bundle.input_sizes:  # the README's words: any size taken, a range verified, the sizes measured (T26-8)
        click.echo(f"input sizes: {bundle.input_sizes}")
    if bundle.files_check is not None:
        same = bundle.files_check.verdict == "same"
        click.secho(f"model files: {bundle.files_check.text()}", fg=None if same else "yellow", err=not same)
    _say_renamed({c.variant: bundle.renamed})
    if bundle.serving_note:
        click.secho(bundle.serving_note, fg="yellow", err=True)
    for why in bundle.plan.resources.why:
        click.echo(f"resources: {why}")
    click.echo(f"image: {bundle.plan.image}")
    _said_release_check(bundle.release_check)
    click.echo(f"bundle: {bundle.folder} (README.md says how to deploy it)")
    if bundle.previous is not None:
        click.echo(f"the previous bundle there is kept as {bundle.previous}")
    from perf.deploy.stale import stale_bundles
    from perf.records.results import load

    for stale in stale_bundles(run_dir, load(run_dir)):  # another bundle of the run's, of an earlier pick (trial 22)
        click.secho(stale, fg="yellow", err=True)
    say_outdated(run_dir)  # its report.md, of an earlier state, may name another pick than this bundle's (s22z, Z-13)


def _said_release_check(checked: Any) -> None:
    """The README's lines of the image's release checks (:class:`perf.deploy.release.ReleaseCheck`):
    a check not run in yellow on stderr."""
    if checked is None:
        return
    for line in checked.lines():
        ran = not checked.not_run
        click.secho(f"image check: {line.removeprefix('- ').replace('**', '')}", fg=None if ran else "yellow", err=not ran)


def _say_renamed(renamed: dict[str, tuple[str, ...]]) -> None:
    """Say, per variant, the tensor names its bundle serves differently from what the run measured
    (:func:`perf.deploy.bundle.renamed_tensors`; the README lists them first)."""
    for variant, lines in renamed.items():
        if lines:
            click.secho(f"{variant}: the bundle serves other tensor names than the run measured:", fg="yellow", err=True)
            for line in lines:
                click.secho(f"  {line}", fg="yellow", err=True)


#: The parameters that read a sweep's run: refused for a co-location run (:func:`_refuse_sweep_only`).
_SWEEP_ONLY = ("variant", "workload", "latency_budget_ms", "allow_unfinished", "allow_cut", "allow_refused_flags")


def _refuse_sweep_only(run_dir: Path, coloc: bool) -> None:
    """Refuse the flags that read a sweep's run, typed for a co-location run (``coloc``), whose bundle is the run's
    combination (issue 26, K1: ``--workload`` and the ``--allow-*`` of a sweep's run were accepted and ignored).

    Raises:
        FlagError: one or more of them typed (exit 2), each named (:func:`core.flag_refusals.refuse_unread`).
    """
    from core.flag_refusals import Unread, refuse_unread

    why = "the bundle is the run's combination (each model's variant as the run chose it within its budgets), not a sweep's pick"
    ctx = click.get_current_context()
    flags = {p.name: p.opts[0] for p in ctx.command.params if p.name in _SWEEP_ONLY}  # as typed: --latency-budget-ms
    refuse_unread(
        given(ctx),
        [Unread(p, flags[p], coloc, why, f"drop {flags[p]}") for p in _SWEEP_ONLY],
        since=f"{Path(run_dir).name} is a co-location run, of triton-perf colocate",
    )


def _refuse_allow_with_variant(named: bool) -> None:
    """Refuse ``--allow-unfinished`` and ``--allow-cut`` typed beside ``--variant`` (``named``): they let the run's
    pick be deployed, and a named variant is deployed from an unfinished or cut run without them (break-it of
    session 19, F5: accepted and ignored).

    Raises:
        FlagError: one or both typed (exit 2), each named (:func:`core.flag_refusals.refuse_unread`).
    """
    from core.flag_refusals import Unread, refuse_unread

    why = "they let the run's own pick be deployed; a variant named with --variant is deployed without them"
    ctx = click.get_current_context()
    refuse_unread(
        given(ctx),
        [
            Unread(p, f, named, why, f"drop {f}")
            for p, f in (("allow_unfinished", "--allow-unfinished"), ("allow_cut", "--allow-cut"))
        ],
        since="--variant names the variant to deploy",
    )


def _export_combination(
    run_dir: Path, out: Path | None, repository: Path | None, name: str | None, image: str | None, allow_changed_model: bool
) -> None:
    """The bundle of a co-location run's combination (:mod:`perf.deploy.combination`)."""
    from perf.colocate.judge import describe
    from perf.deploy.combination import export_combination

    bundle = export_combination(run_dir, out, repository, name=name, image=image, allow_changed_model=allow_changed_model)
    click.echo(f"combination: {describe(bundle.pick)}")
    for check in bundle.files_checks:
        same = check.verdict == "same"
        click.secho(f"model files: {check.text()}", fg=None if same else "yellow", err=not same)
    _say_renamed(bundle.renamed)
    for note in bundle.notes:
        click.secho(note, fg="yellow", err=True)
    _said_release_check(bundle.release_check)
    for sizes in bundle.input_sizes:  # the README's words, per variant with a dynamic dim (T26-8)
        click.echo(f"input sizes: {sizes}")
    click.echo(f"bundle: {bundle.folder} (README.md says how to serve and deploy it)")
    for f in bundle.files:
        click.echo(f"  {f}")
    say_outdated(run_dir, coloc=True)  # its report.md, of an earlier state, may name another combination (s22z, Z-13)
