"""A deployment bundle of a co-location run's pick (``triton-perf export-deployment`` on a
``triton-perf colocate`` run): one model repository holding the chosen variant of each model.

Layout (default folder ``<run>/deployment-combination/``):

.. code-block:: text

    README.md                      the combination, why, what each model measured alone and co-located
    model_repository/<variant>/    one folder per model of the pick (copied, natively served)
    kubernetes/storage.yaml        PersistentVolumeClaim + loader Pod (filled with kubectl cp)
    kubernetes/triton.yaml         Deployment + Service: one server loading every model at start

Each variant is copied as :func:`perf.deploy.bundle.copy_variant` copies a single-model bundle's
(a python-served one rewritten for its native backend, and the README says so, and lists first
the tensor names it serves differently from what the run measured:
:func:`perf.deploy.bundle.renamed_tensors`), after the same
check of the files it ships against the ones the run loaded
(:func:`perf.records.measured_files.refuse_changed`, :data:`~perf.records.measured_files.SHIPPED`:
a rebuild is refused unless ``allow_changed_model``, and the README says which). The manifests are
the single-model bundle's (:mod:`perf.deploy.k8s`: the same claim, loader, Deployment and
Service), for one pod serving every model of the pick; its resources add up the models'
(:func:`combined_resources`).
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path

from tritonclient.grpc import model_config_pb2 as mc

from builders.config.pbtxt import read_config
from builders.repository.view import RepositoryVariant
from clients.runtimes.options import DEFAULT_TAG, image_for_tag
from core.errors import PerfError, ToolkitError
from core.wording import count, sentence
from perf.colocate import judge, neighbours, verdict
from perf.colocate.resume import SERVER_FAILED
from perf.deploy import k8s
from perf.deploy.bundle import README_FILE, copy_variant, move_in, renamed_tensors, source_variant
from perf.deploy.input_sizes import build_ranges, input_sizes_lines, sizes_words
from perf.deploy.readme import BUNDLE_REPOSITORY, MANIFEST_DIR, SERVER_FILE, STORAGE_FILE, files_lines
from perf.deploy.release import ReleaseCheck, check_release, refuse_unloadable
from perf.markdown import fmt
from perf.records import colocation
from perf.records.colocation import ColocationRecord
from perf.records.measured_files import SHIPPED, FilesCheck, check_files, refuse_changed, refuse_missing
from perf.records.provenance import as_said

log = logging.getLogger(__name__)

#: The folder name of a combination's bundle in its run folder.
COMBINATION_DIR = "deployment-combination"


@dataclasses.dataclass(frozen=True)
class CombinationBundle:
    """What :func:`export_combination` wrote.

    Attributes:
        folder: The bundle folder.
        pick: Model -> the variant deployed.
        notes: One per variant whose serving changed (python backend -> native), then one per variant whose
            build verdict is not ok (:attr:`builders.repository.view.RepositoryVariant.build_verdict`), in words.
        plan: The names, image and resources of the manifests.
        files: The manifests written.
        files_checks: Whether each variant's model files are the ones the run measured
            (:func:`perf.records.measured_files.check_files`), in the pick's order.
        release_check: The image's release checks of the model files (:func:`perf.deploy.release.check_release`).
        renamed: Variant -> the tensor names its copy serves differently from what the run
            measured (:func:`perf.deploy.bundle.renamed_tensors`), in words; every variant listed.
        input_sizes: Per variant with a dynamic dim, what its config takes, the build's verified range and the
            sizes the run measured at (:func:`input_sizes_of`), in the pick's order.
    """

    folder: Path
    pick: dict[str, str]
    notes: tuple[str, ...]
    plan: k8s.ServingPlan
    files: tuple[Path, ...]
    files_checks: tuple[FilesCheck, ...] = ()
    release_check: ReleaseCheck | None = None
    renamed: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    input_sizes: tuple[str, ...] = ()


def input_sizes_of(rec: ColocationRecord, rv: RepositoryVariant, config: mc.ModelConfig) -> str | None:
    """What the bundle's ``config`` of ``rv`` takes of its dynamic dims, the build's verified range of them and the
    sizes the run measured at, in a sweep's bundle's words (:func:`perf.deploy.input_sizes.sizes_words`; trial 26,
    T26-8); ``None`` when no input has a dynamic dim. A co-location run sends each model's inputs at its build's
    sizes (:meth:`perf.colocate.source.ServerSource._inputs`: no ``--shape``), which the run does not record:
    said from the config it served and the build's spec, as it sized them."""
    from google.protobuf import json_format

    from perf.measure.inputs import describe_dynamic

    try:
        spec = rv.served_spec
    except ToolkitError:
        spec = None
    served = json_format.MessageToDict(read_config(rv.folder / "config.pbtxt"), preserving_proto_field_name=True)
    inputs = [(i.name, list(i.dims)) for i in config.input]
    batching = config.max_batch_size > 0
    return sizes_words(
        rec.run_id,
        inputs,
        build_ranges(rv),
        None,
        describe_dynamic(served, spec),
        batching,
        f"`{rv.name}`'s config",
        steps=dict(spec.multiple_of) if spec else None,
    )


