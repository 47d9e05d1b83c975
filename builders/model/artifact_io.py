"""The I/O signature an exported artifact declares, read from the file itself.

:func:`read_artifact_io` reads an ONNX graph (with ``onnx``), a TorchScript module's
``forward`` signature (with torch) or a TensorRT engine (where ``tensorrt`` is importable and
can deserialise it). ``builders build`` writes configs from it and ``builders validate``
compares hand-written configs with it (:func:`builders.config.checks.artifact_problems`).
Data types go through the one :mod:`core.dtypes` table.

Safety: an ONNX file is a protobuf and is parsed without running anything (its external
data is not loaded, only named). A TorchScript archive or a TensorRT plan can run code when
deserialised (pickled objects, plugins), so :func:`inspect_artifact` (what ``builders
validate`` uses on repositories it did not write) deserialises them only when asked
(``--load-artifacts``), and then in a separate Python process (``python -m
builders.model.artifact_io FORMAT PATH``), never in the toolkit's own. Without that, a
TorchScript file is still read from its structure (:mod:`builders.model.torchscript_archive`:
zip entries, the ``forward`` signature in its code text; nothing unpickled): a ``torch.save``
pickle under that name is refused, and the names and output count are checked.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.torchscript_archive import read_archive, static_torchscript_io
from core import dtypes, formats
from core.errors import ConfigError, DataTypeError
from core.processes import die_with_parent

log = logging.getLogger(__name__)

#: A dynamic dim in a shape (ONNX symbolic dim, TensorRT -1), as in Triton's ``dims``.
WILDCARD = -1


@dataclasses.dataclass(frozen=True)
class ArtifactRead:
    """What :func:`inspect_artifact` learnt: the I/O, or why the file was not read here.

    Attributes:
        io: The artifact's I/O signature; ``None`` when it was not read.
        skipped: Why it was not read (``None`` when it was), for the list of skipped checks.
        how: How it was read: ``"parsed in this process"`` (ONNX protobuf), ``"read from its
            code text"`` (TorchScript without ``load``) or ``"loaded in a separate process"``
            (TorchScript, TensorRT with ``load=True``); ``""`` if not read.
        unchecked: What reading it this way could not check (a TorchScript archive read from
            its code text was not deserialised), for the list of skipped checks.
    """

    io: ArtifactIO | None
    skipped: str | None = None
    how: str = ""
    unchecked: str | None = None


class _NotReadableHere(Exception):
    """The file may be fine but this host cannot read it (no tensorrt, no GPU): a skipped check."""


def unreadable(path: Path, what: str, error: Exception) -> ConfigError:
    """The error of an artifact file that does not load (``what``: ``"a readable ONNX model"``),
    with the loader's words (first 200 characters) and what to do: rebuild it."""
    return ConfigError(
        f"{path.name} is not {what}: {type(error).__name__}: {str(error)[:200]}",
        hint="rebuild it with `builders build` (add --force to re-export), or put back the file the build wrote",
    )


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
    try:
        return _read(fmt, Path(path))
    except _NotReadableHere as e:
        log.info("%s is not compared with its config: %s", path, e)
        return None


def _read(fmt: str, p: Path) -> ArtifactIO:
    st = p.stat()
    return _read_cached(fmt, str(p.resolve()), st.st_mtime_ns, st.st_size)


