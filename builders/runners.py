"""Running an exported artifact on numpy inputs: one small runner per format.

Used by verification at build time *and* by the generated python-backend ``model.py`` on
the bundled server, so the served computation is exactly the verified one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from builders.errors import GpuRequiredError, ModelSpecError

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
        fmt: ``"torchscript"`` or ``"onnx"`` (TensorRT plans are served by Triton's
            ``tensorrt_plan`` backend, not by this module).
        path: The artifact file.
        input_names: Inputs in the order the model takes them.
        output_names: Names given to the model's outputs, in order.
        threads: Intra-op threads (torch ``set_num_threads`` / ORT ``intra_op_num_threads``);
            ``None`` keeps the library default.
        device: ``"cpu"`` or ``"cuda"`` / ``"cuda:N"``.

    Raises:
        GpuRequiredError: ``device`` is CUDA and no CUDA device is visible.
        ModelSpecError: unknown ``fmt``.
    """
    if fmt == "torchscript":
        return _torchscript_runner(Path(path), input_names, output_names, threads, device)
    if fmt == "onnx":
        return _onnx_runner(Path(path), input_names, output_names, threads, device)
    raise ModelSpecError(f"no runner for format {fmt!r}", hint="expected 'torchscript' or 'onnx'")


def _torchscript_runner(path: Path, input_names: Sequence[str], output_names: Sequence[str], threads: int | None, device: str) -> Runner:
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise GpuRequiredError(f"device {device!r} asked for, but torch sees no CUDA device")
    if threads:
        torch.set_num_threads(threads)
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

    def run(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        outs = session.run(None, {n: inputs[n] for n in input_names})
        by_name = dict(zip(graph_outputs, outs))
        return {n: by_name.get(n, outs[i]) for i, n in enumerate(output_names)}

    return run


def flatten_outputs(out: Any) -> list[Any]:
    """Flatten a model's output (tensor, tuple/list, or dict in insertion order) to a list."""
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten_outputs(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in flatten_outputs(o)]
    return [out]
