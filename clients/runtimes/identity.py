"""The identity of what the toolkit asked a server to load: the files of a variant, uploaded
(by SHA-256) or found in a repository the server reads (by size and mtime), and the one-time
upload token that proves a served config is the upload's (:mod:`clients.runtimes.served`).

Triton 2.51 answers a load request whose config equals the loaded model's with success
without loading anything (checked on the bundled server: a corrupt ``model.onnx`` uploaded
over a READY model "loaded" in 48 ms, the old copy kept serving); a config it has never seen
makes it load the files, and the served config then carries the token
(:func:`with_upload_token`, :func:`upload_problem`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

#: The config parameter an uploaded variant carries its one-time token in; the served config
#: must carry the same token, else the server did not load the uploaded files.
UPLOAD_PARAMETER = "triton_toolkit_upload"
_CONFIG = ConfigDict(extra="ignore")


@dataclass(config=_CONFIG)
class ArtifactFile:
    """One file of a model's version folders: its path in the model folder (``1/model.onnx``),
    size, and either its SHA-256 (an upload: the bytes sent) or its modification time in ns
    (a file found in a repository: size + mtime, not read)."""

    path: str
    size_bytes: int
    sha256: str | None = None
    mtime_ns: int | None = None


@dataclass(config=_CONFIG)
class ArtifactIdentity:
    """The files of the model the server was asked to load.

    Attributes:
        source: ``uploaded`` (the bytes sent in the load request) or ``found`` (the files of
            the repository folder the server reads, by size and mtime).
        where: The folder (``found``) or the local folder the upload was read from.
        files: Every file of its version folders.
    """

    source: Literal["uploaded", "found"]
    where: str
    files: list[ArtifactFile]

    @property
    def size_bytes(self) -> int:
        """Bytes over all files."""
        return sum(f.size_bytes for f in self.files)


def found_artifact(folder: Path) -> ArtifactIdentity | None:
    """The files of ``folder``'s version folders by size and mtime (not read); ``None`` when
    the folder is not readable here."""
    try:
        files = [
            ArtifactFile(p.relative_to(folder).as_posix(), st.st_size, mtime_ns=st.st_mtime_ns)
            for version in sorted(folder.iterdir())
            if version.is_dir() and version.name.isdigit()
            for p in sorted(version.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
            for st in (p.stat(),)
        ]
    except OSError:
        return None
    return ArtifactIdentity("found", str(folder), files)


def uploaded_artifact(folder: Path, files: Mapping[str, bytes]) -> ArtifactIdentity:
    """The identity of an upload: each ``file:<version>/<path>`` sent, by SHA-256."""
    return ArtifactIdentity(
        "uploaded",
        str(folder),
        [ArtifactFile(k.removeprefix("file:"), len(v), sha256=hashlib.sha256(v).hexdigest()) for k, v in sorted(files.items())],
    )


def with_upload_token(config: str, artifact: ArtifactIdentity) -> tuple[str, str]:
    """``config`` (protobuf JSON) with :data:`UPLOAD_PARAMETER` set to a new token: the first 12
    hex digits of the upload's content hash and 8 random ones (unique per load request).

    Returns:
        ``(config, token)``.
    """
    digest = hashlib.sha256("".join(f.sha256 or "" for f in artifact.files).encode()).hexdigest()[:12]
    token = f"{digest}-{uuid.uuid4().hex[:8]}"
    data = json.loads(config)
    data.setdefault("parameters", {})[UPLOAD_PARAMETER] = {"string_value": token}
    return json.dumps(data), token


def upload_problem(model: str, sent: str | None, served: str | None) -> str | None:
    """Why the served model is not the upload whose token was ``sent``, or ``None`` when it is
    (or nothing was uploaded)."""
    if sent is None or sent == served:
        return None
    what = f"an earlier copy (upload token {served})" if served else "a copy the toolkit did not upload"
    return (
        f"the server did not load the files uploaded for {model}: it serves {what} instead of this upload "
        f"({sent}); the load request was answered without loading them"
    )
