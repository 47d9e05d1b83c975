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
- the config's own rules (:func:`builders.config.config_problems`);
- inputs and outputs against the artifact (:func:`builders.config.artifact_problems`): the
  ONNX graph (read with ``onnx``), the TorchScript module's ``forward`` signature (with
  torch), the TensorRT engine (where ``tensorrt`` is importable and can deserialise it).
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path

from builders.config import (
    PARAM_FILE,
    ArtifactIO,
    Problem,
    TensorIO,
    artifact_problems,
    config_problems,
    model_backend,
    model_filename,
    parse_config,
    served_artifact,
)
from core.errors import ConfigError
from core import dtypes
from core.errors import DataTypeError

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
    if model_backend(cfg) == "python" and served is None and PARAM_FILE in cfg.parameters:
        out.append(Problem(str(cfg_path), "parameters[artifact_format]", "is missing or not torchscript/onnx",
                           "set artifact_format to torchscript or onnx"))
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


# --------------------------------------------------------------------------- artifacts


def read_artifact_io(fmt: str, path: str | Path) -> ArtifactIO | None:
    """Read the I/O signature an exported file declares.

    Args:
        fmt: ``"onnx"`` (graph inputs that are not initializers, and outputs, with element
            types and shapes), ``"torchscript"`` (``forward`` argument names and the number
            of returned tensors; no dtypes or shapes) or ``"trt"`` (engine I/O tensors and
            profile 0's maximum batch).
        path: The file (for ONNX also a folder holding ``model.onnx``).

    Returns:
        The signature, or ``None`` when it cannot be read here (TensorRT without the
        ``tensorrt`` package or a GPU).

    Raises:
        ConfigError: the file is not a valid artifact of that format.
    """
    p = Path(path)
    st = p.stat()
    return _read_cached(fmt, str(p.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _read_cached(fmt: str, path: str, _mtime_ns: int, _size: int) -> ArtifactIO | None:
    if fmt == "onnx":
        return _onnx_io(Path(path))
    if fmt == "torchscript":
        return _torchscript_io(Path(path))
    if fmt == "trt":
        return _tensorrt_io(Path(path))
    raise ConfigError(f"unknown artifact format {fmt!r}", hint="expected torchscript, onnx or trt")


def _onnx_io(path: Path) -> ArtifactIO:
    import onnx
    from onnx import helper

    if path.is_dir():
        path = path / "model.onnx"
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError, OSError, ...
        raise ConfigError(f"{path.name} is not a readable ONNX model: {type(e).__name__}: {e}") from e
    graph = model.graph
    inits = {i.name for i in graph.initializer}

    def tensor(vi: object) -> TensorIO:
        tt = vi.type.tensor_type  # type: ignore[attr-defined]
        dtype = None
        if tt.elem_type:
            try:
                dtype = dtypes.from_onnx(tt.elem_type).triton
            except DataTypeError:  # a type with no Triton counterpart: never matches a config
                dtype = f"ONNX elem_type {tt.elem_type} (no Triton type)"
        shape = None
        if tt.HasField("shape"):
            shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else -1 for d in tt.shape.dim)
        return TensorIO(vi.name, dtype, shape)  # type: ignore[attr-defined]

    return ArtifactIO(
        "onnx",
        tuple(tensor(i) for i in graph.input if i.name not in inits),
        tuple(tensor(o) for o in graph.output),
    )


def _torchscript_io(path: Path) -> ArtifactIO:
    import torch

    try:
        module = torch.jit.load(str(path), map_location="cpu")
    except Exception as e:  # RuntimeError for anything that is not a TorchScript archive
        raise ConfigError(f"{path.name} is not a loadable TorchScript module: {type(e).__name__}: {str(e)[:200]}") from e
    schema = module.forward.schema
    args = [a.name for a in schema.arguments[1:]]  # [0] is self
    outputs: tuple[TensorIO, ...] | None = None
    if len(schema.returns) == 1:
        ret = schema.returns[0].type
        if isinstance(ret, torch.TensorType):
            outputs = (TensorIO("__0"),)
        elif isinstance(ret, torch.TupleType) and all(isinstance(e, torch.TensorType) for e in ret.elements()):
            outputs = tuple(TensorIO(f"__{i}") for i in range(len(ret.elements())))
    return ArtifactIO("torchscript", tuple(TensorIO(a) for a in args), outputs, positional=True)


def _tensorrt_io(path: Path) -> ArtifactIO | None:
    try:
        import tensorrt as trt
    except ImportError:
        log.info("tensorrt is not importable: %s is not compared with its config", path)
        return None
    try:
        runtime = trt.Runtime(trt.Logger(trt.Logger.ERROR))
        engine = runtime.deserialize_cuda_engine(path.read_bytes())
    except Exception as e:  # no GPU, or a TensorRT version mismatch
        log.info("could not deserialise %s here (%s): not compared with its config", path, e)
        return None
    if engine is None:
        raise ConfigError(f"{path.name} is not a TensorRT engine this TensorRT ({trt.__version__}) can read",
                          hint="rebuild the plan with the TensorRT version of the serving container")
    inputs, outputs = [], []
    max_batch: int | None = None
    for i in range(engine.num_io_tensors):
        name = engine.get_tensor_name(i)
        try:
            dtype = dtypes.from_tensorrt(engine.get_tensor_dtype(name)).triton
        except DataTypeError:  # e.g. fp8/int4: no Triton type, never matches a config
            dtype = f"TensorRT {engine.get_tensor_dtype(name)} (no Triton type)"
        t = TensorIO(name, dtype, tuple(int(d) for d in engine.get_tensor_shape(name)))
        if engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
            inputs.append(t)
            if engine.num_optimization_profiles > 0 and t.shape and t.shape[0] == -1:
                hi = engine.get_tensor_profile_shape(name, 0)[2][0]
                max_batch = hi if max_batch is None else min(max_batch, hi)
        else:
            outputs.append(t)
    return ArtifactIO("trt", tuple(inputs), tuple(outputs), max_batch_size=max_batch)


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

