"""Built-in models and how a model (built-in or the user's) is resolved.

Each built-in is a factory returning an ``nn.Module`` plus its :class:`ModelSpec`.
torch is imported lazily so that ``--help`` stays fast.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import inspect
import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from core.errors import ModelSpecError
from builders.spec import ModelSpec, TensorSpec

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class BuiltinModel:
    """A model the toolkit ships.

    Attributes:
        name: Name used on the command line (``builders build --model mlp``).
        description: One line for ``--help`` and the manifest.
        factory: Returns the ``nn.Module`` in eval mode with fixed seeded weights.
        spec: Its I/O signature (outputs filled in after export).
    """

    name: str
    description: str
    factory: Callable[[], Any]
    spec: ModelSpec


def _mlp(widths: tuple[int, ...]) -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(widths) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers).eval()


MLP_WIDTHS = (512, 2048, 2048, 2048, 512)
TINY_WIDTHS = (16, 32, 8)


def _mlp_spec(widths: tuple[int, ...]) -> ModelSpec:
    return ModelSpec(
        inputs=(TensorSpec("INPUT__0", "float32", (widths[0],)),),
        outputs=(TensorSpec("OUTPUT__0", "float32", (widths[-1],)),),
    )


#: Small ResNet-style classifier: stem width, (channels, blocks) per stage, classes.
CNN_STEM = 16
CNN_STAGES = ((16, 1), (32, 1), (64, 1))
CNN_CLASSES = 1000
CNN_IMAGE = (3, 224, 224)


@functools.lru_cache(maxsize=1)
def _cnn_class() -> type:
    """The classes are defined once per process: TorchScript refuses to compile two
    different classes with the same qualified name."""
    import torch
    from torch import nn

    class BasicBlock(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = (
                nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                if stride != 1 or cin != cout else nn.Identity()
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(y)) + self.down(x))

    class ResNetSmall(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(CNN_IMAGE[0], CNN_STEM, 7, 2, 3, bias=False), nn.BatchNorm2d(CNN_STEM), nn.ReLU(), nn.MaxPool2d(3, 2, 1)
            )
            blocks: list[nn.Module] = []
            cin = CNN_STEM
            for i, (cout, n) in enumerate(CNN_STAGES):
                for j in range(n):
                    blocks.append(BasicBlock(cin, cout, 2 if (i > 0 and j == 0) else 1))
                    cin = cout
            self.blocks = nn.Sequential(*blocks)
            self.head = nn.Linear(cin, CNN_CLASSES)

        def forward(self, pixels: torch.Tensor) -> torch.Tensor:
            x = self.blocks(self.stem(pixels))
            return self.head(torch.flatten(torch.mean(x, dim=(2, 3)), 1))

    return ResNetSmall


def _cnn() -> Any:
    """ResNet-style classifier: conv stem (stride 2) + max-pool, one BasicBlock per stage
    (stride 2 from the second stage on), global average pool, linear head.

    Input ``pixels`` fp32 ``[batch, 3, 224, 224]``; output ``logits`` fp32 ``[batch, 1000]``.
    Narrow (16-64 channels) so that CPU export and verification take seconds.
    """
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = _cnn_class()()
    with torch.no_grad():  # non-trivial BatchNorm statistics, as in a trained model
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model.eval()


#: BERT-style encoder sizes: vocabulary, hidden width, heads, layers, feed-forward width,
#: and the sequence-length range (min, opt, max) of the dynamic ``seq`` axis.
ENCODER_VOCAB = 1000
ENCODER_HIDDEN = 64
ENCODER_HEADS = 4
ENCODER_LAYERS = 2
ENCODER_FFN = 128
ENCODER_SEQ = (1, 32, 128)


@functools.lru_cache(maxsize=1)
def _encoder_class() -> type:
    import math

    import torch
    from torch import nn

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(ENCODER_HIDDEN, 3 * ENCODER_HIDDEN)
            self.out = nn.Linear(ENCODER_HIDDEN, ENCODER_HIDDEN)
            self.ln1 = nn.LayerNorm(ENCODER_HIDDEN)
            self.ff = nn.Sequential(nn.Linear(ENCODER_HIDDEN, ENCODER_FFN), nn.GELU(), nn.Linear(ENCODER_FFN, ENCODER_HIDDEN))
            self.ln2 = nn.LayerNorm(ENCODER_HIDDEN)
            self.heads = ENCODER_HEADS
            self.head_dim = ENCODER_HIDDEN // ENCODER_HEADS
            self.scale = 1.0 / math.sqrt(self.head_dim)

        def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
            qkv = self.qkv(x).unflatten(-1, (3, self.heads, self.head_dim)).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]  # [batch, heads, seq, head_dim]
            att = torch.softmax((q @ k.transpose(-1, -2)) * self.scale + bias, dim=-1)
            ctx = (att @ v).transpose(1, 2).flatten(2)
            x = self.ln1(x + self.out(ctx))
            return self.ln2(x + self.ff(x))

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok = nn.Embedding(ENCODER_VOCAB, ENCODER_HIDDEN)
            self.pos = nn.Embedding(ENCODER_SEQ[2], ENCODER_HIDDEN)
            self.ln = nn.LayerNorm(ENCODER_HIDDEN)
            self.layers = nn.ModuleList([Layer() for _ in range(ENCODER_LAYERS)])

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
            x = self.ln(self.tok(input_ids) + self.pos(positions))
            mask = attention_mask.to(x.dtype)
            bias = ((1.0 - mask) * -10000.0)[:, None, None, :]  # -1e4 stays finite in fp16
            for layer in self.layers:
                x = layer(x, bias)
            weights = mask.unsqueeze(-1)
            pooled = (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
            return x, pooled

    return Encoder


def _encoder() -> Any:
    """BERT-style Transformer encoder (post-LayerNorm, GELU, learned positions).

    Inputs ``input_ids`` and ``attention_mask``: int64 ``[batch, seq]`` (ids in
    ``[0, ENCODER_VOCAB)``, mask 1 = token, 0 = padding). Outputs ``last_hidden_state``
    fp32 ``[batch, seq, hidden]`` and ``embeddings`` fp32 ``[batch, hidden]`` (mask-weighted
    mean of the last hidden state). Attention is written with plain matmul/softmax so
    every exporter (and TensorRT) sees the same graph.
    """
    import torch

    torch.manual_seed(0)
    return _encoder_class()().eval()


BUILTINS: dict[str, BuiltinModel] = {
    "mlp": BuiltinModel(
        "mlp",
        "MLP 512->2048->2048->2048->512 with ReLU (fp32 [batch, 512] -> [batch, 512]); the demo model",
        lambda: _mlp(MLP_WIDTHS),
        _mlp_spec(MLP_WIDTHS),
    ),
    "tiny": BuiltinModel(
        "tiny",
        "MLP 16->32->8 (fp32 [batch, 16] -> [batch, 8]); fast, for tests",
        lambda: _mlp(TINY_WIDTHS),
        _mlp_spec(TINY_WIDTHS),
    ),
    "cnn": BuiltinModel(
        "cnn",
        "ResNet-style classifier, 3 narrow stages (fp32 [batch, 3, 224, 224] -> logits [batch, 1000])",
        _cnn,
        ModelSpec(
            inputs=(TensorSpec("pixels", "float32", CNN_IMAGE),),
            outputs=(TensorSpec("logits", "float32", (CNN_CLASSES,)),),
        ),
    ),
    "encoder": BuiltinModel(
        "encoder",
        "BERT-style Transformer encoder (int64 input_ids, attention_mask [batch, seq] -> "
        "last_hidden_state [batch, seq, 64], embeddings [batch, 64]); seq dynamic 1..128",
        _encoder,
        ModelSpec(
            inputs=(
                TensorSpec("input_ids", "int64", ("seq",), (0, ENCODER_VOCAB - 1)),
                TensorSpec("attention_mask", "int64", ("seq",), (0, 1)),
            ),
            outputs=(
                TensorSpec("last_hidden_state", "float32", ("seq", ENCODER_HIDDEN)),
                TensorSpec("embeddings", "float32", (ENCODER_HIDDEN,)),
            ),
            dynamic_axes={"seq": ENCODER_SEQ},
        ),
    ),
}


def get_builtin(name: str) -> BuiltinModel:
    """Look up a built-in model by name.

    Raises:
        ModelSpecError: ``name`` is not a built-in (the message lists them).
    """
    try:
        return BUILTINS[name]
    except KeyError:
        raise ModelSpecError(
            f"unknown built-in model {name!r}",
            hint=f"choose one of {', '.join(sorted(BUILTINS))}, or pass --model package.module:factory with --spec",
        ) from None


#: Suffixes of model files accepted by ``--model``: TorchScript and ``torch.export`` archives.
TORCHSCRIPT_SUFFIXES = (".pt", ".pth", ".ts", ".jit")
EXPORT_SUFFIXES = (".pt2",)


@dataclasses.dataclass
class LoadedModel:
    """A model ready to export.

    Attributes:
        name: Name used for the build folder and variant names.
        module: The eager ``nn.Module`` (eval mode; for a file, the loaded module).
        spec: Its I/O signature (outputs may still be placeholders).
        kind: ``"builtin"``, ``"factory"``, ``"torchscript"`` or ``"exported_program"``.
        fingerprint: Hash of what defines the computation besides the weights (the source
            of the module's own classes, or the file's bytes); part of the reuse key.
    """

    name: str
    module: Any
    spec: ModelSpec
    kind: str
    fingerprint: str


def load_model(source: Any, spec: ModelSpec | None) -> LoadedModel:
    """Resolve ``--model``: a built-in name, ``package.module:factory``, a model file, or an
    ``nn.Module`` object (Python API).

    User code runs only here and only when the user named it: a factory is imported and
    called; a ``.pt`` file is loaded with ``torch.jit.load`` and a ``.pt2`` file with
    ``torch.export.load`` (both read files the user named; nothing else is unpickled).

    A factory's module is imported with the current directory first on ``sys.path`` (as
    ``python -m`` does), so ``--model mymodel:make`` finds ``./mymodel.py``.

    Args:
        source: ``mlp`` / ``cnn`` / ``encoder`` / ``tiny``, ``pkg.mod:factory`` (a callable
            returning an ``nn.Module``), a path ending in ``.pt`` (TorchScript) or
            ``.pt2`` (``torch.export``), or an ``nn.Module`` (named after its class, in
            lower case, unless the caller names it).
        spec: The input spec; required except for built-ins (whose own spec is the default).

    Raises:
        ModelSpecError: unknown built-in, missing file, factory that cannot be imported or
            called or that returns no ``nn.Module``, or a user model without a spec.
    """
    import torch

    if isinstance(source, torch.nn.Module):
        spec = _require_spec(type(source).__name__, spec)
        return LoadedModel(type(source).__name__.lower(), _eval(source), spec, "module", _source_hash(source))
    if not isinstance(source, str):
        raise ModelSpecError(f"model {source!r} is neither a name, a file, package.module:factory nor an nn.Module")
    path = Path(source)
    if source.endswith(TORCHSCRIPT_SUFFIXES + EXPORT_SUFFIXES):
        if not path.is_file():
            raise ModelSpecError(f"model file {path} does not exist", hint="pass an existing .pt (TorchScript) or .pt2 (torch.export) file")
        spec = _require_spec(source, spec)
        try:
            if source.endswith(EXPORT_SUFFIXES):
                module, kind = torch.export.load(str(path)).module(), "exported_program"
            else:
                module, kind = torch.jit.load(str(path), map_location="cpu"), "torchscript"
        except Exception as e:
            raise ModelSpecError(
                f"could not load {path}: {type(e).__name__}: {str(e)[:300]}",
                hint="a .pt file must be saved with torch.jit.save, a .pt2 file with torch.export.save",
            ) from e
        return LoadedModel(path.stem, _eval(module), spec, kind, _file_hash(path))
    if ":" in source:
        spec = _require_spec(source, spec)
        mod_name, _, fn_name = source.partition(":")
        try:
            with _cwd_importable():
                factory = getattr(importlib.import_module(mod_name), fn_name)
        except (ImportError, AttributeError) as e:
            raise ModelSpecError(
                f"cannot import {fn_name!r} from {mod_name!r}: {type(e).__name__}: {e}",
                hint="--model takes package.module:factory; the module must be importable from the current directory "
                f"({os.getcwd()}), PYTHONPATH or an installed package",
            ) from e
        try:
            module = factory()
        except Exception as e:
            raise ModelSpecError(f"calling {source} failed: {type(e).__name__}: {e}") from e
        if not isinstance(module, torch.nn.Module):
            raise ModelSpecError(
                f"{source} returned {type(module).__name__}, expected a torch.nn.Module",
                hint="the factory must return the model (an nn.Module), e.g. `def make(): return MyNet().eval()`",
            )
        return LoadedModel(fn_name, _eval(module), spec, "factory", _source_hash(module, factory))
    b = get_builtin(source)
    module = b.factory()
    return LoadedModel(b.name, module, spec or b.spec, "builtin", _source_hash(module, b.factory))


@contextlib.contextmanager
def _cwd_importable() -> Iterator[None]:
    """The current directory first on ``sys.path`` while a user's factory is imported."""
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def _require_spec(source: str, spec: ModelSpec | None) -> ModelSpec:
    if spec is None:
        raise ModelSpecError(
            f"--model {source} needs an input spec",
            hint="pass --spec spec.json, or --input NAME:DTYPE:SHAPE[:LOW..HIGH] (repeat) with --dynamic-axis AXIS=MIN,OPT,MAX",
        )
    return spec


