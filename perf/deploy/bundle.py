"""A deployment bundle for one measured variant (``triton-perf export-deployment``): its model folder
as NVIDIA's tritonserver image serves it, and Kubernetes manifests (:mod:`perf.deploy.k8s`).

Layout of a bundle (default folder ``<run>/deployment-<variant>/``):

.. code-block:: text

    README.md                        which variant, why, what it measured, how to deploy it
    model_repository/<variant>/      config.pbtxt, 1/<model file>  (the folder name is the model name)
    kubernetes/storage.yaml          PersistentVolumeClaim + loader Pod (filled with kubectl cp)
    kubernetes/triton.yaml           Deployment + Service

The variant is the one ``--variant`` names, else the run's recommendation
(:func:`perf.analysis.recommendation.recommend.recommend`: the best level under the run's latency budget, or the
best peak without a budget). Its folder comes from the repository the run swept
(``settings["repository"]``), read through :class:`builders.repository.view.Repository`; the
index entry must still be the one measured, and its files the ones measured
(:func:`perf.records.measured_files.refuse_changed`: a rebuild with other weights is refused
unless ``allow_changed_model``, and the README says which). A variant the build wrote for python-backend
serving (the toolkit's ``model.py``, which needs the toolkit's own Python environment) is
written with its format's native backend instead (same variant, same artifact, the config
from :func:`builders.config.pbtxt.make_config`), and the bundle says that its numbers were measured
through the python backend. The native backend may serve other tensor names than the measured
config (the PyTorch backend's ``<name>__<index>``): :func:`renamed_tensors` lists them, first in the
README's differences and on the console, since a client written against the measured server asks
for the measured names.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path

from builders.config.checks import artifact_problems
from builders.config.pbtxt import make_config, read_config, write_config
from builders.config.settings import tensor_name_differences
from builders.config.warmup import write_warmup_files
from builders.model.artifact_io import read_artifact_io
from builders.repository.records import BuildManifest
from builders.repository.view import Repository, RepositoryVariant
from builders.repository.writer import PYTHON_MODEL_FILE, update_index
from clients.runtimes.options import DEFAULT_TAG, image_for_tag
from clients.runtimes.served import ServedSettings
from core import formats
from core.errors import PerfError, RecordError
from core.wording import sentence
from perf.deploy import k8s
from perf.deploy.choose import Chosen, choose_variant
from perf.deploy.input_sizes import build_ranges, build_steps, input_sizes
from perf.deploy.measured import Measured, busy_words, check_as_measured, cpu_request_cores, difference_lines, measured
from perf.deploy.readme import BUNDLE_REPOSITORY, MANIFEST_DIR, SERVER_FILE, STORAGE_FILE, readme
from perf.deploy.release import ReleaseCheck, check_release, refuse_unloadable
from perf.markdown import previous_path
from perf.records import results
from perf.records.measured_files import SHIPPED, FilesCheck, check_files, refuse_changed, refuse_missing
from perf.records.results import RunResult

log = logging.getLogger(__name__)

README_FILE = "README.md"


@dataclasses.dataclass(frozen=True)
class Bundle:
    """What :func:`export_deployment` wrote.

    Attributes:
        folder: The bundle folder.
        chosen: The variant and why.
        plan: The names, image and resources of the manifests.
        serving_note: Set when the served config differs from the measured one (python
            backend -> native backend), in words.
        files: Every manifest file written.
        measured: What the run measured of it (threads, server CPU; :mod:`perf.deploy.measured`).
        differences: README lines: what differs between what was measured and the bundle's config.
        renamed: The tensor names the bundle serves differently from the measured config
            (:func:`renamed_tensors`), in words; the first of :attr:`differences`.
        previous: Where a previous bundle at ``folder`` was kept (:func:`move_in`), else ``None``.
        files_check: Whether its model files are the ones the run measured
            (:func:`perf.records.measured_files.check_files`); ``None``: not checked.
        release_check: The image's release checks of its model files (:func:`perf.deploy.release.check_release`).
        input_sizes: What its config takes of a dynamic dim, the build's verified range and the sizes measured
            (:func:`perf.deploy.input_sizes.input_sizes`); ``None``: no dynamic dim.
    """

    folder: Path
    chosen: Chosen
    plan: k8s.ServingPlan
    serving_note: str | None
    files: tuple[Path, ...]
    measured: Measured | None = None
    differences: tuple[str, ...] = ()
    previous: Path | None = None
    files_check: FilesCheck | None = None
    release_check: ReleaseCheck | None = None
    renamed: tuple[str, ...] = ()
    input_sizes: str | None = None


def _check_same(rv: RepositoryVariant, measured: dict | None) -> None:
    """Refuse a variant whose index entry changed since the run measured it (a rebuild)."""
    if rv.entry is None or measured is None:
        return
    now = {k: v for k, v in rv.entry.params.items() if k not in ("build", "build_command")}  # how, not what
    then = {k: v for k, v in measured.items() if k not in ("build", "build_command")}
    changed = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
    if changed:
        diff = ", ".join(f"{k}: measured {then.get(k)!r}, now {now.get(k)!r}" for k in changed)
        raise PerfError(
            f"variant {rv.name} in {rv.repository.path} is not the one the run measured: it was rebuilt since "
            f"({diff}){_rebuilt_by(rv)}",
            hint=_restore_hint(rv, then),
        )


def _manifest_of(rv: RepositoryVariant) -> BuildManifest | None:
    """``rv``'s build manifest, ``None`` when it has none or it cannot be read."""
    try:
        return rv.manifest
    except RecordError:
        return None


