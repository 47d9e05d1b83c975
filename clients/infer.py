"""Inference requests over HTTP and gRPC (tritonclient), and checks against PyTorch."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from pathlib import Path
from typing import Any

import numpy as np

from builders.errors import ClientError

log = logging.getLogger(__name__)

PROTOCOLS = ("http", "grpc")
#: gRPC's default message limit is 4 MiB; responses of large tensors need more.
GRPC_MAX_MESSAGE_BYTES = 1 << 30


def _module(protocol: str) -> Any:
    if protocol == "http":
        import tritonclient.http as m
    elif protocol == "grpc":
        import tritonclient.grpc as m
    else:
        raise ClientError(f"unknown protocol {protocol!r}", hint="use 'http' or 'grpc'")
    return m


def make_client(url: str, protocol: str) -> Any:
    """A tritonclient ``InferenceServerClient`` for ``url`` (``host:port``)."""
    m = _module(protocol)
    if protocol == "grpc":
        opts = [("grpc.max_send_message_length", GRPC_MAX_MESSAGE_BYTES), ("grpc.max_receive_message_length", GRPC_MAX_MESSAGE_BYTES)]
        return m.InferenceServerClient(url, channel_args=opts)
    return m.InferenceServerClient(url, network_timeout=120)


def model_io(client: Any, model: str, protocol: str) -> dict[str, Any]:
    """The served model's config as a dict (``input``, ``output``, ``max_batch_size``...)."""
    from tritonclient.utils import InferenceServerException

    try:
        if not client.is_model_ready(model):
            raise ClientError(f"model {model!r} is not ready on the server", hint="load it first (explicit model control) or check the server log")
        cfg = client.get_model_config(model, as_json=True) if protocol == "grpc" else client.get_model_config(model)
    except InferenceServerException as e:
        raise ClientError(f"could not read the config of model {model!r}: {e.message()}") from e
    return cfg.get("config", cfg)


def infer(url: str, protocol: str, model: str, inputs: dict[str, np.ndarray], output_names: list[str] | None = None) -> dict[str, np.ndarray]:
    """Send one request and return its outputs.

    Args:
        url: ``host:port`` of the HTTP or gRPC endpoint.
        protocol: ``"http"`` or ``"grpc"``.
        model: Model (variant) name.
        inputs: Input name -> array, shape ``[batch, *dims]`` for batching models.
        output_names: Outputs to request (default: all in the model config).

    Raises:
        ClientError: server unreachable, model not ready, or the request refused (the
            message names the input when Triton says which one was wrong).
    """
    from tritonclient.utils import InferenceServerException, np_to_triton_dtype

    m = _module(protocol)
    try:
        with contextlib.closing(make_client(url, protocol)) as client:
            try:
                live = client.is_server_live()
            except Exception as e:
                raise ClientError(f"no Triton server answers at {url} ({protocol})", hint="start one with scripts/launch_tritonserver.sh") from e
            if not live:
                raise ClientError(f"the Triton server at {url} is not live")
            cfg = model_io(client, model, protocol)
            names = output_names or [o["name"] for o in cfg["output"]]
            req = []
            for name, arr in inputs.items():
                t = m.InferInput(name, list(arr.shape), np_to_triton_dtype(arr.dtype))
                t.set_data_from_numpy(np.ascontiguousarray(arr))
                req.append(t)
            outs = [m.InferRequestedOutput(n) for n in names]
            result = client.infer(model, req, outputs=outs)
            return {n: result.as_numpy(n) for n in names}
    except InferenceServerException as e:
        raise ClientError(f"{model}: request refused: {e.message()}") from e


@dataclasses.dataclass
class CheckResult:
    """A served variant's outputs compared with the PyTorch reference."""

    variant: str
    protocol: str
    passed: bool
    outputs: list[dict[str, Any]]
    error: str | None = None


def check_variant(url: str, protocol: str, variant: str, build_dir: Path, rtol: float = 1e-4) -> CheckResult:
    """Send the build's saved reference inputs and compare served outputs per output.

    Args:
        url: ``host:port`` for ``protocol``.
        variant: Variant (model) name on the server.
        build_dir: The build folder holding ``reference.npz``.
        rtol: Relative tolerance (max abs err / max |ref|), default 1e-4 (fp32).
    """
    from builders.build import load_reference
    from builders.verify import compare_outputs

    inputs, expected = load_reference(build_dir)
    try:
        actual = infer(url, protocol, variant, inputs, list(expected))
    except ClientError as e:
        return CheckResult(variant, protocol, False, [], str(e))
    comps = compare_outputs(actual, expected, rtol)
    return CheckResult(variant, protocol, all(c.passed for c in comps), [c.to_json() for c in comps])
