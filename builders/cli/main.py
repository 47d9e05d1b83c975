"""``builders``: export a PyTorch model, verify it, and write Triton config variants.

One module per command (or family) in this package: :mod:`builders.cli.build`,
:mod:`builders.cli.variants`, :mod:`builders.cli.validate` (validate, spec),
:mod:`builders.cli.inspect`, :mod:`builders.cli.prune`, :mod:`builders.cli.remove`; shared flags in :mod:`builders.cli.flags`, the build's table in
:mod:`builders.cli.summary`. ``--help`` imports neither torch nor tensorrt.
"""

from __future__ import annotations

from builders.cli.build import build
from builders.cli.hash_seed import with_fixed_hash_seed
from builders.cli.inspect import inspect
from builders.cli.prune import prune
from builders.cli.remove import remove
from builders.cli.validate import spec, validate
from builders.cli.variants import variants
from core.cli import group, run_cli

__all__ = ["cli", "main"]


@group()
def cli() -> None:
    """Export PyTorch models to TorchScript / ONNX / TensorRT and write Triton model-repository variants."""


for command in (build, variants, validate, spec, inspect, prune, remove):
    cli.add_command(command)


def main() -> None:
    """Entry point of the ``builders`` command (and ``python -m builders.cli.main``, which ``make demo`` runs):
    usage lines name ``builders``, the command a user types, never the module. It runs under a fixed string-hash
    seed (:mod:`builders.cli.hash_seed`: an export of the same model is the same file every time)."""
    with_fixed_hash_seed()
    run_cli(cli, prog_name="builders")


if __name__ == "__main__":
    main()
