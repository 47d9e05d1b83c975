"""Built-in models and how a model (built-in or the user's) is resolved.

Each built-in is a factory returning an ``nn.Module`` plus its :class:`ModelSpec`.
torch is imported lazily so that ``--help`` stays fast.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from builders.errors import ModelSpecError
from builders.spec import ModelSpec, TensorSpec


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
