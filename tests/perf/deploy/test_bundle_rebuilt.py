"""export-deployment of a run whose variant was rebuilt since (another serving, same name) says that it
was rebuilt, by which build, and the build command that restores it (trial 16, T16-15: the advice was
"pass --repository with the repository the run swept", which the rebuild had overwritten)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.repository.view import Repository
from core.errors import PerfError
from perf.deploy.bundle import source_variant
from tests.support.source_builds import ONE_VARIANT, first_variant

pytestmark = pytest.mark.slow  # real exports


def _build(root: Path, serving: str) -> Path:
    opts = BuildOptions(
        "mlp",
        formats=("torchscript",),
        serving=serving,
        repository=root / "repo",
        build_dir=root / "builds",
        grid=ONE_VARIANT,
        replace=True,
    )
    build(opts)
    return opts.repository


def test_a_rebuilt_variant_is_refused_with_the_build_that_restores_it(tmp_path):
    repo = _build(tmp_path, "python")
    name = first_variant(repo)
    measured = Repository(repo).variant(name).entry.params  # what a sweep records as the variant's params
    _build(tmp_path, "native")

    with pytest.raises(PerfError) as err:
        source_variant(repo, name, measured)
    e = err.value
    assert "it was rebuilt since (serving: measured 'python', now 'native')" in e.message
    assert f"the build in {tmp_path / 'builds' / 'mlp'} rebuilt it (its manifest written " in e.message
    assert f"`builders build --model mlp --name mlp --serving python --repository {repo} --replace`" in e.hint