def _rebuilt_by(rv: RepositoryVariant) -> str:
    """``"; the build in builds/m rebuilt it (its manifest written <time>)"``, or ``""`` when the index names no build."""
    if rv.build_dir is None:
        return ""
    m = _manifest_of(rv)
    return f"; the build in {rv.build_dir} rebuilt it" + (f" (its manifest written {m.created})" if m else "")


def _restore_hint(rv: RepositoryVariant, then: dict) -> str:
    """What restores the variant the run measured (trial 16, T16-15): the build again, with the serving
    it was measured with and ``--replace``; or the repository as the run swept it; or a new sweep."""
    m = _manifest_of(rv)
    flags = [f"--model {m.source if m else 'MODEL'}", *([f"--name {m.model}"] if m else [])]
    if then.get("serving") and then.get("serving") != rv.serving:
        flags.append(f"--serving {then['serving']}")
    flags += [f"--repository {rv.repository.path}", "--replace"]
    return (
        f"restore it as measured: `builders build {' '.join(flags)}` with the other flags of the build that made it "
        f"(--spec, --format, --precision, the grid flags), then export again; or pass --repository with a copy of the "
        f"repository as the run swept it; or sweep {rv.name} as it is now and export that run"
    )


def source_variant(repository: Path, name: str, measured: dict | None = None) -> RepositoryVariant:
    """The variant ``name`` of ``repository``, checked before anything is written: it is the
    one the run measured, and a python-served one has the build manifest its native config
    is written from.

    Args:
        repository: The repository the run swept.
        name: The variant (model folder).
        measured: The variant's ``params`` as the run recorded them (checked against the
            index: a rebuilt variant is refused); ``None`` skips the check.

    Raises:
        RepositoryError: the repository has no such variant.
        PerfError: it changed since the run, or it is python-served without its build manifest.
    """
    rv = Repository(repository).variant(name)
    _check_same(rv, measured)
    if rv.serving == "python" and (rv.params is None or rv.spec is None or rv.export is None):
        raise PerfError(
            f"variant {rv.name} is served by the toolkit's python-backend model.py, which NVIDIA's image cannot run "
            "without the toolkit's environment, and its build manifest is not there to write a native config",
            hint="rebuild with `builders build --serving native` and sweep that variant",
        )
    return rv


def copy_variant(rv: RepositoryVariant, dest: Path, threads: int | None = None) -> str | None:
    """Copy a variant (:func:`source_variant`) into the repository folder ``dest`` (files
    copied, not linked), natively served, with its index entry (``serving: native``, the
    same build folder); returns a note when its serving was changed.

    Args:
        rv: The variant.
        dest: The bundle's repository folder.
        threads: Intra-op threads per instance it was measured with (written into a native
            config made from a python-served variant); ``None``: not known, none written.

    Raises:
        ConfigError: its native config breaks a Triton rule.
    """
    target = Path(dest) / rv.name
    shutil.copytree(rv.folder, target, ignore=shutil.ignore_patterns("__pycache__"))  # python-backend byte code
    note = _to_native(rv, target, threads) if rv.serving == "python" else None
    if rv.entry is not None:  # the bundle's repository is one the toolkit reads (clients check --repository)
        update_index(Path(dest), [rv.entry.model_copy(update={"serving": "native"})])
    return note