def inspect_artifact(fmt: str, path: str | Path, *, load: bool = False, timeout_s: float = 300.0) -> ArtifactRead:
    """Read an artifact of a repository someone else may have written, safely.

    ONNX graphs are parsed here (protobuf only; nothing runs). TorchScript archives and
    TensorRT plans can run code when deserialised: without ``load`` a TorchScript archive is
    read from its structure and code text (:func:`static_torchscript_io`) and a plan is not
    opened (the result says so); with ``load`` they are read by ``python -m
    builders.model.artifact_io`` in a separate process, so nothing of theirs runs in this one.

    Args:
        fmt: ``"onnx"``, ``"torchscript"`` or ``"trt"``.
        path: The artifact file.
        load: Deserialise TorchScript and TensorRT files (in a child process).
        timeout_s: How long the child process may take, s.

    Raises:
        ConfigError: the file is not a valid artifact of that format (as
            :func:`read_artifact_io`; from the child process too; a ``torch.save`` pickle
            under a TorchScript name), or the child failed.
    """
    if fmt == "onnx":
        return ArtifactRead(read_artifact_io(fmt, path), how="parsed in this process")
    if fmt == "torchscript" and not load:
        io = static_torchscript_io(Path(path))
        if io is None:
            return ArtifactRead(
                None,
                "TorchScript archive not loaded, and its code text does not show forward(): pass --load-artifacts "
                "to read it in a separate process",
            )
        return ArtifactRead(
            io,
            how="read from its code text",
            unchecked="TorchScript archive read from its structure and code text, not deserialised: whether "
            "libtorch loads it (its operators, its version) was not checked; pass --load-artifacts to load it "
            "in a separate process",
        )
    what = {"torchscript": "TorchScript archive", "trt": "TensorRT plan"}.get(fmt, fmt)
    if not load:
        return ArtifactRead(
            None,
            f"{what} not loaded: deserialising it can run code from the file; "
            "pass --load-artifacts to read it in a separate process",
        )
    cmd = [sys.executable, "-m", "builders.model.artifact_io", fmt, str(path)]
    try:
        p = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout_s, check=False, preexec_fn=die_with_parent(os.getpid())
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"reading {Path(path).name} took longer than {timeout_s:.0f} s (in a separate process)",
            hint="check the file; a plan or module that hangs on load will hang the server too",
        ) from None
    try:
        doc = json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise ConfigError(
            f"reading {Path(path).name} in a separate process failed (exit {p.returncode}): "
            f"{(p.stderr or p.stdout).strip()[-300:]}",
            hint="the file crashes the loader: re-export it",
        ) from None
    if "error" in doc:
        raise ConfigError(doc["error"], hint=doc.get("hint"))
    if "skipped" in doc:
        return ArtifactRead(None, f"{what} not read: {doc['skipped']}")
    return ArtifactRead(ArtifactIO.from_json(doc["io"]), how="loaded in a separate process")


def _main(argv: list[str]) -> int:
    """``python -m builders.model.artifact_io FORMAT PATH``: print the artifact's I/O as one JSON line
    (``{"io": ...}``, ``{"skipped": reason}`` or ``{"error": message, "hint": ...}``)."""
    fmt, path = argv
    try:
        doc: dict[str, Any] = {"io": _read(fmt, Path(path)).to_json()}
    except _NotReadableHere as e:
        doc = {"skipped": str(e)}
    except ConfigError as e:
        doc = {"error": e.message, "hint": e.hint}
    print(json.dumps(doc))
    return 0


@functools.lru_cache(maxsize=64)
def _read_cached(fmt: str, path: str, _mtime_ns: int, _size: int) -> ArtifactIO:
    if fmt == "onnx":
        return _onnx_io(Path(path))
    if fmt == "torchscript":
        return _torchscript_io(Path(path))
    if fmt == "trt":
        return _tensorrt_io(Path(path))
    raise ConfigError(f"unknown artifact format {fmt!r}", hint="expected torchscript, onnx or trt")


