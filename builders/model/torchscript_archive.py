"""What a file saved under a TorchScript name really is, and its ``forward`` signature, read
from its structure without loading it: nothing is unpickled, imported or run.

A TorchScript archive (``torch.jit.save``) is a zip archive whose entries sit under one
folder and hold ``data.pkl`` (the module's attributes), ``constants.pkl`` and ``code/``: the
module's TorchScript code as Python-syntax text, one file per module path (``code/__torch__.py``
holds classes of module ``__torch__``, ``code/__torch__/___torch_mangle_2.py`` those of
``__torch__.___torch_mangle_2``). ``torch.save`` writes either a zip archive with ``data.pkl``
but no ``code/`` or ``constants.pkl`` (its default since torch 1.6) or, with
``_use_new_zipfile_serialization=False``, a bare pickle that starts with the legacy magic number
(``torch.serialization.MAGIC_NUMBER``); ``torch.export.save`` a zip archive with
``archive_format`` and ``models/``. Triton's PyTorch backend loads ``model.pt`` with
``torch::jit::load``, which reads only the first kind.

The root module's class is the first global ``data.pkl`` names (read with
:func:`pickletools.genops`, which lists opcodes without executing them); its ``forward`` in the
code text (parsed with :func:`ast.parse`, which runs nothing) gives the argument names the
PyTorch backend matches inputs by and, from its return annotation, the number of output tensors.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import itertools
import pickletools
import zipfile
from collections.abc import Iterable
from pathlib import Path

from builders.model.artifact_signature import ArtifactIO, TensorIO
from core.errors import ConfigError

ZIP_MAGIC = b"PK\x03\x04"
#: The pickle PROTO opcode: every pickle of protocol 2 or later starts with it.
PICKLE_PROTO = 0x80
#: ``torch.serialization.MAGIC_NUMBER``: the first object of a legacy (non-zip) ``torch.save`` file.
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
#: What to do with a file that is not a TorchScript archive.
EXPORT_HINT = (
    "save a TorchScript module: torch.jit.save(torch.jit.script(model), 'model.pt') (or torch.jit.trace(model, "
    "example)), or let `builders build --format torchscript` export it; torch.save writes a pickle that only "
    "Python with the model's own classes can read"
)


@dataclasses.dataclass(frozen=True)
class ArchiveSignature:
    """What the code text of a TorchScript archive says about its root module.

    Attributes:
        forward_args: ``forward``'s argument names without ``self``; ``None`` when the code
            text does not show them (the root class was not found).
        outputs: How many tensors ``forward`` returns (``-> Tensor``: 1, ``-> Tuple[Tensor,
            ...]``: their count); ``None`` for anything else (dict, list, nested tuples).
        device_constants: Devices written into the code as constants (``torch.device("cpu")``,
            what a trace records), each with the calls using them: ``"cpu (aten::ones)"``
            (the form of :func:`builders.model.artifact_io.device_constants`).
    """

    forward_args: tuple[str, ...] | None
    outputs: int | None
    device_constants: tuple[str, ...] = ()


def read_archive(path: Path) -> ArchiveSignature:
    """Check that ``path`` is a TorchScript archive by its structure, and read its signature.

    Raises:
        ConfigError: it is something else (a ``torch.save`` pickle in either format, a
            ``torch.export`` archive, another zip archive or file); the message says which,
            by what it holds.
    """
    entries = _zip_entries(path)
    root, names = _strip_folder(entries)
    kind = _archive_kind(names)
    if kind is not None:
        raise ConfigError(f"{path.name} is not a TorchScript archive: it is {kind}", hint=EXPORT_HINT)
    with zipfile.ZipFile(path) as z:
        code = {n: z.read(root + n).decode("utf-8", "replace") for n in names if n.startswith("code/") and n.endswith(".py")}
        target = _root_class(z.read(root + "data.pkl"))
    trees = {n: _parse(text) for n, text in code.items()}
    forward = _forward(trees, target) if target else None
    devices = _device_constants(t for t in trees.values() if t is not None)
    if forward is None:
        return ArchiveSignature(None, None, devices)
    args = tuple(a.arg for a in forward.args.args[1:])
    return ArchiveSignature(args, _tensor_count(forward.returns), devices)


def _zip_entries(path: Path) -> list[str]:
    """The entry names of a zip archive; a file that is not one is named by its first bytes.

    Raises:
        ConfigError: not a zip archive (a legacy ``torch.save`` pickle, another pickle, another file).
    """
    with open(path, "rb") as f:
        head = f.read(4)
    if head == ZIP_MAGIC:
        try:
            with zipfile.ZipFile(path) as z:
                return z.namelist()
        except zipfile.BadZipFile as e:
            raise ConfigError(f"{path.name} is a damaged zip archive ({e}), not a TorchScript archive", hint=EXPORT_HINT) from e
    if head[:1] == bytes([PICKLE_PROTO]):
        what = (
            "a pickle written by torch.save in its legacy (non-zip) format"
            if _legacy_torch_save(path)
            else "a Python pickle (no zip archive)"
        )
        raise ConfigError(f"{path.name} is not a TorchScript archive: it is {what}", hint=EXPORT_HINT)
    shown = head.hex(" ") if head else "nothing (empty file)"
    raise ConfigError(
        f"{path.name} is not a TorchScript archive: neither a zip archive nor a pickle (it starts with {shown})",
        hint=EXPORT_HINT,
    )


def _legacy_torch_save(path: Path) -> bool:
    """Whether a pickle's first object is torch's legacy magic number (opcodes listed, not run)."""
    with open(path, "rb") as f:
        try:
            for op, arg, _pos in itertools.islice(pickletools.genops(f), 4):
                if op.name in ("LONG1", "LONG4", "LONG") and arg == LEGACY_MAGIC:
                    return True
        except (ValueError, EOFError):
            return False
    return False


def _strip_folder(entries: list[str]) -> tuple[str, list[str]]:
    """The archive's top folder (``"model/"``) and the entry names below it."""
    tops = {e.split("/", 1)[0] for e in entries}
    if len(tops) != 1 or not all("/" in e for e in entries):
        return "", entries
    root = next(iter(tops)) + "/"
    return root, [e[len(root) :] for e in entries]