def renamed_tensors(rv: RepositoryVariant, dest: Path) -> tuple[str, ...]:
    """How the input and output names of ``rv``'s copy in the bundle's repository ``dest``
    (:func:`copy_variant`) differ from the ones its measured config serves (the repository's
    ``config.pbtxt``, the one the run loaded), in words
    (:func:`builders.config.settings.tensor_name_differences`); empty when a client of the
    measured server asks for the same names."""
    measured_cfg = read_config(rv.folder / "config.pbtxt")
    return tuple(tensor_name_differences(measured_cfg, read_config(Path(dest) / rv.name / "config.pbtxt"), "measured", "bundle"))


def _to_native(rv: RepositoryVariant, folder: Path, threads: int | None) -> str:
    """Rewrite a python-served variant folder for the format's native backend: drop
    ``model.py``, write the native config of the same :class:`builders.config.variants.Variant`
    with the threads per instance it was measured with (the backend's thread parameter)."""
    params, spec, export = rv.params, rv.spec, rv.export
    assert params is not None and spec is not None and export is not None  # source_variant checked them
    fmt = formats.get(params.format)
    versions = sorted(d for d in folder.iterdir() if d.is_dir() and d.name.isdigit())
    for v in versions:
        (v / PYTHON_MODEL_FILE).unlink(missing_ok=True)  # what measured_files.SHIPPED leaves out
    io = read_artifact_io(params.format, versions[-1] / fmt.file) if versions else None
    served = spec.renamed(export.served_names("native"))
    cfg = make_config(params, served, "native", threads, io=io)  # a warning (an older build's names) refuses nothing
    write_config(cfg, folder / "config.pbtxt")
    write_warmup_files(cfg, served, params.warmup, folder)  # the native input names' data files
    warned = [p for p in artifact_problems(cfg, io) if p.warning] if io is not None else []
    return (
        f"The run measured this variant through the toolkit's python-backend model (what the bundled server runs); "
        f"NVIDIA's image serves it with the native `{fmt.platform}` backend (same artifact and instance group, config "
        f"written by the toolkit's builders). Its served outputs and numbers on that backend are not verified here: "
        f"check and measure it in the cluster (docs/KUBERNETES.md)."
        + "".join(f" Its config.pbtxt serves as meant, with a warning: {sentence(p.reason())}" for p in warned)
    )


