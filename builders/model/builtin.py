"""The built-in models (mlp, cnn, encoder, tiny): each a factory returning an ``nn.Module``
plus its :class:`ModelSpec`. torch is imported lazily so that ``--help`` stays fast.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.errors import ModelSpecError


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
                if stride != 1 or cin != cout
                else nn.Identity()
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
            if isinstance(m, nn.BatchNorm2d) and m.running_mean is not None and m.running_var is not None:
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
        "BERT-style Transformer encoder (int64 input_ids, attention_mask (a padding mask) [batch, seq] -> "
        "last_hidden_state [batch, seq, 64], embeddings [batch, 64]); seq dynamic 1..128",
        _encoder,
        ModelSpec(
            inputs=(
                TensorSpec("input_ids", "int64", ("seq",), (0, ENCODER_VOCAB - 1)),
                TensorSpec("attention_mask", "int64", ("seq",), (0, 1), domain="mask"),
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
            hint=f"choose one of {', '.join(sorted(BUILTINS))}, or pass your own model as --model path/to/file.py:factory or "
            "package.module:factory (a function returning the nn.Module) with --spec or --input, e.g. --model seqnet.py:make",
            flag="--model",
        ) from None
