"""Running an exported artifact on numpy inputs: one small runner per format.

Used by verification at build time *and* by the generated python-backend ``model.py`` on
the bundled server, so the served computation is exactly the verified one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.outputs import flatten_outputs
from builders.serving.tensorrt_env import require_tensorrt
from builders.serving.torch_env import apply_torch_cpu_env
from core import dtypes
from core.errors import GpuRequiredError, ModelSpecError

Runner = Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]


def load_runner(
    fmt: str,
    path: str | Path,
    input_names: Sequence[str],
    output_names: Sequence[str],
    threads: int | None = None,
    device: str = "cpu",
) -> Runner:
    """Load ``path`` and return ``run(inputs) -> outputs`` (dicts of name -> array).

    Args:
        fmt: ``"torchscript"``, ``"onnx"`` or ``"trt"`` (a TensorRT plan; needs a CUDA
            device, ``tensorrt`` and torch with CUDA; Triton serves plans with its
            ``tensorrt_plan`` backend, this runner is for verification).
        path: The artifact file.
        input_names: Inputs in the order the model takes them.
        output_names: Names given to the model's outputs, in order.
        threads: Intra-op threads (torch ``set_num_threads`` / ORT ``intra_op_num_threads``);
            ``None`` keeps the library default. torch's threads wait with ``OMP_WAIT_POLICY=PASSIVE``
            when this loads torch first (:mod:`builders.serving.torch_env`).
        device: ``"cpu"`` or ``"cuda"`` / ``"cuda:N"``.

    Returns:
        ``run(inputs)``: ``inputs`` maps input names to arrays of shape
        ``[batch, *per_sample_shape]``; the result maps output names to numpy arrays.

    Raises:
        GpuRequiredError: ``device`` is CUDA (or ``fmt`` is ``"trt"``) and no CUDA device,
            CUDA-enabled torch or ``tensorrt`` is available.
        ModelSpecError: unknown ``fmt``.
    """
    apply_torch_cpu_env()  # before torch's first import: its OpenMP workers sleep, not spin (torch_env)
    if fmt == "torchscript":
        return _torchscript_runner(Path(path), input_names, output_names, threads, device)
    if fmt == "onnx":
        return _onnx_runner(Path(path), input_names, output_names, threads, device)
    if fmt == "trt":
        return _tensorrt_runner(Path(path), input_names, output_names, "cuda" if device == "cpu" else device)
    raise ModelSpecError(f"no runner for format {fmt!r}", hint="expected 'torchscript', 'onnx' or 'trt'")


#: Formats whose runner finds each output by the artifact's own output name (an ONNX graph's
#: outputs carry the served names), so the order in ``artifact_outputs`` cannot swap them;
#: the other formats return outputs by position and are named by that order.
OUTPUTS_BY_NAME: frozenset[str] = frozenset({"onnx"})


def instance_threads(intra_op_threads: str | int | None, instances: int, cpu_count: int | None) -> int:
    """Intra-op threads of one instance of the toolkit's python-backend model: the config's
    ``intra_op_threads`` parameter when it is set (> 0), else the host's cores divided among
    the model's instances (at least 1), so that instances don't oversubscribe the CPU.

    The generated ``model.py`` takes its threads from here, and so does the in-process
    baseline (:mod:`perf.profile.baseline`) that is compared with it.

    Args:
        intra_op_threads: The ``intra_op_threads`` config parameter (text or int), or
            ``None``/``""`` when absent.
        instances: Instances of the model (sum of ``instance_group`` counts; >= 1).
        cpu_count: Cores of the host the server runs on (``os.cpu_count()``); ``None``: 1.
    """
    return int(intra_op_threads or 0) or max(1, (cpu_count or 1) // max(1, instances))


def served_output_names(recorded: str | None, declared: Sequence[str]) -> list[str]:
    """The served output names in the artifact's output order, for the python-backend model.

    Args:
        recorded: The config's ``artifact_outputs`` parameter (a JSON list written by the
            build, :mod:`builders.backends.python`), or ``None`` when absent.
        declared: The names of the config's ``output`` blocks (any order).

    Raises:
        ValueError: the parameter is missing or malformed, or names other outputs than the
            config declares (the message says what to do).
    """
    import json

    try:
        names = json.loads(recorded) if recorded else None
    except json.JSONDecodeError:
        names = None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(
            "parameters[artifact_outputs] is missing or not a JSON list of names: without it this model cannot tell "
            "which of the artifact's outputs each config output is; rebuild the variant with `builders build`"
        )
    if sorted(names) != sorted(declared) or len(set(names)) != len(names):
        raise ValueError(
            f"the config declares outputs {list(declared)}, but the artifact's outputs are {names} "
            "(parameters[artifact_outputs]): declare exactly those outputs, by the names the build gave them"
        )
    return names


def declared_outputs(outputs: Sequence[dict[str, Any]], to_numpy: Callable[[str], Any]) -> dict[str, tuple[Any, list[int]]]:
    """Output name -> (numpy dtype, per-sample dims as the model sees them: ``reshape`` when
    given, else ``dims``; ``-1`` = any), from a config's ``output`` list in Triton's JSON form."""
    out = {}
    for o in outputs:
        dims = o["reshape"].get("shape", []) if "reshape" in o else o.get("dims", [])
        out[o["name"]] = (to_numpy(o["data_type"]), [int(d) for d in dims])
    return out


def output_mismatches(outputs: dict[str, np.ndarray], declared: dict[str, tuple[Any, list[int]]], batched: bool) -> list[str]:
    """Where the artifact's outputs differ from the config: dtype, or shape (per sample, after
    the batch axis, when ``batched``; ``-1`` dims match any size). Empty when they agree."""
    problems = []
    for name, (dtype, dims) in declared.items():
        a = outputs.get(name)
        if a is None:
            problems.append(f"output {name!r}: the artifact returned no such output")
            continue
        shape = list(a.shape[1:] if batched else a.shape)
        if np.dtype(a.dtype) != np.dtype(dtype):
            problems.append(
                f"output {name!r}: the artifact returned {np.dtype(a.dtype).name}, the config declares {np.dtype(dtype).name}"
            )
        if len(shape) != len(dims) or any(d != -1 and d != s for d, s in zip(dims, shape)):
            problems.append(f"output {name!r}: the artifact returned per-sample shape {shape}, the config declares dims {dims}")
    return problems


def _torchscript_runner(
    path: Path, input_names: Sequence[str], output_names: Sequence[str], threads: int | None, device: str
) -> Runner:
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise GpuRequiredError(
            f"device {device!r} asked for, but torch sees no CUDA device",
            hint="run on a host whose GPU torch sees (a CUDA build of torch), or ask for device cpu",
        )
    if threads:
        torch.set_num_threads(threads)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit is deprecated upstream; Triton still serves it
        module = torch.jit.load(str(path), map_location=device).eval()

    def run(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        with torch.inference_mode():
            args = [torch.from_numpy(np.ascontiguousarray(inputs[n])).to(device) for n in input_names]
            out = module(*args)
        return dict(zip(output_names, (o.cpu().numpy() for o in flatten_outputs(out))))

    return run


def _onnx_runner(path: Path, input_names: Sequence[str], output_names: Sequence[str], threads: int | None, device: str) -> Runner:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    if device.startswith("cuda"):
        if "CUDAExecutionProvider" not in ort.get_available_providers():
            raise GpuRequiredError(
                f"device {device!r} asked for, but onnxruntime has no CUDAExecutionProvider",
                hint="install onnxruntime-gpu on the GPU host",
            )
        dev_id = int(device.split(":")[1]) if ":" in device else 0
        providers: list[Any] = [("CUDAExecutionProvider", {"device_id": dev_id})]
    else:
        providers = ["CPUExecutionProvider"]
    session = ort.InferenceSession(str(path), opts, providers=providers)
    graph_outputs = [o.name for o in session.get_outputs()]
    # an input the model ignores may have been dropped from the graph by the exporter
    graph_inputs = {i.name for i in session.get_inputs()}
    feed_names = [n for n in input_names if n in graph_inputs] if graph_inputs <= set(input_names) else list(input_names)

    def run(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        outs = session.run(None, {n: inputs[n] for n in feed_names})
        by_name = dict(zip(graph_outputs, outs))
        return {n: by_name.get(n, outs[i]) for i, n in enumerate(output_names)}

    return run


def _tensorrt_runner(path: Path, input_names: Sequence[str], output_names: Sequence[str], device: str) -> Runner:
    """Run a serialized TensorRT engine with torch CUDA tensors as I/O buffers (the
    name-based tensor API of TensorRT >= 8.5: ``set_input_shape`` / ``set_tensor_address``
    / ``execute_async_v3``)."""
    trt = require_tensorrt("running a TensorRT plan")
    import torch

    dev = torch.device(device)
    runtime = trt.Runtime(trt.Logger(trt.Logger.WARNING))
    engine = runtime.deserialize_cuda_engine(path.read_bytes())
    if engine is None:
        raise GpuRequiredError(
            f"TensorRT could not load {path}",
            hint="a plan only runs with the TensorRT version and GPU (compute capability) it was built for; rebuild it here",
        )
    context = engine.create_execution_context()

    def run(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        keep = []
        with torch.cuda.device(dev):
            stream = torch.cuda.current_stream()
            for n in input_names:
                want = dtypes.from_tensorrt(engine.get_tensor_dtype(n)).to_torch()
                t = torch.from_numpy(np.ascontiguousarray(inputs[n])).to(dev).to(want).contiguous()
                context.set_input_shape(n, tuple(t.shape))
                context.set_tensor_address(n, t.data_ptr())
                keep.append(t)
            outs = {}
            for n in output_names:
                o = torch.empty(
                    tuple(context.get_tensor_shape(n)),
                    dtype=dtypes.from_tensorrt(engine.get_tensor_dtype(n)).to_torch(),
                    device=dev,
                )
                context.set_tensor_address(n, o.data_ptr())
                outs[n] = o
            if not context.execute_async_v3(stream.cuda_stream):
                raise RuntimeError("TensorRT execute_async_v3 failed")
            stream.synchronize()
        return {n: o.cpu().numpy() for n, o in outs.items()}

    return run
