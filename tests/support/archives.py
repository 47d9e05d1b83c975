"""Zip archives laid out like ``torch.jit.save``'s, made without torch (break-it F10): two saves of the
same module whose bytes differ where torch's do (an unused pickle memo entry, the debug pickles, the
``serialization_id``), or whose tensor payloads differ (other weights)."""

from __future__ import annotations

import io
import pickle
import pickletools
import zipfile
from pathlib import Path

#: The pickled attributes of a small module: repeated strings and tuples, which the pickler memoises.
ATTRIBUTES = {"training": False, "layers": [("weight", "storage", "0", "cpu"), ("bias", "storage", "1", "cpu")]}


def archive_bytes(weights: bytes = b"\x00\x01" * 32, *, resaved: bool = False, top: str = "model") -> bytes:
    """A TorchScript-like archive holding ``weights`` as its tensor payload.

    Args:
        weights: The bytes of ``data/0`` (the weights).
        resaved: Write it as another save of the same module does: ``data.pkl`` without its unused memo
            entries (:func:`pickletools.optimize`, the ``BINPUT`` torch's pickler writes in some runs and not
            in others), other debug pickles and another ``.data/serialization_id``.
        top: The archive's top folder (torch names it after the file's stem).
    """
    data = pickle.dumps(ATTRIBUTES, protocol=2)
    debug = pickle.dumps(("FORMAT_WITH_STRING_TABLE", ["", "def forward(self, x):"], [(0, 5, 1)]), protocol=2)
    if resaved:
        data = pickletools.optimize(data)
        debug = pickle.dumps(("FORMAT_WITH_STRING_TABLE", ["def forward(self, x):", ""], [(0, 6, 7)]), protocol=2)
    entries = {
        "data/0": weights,
        "data.pkl": data,
        "code/__torch__.py": b"class Linear(Module):\n  def forward(self, x):\n    return x\n",
        "code/__torch__.py.debug_pkl": debug,
        "constants.pkl": pickle.dumps((), protocol=2),
        "version": b"3\n",
        ".data/serialization_id": b"2222" if resaved else b"1111",
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, payload in entries.items():
            z.writestr(f"{top}/{name}", payload)
    return buf.getvalue()


def write_archive(path: Path, weights: bytes = b"\x00\x01" * 32, *, resaved: bool = False) -> Path:
    """:func:`archive_bytes` written to ``path`` (its top folder named after the file's stem)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(archive_bytes(weights, resaved=resaved, top=path.stem))
    return path


def resave(path: Path) -> None:
    """Rewrite the TorchScript archive at ``path`` as another save of the same module can be: ``data.pkl``
    without its unused memo entries (:func:`pickletools.optimize`) and another ``.data/serialization_id``;
    every other entry as it was. ``torch.jit.load`` loads it the same."""
    with zipfile.ZipFile(path) as z:
        entries = [(i, z.read(i.filename)) for i in z.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for info, payload in entries:
            if info.filename.endswith("/data.pkl"):
                payload = pickletools.optimize(payload)
            elif info.filename.endswith(".data/serialization_id"):
                payload = payload[::-1]
            out.writestr(info, payload)
    path.write_bytes(buf.getvalue())
