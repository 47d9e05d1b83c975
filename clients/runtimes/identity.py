"""The identity of what the toolkit asked a server to load: the files of a variant, uploaded or
found in a repository the server reads (each by size, SHA-256 and content digest; runs saved before the
content hash recorded a found file by size and mtime), the one-time upload token that proves a served
config is the upload's (:mod:`clients.runtimes.served`), and :func:`compare_files`: whether the
files in a folder now are the ones an identity recorded (what a command acting on a measured
variant checks before it uses the folder: "measure exactly what is named", issue 26). Files are the
same when they hold the same content (:func:`builders.export.content.content_sha256`): a re-export of
the same weights whose TorchScript archive differs in its bytes only is the model a run measured
(break-it F10); a record without content digests (runs saved before them) is compared by bytes.

Triton 2.51 answers a load request whose config equals the loaded model's with success
without loading anything (checked on the bundled server: a corrupt ``model.onnx`` uploaded
over a READY model "loaded" in 48 ms, the old copy kept serving); a config it has never seen
makes it load the files, and the served config then carries the token
(:func:`with_upload_token`, :func:`upload_problem`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from builders.config import settings
from builders.export.content import content_sha256, content_sha256_of

#: The config parameter an uploaded variant carries its one-time token in; the served config
#: must carry the same token, else the server did not load the uploaded files.
UPLOAD_PARAMETER = settings.UPLOAD_PARAMETER
_CONFIG = ConfigDict(extra="ignore")


@dataclass(config=_CONFIG)
class ArtifactFile:
    """One file of a model's version folders: its path in the model folder (``1/model.onnx``),
    size, its SHA-256 (the bytes sent, or read in the folder; ``None`` in runs saved before a
    found file was hashed), the digest of its content (:func:`builders.export.content.content_sha256`:
    the SHA-256 for a file that is not an archive; ``None`` in runs saved before it) and, for a
    file found in a repository, its modification time in ns."""

    path: str
    size_bytes: int
    sha256: str | None = None
    mtime_ns: int | None = None
    content_sha256: str | None = None


@dataclass(config=_CONFIG)
class ArtifactIdentity:
    """The files of the model the server was asked to load.

    Attributes:
        source: ``uploaded`` (the bytes sent in the load request) or ``found`` (the files of
            the repository folder the server reads).
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


#: (SHA-256, content digest) of files already read in this process, by (device, inode, size, mtime
#: in ns): the variants of one export share its file (hard links), which is then read once.
_HASHED: dict[tuple[int, int, int, int], tuple[str, str]] = {}


def _digests(path: Path, st: os.stat_result) -> tuple[str, str]:
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _HASHED:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _HASHED[key] = (h.hexdigest(), content_sha256(path, h.hexdigest()))
    return _HASHED[key]


def _found_file(path: str, st: os.stat_result, digests: tuple[str, str]) -> ArtifactFile:
    return ArtifactFile(path, st.st_size, sha256=digests[0], mtime_ns=st.st_mtime_ns, content_sha256=digests[1])


def found_artifact(folder: Path) -> ArtifactIdentity | None:
    """The files of ``folder``'s version folders by size, SHA-256, content digest and mtime;
    ``None`` when the folder is not readable here."""
    try:
        files = [
            _found_file(p.relative_to(folder).as_posix(), st, _digests(p, st))
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
    """The identity of an upload: each ``file:<version>/<path>`` sent, by SHA-256 and content digest."""
    sent = [(k.removeprefix("file:"), v, hashlib.sha256(v).hexdigest()) for k, v in sorted(files.items())]
    return ArtifactIdentity(
        "uploaded",
        str(folder),
        [ArtifactFile(k, len(v), sha256=sha, content_sha256=content_sha256_of(v, sha)) for k, v, sha in sent],
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


@dataclasses.dataclass(frozen=True)
class FilesNow:
    """How the files of a folder now stand to an identity recorded earlier (:func:`compare_files`).

    Attributes:
        changed: One line per file that differs: ``"1/model.onnx: measured 167,474 bytes (sha256
            1646b388d0e1), now 167,776 bytes (sha256 d1c8da2f33aa)"``, a file gone or one added.
        unverified: Files the record holds no content hash of (runs saved before it was
            recorded) whose size and mtime are unchanged: the same file as far as can be told,
            but not verified here.
    """

    changed: tuple[str, ...] = ()
    unverified: tuple[str, ...] = ()


def _describe(f: ArtifactFile) -> str:
    return f"{f.size_bytes:,} bytes" + (f" (sha256 {f.sha256[:12]})" if f.sha256 else "")


def compare_files(
    recorded: ArtifactIdentity, now: ArtifactIdentity | None, then: str = "measured", later: str = "now"
) -> FilesNow:
    """Whether the files ``now`` (:func:`found_artifact` of a folder) are the ones ``recorded``.

    A file with a recorded content digest must have the same content digest (its bytes may differ:
    a TorchScript archive of the same weights exported again, break-it F10); one with a recorded
    SHA-256 only (runs saved before the content digest) the same SHA-256; one recorded by size and
    mtime only (runs saved before the hash) differs when either differs, and is otherwise "not
    verified here", never a match.

    Args:
        recorded: The identity recorded when the files were used (a run's stamp).
        now: The folder's files now; ``None``: the folder is gone or unreadable.
        then: The word for when they were recorded (``"measured"``).
        later: The word for ``now`` (``"now"``; two runs' records compared: ``"measured in B"``).
    """
    if now is None:
        return FilesNow(changed=(f"{recorded.where}: the model folder is gone or not readable",))
    have = {f.path: f for f in now.files}
    changed, unverified = [], []
    for f in recorded.files:
        n = have.pop(f.path, None)
        if n is None:
            changed.append(f"{f.path}: {then} {_describe(f)}, {later} gone")
        elif f.content_sha256 is not None and n.content_sha256 is not None:
            if f.content_sha256 != n.content_sha256:
                changed.append(f"{f.path}: {then} {_describe(f)}, {later} {_describe(n)}")
        elif f.sha256 is not None:
            if f.sha256 != n.sha256:
                changed.append(f"{f.path}: {then} {_describe(f)}, {later} {_describe(n)}")
        elif f.size_bytes != n.size_bytes:
            changed.append(f"{f.path}: {then} {f.size_bytes:,} bytes, {later} {n.size_bytes:,} bytes")
        elif f.mtime_ns is not None and f.mtime_ns != n.mtime_ns:
            changed.append(
                f"{f.path}: rewritten since it was {then} (modification time differs; its content was not hashed then)"
            )
        else:
            unverified.append(f.path)
    changed += [f"{path}: not there when {then}, {later} {_describe(n)}" for path, n in sorted(have.items())]
    return FilesNow(tuple(changed), tuple(unverified))
