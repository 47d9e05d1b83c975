"""A Transformer encoder the size of all-MiniLM-L6-v2 (random weights): the "transformer-sized"
model of ``benchmarks/bench_transformer_budget.py``.

Sizes of sentence-transformers' all-MiniLM-L6-v2 (its ``config.json``): vocabulary 30,522,
hidden width 384, 12 heads, 6 layers, feed-forward 1,536, 512 positions; about 22.7 M
parameters (90 MB in fp32). The weights are random (seeded): the cost of a request, not its
answer, is what the benchmark measures, and nothing is downloaded.

Inputs ``input_ids`` (int64 ``[batch, seq]``, ids in ``[0, 30522)``) and ``attention_mask``
(int64 ``[batch, seq]``, 1 = token); output ``embeddings`` (fp32 ``[batch, 384]``, the
mask-weighted mean of the last hidden state, as sentence-transformers pools it).
"""

from __future__ import annotations

import math

import torch
from torch import nn

VOCAB, HIDDEN, HEADS, LAYERS, FFN, POSITIONS = 30522, 384, 12, 6, 1536, 512


class _Layer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.out = nn.Linear(HIDDEN, HIDDEN)
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.ff = nn.Sequential(nn.Linear(HIDDEN, FFN), nn.GELU(), nn.Linear(FFN, HIDDEN))
        self.ln2 = nn.LayerNorm(HIDDEN)
        self.head_dim = HIDDEN // HEADS

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        qkv = self.qkv(x).unflatten(-1, (3, HEADS, self.head_dim)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # [batch, heads, seq, head_dim]
        att = torch.softmax((q @ k.transpose(-1, -2)) / math.sqrt(self.head_dim) + bias, dim=-1)
        x = self.ln1(x + self.out((att @ v).transpose(1, 2).flatten(2)))
        return self.ln2(x + self.ff(x))


class MiniLMSized(nn.Module):
    """The encoder (module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.tok = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Embedding(POSITIONS, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN)
        self.layers = nn.ModuleList([_Layer() for _ in range(LAYERS)])

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(positions))
        mask = attention_mask.to(x.dtype)
        bias = ((1.0 - mask) * -10000.0)[:, None, None, :]
        for layer in self.layers:
            x = layer(x, bias)
        weights = mask.unsqueeze(-1)
        return (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


def minilm() -> nn.Module:
    """The encoder, seeded, in eval mode (``builders build --model benchmarks.minilm_sized:minilm``)."""
    torch.manual_seed(0)
    return MiniLMSized().eval()