def _eval(module: Any) -> Any:
    try:
        return module.eval()
    except (AttributeError, NotImplementedError):  # torch.export modules refuse eval()/train()
        return module


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _source_hash(module: Any, factory: Any = None) -> str:
    """Hash what defines the computation besides the weights: the source of the module's
    classes that are not part of torch (whose version is recorded separately) and of the
    factory that built it (a built-in's factory defines its classes and layer sizes), so an
    edited ``forward`` or factory is not mistaken for a rebuild."""
    h = hashlib.sha256()
    if factory is not None:
        try:
            h.update(inspect.getsource(factory).encode())
        except (OSError, TypeError):
            h.update(repr(factory).encode())
    # classes made inside a function are found by name in their defining module's source
    module_sources: dict[str, str] = {}
    for cls in sorted({type(m) for m in module.modules()}, key=lambda c: f"{c.__module__}.{c.__qualname__}"):
        if cls.__module__.startswith("torch."):
            continue
        h.update(f"{cls.__module__}.{cls.__qualname__}".encode())
        try:
            h.update(inspect.getsource(cls).encode())
        except (OSError, TypeError):  # no source for the class alone: hash its defining file
            mod = sys.modules.get(cls.__module__)
            if mod is not None and cls.__module__ not in module_sources:
                try:
                    module_sources[cls.__module__] = inspect.getsource(mod)
                except (OSError, TypeError):
                    module_sources[cls.__module__] = ""
                h.update(module_sources[cls.__module__].encode())
    return h.hexdigest()[:16]
