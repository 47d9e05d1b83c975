"""The I/O signature an exported artifact declares, read from the file itself.

:func:`read_artifact_io` reads an ONNX graph (with ``onnx``), a TorchScript module's
``forward`` signature (with torch) or a TensorRT engine (where ``tensorrt`` is importable and
can deserialise it). ``builders build`` writes configs from it and ``builders validate``
compares hand-written configs with it (:func:`builders.config.checks.artifact_problems`).
Data types go through the one :mod:`core.dtypes` table.

Safety: an ONNX file is a protobuf and is parsed without running anything (its external
data is not loaded, only named). A TorchScript archive or a TensorRT plan can run code when
deserialised (pickled objects, plugins), so :func:`inspect_artifact` (what ``builders
validate`` uses on repositories it did not write) reads them only when asked
(``--load-artifacts``), and then in a separate Python process (``python -m
builders.model.artifact_io FORMAT PATH``), never in the toolkit's own.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

from core import dtypes, formats
from core.errors import ConfigError, DataTypeError

log = logging.getLogger(__name__)

#: A dynamic dim in a shape (ONNX symbolic dim, TensorRT -1), as in Triton's ``dims``.
WILDCARD = -1


@dataclasses.dataclass(frozen=True)
class TensorIO:
    """One input or output as the exported artifact declares it.

    Attributes:
        name: Tensor name in the artifact (ONNX graph / TensorRT engine / forward argument).
        data_type: Triton ``DataType`` name (``"TYPE_FP32"``); ``None`` = the artifact does not say.
        shape: Full shape *with* the batch axis when the artifact has one; ``-1`` marks a
            dynamic dim; ``None`` = unknown.
    """

    name: str
    data_type: str | None = None
    shape: tuple[int, ...] | None = None


@dataclasses.dataclass(frozen=True)
class ArtifactIO:
    """The I/O signature read from an exported file (see :func:`builders.repository.validate.read_artifact_io`).

    Attributes:
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        inputs: Inputs in the artifact's order.
        outputs: Outputs in order; ``None`` when the artifact does not tell (TorchScript
            returning a dict or list).
        positional: TorchScript: tensors are matched by position, the names are forward
            argument names (Triton's PyTorch backend also accepts ``<name>__<index>``).
        max_batch_size: TensorRT: the largest batch of optimisation profile 0.
        external_data: ONNX: files the graph's initializers name as external data
            (relative to the graph's folder), e.g. ``("model.onnx.data",)``.
        ir_version: ONNX: ``ModelProto.ir_version``.
        opset: ONNX: the default-domain (``ai.onnx``) opset the graph imports.
        device_constants: TorchScript: devices frozen into the graph as constants (a trace
            of ``torch.ones(..., device=x.device)`` records the trace device), each as
            ``"cpu (aten::ones)"``; see :func:`device_constants`.
    """

    format: str
    inputs: tuple[TensorIO, ...]
    outputs: tuple[TensorIO, ...] | None
    positional: bool = False
    max_batch_size: int | None = None
    external_data: tuple[str, ...] = ()
    ir_version: int | None = None
    opset: int | None = None
    device_constants: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON form: every field, tensors as ``{"name", "data_type", "shape"}``."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ArtifactIO:
        """Inverse of :meth:`to_json`; ``inputs``/``outputs`` may be ``None`` (not read)."""

        def tensors(ts: list[dict[str, Any]] | None) -> tuple[TensorIO, ...] | None:
            if ts is None:
                return None
            return tuple(
                TensorIO(t["name"], t.get("data_type"), tuple(t["shape"]) if t.get("shape") is not None else None) for t in ts
            )

        return cls(
            d["format"],
            tensors(d["inputs"]) or (),
            tensors(d.get("outputs")),
            bool(d.get("positional")),
            d.get("max_batch_size"),
            tuple(d.get("external_data") or ()),
            d.get("ir_version"),
            d.get("opset"),
            tuple(d.get("device_constants") or ()),
        )


@dataclasses.dataclass(frozen=True)
class ArtifactRead:
    """What :func:`inspect_artifact` learnt: the I/O, or why the file was not read here.

    Attributes:
        io: The artifact's I/O signature; ``None`` when it was not read.
        skipped: Why it was not read (``None`` when it was), for the list of skipped checks.
        how: How it was read: ``"parsed in this process"`` (ONNX protobuf) or ``"loaded in a
            separate process"`` (TorchScript, TensorRT with ``load=True``); ``""`` if not read.
    """

    io: ArtifactIO | None
    skipped: str | None = None
    how: str = ""


class _NotReadableHere(Exception):
    """The file may be fine but this host cannot read it (no tensorrt, no GPU): a skipped check."""


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
    TensorRT plans can run code when deserialised: without ``load`` they are not opened
    (the result says so); with ``load`` they are read by ``python -m builders.model.artifact_io``
    in a separate process, so nothing of theirs runs in this one.

    Args:
        fmt: ``"onnx"``, ``"torchscript"`` or ``"trt"``.
        path: The artifact file.
        load: Deserialise TorchScript and TensorRT files (in a child process).
        timeout_s: How long the child process may take, s.

    Raises:
        ConfigError: the file is not a valid artifact of that format (as
            :func:`read_artifact_io`; from the child process too), or the child failed.
    """
    if fmt == "onnx":
        return ArtifactRead(read_artifact_io(fmt, path), how="parsed in this process")
    what = {"torchscript": "TorchScript archive", "trt": "TensorRT plan"}.get(fmt, fmt)
    if not load:
        return ArtifactRead(
            None,
            f"{what} not loaded: deserialising it can run code from the file; "
            "pass --load-artifacts to read it in a separate process",
        )
    cmd = [sys.executable, "-m", "builders.model.artifact_io", fmt, str(path)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
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
            shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else WILDCARD for d in tt.shape.dim)
        return TensorIO(vi.name, dtype, shape)  # type: ignore[attr-defined]

    external = []
    for init in graph.initializer:
        if init.data_location == onnx.TensorProto.EXTERNAL:
            loc = next((e.value for e in init.external_data if e.key == "location"), None)
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
