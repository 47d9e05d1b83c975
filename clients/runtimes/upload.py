"""What deploying a variant on a remote Triton sends: the load request's payload, its size and limit.

A variant is deployed through Triton's model-repository API (Triton docs, "Model Repository
Extension": the ``config`` and ``file:<version>/<name>`` load parameters, tritonclient's
``load_model(name, config=..., files=...)``); :class:`clients.runtimes.remote.RemoteRuntime`
sends it.

Request size: Triton's HTTP endpoint refuses a JSON body above ``--http-max-input-size``
(default 64 MiB, ``HTTP_DEFAULT_MAX_INPUT_SIZE``; files travel base64-encoded there, 4/3 of
their size); its gRPC endpoint takes messages up to 2 GiB - 1 (``MAX_GRPC_MESSAGE_SIZE`` of
tritonclient and the server). Uploads go over gRPC when its endpoint answers, else HTTP;
above the limit (:func:`upload_limit_bytes`, or ``--max-upload-mb``) a variant is refused
with the way out: ``--remote-repository PATH``, a repository the server reads, from which
variants are loaded by name.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.errors import ServerError

#: Triton's HTTP request-body limit by default (``--http-max-input-size``, 64 MiB).
HTTP_UPLOAD_LIMIT_BYTES = 1 << 26
#: Triton's and tritonclient's gRPC message limit (``tritonclient.grpc.MAX_GRPC_MESSAGE_SIZE``).
GRPC_UPLOAD_LIMIT_BYTES = 2**31 - 1


def upload_limit_bytes(protocol: str) -> int:
    """The largest load request Triton takes over ``protocol`` by default (module docstring)."""
    return GRPC_UPLOAD_LIMIT_BYTES if protocol == "grpc" else HTTP_UPLOAD_LIMIT_BYTES


def mib(n: float) -> str:
    """A byte count in MiB, with enough digits to tell small ones apart (``0.0123 MiB``)."""
    return f"{n / 2**20:.3g} MiB"


def limit_source(protocol: str, asked: int | None) -> str:
    """Where a load-request limit comes from, in words."""
    if asked:
        return "--max-upload-mb"
    if protocol == "grpc":
        return "the gRPC message limit of Triton and tritonclient, 2 GiB"
    return "Triton's HTTP --http-max-input-size, 64 MiB by default; files travel base64-encoded, 4/3 of their size"


def deploy_payload(folder: Path) -> tuple[str, dict[str, bytes]]:
    """What a load request carries for the model in ``folder``: its ``config.pbtxt`` as the
    JSON Triton takes (protobuf JSON, field names as in the pbtxt) and every file of its
    numeric version folders as ``{"file:<version>/<path>": bytes}``, with the warmup's input
    data files (``{"file:warmup/<name>": bytes}``, which its ``model_warmup`` reads; Triton docs,
    "Model Configuration: Model Warmup").

    Raises:
        ConfigError: the config cannot be read (:func:`builders.config.pbtxt.read_config`).
        ServerError: the model has no version folder with files.
    """
    from google.protobuf import json_format

    from builders.config.pbtxt import read_config
    from builders.config.warmup import WARMUP_FOLDER

    config = json_format.MessageToJson(read_config(folder / "config.pbtxt"), preserving_proto_field_name=True, indent=None)
    files = {
        f"file:{p.relative_to(folder).as_posix()}": p.read_bytes()
        for version in sorted(folder.iterdir())
        if version.is_dir() and version.name.isdigit()
        for p in sorted(version.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    if not files:
        raise ServerError(
            f"{folder.name}: no files in a version folder ({folder}/<version>/) to upload",
            hint="pass a repository written by `builders build`",
        )
    warmup = folder / WARMUP_FOLDER
    if warmup.is_dir():
        files.update(
            {f"file:{p.relative_to(folder).as_posix()}": p.read_bytes() for p in sorted(warmup.rglob("*")) if p.is_file()}
        )
    return config, files


def request_bytes(config: str, files: dict[str, bytes], protocol: str) -> int:
    """The size of a load request carrying ``config`` and ``files`` over ``protocol``: raw bytes
    over gRPC, base64 inside a JSON body over HTTP (:func:`json.dumps` of the parameters)."""
    if protocol == "grpc":
        return len(config.encode()) + sum(len(k) + len(v) for k, v in files.items())
    b64 = sum(len(k) + 4 * ((len(v) + 2) // 3) + 16 for k, v in files.items())
    return len(json.dumps({"parameters": {"config": config}})) + b64