def combined_resources(configs: dict[str, mc.ModelConfig]) -> k8s.Resources:
    """One pod serving every variant of ``configs`` (variant -> its served ``ModelConfig``): each
    one's resources (:func:`perf.deploy.k8s.resources`, one CPU core per KIND_CPU instance: a
    co-location run does not measure each model's server CPU), the CPU requests added up, the
    GPU limit the largest any of them needs (the models share the pod's GPUs, as they shared the
    server's in the run)."""
    parts = {v: k8s.resources(cfg) for v, cfg in configs.items()}
    gpus = max((r.gpus for r in parts.values() if r.gpus), default=None)
    cores = sum(r.cpu_cores or 0.0 for r in parts.values()) or None
    why = [f"{v}: {w}" for v, r in parts.items() for w in r.why]
    if cores:
        why.append(f"{count(cores, 'CPU core')} requested in all: the sum over the models (one server process serves them)")
    if gpus:
        why.append(f"{k8s.GPU_RESOURCE} limit {gpus}: the most any model needs; the models share the pod's GPUs")
    return k8s.Resources(gpus, cores, tuple(why))


def export_combination(
    run_dir: Path,
    out: Path | None = None,
    repository: Path | None = None,
    *,
    name: str | None = None,
    image: str | None = None,
    allow_changed_model: bool = False,
) -> CombinationBundle:
    """Write the bundle of the run's pick (module docstring).

    Args:
        run_dir: A co-location run folder (``colocation.json``).
        out: Bundle folder [default: ``<run_dir>/deployment-combination``]; a previous one there is kept beside it as ``<out>.previous-N`` (:func:`perf.deploy.bundle.move_in`).
        repository: The repository holding the variants [default: the one the run served].
        name: Kubernetes name of the Deployment and Service [default: ``triton-colocate-<run id>``].
        image: Server image [default: NVIDIA's image of the toolkit's default release].
        allow_changed_model: Bundle the variants' files as they are now when they are not the
            ones the run measured (else refused); the README says so.

    Raises:
        PerfError: the run picked no combination, ``out`` holds something that is not a bundle,
            a variant's model files are not the ones measured, or a bad ``name``.
        RepositoryError: a variant is not in the repository.
    """
    rec = colocation.load(run_dir)
    if verdict.undecided(rec):  # a record saved before such a run had no pick kept its held one (trial 15, T15-10)
        raise PerfError(
            f"co-location run {rec.run_id}: {verdict.headline(rec)}; {verdict.lead_words(rec)}",
            hint=f"to finish it: {verdict.finish_words(rec, Path(run_dir).parent)}",
        )
    if rec.pick is None:
        raise PerfError(
            f"co-location run {rec.run_id} picked no combination: {as_said(rec, rec.pick_reason)}",
            hint=no_pick_advice(rec),
        )
    repo = Path(repository) if repository else Path(rec.repository)
    try:
        kname = k8s.check_name(name) if name else k8s.k8s_name(f"colocate-{rec.run_id}")
    except ValueError as e:
        raise PerfError(
            f"--name: {e}", hint="pass --name with such a name (e.g. --name my-model), or leave it out", flag="--name"
        ) from None
    out = Path(out) if out else Path(run_dir) / COMBINATION_DIR
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / README_FILE).is_file())):
        raise PerfError(
            f"{out} exists and is not a deployment bundle",
            hint="pass --out with a new folder or a previous bundle's",
            flag="--out",
        )
    refuse_missing(rec, rec.pick.values(), repo, "a bundle of the combination")
    variants = [source_variant(repo, v) for v in rec.pick.values()]  # every one checked before anything is written
    if not allow_changed_model:
        refuse_changed(rec, rec.pick.values(), repo, "bundle", SHIPPED, "--allow-changed-model")
    checks = tuple(check_files(rec, v, repo, SHIPPED) for v in rec.pick.values())
    tmp = out.parent / f".{out.name}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        notes = tuple(n for rv in variants if (n := copy_variant(rv, tmp / BUNDLE_REPOSITORY)) is not None)
        notes += tuple(f"`{rv.name}`: {sentence(v.text())}" for rv in variants if (v := rv.build_verdict))  # T13-10
        configs = {v: read_config(tmp / BUNDLE_REPOSITORY / v / "config.pbtxt") for v in rec.pick.values()}
        renamed = {rv.name: renamed_tensors(rv, tmp / BUNDLE_REPOSITORY) for rv in variants}
        sizes = tuple(w for rv in variants if (w := input_sizes_of(rec, rv, configs[rv.name])) is not None)
        size = sum(p.stat().st_size for p in (tmp / BUNDLE_REPOSITORY).rglob("*") if p.is_file())
        served = rec.environment.get("server")
        policy = served.get("omp_wait_policy") if isinstance(served, dict) else None  # as the run's server had torch
        plan = k8s.ServingPlan(
            kname, ", ".join(rec.pick.values()), image or image_for_tag(DEFAULT_TAG), combined_resources(configs), size, policy
        )
        checked = check_release(tmp / BUNDLE_REPOSITORY, plan.image)
        refuse_unloadable(checked, plan.image)
        (tmp / MANIFEST_DIR).mkdir()
        (tmp / MANIFEST_DIR / STORAGE_FILE).write_text(k8s.to_yaml([k8s.claim(plan), k8s.loader_pod(plan)]))
        (tmp / MANIFEST_DIR / SERVER_FILE).write_text(k8s.to_yaml([k8s.deployment(plan), k8s.service(plan)]))
        lines = [*readme_lines(rec, notes, renamed), "", *[line for c in checks for line in files_lines(c)], *checked.lines()]
        lines += [*input_sizes_lines(sizes), *kubernetes_lines(rec, plan)]
        (tmp / README_FILE).write_text("\n".join(lines) + "\n")
        move_in(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.info("combination bundle written to %s", out)
    files = (out / MANIFEST_DIR / STORAGE_FILE, out / MANIFEST_DIR / SERVER_FILE)
    return CombinationBundle(out, dict(rec.pick), notes, plan, files, checks, checked, renamed, sizes)


def kubernetes_lines(rec: ColocationRecord, plan: k8s.ServingPlan) -> list[str]:
    """The README's Kubernetes part: the files, the resources and why, the kubectl steps."""
    assert rec.pick is not None
    copies = [f"kubectl cp {BUNDLE_REPOSITORY}/{v} {plan.loader}:{k8s.MODELS_PATH}/{v}" for v in rec.pick.values()]
    return [
        "",
        "## Kubernetes",
        "",
        f"`{MANIFEST_DIR}/{STORAGE_FILE}`: PersistentVolumeClaim `{plan.claim}` ({k8s.storage_request(plan.storage_bytes)}; "
        f"the repository is {plan.storage_bytes:,} bytes) and the loader Pod `{plan.loader}` that fills it. "
        f"`{MANIFEST_DIR}/{SERVER_FILE}`: Deployment and Service `{plan.name}`: one `{plan.image}` server loading every "
        f"model at start (`{' '.join(k8s.server_args())}`), as the run served them together.",
        "",
        "Resources (from each variant's instance_group):",
        "",
        *[f"- {w}" for w in plan.resources.why],
        "",
        "```bash",
        f"kubectl apply -f {MANIFEST_DIR}/{STORAGE_FILE}",
        f"kubectl wait --for=condition=Ready pod/{plan.loader} --timeout=15m",
        *copies,
        f"kubectl delete pod {plan.loader}",
        f"kubectl apply -f {MANIFEST_DIR}/{SERVER_FILE}",
        f"kubectl rollout status deployment/{plan.name} --timeout=15m",
        "```",
        "",
        "The numbers above were measured on the run's host; a cluster node differs. `kubectl port-forward "
        f"service/{plan.name} 8000:8000 8001:8001 8002:8002` reaches the server (docs/KUBERNETES.md).",
    ]


def renamed_lines(renamed: dict[str, tuple[str, ...]]) -> list[str]:
    """The README's list of the tensor names the bundle serves differently from what the run
    measured (variant -> :func:`perf.deploy.bundle.renamed_tensors`), in bold; ``[]`` when none."""
    items = [f"- **`{v}` {d}**" for v, lines in renamed.items() for d in lines]
    return ["", "What differs from what was measured:", *items] if items else []


def readme_lines(rec: ColocationRecord, notes: tuple[str, ...], renamed: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """The bundle's README: which variants, why, what each measured, how to serve them; the
    tensor names a variant's copy serves differently from what was measured (``renamed``,
    :func:`renamed_lines`) before the notes on serving."""
    assert rec.pick is not None
    lines = [
        f"# Combination from co-location run {rec.run_id}",
        "",
        sentence(f"One server, one variant of each model: {judge.describe(rec.pick)}"),
        "",
        f"Why: {sentence(as_said(rec, rec.pick_reason))}",
        "",
        f"p99 budget: {judge.budget_words(rec)}; required throughput: {judge.required_words(rec)}; "
        + (
            f"objective: the fewest instances ({rec.instances(rec.pick)} in all)."
            if rec.objective == "fewest-instances"
            else "objective: the highest weighted throughput."
        ),
        "",
    ]
    memory = {g.variant: g for g in rec.gpu_memory}
    for r in neighbours.neighbour_cost(rec):
        paired = r.paired.spread_text() + r.medians_note() if r.paired else r.unpaired
        on_gpu = rec.model(r.model).gpus.get(r.variant)
        gpu = ""
        if on_gpu is not None:
            g = memory.get(r.variant)
            mib = "not measured" if g is None or g.delta_bytes is None else f"{g.delta_bytes / 2**20:,.0f} MiB at load"
            gpu = f"; KIND_GPU on {'GPU ' + ', '.join(map(str, on_gpu)) if on_gpu else 'every GPU'}, GPU memory {mib}"
        lines.append(
            f"- {r.model} = `{r.variant}` ({count(rec.model(r.model).instances_of(r.variant), 'instance')}): "
            f"{fmt(r.together, 0)} infer/s co-located, {fmt(r.alone, 0)} alone "
            f"(co-located / alone {paired}), p99 {fmt(r.p99_ms, 2)} ms{gpu}"
        )
    lines += [
        "",
        "Serve it with every model loaded at start:",
        "",
        "```bash",
        f"tritonserver --model-repository=$PWD/{BUNDLE_REPOSITORY} --model-control-mode=none",
        "```",
        "",
        "The measured numbers above hold for the traffic mix the run sent: "
        + ", ".join(f"{m.name} at concurrency {m.concurrency}" for m in rec.models)
        + ".",
    ]
    return lines + renamed_lines(renamed or {}) + (["", *notes] if notes else [])


def no_pick_advice(record: ColocationRecord) -> str:
    """What to change for a run that picked no combination (said after ``"-> "``), by why it picked none
    (trial 19, T19-11: a search that ended its moves with 59 s of its budget unused was told "a larger
    --time-budget"): a larger ``--time-budget`` only where the time budget cut the search
    (:attr:`~perf.records.colocation.ColocationRecord.cuts`); else the targets no combination met (``--latency-budget-ms``, and
    ``--required-throughput`` where one was given), other variants or another ``--mix``; the server's
    log where the server failed."""
    if (record.pick_reason or "").startswith(SERVER_FAILED):
        server = record.environment.get("server")  # a server the toolkit did not start keeps no log in the run folder
        where = (
            "the server's own log, where it runs"
            if isinstance(server, dict) and server.get("runtime") == "remote"
            else "the server's log in the run folder"
        )
        return f"see {where}, fix what it names, then run triton-perf colocate again"
    targets = "a larger --latency-budget-ms" + (
        ", a lower --required-throughput" if any(m.required_throughput is not None for m in record.models) else ""
    )
    if record.cuts:
        return f"run triton-perf colocate again with a larger --time-budget (the time budget cut the search), or {targets}"
    return (
        f"run triton-perf colocate again with {targets}, other variants (--model NAME=PATTERN) or another --mix: "
        "the search ended with its moves, not cut for time, so a larger --time-budget would change nothing"
    )