def _archive_kind(names: list[str]) -> str | None:
    """What a zip archive is when it is not a TorchScript archive (``None`` when it is one)."""
    has_code = any(n.startswith("code/") for n in names)
    if "data.pkl" in names and has_code and "constants.pkl" in names:
        return None
    if "archive_format" in names or any(n.startswith("models/") for n in names):
        return "a torch.export archive (torch.export.save: archive_format and models/, no code/)"
    if "data.pkl" in names:
        return "a zip archive written by torch.save (data.pkl without code/ or constants.pkl)"
    return "a zip archive without data.pkl or code/ (not written by torch)"


def _root_class(data_pkl: bytes) -> tuple[str, str] | None:
    """``(module, class)`` of the root module: the first global ``data.pkl`` names."""
    strings: list[str] = []
    try:
        for op, arg, _pos in pickletools.genops(io.BytesIO(data_pkl)):
            if op.name == "GLOBAL" and isinstance(arg, str):
                module, _, name = arg.partition(" ")
                return module, name
            if op.name == "STACK_GLOBAL" and len(strings) >= 2:
                return strings[-2], strings[-1]
            if isinstance(arg, str):
                strings.append(arg)
    except (ValueError, EOFError):
        return None
    return None


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _forward(trees: dict[str, ast.Module | None], target: tuple[str, str]) -> ast.FunctionDef | None:
    """``forward`` of class ``target`` in the code file of its module."""
    module, cls = target
    tree = trees.get("code/" + module.replace(".", "/") + ".py")
    for node in tree.body if tree else []:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
    return None


def _tensor_count(annotation: ast.expr | None) -> int | None:
    """1 for ``Tensor``, n for ``Tuple[Tensor, ...]`` of n tensors, else ``None``."""
    if isinstance(annotation, ast.Name) and annotation.id == "Tensor":
        return 1
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) and annotation.value.id == "Tuple":
        elts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if all(isinstance(e, ast.Name) and e.id == "Tensor" for e in elts):
            return len(elts)
    return None


def _device_constants(trees: Iterable[ast.Module]) -> tuple[str, ...]:
    """``torch.device("<literal>")`` in the code, with the calls that take it."""
    found: dict[str, list[str]] = {}
    for tree in trees:
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            for arg in (*call.args, *(k.value for k in call.keywords)):
                device = _device_literal(arg)
                if device is not None:
                    users = found.setdefault(device, [])
                    if _op_name(call.func) not in users:
                        users.append(_op_name(call.func))
    return tuple(f"{d} ({', '.join(u)})" for d, u in found.items())


def _device_literal(node: ast.expr) -> str | None:
    if (
        isinstance(node, ast.Call)
        and _dotted(node.func) == "torch.device"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _op_name(func: ast.expr) -> str:
    """``torch.ones`` -> ``aten::ones``, ``ops.prim.X`` -> ``prim::X`` (the graph's operator names)."""
    name = _dotted(func)
    if name.startswith("torch.") and name.count(".") == 1:
        return "aten::" + name.split(".", 1)[1]
    if name.startswith("ops.") and name.count(".") == 2:
        _, ns, op = name.split(".")
        return f"{ns}::{op}"
    return name


def static_torchscript_io(path: Path) -> ArtifactIO | None:
    """The I/O of a TorchScript archive read from its structure and code text, nothing
    deserialised (:func:`read_archive`): ``forward``'s argument names, the number of returned
    tensors (``None`` when the code does not say) and the device constants in its code.

    Returns:
        The I/O, positional as the PyTorch backend matches it; ``None`` when the code text does
        not show the root module's ``forward`` (then only loading can tell).

    Raises:
        ConfigError: the file is not a TorchScript archive (a ``torch.save`` pickle, ...).
    """
    sig = read_archive(path)
    if sig.forward_args is None:
        return None
    outputs = tuple(TensorIO(f"__{i}") for i in range(sig.outputs)) if sig.outputs is not None else None
    return ArtifactIO(
        "torchscript",
        tuple(TensorIO(a) for a in sig.forward_args),
        outputs,
        positional=True,
        device_constants=sig.device_constants,
    )
