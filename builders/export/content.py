"""What an artifact file holds, as one digest: the answer to "is this the same model?" where the
bytes of two exports of the same weights differ.

``torch.jit.save`` does not write the same bytes for the same module in two processes: its
pickler puts memo entries (``BINPUT``) it never reads back in some runs and not in others
(break-it F10: the built-in mlp's ``data.pkl`` flipped between 950 and 966 bytes on successive
``builders build --force``, every tensor payload equal), the debug pickles beside the code record
source ranges that differ, and ``.data/serialization_id`` is a digest of all of these. A byte
SHA-256 then calls a re-export of the same weights "another content", and a run that measured
the earlier file refuses the new one. :func:`content_sha256` digests a zip archive (TorchScript,
``torch.export``) by what it holds instead:

- every entry, sorted by name, its name taken without the archive's top folder (``model/``,
  the file's stem when torch saved it, so a renamed copy is the same content);
- a pickle (``*.pkl``: ``data.pkl``, ``constants.pkl``) normalised with
  :func:`pickletools.optimize`, which parses opcodes (never unpickles: nothing in the file runs),
  drops memo puts nothing reads and numbers the rest in order: two pickles of one object graph
  that differ only in unused memo entries give the same bytes;
- a debug pickle (``*.debug_pkl``) left out: it maps the code text to the Python source it came
  from, for the stack of an error message; what the model computes never reads it
  (``torch/csrc/jit/serialization/source_range_serialization.cpp``);
- ``.data/serialization_id`` left out: a number torch derives from the checksums of the records
  it wrote (``caffe2/serialize/inline_container.h``, ``PyTorchStreamWriter::writeSerializationId``),
  so it differs whenever the debug pickles or memo entries do, and names no content of its own;
- everything else (tensor payloads under ``data/``, the ``code/`` text, ``version``) as bytes.

Any other file (ONNX, a TensorRT plan, external data, ``model.py``): the SHA-256 of its bytes
(ONNX exports of the same weights were byte-stable, break-it F10). Integrity checks (a file
changed on disk since the build recorded it) keep comparing bytes (:func:`builders.export.artifacts.file_sha256`).
"""

from __future__ import annotations

import hashlib
import io
import os
import pickletools
import zipfile
import zlib
from pathlib import Path
from typing import IO

#: Entries of a zip archive left out of its content digest (matched on the name without its top
#: folder): a digest torch computes over the records it wrote (see the module docstring).
SKIPPED_ENTRIES = (".data/serialization_id",)
#: Name endings of entries left out: debug information (source ranges of the code text).
SKIPPED_SUFFIXES = (".debug_pkl",)
#: Name endings of entries normalised as pickles (:func:`pickletools.optimize`).
PICKLE_SUFFIXES = (".pkl",)
_CHUNK = 1 << 20


def content_sha256(path: Path, sha256: str | None = None) -> str:
    """The content digest of the file at ``path``, hex (see the module docstring): of a zip
    archive, its entries as they load; of any other file, its bytes.

    Args:
        path: The file.
        sha256: The SHA-256 of its bytes when already known: the answer for a file that is not an
            archive, which is then not read again.

    Raises:
        OSError: the file cannot be read.
    """
    with open(path, "rb") as f:
        return _digest(f, sha256)


def content_sha256_of(data: bytes, sha256: str | None = None) -> str:
    """:func:`content_sha256` of a file's bytes held in memory (an upload)."""
    return _digest(io.BytesIO(data), sha256)


def same_content(a: Path, b: Path) -> bool:
    """Whether files ``a`` and ``b`` both exist and hold the same content: one file (hard-linked),
    the same bytes, or archives with the same :func:`content_sha256`."""
    if not (a.is_file() and b.is_file()):
        return False
    if os.path.samefile(a, b):
        return True
    if a.stat().st_size != b.stat().st_size and not (zipfile.is_zipfile(a) and zipfile.is_zipfile(b)):
        return False  # other bytes, and not archives whose entries could still be the same
    return content_sha256(a) == content_sha256(b)


def _digest(f: IO[bytes], sha256: str | None = None) -> str:
    if zipfile.is_zipfile(f):
        f.seek(0)
        try:
            return _archive_digest(f)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError):  # unreadable as an archive: its bytes
            pass
    if sha256 is not None:
        return sha256
    f.seek(0)
    h = hashlib.sha256()
    for chunk in iter(lambda: f.read(_CHUNK), b""):
        h.update(chunk)
    return h.hexdigest()


def _archive_digest(f: IO[bytes]) -> str:
    h = hashlib.sha256(b"zip archive content\0")
    with zipfile.ZipFile(f) as z:
        infos = [i for i in z.infolist() if not i.is_dir()]
        names = _without_top_folder([i.filename for i in infos])
        for name, info in sorted(zip(names, infos), key=lambda p: p[0]):
            if name in SKIPPED_ENTRIES or name.endswith(SKIPPED_SUFFIXES):
                continue
            entry = hashlib.sha256()
            with z.open(info) as e:
                if name.endswith(PICKLE_SUFFIXES):
                    entry.update(_normalised_pickle(e.read()))
                else:
                    for chunk in iter(lambda: e.read(_CHUNK), b""):
                        entry.update(chunk)
            h.update(name.encode() + b"\0" + entry.digest())
    return h.hexdigest()


def _without_top_folder(names: list[str]) -> list[str]:
    """``names`` without the folder every one of them sits in (``model/data.pkl`` -> ``data.pkl``);
    as they are when they do not share one."""
    tops = {n.partition("/")[0] for n in names}
    if len(tops) == 1 and all("/" in n for n in names):
        return [n.partition("/")[2] for n in names]
    return names


def _normalised_pickle(data: bytes) -> bytes:
    """``data`` with its unused memo puts dropped and the rest numbered in order
    (:func:`pickletools.optimize`: opcodes parsed, nothing unpickled); as it is when it does not
    parse as a pickle."""
    try:
        return pickletools.optimize(data)
    except (ValueError, KeyError, IndexError, TypeError, EOFError):
        return data
