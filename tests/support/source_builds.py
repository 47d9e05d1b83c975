"""Builds of a model a test writes (as source or as a module object), built the way a user's model
is (``builders build <package>:make``): for tests that need a model of their own built or served.

- :func:`build_source`: write the source as a package in a folder, build its ``make()`` there, and
  leave no trace of the package in ``sys.path`` or ``sys.modules``;
- :data:`ONE_VARIANT`: the grid of one python-serving variant (KIND_CPU x1, no dynamic batching,
  max_batch_size 8);
- :func:`first_variant`: the name of a repository's first model folder;
- :func:`build_module`: build a model the test holds (a module object, ``package:factory``, or a
  built-in name) into ``root/repo`` (TorchScript fp32 by default);
- :func:`pooled_repo`: :class:`Pooled` built with a dynamic ``seq`` axis as one variant,
  :data:`POOLED_VARIANT`.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import torch

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.view import Repository

#: One variant: KIND_CPU x1, dynamic batching off, max_batch_size 8.
ONE_VARIANT = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(8,))


def build_source(
    root: Path, package: str, source: str, spec: ModelSpec, formats: tuple[str, ...], grid: VariantGrid = ONE_VARIANT
) -> Path:
    """Write ``source`` (a module with a ``make()`` returning the model) as ``root/<package>.py``, build
    ``<package>:make`` in ``formats`` with ``spec`` and ``grid`` (exports in ``root/builds``) and return
    the repository it wrote (``root/repo``). The package is importable only while it builds."""
    (root / f"{package}.py").write_text(textwrap.dedent(source))
    sys.path.insert(0, str(root))
    try:
        return build_module(root, f"{package}:make", spec, formats, grid)
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(package, None)


def first_variant(repo: Path) -> str:
    """The name of ``repo``'s first model folder (:meth:`builders.repository.view.Repository.model_folders`)."""
    return Repository(repo).model_folders()[0]


def build_module(
    root: Path,
    model: torch.nn.Module | str,
    spec: ModelSpec | None,
    formats: tuple[str, ...] = ("torchscript",),
    grid: VariantGrid = ONE_VARIANT,
    name: str | None = None,
    precisions: tuple[str, ...] = ("fp32",),
) -> Path:
    """Build ``model`` (a module, or ``package:factory`` as ``builders build`` takes it) in ``formats``
    and ``precisions`` with ``spec`` (``None``: a built-in model's own) and ``grid``, named ``name``
    (exports in ``root/builds``); return the repository it wrote (``root/repo``)."""
    opts = BuildOptions(
        model,
        spec=spec,
        name=name,
        formats=formats,
        precisions=precisions,
        repository=root / "repo",
        build_dir=root / "builds",
        grid=grid,
    )
    build(opts)
    return opts.repository


class Pooled(torch.nn.Module):
    """Token ids [batch, seq] -> mean embedding [batch, 4]: a model whose cost grows with seq."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(50, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.emb(ids).mean(1)


#: The one variant :func:`pooled_repo` builds: TorchScript, KIND_CPU x1, no dynamic batching, max_batch_size 4.
POOLED_VARIANT = "pooled_ts_cpu1_nodb_mbs4"


def pooled_repo(root: Path) -> Path:
    """:class:`Pooled` built as ``pooled`` (ids int64 in [0, 49], seq min/opt/max 1/24/32) into
    ``root/repo``, one variant (:data:`POOLED_VARIANT`); returns the repository."""
    spec = ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 49)),), (), {"seq": (1, 24, 32)})
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    return build_module(root, Pooled(), spec, grid=grid, name="pooled")
