"""Builds of a model a test writes as source, built the way a user's model is (``builders build
<package>:make``): for integration tests that need a model of their own on a real server.

- :func:`build_source`: write the source as a package in a folder, build its ``make()`` there, and
  leave no trace of the package in ``sys.path`` or ``sys.modules``;
- :data:`ONE_VARIANT`: the grid of one python-serving variant (KIND_CPU x1, no dynamic batching,
  max_batch_size 8);
- :func:`first_variant`: the name of a repository's first model folder.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
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
        build(
            BuildOptions(
                f"{package}:make", spec=spec, formats=formats, repository=root / "repo", build_dir=root / "builds", grid=grid
            )
        )
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(package, None)
    return root / "repo"


def first_variant(repo: Path) -> str:
    """The name of ``repo``'s first model folder (:meth:`builders.repository.view.Repository.model_folders`)."""
    return Repository(repo).model_folders()[0]
