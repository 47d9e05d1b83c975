"""The version folders of a model folder (``builders validate``, :mod:`builders.repository.validate`): which
subfolders Triton loads as versions (:func:`version_folders`), and in each the model file and the artifact against
the config (:func:`version_problems`).
"""

from __future__ import annotations

from pathlib import Path

from tritonclient.grpc import model_config_pb2 as mc

from builders.backends import model_backend, model_filename, served_artifact
from builders.config.checks import artifact_problems
from builders.config.pbtxt import parse_config
from builders.config.warmup import WARMUP_FOLDER
from builders.model.artifact_io import inspect_artifact
from builders.repository.external_data import external_data_problems
from builders.repository.release_checks import check_onnx_limits, check_tensorrt_version
from builders.repository.validate_summary import IGNORED
from builders.triton.releases import TritonRelease
from builders.triton.rules import Problem
from core.errors import ConfigError

#: Model-folder subfolders Triton reads for other purposes, never as versions (``VersionsToLoad``
#: in Triton's core: ``kWarmupDataFolder``, ``kInitialStateFolder``, ``kModelConfigFolder``).
_NOT_VERSIONS = {WARMUP_FOLDER, "initial_state", "configs"}


def version_folders(model_dir: Path, out: list[Problem]) -> dict[int, Path]:
    """Version number -> folder; problems for folders Triton would ignore, or none at all."""
    versions: dict[int, Path] = {}
    for d in sorted(model_dir.iterdir()):
        if not d.is_dir() or d.name.startswith(".") or d.name in IGNORED | _NOT_VERSIONS:
            continue
        if d.name.isdigit() and not d.name.startswith("0"):
            versions[int(d.name)] = d
        else:
            out.append(
                Problem(
                    str(d),
                    "version folder",
                    f"{d.name!r} is not a positive integer without leading zeros: Triton ignores it",
                    "name version folders 1, 2, ...; keep other folders out of the model folder",
                )
            )
    if not versions:
        out.append(
            Problem(
                str(model_dir), "version folder", "no version folder (1/, 2/, ...)", f"put the model file in {model_dir / '1'}"
            )
        )
    return versions


def missing_files(cfg: mc.ModelConfig, vdir: Path) -> list[Problem]:
    """The files of version folder ``vdir`` that ``cfg``'s backend loads and that are not there: the model file
    (``model.py``, ``model.onnx``, ``default_model_filename``) and, for our python-backend model, the artifact its
    parameters name. A load of that version fails for each (the one rule of ``builders validate`` and of
    :func:`load_blockers`)."""
    out: list[Problem] = []
    filename = model_filename(cfg)
    if filename and not (vdir / filename).exists():
        field = "default_model_filename" if cfg.default_model_filename else "model file"
        out.append(
            Problem(
                str(vdir),
                field,
                f"{filename} is missing (the {model_backend(cfg) or 'model'} backend loads it)",
                f"put the model at {vdir / filename}",
            )
        )
    served = served_artifact(cfg)
    if served is not None and served[1] != filename and not (vdir / served[1]).exists():
        fmt, file = served
        out.append(
            Problem(str(vdir), "parameters[artifact_file]", f"{file} is missing", f"put the exported {fmt} file at {vdir / file}")
        )
    return out


def loaded_versions(cfg: mc.ModelConfig, versions: dict[int, Path]) -> list[Path]:
    """The version folders Triton loads of ``versions`` by ``cfg``'s ``version_policy`` (default: the latest one)."""
    policy = cfg.version_policy
    which = policy.WhichOneof("policy_choice")
    if which == "all":
        return [versions[v] for v in sorted(versions)]
    if which == "specific":
        return [versions[v] for v in sorted(set(policy.specific.versions)) if v in versions]
    latest = policy.latest.num_versions if which == "latest" and policy.latest.num_versions else 1
    return [versions[v] for v in sorted(versions)[-latest:]]


def load_blockers(model_dir: Path) -> list[Problem]:
    """What in model folder ``model_dir`` makes a load of it fail for certain, seen before asking a server: no version
    folder, or a file a version Triton loads needs and lacks (:func:`missing_files`). ``[]`` when its config cannot be
    read (the server says why). A python model without its ``model.py`` stays LOADING in a running server's index,
    its reason only in that server's log (trial 31, F13): ``clients check`` refuses it by this, at once."""
    try:
        cfg = parse_config((model_dir / "config.pbtxt").read_text(encoding="utf-8"), "config.pbtxt")
    except (OSError, UnicodeDecodeError, ConfigError):
        return []
    scratch: list[Problem] = []
    versions = version_folders(model_dir, scratch)
    if not versions:
        return [p for p in scratch if p.file == str(model_dir)]
    return [p for vdir in loaded_versions(cfg, versions) for p in missing_files(cfg, vdir)]


def version_problems(
    model_dir: Path,
    cfg: mc.ModelConfig,
    cfg_path: Path,
    versions: dict[int, Path],
    check_artifacts: bool,
    load_artifacts: bool,
    target: TritonRelease | None,
    out: list[Problem],
    skipped: list[Problem],
) -> None:
    """Each version folder of ``model_dir`` (:func:`version_folders`): the model file its backend loads and the
    artifact its parameters name, and that artifact read (``check_artifacts``; deserialised with ``load_artifacts``)
    against the config, its external data and the ``target`` release's limits. Problems go to ``out``, the checks
    that did not run to ``skipped`` (:attr:`builders.repository.validate.Validation.skipped`)."""
    served = served_artifact(cfg)
    checked: set[Path] = set()
    for _, vdir in sorted(versions.items()):
        out += missing_files(cfg, vdir)
        if served is None:
            continue
        fmt, file = served
        artifact = vdir / file
        if not artifact.exists():
            continue
        if fmt == "trt" and target is not None and artifact not in checked:
            check_tensorrt_version(model_dir, artifact, target, out, skipped)
        if not check_artifacts or artifact in checked:  # not read: the target's ONNX check is listed as not run
            check_onnx_limits(cfg, fmt, artifact, None, None if artifact in checked else target, out, skipped)
            continue
        checked.add(artifact)
        if artifact.is_file() and artifact.stat().st_size == 0:
            out.append(Problem(str(artifact), "(artifact)", f"{artifact.name} is empty", "re-export the model"))
            continue
        try:
            read = inspect_artifact(fmt, artifact, load=load_artifacts)
        except ConfigError as e:
            out.append(Problem(str(artifact), "(artifact)", e.message, e.hint or "re-export the model"))
            continue
        if read.io is None:
            skipped.append(
                Problem(
                    str(artifact),
                    "inputs/outputs against the artifact",
                    read.skipped or "not read",
                    "pass --load-artifacts" if not load_artifacts else "run validate where it can be read",
                )
            )
            continue
        out += [p.at(cfg_path) for p in artifact_problems(cfg, read.io)]
        out += external_data_problems(artifact, read.io.external_data)
        if read.unchecked:
            skipped.append(Problem(str(artifact), f"{fmt} load", read.unchecked, "pass --load-artifacts"))
        check_onnx_limits(cfg, fmt, artifact, read.io, target, out, skipped)
