"""``builders validate``: check any Triton model repository, ours or hand-written.

Every problem is reported (not only the first) with its file, the config field, what is
wrong and what to do. Checks, per model folder (Triton docs, "Model Repository" and
"Model Configuration"):

- ``config.pbtxt`` exists and parses as a ``ModelConfig`` (``text_format``, as the server);
- the folder name equals ``name``, and a variant name (``mlp_onnx_cpu2_db500_mbs64``) says what
  the config states (:func:`builders.config.settings.name_differences`, the rule the sweep and
  ``clients check`` refuse a served model by);
- version folders are positive integers without leading zeros (Triton ignores others),
  at least one exists, and ``version_policy.specific`` names existing ones;
- each version folder holds the model file the platform/backend expects
  (``default_model_filename`` or ``model.pt`` / ``model.onnx`` / ``model.plan`` /
  ``model.py``) and, for our python-backend model, the artifact its parameters name;
- the config's own rules (:func:`builders.config.checks.config_problems`, which applies
  :mod:`builders.triton.rules` and the serving backend's rules, e.g. our python-backend
  model's ``artifact_format``);
- ``model_warmup`` data: every ``input_data_file`` is in the folder's ``warmup/`` with enough
  bytes, and, against the build's record, no warmup sends data outside an input's domain
  (:mod:`builders.config.warmup`: zeros into a mask, random bytes into token ids);
- inputs and outputs against the artifact (:func:`builders.config.checks.artifact_problems`,
  with the artifact read by :func:`builders.model.artifact_io.inspect_artifact`): the ONNX graph
  (parsed as protobuf in this process) and the external data files it names, which must be
  inside the version folder (:mod:`builders.repository.external_data`); a TorchScript file's
  structure (a ``torch.save`` pickle under that name is a problem) and its ``forward``
  signature and device constants from its code text, without deserialising anything
  (:mod:`builders.model.torchscript_archive`); with ``load_artifacts`` (``--load-artifacts``)
  TorchScript archives and TensorRT engines are also deserialised, in a separate process,
  because that can run code from the file;
- with a target release (``--target-triton 24.10``, :mod:`builders.triton.releases`): an ONNX
  graph's IR version and opset against that release's ONNX Runtime (native onnxruntime
  serving), a TensorRT plan's recorded TensorRT version against the release's; where the
  table has no sourced value for the release, that check is listed as not run ("version not
  confirmed for this release").

Checks that could not run (no target, a target value not confirmed, artifacts not loaded or not read, no tensorrt
here) are listed in :attr:`Validation.skipped`, so "no problems" never stands for a check that did not happen.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from tritonclient.grpc import model_config_pb2 as mc

from builders.config.checks import config_problems, device_constant_problems, recorded_output_problems
from builders.config.pbtxt import parse_config
from builders.config.settings import name_problems
from builders.config.warmup import warmup_domain_problems, warmup_file_problems, warmup_value_problems
from builders.model.artifact_io import read_artifact_io
from builders.repository.missing import not_found_parts
from builders.repository.records import INDEX_FILE, IndexEntry
from builders.repository.remove import entries_rebuild_words
from builders.repository.validate_summary import CONFIG, model_folders, relative, summary
from builders.repository.version_checks import version_folders, version_problems
from builders.repository.view import Repository, gone_entries, read_index, served_entries
from builders.triton.releases import TritonRelease, coverage
from builders.triton.rules import Problem
from core.errors import ConfigError, RecordError, RepositoryError
from core.names import read_text
from core.wording import count

log = logging.getLogger(__name__)


__all__ = [
    "Problem",
    "Validation",
    "index_problems",
    "read_artifact_io",
    "relative",
    "summary",
    "validate",
    "validate_model",
    "validate_repository",
]


@dataclasses.dataclass
class Validation:
    """What ``builders validate`` found.

    Attributes:
        problems: Broken rules, in folder order; empty when every check that ran passed.
        warnings: What Triton serves as meant but only by luck or habit (:attr:`Problem.warning`:
            a PyTorch config that mixes naming conventions in the right order); never a failure.
        skipped: Checks that did not run and why (``file`` = what was not checked,
            ``field`` = the check, ``problem`` = why, ``fix`` = how to run it).
        notes: How the checks ran (e.g. how artifacts were read), one line each.
    """

    problems: list[Problem] = dataclasses.field(default_factory=list)
    warnings: list[Problem] = dataclasses.field(default_factory=list)
    skipped: list[Problem] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


class ValidationInterrupted(KeyboardInterrupt):
    """Ctrl-C in :func:`validate`: ``result``, what the folders ``checked`` whole found; ``stopped_at`` (dropped), ``left``."""

    def __init__(self, result: Validation, checked: list[str], stopped_at: str, left: list[str]):
        super().__init__(stopped_at)
        self.result, self.checked, self.stopped_at, self.left = result, checked, stopped_at, left


@dataclasses.dataclass(frozen=True)
class _Options:
    server_gpu: bool | None
    check_artifacts: bool
    load_artifacts: bool
    target: TritonRelease | None


def validate(
    path: str | Path,
    *,
    server_gpu: bool | None = None,
    check_artifacts: bool = True,
    load_artifacts: bool = False,
    target: TritonRelease | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> Validation:
    """Check every model folder of a repository (or one model folder).

    Args:
        path: A model repository (folders of models), or a single model folder (one that
            holds ``config.pbtxt``).
        server_gpu: ``False`` reports KIND_GPU instance groups (the server has no GPU);
            ``None`` (default) and ``True`` do not.
        check_artifacts: Read the model files and compare their I/O with the config
            (default on). ONNX graphs are parsed here; see ``load_artifacts``.
        load_artifacts: Also deserialise TorchScript archives and TensorRT plans (in a
            separate process: they can run code). Default off: those checks are skipped
            and listed.
        target: The Triton release that will serve the repository
            (:func:`builders.triton.releases.release`); ``None`` skips the version checks.
        progress: Called as ``(done, total, model)`` before each model folder is checked and
            once at the end (``model`` ``""``): the CLI draws a bar from it (``--load-artifacts``
            takes seconds a TorchScript archive).

    Returns:
        The problems, the warnings, the skipped checks and how the checks ran.

    Raises:
        ValidationInterrupted: Ctrl-C, with what the folders checked whole found.
    """
    opts = _Options(server_gpu, check_artifacts, load_artifacts, target)
    result = Validation()
    root = Path(path)
    if not root.is_dir():
        result.problems.append(Problem(str(root), "repository", *not_found_parts(root, flag="")))
        return result
    models = model_folders(root)
    result.problems += index_problems(root)  # its index's entries whose folder is gone (trial 26, T26-9)
    if not models:
        fix = "a repository holds <model>/config.pbtxt and <model>/<version>/"
        result.problems.append(Problem(str(root), "repository", "holds no model folders", fix))
        return result
    for i, d in enumerate(models):
        found = (len(result.problems), len(result.skipped))
        try:  # the progress line too: a Ctrl-C while it is drawn stopped in it, a bare "aborted" (full suite, 05:43)
            if progress is not None:
                progress(i, len(models), d.name)
            _check_model(d, opts, result)
        except KeyboardInterrupt:  # what the folders checked whole found is kept and named (issue 26)
            del result.problems[found[0] :], result.skipped[found[1] :]
            names = [m.name for m in models]
            raise ValidationInterrupted(_finish(result, root, opts), names[:i], d.name, names[i + 1 :]) from None
    if progress is not None:
        progress(len(models), len(models), "")
    return _finish(result, root, opts)


def index_problems(root: Path) -> list[Problem]:
    """The repository index's entries whose variant folder is gone (:func:`builders.repository.view.gone_entries`: a
    folder removed by hand, ``rm -rf model_repository/bb_*``), and those whose build folder is gone (their reference
    data and build record with it: a warning, Triton serves them), one row each naming them and what to do: the build commands the index
    recorded (:func:`builders.repository.remove.entries_rebuild_words`), ``builders prune``, ``builders remove``;
    none when the index cannot be read (each model's record check says so) or is not there (trial 26, T26-9: "9
    models checked, no problems" beside an index that listed 8 variants gone; s22z, Z-12b and Z-5)."""
    try:
        entries = read_index(root)
    except RecordError:
        return []
    out = []
    gone = gone_entries(root, entries)
    if gone:
        it = "it" if len(gone) == 1 else "them"
        out.append(
            Problem(
                str(root / INDEX_FILE),
                "variants",
                f"lists {count(len(gone), 'variant')} whose folder is gone: {', '.join(gone)}; no command serves, "
                f"matches or counts {it}",
                f"{entries_rebuild_words(root, gone.values())}, or drop {it} from the index with "
                f"`builders prune -r {root}`{_remove_words(root, gone.values())}",
            )
        )
    built = {n: e for n, e in served_entries(root, entries).items() if e.build and not Path(e.build).is_dir()}
    if built:
        it, folders = "it" if len(built) == 1 else "them", sorted({relative(str(e.build), Path.cwd()) for e in built.values()})
        out.append(
            Problem(
                str(root / INDEX_FILE),
                "build folders",
                f"lists {count(len(built), 'variant')} whose build folder is gone ({', '.join(folders)}): "
                f"{', '.join(built)}; its build record and reference data went with it, so `clients check` cannot "
                f"check {it} and `builders validate` cannot check {it} against the build",
                f"{entries_rebuild_words(root, built.values())}{_remove_words(root, built.values(), ', or ')}",
                warning=True,  # Triton serves them as built; only the toolkit's checks lack the record (a bundle moved)
            )
        )
    return out


def _remove_words(root: Path, entries: Iterable[IndexEntry], lead: str = "; ") -> str:
    """``"; to remove the model: `builders remove net -r model_repository`"``, naming each model of ``entries``."""
    models = sorted({e.variant.model for e in entries})
    cmds = " and ".join(f"`builders remove {m} -r {root}`" for m in models)
    return f"{lead}to remove the {'model' if len(models) == 1 else 'models'}: {cmds}" if models else ""


def _finish(result: Validation, root: Path, opts: _Options) -> Validation:
    """``result`` of the folders checked: problems and warnings apart, the checks not run, the notes."""
    found = list(dict.fromkeys(result.problems))  # the build record and the artifact may say the same
    result.problems = [p for p in found if not p.warning]
    result.warnings = [p for p in found if p.warning]
    if opts.target is None:
        result.skipped.append(
            Problem(
                str(root),
                "target server limits",
                "no target release: ONNX IR version and opset against its ONNX Runtime, and "
                "TensorRT plan versions against its TensorRT, were not checked",
                "pass --target-triton with the serving container tag or server version; versions are confirmed for "
                f"{coverage()} (the checks apply to --serving native builds)",
            )
        )
    else:
        result.notes.append(f"target: {opts.target.describe()}")
    if opts.check_artifacts:
        result.notes.append(
            "artifacts: ONNX graphs parsed as protobuf in this process (external data not loaded); "
            + (
                "TorchScript and TensorRT files loaded in a separate process"
                if opts.load_artifacts
                else "TorchScript archives read from their structure and code text, not deserialised; "
                "TensorRT files not loaded (--load-artifacts)"
            )
        )
    else:
        result.notes.append("artifacts: not opened (--no-artifacts)")
    return result


def validate_repository(
    path: str | Path,
    *,
    server_gpu: bool | None = None,
    check_artifacts: bool = True,
    load_artifacts: bool = False,
    target: TritonRelease | None = None,
) -> list[Problem]:
    """The problems of :func:`validate` (same arguments)."""
    return validate(
        path, server_gpu=server_gpu, check_artifacts=check_artifacts, load_artifacts=load_artifacts, target=target
    ).problems


def validate_model(
    model_dir: Path,
    *,
    server_gpu: bool | None = None,
    check_artifacts: bool = True,
    load_artifacts: bool = False,
    target: TritonRelease | None = None,
) -> list[Problem]:
    """The problems of one model folder (see the module docstring for the rules and
    :func:`validate` for the arguments)."""
    result = Validation()
    _check_model(model_dir, _Options(server_gpu, check_artifacts, load_artifacts, target), result)
    return result.problems


def _check_model(model_dir: Path, opts: _Options, result: Validation) -> None:
    out = result.problems
    server_gpu = opts.server_gpu
    cfg_path = model_dir / CONFIG
    versions = version_folders(model_dir, out)
    if not cfg_path.is_file():
        out.append(
            Problem(str(cfg_path), "config.pbtxt", "is missing", "write a config.pbtxt (builders build writes one per variant)")
        )
        return
    try:
        text = read_text(cfg_path, CONFIG, "a config.pbtxt", ConfigError)
    except ConfigError as e:  # not UTF-8 text (was read with its bytes replaced, then said as a syntax error)
        out.append(Problem(str(cfg_path), "(encoding)", e.message.removeprefix(f"{CONFIG} {cfg_path} "), e.hint or ""))
        return
    try:
        cfg = parse_config(text, CONFIG)
    except ConfigError as e:
        out.append(
            Problem(str(cfg_path), "(syntax)", e.message.split(": ", 1)[-1], "fix the pbtxt syntax at the line and column given")
        )
        return
    if cfg.name and cfg.name != model_dir.name:
        out.append(
            Problem(
                str(cfg_path),
                "name",
                f"{cfg.name!r} differs from its folder name {model_dir.name!r}",
                f'set name: "{model_dir.name}" or rename the folder',
            )
        )
    out += [p.at(cfg_path) for p in config_problems(cfg, server_gpu=server_gpu)]
    out += [p.at(cfg_path) for p in name_problems(model_dir.name, cfg)]
    policy = cfg.version_policy
    if policy.WhichOneof("policy_choice") == "specific":
        absent = [v for v in policy.specific.versions if v not in versions]
        if absent:
            out.append(
                Problem(
                    str(cfg_path),
                    "version_policy.specific.versions",
                    f"versions {absent} have no folder",
                    f"create them or list only {sorted(versions)}",
                )
            )
    out += warmup_file_problems(cfg, model_dir)
    _recorded_checks(model_dir, cfg, cfg_path, result)
    version_problems(
        model_dir, cfg, cfg_path, versions, opts.check_artifacts, opts.load_artifacts, opts.target, out, result.skipped
    )


def _recorded_checks(model_dir: Path, cfg: mc.ModelConfig, cfg_path: Path, result: Validation) -> None:
    """The config's outputs against what the build recorded for its artifact (names, order
    where the backend maps by it, dtypes, dims), through the repository index and manifest."""
    what = "outputs against the build's record"
    try:
        v = Repository(model_dir.parent).variant(model_dir.name)
        recorded = v.served_spec
    except (RecordError, RepositoryError) as e:
        result.skipped.append(
            Problem(
                str(cfg_path), what, f"the build record cannot be read: {e.message}", e.hint or "rebuild with `builders build`"
            )
        )
        return
    if recorded is None:
        result.skipped.append(
            Problem(
                str(cfg_path),
                what,
                "no build record (index.json entry and manifest) for this model"
                + (f": its build folder {v.build_dir} is gone" if v.entry and v.build_dir and not v.build_dir.is_dir() else ""),
                v.rebuild_words() if v.entry else "models built with `builders build` are checked against their record",
            )
        )
        return
    result.problems.extend(p.at(cfg_path) for p in recorded_output_problems(cfg, recorded.outputs))
    result.problems.extend(p.at(cfg_path) for p in warmup_domain_problems(cfg, recorded))
    result.problems.extend(warmup_value_problems(cfg, recorded, model_dir))
    constants = v.export.extra.get("device_constants", ()) if v.export else ()
    for i, g in enumerate(cfg.instance_group):
        kind = mc.ModelInstanceGroup.Kind.Name(g.kind)
        result.problems.extend(p.at(cfg_path) for p in device_constant_problems(kind, constants, f"instance_group[{i}]"))