def _image(run: RunResult, image: str | None) -> str:
    """``image``, else the image the run's container runtime measured with, else NVIDIA's
    image of the toolkit's default release."""
    if image:
        return image
    server = run.settings.get("server") or {}
    if server.get("runtime") == "container" and server.get("image"):
        return str(server["image"])
    return image_for_tag(DEFAULT_TAG)


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _check_out(out: Path) -> None:
    """Refuse an ``out`` that holds something other than a previous bundle."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST_DIR / SERVER_FILE).is_file())):
        raise PerfError(
            f"{out} exists and is not a deployment bundle",
            hint="pass --out with a new folder or a previous bundle's",
            flag="--out",
        )


def move_in(tmp: Path, out: Path) -> Path | None:
    """Move the finished bundle ``tmp`` to ``out``; a previous bundle there is kept beside it as
    ``<out>.previous-N`` (the lowest free N, returned; ``None`` when there was none), so that a
    second export never loses what a user added to or changed in the first one."""
    if not out.exists():
        tmp.rename(out)
        return None
    kept = previous_path(out)  # the one naming rule of kept copies (a report's too)
    out.rename(kept)
    log.warning("a previous bundle was at %s: kept as %s", out, kept)
    tmp.rename(out)
    return kept


def export_deployment(
    run_dir: Path,
    variant: str | None = None,
    out: Path | None = None,
    *,
    repository: Path | None = None,
    name: str | None = None,
    image: str | None = None,
    latency_budget_ms: float | None = None,
    allow_unfinished: bool = False,
    allow_changed_model: bool = False,
    workload: str | None = None,
    allow_refused_flags: bool = False,
    allow_cut: bool = False,
) -> Bundle:
    """Write a deployment bundle (module docstring) for one variant of a run.

    Args:
        run_dir: The run folder (``results.json``).
        variant: The variant; ``None``: the run's recommendation (:func:`choose_variant`).
        out: Bundle folder [default: ``<run_dir>/deployment-<variant>``]; a previous bundle
            there is kept beside it as ``<out>.previous-N`` (:func:`move_in`).
        repository: The repository holding the variant [default: the one the run swept].
        name: Kubernetes name of the Deployment and Service [default: :func:`perf.deploy.k8s.k8s_name`].
        image: Server image [default: the run's container image, else NVIDIA's image of
            :data:`builders.triton.releases.DEFAULT_RELEASE`].
        latency_budget_ms: Budget for the recommendation (ms) [default: the run's own].
        allow_unfinished: Recommend from a run that did not finish (:func:`choose_variant`).
        allow_changed_model: Bundle the variant's files as they are now when they are not the
            ones the run measured (else refused); the README says so.
        workload: The client workload to deploy for (``time=16000,b=4``, as the report's tables name it;
            :func:`choose_variant`) [default: the report's first pick's].
        allow_refused_flags: Deploy from a run measured with a flag this version refuses (:func:`choose_variant`);
            the README says so first.
        allow_cut: Deploy the pick of a run whose time budget cut variants never measured (:func:`choose_variant`);
            the README says so first.

    Raises:
        PerfError: no results, a run measured with a flag this version refuses, an unknown or failed variant,
            nothing to recommend, a
            changed variant or model files, ``out`` is a folder that is not a bundle, a bad ``name``,
            model files the image cannot load (:func:`perf.deploy.release.refuse_unloadable`).
        RepositoryError: the repository has no such variant.
    """
    run = results.load(run_dir)
    chosen = choose_variant(
        run, variant, latency_budget_ms, allow_unfinished, Path(run_dir).parent, workload, allow_refused_flags, allow_cut
    )
    repo = Path(repository) if repository else Path(run.settings.get("repository") or "")
    if not repository and not run.settings.get("repository"):
        raise PerfError(f"run {run.run_id} does not record its repository", hint="pass --repository", flag="--repository")
    try:
        kname = k8s.check_name(name) if name else k8s.k8s_name(chosen.variant)
    except ValueError as e:
        raise PerfError(
            f"--name: {e}", hint="pass --name with such a name (e.g. --name my-model), or leave it out", flag="--name"
        ) from None
    out = Path(out) if out else Path(run_dir) / f"deployment-{chosen.variant}"
    vr = run.variant(chosen.variant)
    refuse_missing(run, [chosen.variant], repo, "a bundle")
    rv = source_variant(repo, chosen.variant, vr.params if vr else None)
    if not allow_changed_model:
        refuse_changed(run, [chosen.variant], repo, "bundle", SHIPPED, "--allow-changed-model")
    files_check = check_files(run, chosen.variant, repo, SHIPPED)
    m = measured(run, chosen.variant, chosen.level)
    _check_out(out)
    # written beside ``out`` and moved there at the end: a failure leaves any previous bundle as it was
    tmp = out.parent / f".{out.name}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        note = copy_variant(rv, tmp / BUNDLE_REPOSITORY, m.threads)
        config = read_config(tmp / BUNDLE_REPOSITORY / chosen.variant / "config.pbtxt")
        renamed = renamed_tensors(rv, tmp / BUNDLE_REPOSITORY)
        check_as_measured(m, ServedSettings.of(config), chosen.variant)
        res = k8s.resources(config, cpu_request_cores(m), m.level, busy_words(m))
        served = run.environment.get("server", {}).get("omp_wait_policy")  # as the run's server had torch
        plan = k8s.ServingPlan(kname, chosen.variant, _image(run, image), res, _tree_bytes(tmp / BUNDLE_REPOSITORY), served)
        checked = check_release(tmp / BUNDLE_REPOSITORY, plan.image)
        refuse_unloadable(checked, plan.image)
        (tmp / MANIFEST_DIR).mkdir()
        (tmp / MANIFEST_DIR / STORAGE_FILE).write_text(k8s.to_yaml([k8s.claim(plan), k8s.loader_pod(plan)]))
        (tmp / MANIFEST_DIR / SERVER_FILE).write_text(k8s.to_yaml([k8s.deployment(plan), k8s.service(plan)]))
        files = (out / MANIFEST_DIR / STORAGE_FILE, out / MANIFEST_DIR / SERVER_FILE)
        differences = tuple(difference_lines(m, ServedSettings.of(config), renamed))
        inputs = [(i.name, list(i.dims)) for i in config.input]
        sizes = input_sizes(run, chosen.variant, m.shape, inputs, build_ranges(rv), config.max_batch_size > 0, build_steps(rv))
        bundle = Bundle(
            out,
            chosen,
            plan,
            note,
            files,
            m,
            differences,
            files_check=files_check,
            release_check=checked,
            renamed=renamed,
            input_sizes=sizes,
        )
        (tmp / README_FILE).write_text("\n".join(readme(bundle, run, repo)) + "\n")
        bundle = dataclasses.replace(bundle, previous=move_in(tmp, out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.info("deployment bundle for %s written to %s", chosen.variant, out)
    return bundle