def _onnx_io(path: Path) -> ArtifactIO:
    import onnx

    if path.is_dir():
        path = path / formats.get("onnx").file
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError, OSError, ...
        raise unreadable(path, "a readable ONNX model", e) from e
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
            shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else WILDCARD for d in tt.shape.dim)
        return TensorIO(vi.name, dtype, shape)  # type: ignore[attr-defined]

    from onnx.external_data_helper import _get_all_tensors  # initializers, attributes and subgraphs alike

    external = []
    for t in _get_all_tensors(model):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            loc = next((e.value for e in t.external_data if e.key == "location"), None)
            if loc and loc not in external:
                external.append(loc)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    return ArtifactIO(
        "onnx",
        tuple(tensor(i) for i in graph.input if i.name not in inits),
        tuple(tensor(o) for o in graph.output),
        external_data=tuple(external),
        ir_version=model.ir_version or None,
        opset=opset,
    )


def _torchscript_io(path: Path) -> ArtifactIO:
    import torch

    read_archive(path)  # a torch.save pickle is named as such, not loaded
    try:
        module = torch.jit.load(str(path), map_location="cpu")
    except Exception as e:  # RuntimeError for anything that is not a TorchScript archive
        raise unreadable(path, "a loadable TorchScript module", e) from e
    schema = module.forward.schema
    args = [a.name for a in schema.arguments[1:]]  # [0] is self
    outputs: tuple[TensorIO, ...] | None = None
    if len(schema.returns) == 1:
        ret = schema.returns[0].type
        if isinstance(ret, torch.TensorType):
            outputs = (TensorIO("__0"),)
        elif isinstance(ret, torch.TupleType) and all(isinstance(e, torch.TensorType) for e in ret.elements()):
            outputs = tuple(TensorIO(f"__{i}") for i in range(len(ret.elements())))
    return ArtifactIO(
        "torchscript",
        tuple(TensorIO(a) for a in args),
        outputs,
        positional=True,
        device_constants=tuple(device_constants(module)),
    )


def device_constants(module: Any) -> list[str]:
    """Devices a TorchScript module's graph holds as constants, with the operators using them.

    ``torch.jit.trace`` records ``device=x.device`` (and factory calls such as
    ``torch.arange(n)``) as a constant of the trace's device: served on another device the
    module mixes devices and fails. A scripted module reads the device at run time
    (``prim::device``) and has none.

    Args:
        module: A ``torch.jit.ScriptModule``.

    Returns:
        One ``"<device> (<op>, ...)"`` per distinct device constant and its users, e.g.
        ``["cpu (aten::ones)"]``; empty when the graph has none.
    """
    found: dict[str, list[str]] = {}
    try:
        graph = module.inlined_graph
    except (AttributeError, RuntimeError):
        return []
    for node in graph.nodes():
        if node.kind() != "prim::Constant" or node.output().type().kind() != "DeviceObjType":
            continue
        device = str(node.output().toIValue())
        users = found.setdefault(device, [])
        for use in node.output().uses():
            if use.user.kind() not in users:
                users.append(use.user.kind())
    return [f"{d} ({', '.join(u) or 'unused'})" for d, u in found.items()]


def _tensorrt_io(path: Path) -> ArtifactIO:
    try:
        import tensorrt as trt
    except ImportError:
        raise _NotReadableHere("the tensorrt package is not installed here") from None
    try:
        runtime = trt.Runtime(trt.Logger(trt.Logger.ERROR))
    except Exception as e:  # no GPU / CUDA driver: the runtime cannot start
        raise _NotReadableHere(f"TensorRT cannot start here ({type(e).__name__}: {str(e)[:120]}); a GPU is needed") from None
    try:
        engine = runtime.deserialize_cuda_engine(path.read_bytes())
    except Exception as e:  # a corrupt file or another TensorRT version
        raise ConfigError(
            f"{path.name} is not a TensorRT engine this TensorRT ({trt.__version__}) can read: "
            f"{type(e).__name__}: {str(e)[:200]}",
            hint="rebuild the plan with the TensorRT version of the serving container",
        ) from None
    if engine is None:
        raise ConfigError(
            f"{path.name} is not a TensorRT engine this TensorRT ({trt.__version__}) can read",
            hint="rebuild the plan with the TensorRT version of the serving container",
        )
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


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
