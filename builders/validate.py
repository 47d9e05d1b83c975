"""``builders validate``: check any Triton model repository, ours or hand-written.

Every problem is reported (not only the first) with its file, the config field, what is
wrong and what to do. Checks, per model folder (Triton docs, "Model Repository" and
"Model Configuration"):

- ``config.pbtxt`` exists and parses as a ``ModelConfig`` (``text_format``, as the server);
- the folder name equals ``name``;
- version folders are positive integers without leading zeros (Triton ignores others),
  at least one exists, and ``version_policy.specific`` names existing ones;
- each version folder holds the model file the platform/backend expects
  (``default_model_filename`` or ``model.pt`` / ``model.onnx`` / ``model.plan`` /
  ``model.py``) and, for our python-backend model, the artifact its parameters name;
- the config's own rules (:func:`builders.config_checks.config_problems`, which applies
  :mod:`builders.triton_rules` and the serving backend's rules, e.g. our python-backend
  model's ``artifact_format``);
- inputs and outputs against the artifact (:func:`builders.config_checks.artifact_problems`,
  with the artifact read by :func:`builders.artifact_io.read_artifact_io`): the
  ONNX graph (read with ``onnx``), the TorchScript module's ``forward`` signature (with
  torch), the TensorRT engine (where ``tensorrt`` is importable and can deserialise it).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from builders.artifact_io import read_artifact_io
from builders.backends import model_backend, model_filename, served_artifact
from builders.config import parse_config
from builders.config_checks import artifact_problems, config_problems
from builders.triton_rules import Problem
from core.errors import ConfigError

log = logging.getLogger(__name__)

CONFIG = "config.pbtxt"
#: Folders Triton's repository scan never treats as models or versions.
_IGNORED = {"__pycache__"}

__all__ = ["Problem", "read_artifact_io", "validate_model", "validate_repository"]


def validate_repository(path: str | Path, *, server_gpu: bool | None = None, check_artifacts: bool = True) -> list[Problem]:
    """Check every model folder of a repository (or one model folder) and return all problems.

    Args:
        path: A model repository (folders of models), or a single model folder (one that
            holds ``config.pbtxt``).
        server_gpu: ``False`` reports KIND_GPU instance groups (the server has no GPU);
            ``None`` (default) and ``True`` do not.
        check_artifacts: Read the model files and compare their I/O with the config
            (default on; imports onnx / torch / tensorrt as needed).

    Returns:
        Problems, in folder order; empty when the repository is valid.
    """
    root = Path(path)
    if not root.is_dir():
        return [Problem(str(root), "repository", "does not exist or is not a folder", "pass the model repository folder")]
    if (root / CONFIG).is_file():
        return validate_model(root, server_gpu=server_gpu, check_artifacts=check_artifacts)
    models = [d for d in sorted(root.iterdir()) if d.is_dir() and not d.name.startswith(".") and d.name not in _IGNORED]
    if not models:
        return [Problem(str(root), "repository", "holds no model folders", "a repository holds <model>/config.pbtxt and <model>/<version>/")]
    out: list[Problem] = []
    for d in models:
        out += validate_model(d, server_gpu=server_gpu, check_artifacts=check_artifacts)
    return out


def validate_model(model_dir: Path, *, server_gpu: bool | None = None, check_artifacts: bool = True) -> list[Problem]:
    """Check one model folder (see the module docstring for the rules).

    Args:
        model_dir: ``<repository>/<model>``.
        server_gpu, check_artifacts: As :func:`validate_repository`.
    """
    out: list[Problem] = []
    cfg_path = model_dir / CONFIG
    versions = _version_folders(model_dir, out)
    if not cfg_path.is_file():
        out.append(Problem(str(cfg_path), "config.pbtxt", "is missing", "write a config.pbtxt (builders build writes one per variant)"))
        return out
    try:
        cfg = parse_config(cfg_path.read_text(errors="replace"), CONFIG)
    except ConfigError as e:
        out.append(Problem(str(cfg_path), "(syntax)", e.message.split(": ", 1)[-1], "fix the pbtxt syntax at the line and column given"))
        return out
    if cfg.name and cfg.name != model_dir.name:
        out.append(Problem(str(cfg_path), "name", f"{cfg.name!r} differs from its folder name {model_dir.name!r}",
                           f"set name: \"{model_dir.name}\" or rename the folder"))
    out += [p.at(cfg_path) for p in config_problems(cfg, server_gpu=server_gpu)]
    policy = cfg.version_policy
    if policy.WhichOneof("policy_choice") == "specific":
        absent = [v for v in policy.specific.versions if v not in versions]
        if absent:
            out.append(Problem(str(cfg_path), "version_policy.specific.versions", f"versions {absent} have no folder",
                               f"create them or list only {sorted(versions)}"))
    filename = model_filename(cfg)
    served = served_artifact(cfg)
    checked: set[Path] = set()
    for v, vdir in sorted(versions.items()):
        if filename and not (vdir / filename).exists():
            field = "default_model_filename" if cfg.default_model_filename else "model file"
            out.append(Problem(str(vdir), field, f"{filename} is missing (the {model_backend(cfg) or 'model'} backend loads it)",
                               f"put the model at {vdir / filename}"))
        if served is None:
            continue
        fmt, file = served
        artifact = vdir / file
        if not artifact.exists():
            if file != filename:
                out.append(Problem(str(vdir), "parameters[artifact_file]", f"{file} is missing", f"put the exported {fmt} file at {artifact}"))
            continue
        if check_artifacts and artifact not in checked:
            checked.add(artifact)
            try:
                io = read_artifact_io(fmt, artifact)
            except ConfigError as e:
                out.append(Problem(str(artifact), "(artifact)", e.message, e.hint or "re-export the model"))
                continue
            if io is not None:
                out += [p.at(cfg_path) for p in artifact_problems(cfg, io)]
    return out


def _version_folders(model_dir: Path, out: list[Problem]) -> dict[int, Path]:
    """Version number -> folder; problems for folders Triton would ignore, or none at all."""
    versions: dict[int, Path] = {}
    for d in sorted(model_dir.iterdir()):
        if not d.is_dir() or d.name.startswith(".") or d.name in _IGNORED:
            continue
        if d.name.isdigit() and not d.name.startswith("0"):
            versions[int(d.name)] = d
        else:
            out.append(Problem(str(d), "version folder", f"{d.name!r} is not a positive integer without leading zeros: Triton ignores it",
                               "name version folders 1, 2, ...; keep other folders out of the model folder"))
    if not versions:
        out.append(Problem(str(model_dir), "version folder", "no version folder (1/, 2/, ...)", f"put the model file in {model_dir / '1'}"))
    return versions


def relative(path: str, root: str | Path) -> str:
    """``path`` relative to ``root`` when inside it (for tables), else unchanged."""
    try:
        return os.path.relpath(path, root) if Path(path).resolve().is_relative_to(Path(root).resolve()) else path
    except ValueError:
        return path


def summary(problems: list[Problem], root: str | Path) -> str:
    """One line: how many problems in how many model folders."""
    rootp = Path(root)
    if (rootp / CONFIG).is_file():
        total = 1
    else:
        total = sum(1 for d in rootp.iterdir() if d.is_dir() and not d.name.startswith(".") and d.name not in _IGNORED) if rootp.is_dir() else 0
    if not problems:
        return f"{total} model(s) checked, no problems"
    models = {relative(p.file, root).split(os.sep)[0] for p in problems}
    return f"{len(problems)} problem(s) in {len(models)} of {total} model(s)"

