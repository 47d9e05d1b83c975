"""PyTorch -> TorchScript (``model.pt``): ``torch.jit.script``, falling back to ``torch.jit.trace``."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from builders.artifacts import Attempt, ExportResult
from builders.errors import ExportError
from builders.spec import ModelSpec

log = logging.getLogger(__name__)


def export_torchscript(module: Any, spec: ModelSpec, out_dir: Path, precision: str = "fp32") -> ExportResult:
    """Export ``module`` to ``out_dir/model.pt``.

    Strategies, in order: ``script`` (keeps control flow), then ``trace`` on example inputs
    of batch 2 at the ``opt`` size of every dynamic axis. Each attempt is recorded.

    Args:
        module: The eager ``nn.Module`` (eval mode).
        spec: Its I/O signature.
        out_dir: Folder to write ``model.pt`` into (created).
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"``: floating weights are cast; floating
            inputs keep their served dtype in the spec and are cast inside the module.

    Raises:
        ExportError: Neither strategy worked (the message lists each strategy's error).
    """
    import torch

    from builders.precision import cast_module

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.pt"
    model = cast_module(module, precision)
    examples = spec.example_inputs(2)
    example_args = tuple(torch.from_numpy(examples[t.name]) for t in spec.inputs)
    attempts: list[Attempt] = []
    for strategy in ("script", "trace"):
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                if strategy == "script":
                    scripted = torch.jit.script(model)
                else:
                    scripted = torch.jit.trace(model, example_args, check_trace=False)
                scripted.save(str(path))
        except Exception as e:  # any failure of one strategy moves on to the next
            attempts.append(Attempt(strategy, False, f"{type(e).__name__}: {e}".splitlines()[0], time.perf_counter() - t0))
            log.info("torchscript %s failed: %s", strategy, attempts[-1].error)
            continue
        dt = time.perf_counter() - t0
        attempts.append(Attempt(strategy, True, None, dt))
        log.info("torchscript export via %s in %.2f s", strategy, dt)
        return ExportResult("torchscript", path, precision, strategy, attempts, dt)
    raise ExportError(
        "TorchScript export failed with every strategy: "
        + "; ".join(f"{a.strategy}: {a.error}" for a in attempts),
        hint="make forward() scriptable or traceable (no data-dependent Python control flow for trace)",
    )
