"""Graph health of a TorchScript export: frozen or not, and the node count of ``forward``'s
inlined graph (:class:`builders.repository.graph_records.TorchScriptHealth`).

Loading an archive can run code from it, so :func:`torchscript_file_health` loads it in a
separate Python process (``python -m builders.graph.torchscript PATH``), as ``builders
validate --load-artifacts`` does (:mod:`builders.model.artifact_io`); the caller decides whether
it is loaded at all (:mod:`builders.graph.inspect`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from builders.model.artifact_io import unreadable
from builders.model.torchscript_archive import read_archive
from builders.repository.graph_records import TorchScriptHealth
from core.errors import ConfigError
from core.processes import die_with_parent


def torchscript_health(module: Any) -> TorchScriptHealth:
    """Graph facts of a loaded ``torch.jit.ScriptModule``.

    ``torch.jit.freeze`` inlines parameters and attributes into ``forward``'s graph as
    constants and drops them from the module: frozen = no parameter left and no
    ``prim::GetAttr`` in the inlined graph.
    """
    graph = module.inlined_graph
    nodes = list(graph.nodes())
    reads = sum(1 for n in nodes if n.kind() == "prim::GetAttr")
    params = sum(1 for _ in module.parameters())
    return TorchScriptHealth(frozen=params == 0 and reads == 0, parameters=params, attribute_reads=reads, node_count=len(nodes))


def torchscript_file_health(path: str | Path, timeout_s: float = 300.0) -> TorchScriptHealth:
    """Load a TorchScript archive in a separate Python process and return its graph facts.

    Only call this for a file the user named or asked to be loaded: loading can run code
    from the archive (the child process keeps it out of the toolkit's own).

    Raises:
        ConfigError: not a loadable TorchScript archive, or the child process failed or
            took longer than ``timeout_s`` (s).
    """
    cmd = [sys.executable, "-m", "builders.graph.torchscript", str(path)]
    try:
        p = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout_s, check=False, preexec_fn=die_with_parent(os.getpid())
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"loading {Path(path).name} took longer than {timeout_s:.0f} s (in a separate process)",
            hint="check the file; a module that hangs on load will hang the server too",
        ) from None
    try:
        doc = json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise ConfigError(
            f"loading {Path(path).name} in a separate process failed (exit {p.returncode}): "
            f"{(p.stderr or p.stdout).strip()[-300:]}",
            hint="the file crashes the loader: re-export it",
        ) from None
    if "error" in doc:
        raise ConfigError(doc["error"], hint="pass a TorchScript archive (torch.jit.save)")
    return TorchScriptHealth.model_validate(doc)


def _load_torchscript(path: Path) -> Any:
    import torch

    read_archive(path)  # a torch.save pickle is named as such (ConfigError), never unpickled
    try:
        return torch.jit.load(str(path), map_location="cpu")
    except Exception as e:  # RuntimeError for anything that is not a TorchScript archive
        raise unreadable(path, "a loadable TorchScript module", e) from e


def _main(argv: list[str]) -> int:
    """``python -m builders.graph.torchscript PATH``: print a TorchScript archive's graph facts as
    one JSON line (or ``{"error": message}``)."""
    try:
        doc: dict[str, Any] = torchscript_health(_load_torchscript(Path(argv[0]))).model_dump(mode="json")
    except ConfigError as e:
        doc = {"error": e.message}
    print(json.dumps(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
