"""Tiny models that each provoke one kind of wrong verdict (issue 11), with factories for
``builders build --model verification_models:<factory>`` (this folder is on sys.path in tests)."""

from __future__ import annotations

import torch
from torch import nn


class Branch(nn.Module):
    """The issue's example: the branch depends on tensor values (scriptable)."""

    def forward(self, x):
        return x * 2 if x.mean() > 0 else -x


class BranchNoScript(nn.Module):
    """The same branch, not scriptable (``*rest``): TorchScript falls back to tracing."""

    def forward(self, x, *rest):
        return x * 2 if x.mean() > 0 else -x


class NormaliseLarge(nn.Module):
    """Normalises only inputs larger than 10: N(0, 1) draws never take that branch
    (not in the issue; not scriptable because of the lambda)."""

    def forward(self, x):
        peak = x.abs().max()
        scale = (lambda p: p / 10.0)(peak)
        return x / scale if peak > 10 else x


class Overflow16(nn.Module):
    """``Linear(16, 16)`` with weights 300, then ``LayerNorm(h ** 2)`` (the issue's example):
    ``h ** 2`` overflows fp16."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(16, 16)
        with torch.no_grad():
            self.lin.weight.fill_(300.0)
        self.ln = nn.LayerNorm(16)

    def forward(self, x):
        return self.ln(self.lin(x) ** 2)


class Square16(nn.Module):
    """``h * h / 1e4`` after the same Linear: ``h * h`` overflows fp16, the result fits
    (not in the issue): onnxruntime's CPU provider computes it in fp32 and agrees."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(16, 16)
        with torch.no_grad():
            self.lin.weight.fill_(300.0)

    def forward(self, x):
        h = self.lin(x)
        return h * h / 1e4


class Transposed(nn.Module):
    """The issue's example: ``x: [B, 16] -> [4, B]``."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(16, 4)

    def forward(self, x):
        return self.lin(x).transpose(0, 1)


class TransposedSeq(nn.Module):
    """``ids: [B, seq] -> [seq, B]`` (not in the issue): with seq sizes equal to the batch
    sizes the old check saw axis 0 follow the batch."""

    def forward(self, x):
        return x.transpose(0, 1) * 2


class Squeezed(nn.Module):
    """``[B, 16] -> [B]`` by ``squeeze()``, which drops the batch axis at batch 1 (not in the issue)."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(16, 1)

    def forward(self, x):
        return self.lin(x).squeeze()


class SeqFirstLSTM(nn.Module):
    """An LSTM over ``x: [B, seq, 8]`` run sequence-first (the issue's LSTM with a dynamic seq axis)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2)

    def forward(self, x):
        out, _ = self.lstm(x.transpose(0, 1))
        return out.transpose(0, 1)


class MaskedAttention(nn.Module):
    """One attention head over token ids with a padding mask, through
    ``scaled_dot_product_attention`` (as Hugging Face encoders run it) (issue 25, item 7):
    eager PyTorch returns 0 for a row whose mask is all 0s, the dynamo ONNX export the plain
    mean of the values; on every mask with a 1 per row they agree. ``ids: [B, seq]`` in
    ``[0, 50)``, ``mask: [B, seq]`` -> ``[B, 16]``."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.qkv = nn.Linear(16, 48)

    def forward(self, ids, mask):
        q, k, v = (t.unsqueeze(1) for t in self.qkv(self.emb(ids)).chunk(3, -1))
        keep = mask[:, None, None, :].to(torch.bool)
        return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep).squeeze(1).mean(1)


class Framer(nn.Module):
    """``x [B, seq] -> frames [B, (seq - 8) // 4 + 1, 4]``: a first conv of kernel 8 (an audio
    front end), so any ``seq`` below 8 cannot run (trial 12, F1)."""

    def __init__(self) -> None:
        super().__init__()
        self.front = nn.Conv1d(1, 4, kernel_size=8, stride=4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.front(x.unsqueeze(1)).transpose(1, 2)


class Positional(nn.Module):
    """``x [B, seq] -> x + pos[:seq]`` with a table of 8 positions: any ``seq`` above 8 cannot run."""

    def __init__(self) -> None:
        super().__init__()
        self.pos = nn.Parameter(torch.randn(8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pos[: x.shape[1]]


class Mask(nn.Module):
    """``image [B, 3, H, W] -> mask``: a 3x3 conv to one channel (a segmentation head), returned as
    ``[B, 1, H, W]``, transposed ``[B, W, H]`` or flattened ``[B, H * W]`` (recheck 16, R16-1)."""

    def __init__(self, layout: str = "mask") -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 1, kernel_size=3, padding=1)
        self.layout = layout

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        mask = torch.sigmoid(self.head(image))
        if self.layout == "transposed":
            return mask[:, 0].transpose(1, 2)
        if self.layout == "flat":
            return mask.flatten(1)
        return mask


class RoundsUp(nn.Module):
    """Trial 30, F1: a conv autoencoder (three stride-2 convs, three transposed convs) whose output is
    ``8 * ceil(H / 8)`` by ``8 * ceil(W / 8)``: the input's size at every multiple of 8, not between them."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(*(nn.Conv2d(1, 1, 3, stride=2, padding=1) for _ in range(3)))
        self.dec = nn.Sequential(*(nn.ConvTranspose2d(1, 1, 4, stride=2, padding=1) for _ in range(3)))

    def forward(self, image):
        return self.dec(self.enc(image))


class EvenOnly(nn.Module):
    """Halves H and W and doubles them back, added to the input: runs at even sizes only."""

    def forward(self, image):
        return image + nn.functional.interpolate(nn.functional.max_pool2d(image, 2), scale_factor=2.0)


def _seeded(cls: type[nn.Module], *args: str) -> nn.Module:
    torch.manual_seed(0)
    return cls(*args).eval()


def branch() -> nn.Module:
    return _seeded(Branch)


def branch_noscript() -> nn.Module:
    return _seeded(BranchNoScript)


def normalise_large() -> nn.Module:
    return _seeded(NormaliseLarge)


def overflow16() -> nn.Module:
    return _seeded(Overflow16)


def square16() -> nn.Module:
    return _seeded(Square16)


def transposed() -> nn.Module:
    return _seeded(Transposed)


def transposed_seq() -> nn.Module:
    return _seeded(TransposedSeq)


def squeezed() -> nn.Module:
    return _seeded(Squeezed)


def seq_first_lstm() -> nn.Module:
    return _seeded(SeqFirstLSTM)


def masked_attention() -> nn.Module:
    return _seeded(MaskedAttention)


def framer() -> nn.Module:
    return _seeded(Framer)


def positional() -> nn.Module:
    return _seeded(Positional)


def mask() -> nn.Module:
    return _seeded(Mask)


def mask_transposed() -> nn.Module:
    return _seeded(Mask, "transposed")


def mask_flat() -> nn.Module:
    return _seeded(Mask, "flat")


def rounds_up() -> nn.Module:
    return _seeded(RoundsUp)


def even_only() -> nn.Module:
    return _seeded(EvenOnly)
