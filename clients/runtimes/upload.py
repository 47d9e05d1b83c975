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
from typing import Any

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


def _settings(config: dict[str, Any]) -> dict[str, Any]:
    """The settings a variant's name and results stand for, from a config as JSON (either
    protobuf JSON of a ``config.pbtxt`` or what Triton serves at ``/v2/models/NAME/config``)."""
    db = config.get("dynamic_batching")
    return {
        "backend/platform": config.get("backend") or config.get("platform") or None,
        "max_batch_size": int(config.get("max_batch_size") or 0),
        "instance_group": sorted(
            (g.get("kind", "KIND_AUTO"), int(g.get("count", 1))) for g in config.get("instance_group") or []
        ),
        "dynamic_batching": None if db is None else int(db.get("max_queue_delay_microseconds") or 0),
    }


def config_differences(local: Path, served: dict[str, Any]) -> list[str]:
    """How the config Triton serves differs from the local ``config.pbtxt`` in what the
    variant stands for (backend, max_batch_size, instance groups, dynamic batching and its
    queue delay), as ``"field: local X, served Y"``; empty when they agree or the local one is
    unreadable (the sweep fails that variant on its own)."""
    from google.protobuf import json_format

    from builders.config.pbtxt import read_config
    from core.errors import ConfigError

    try:
        mine = json_format.MessageToDict(read_config(local), preserving_proto_field_name=True)
    except ConfigError:
        return []
    a, b = _settings(mine), _settings(served)
    if not a["instance_group"]:
        b["instance_group"] = []  # none asked: the server chose (Triton fills one group in)
    return [f"{k}: local {a[k]}, served {b[k]}" for k in a if a[k] != b[k]]


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
    numeric version folders as ``{"file:<version>/<path>": bytes}``.

    Raises:
        ConfigError: the config cannot be read (:func:`builders.config.pbtxt.read_config`).
        ServerError: the model has no version folder with files.
    """
    from google.protobuf import json_format

    from builders.config.pbtxt import read_config

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
    return config, files


def request_bytes(config: str, files: dict[str, bytes], protocol: str) -> int:
    """The size of a load request carrying ``config`` and ``files`` over ``protocol``: raw bytes
    over gRPC, base64 inside a JSON body over HTTP (:func:`json.dumps` of the parameters)."""
    if protocol == "grpc":
        return len(config.encode()) + sum(len(k) + len(v) for k, v in files.items())
    b64 = sum(len(k) + 4 * ((len(v) + 2) // 3) + 16 for k, v in files.items())
    return len(json.dumps({"parameters": {"config": config}})) + b64
