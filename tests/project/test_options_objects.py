"""The typed options objects of the Python API take paths as ``str`` too (issue 26): converted
when the object is made, a value of the wrong type refused there, naming the field, never a
``TypeError`` deep inside the run."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.serving.tensorrt_env import missing_requirements
from clients.runtimes.options import ServerOptions
from perf.profile.baseline import BaselineOptions
from perf.sweep.options import SweepOptions

#: Each public options object with what it needs besides its path fields.
OPTIONS: dict[type, dict[str, Any]] = {
    BuildOptions: {"model": "tiny"},
    BaselineOptions: {},
    ServerOptions: {},
    SweepOptions: {"server": ServerOptions()},
}


def path_fields(cls: type) -> dict[str, Any]:
    """Field name -> annotation, for every field whose type names ``Path``."""
    return {n: t for n, t in typing.get_type_hints(cls).items() if "Path" in str(t) and not n.startswith("_")}


@pytest.mark.parametrize("cls", list(OPTIONS), ids=lambda c: c.__name__)
def test_every_path_field_takes_a_str(cls: type) -> None:
    fields = path_fields(cls)
    assert fields, f"{cls.__name__} has no path field: the test would prove nothing"
    given = {n: ({"fp16": "some/where.plan"} if "dict" in str(t) else f"some/{n}") for n, t in fields.items()}
    made = cls(**OPTIONS[cls], **given)
    for n in fields:
        value = getattr(made, n)
        assert all(isinstance(v, Path) for v in (value.values() if isinstance(value, dict) else [value])), (n, value)


@pytest.mark.parametrize("cls", list(OPTIONS), ids=lambda c: c.__name__)
def test_a_wrong_type_is_refused_when_made_naming_the_field(cls: type) -> None:
    name = next(iter(n for n, t in path_fields(cls).items() if "dict" not in str(t)))
    with pytest.raises(ValidationError, match=name):
        cls(**{**OPTIONS[cls], name: 3.5})


@pytest.mark.skipif(not missing_requirements(), reason="this host deserializes plans: a fake plan is refused")
def test_a_build_given_str_paths_runs(tmp_path: Path) -> None:
    (tmp_path / "p.plan").write_bytes(b"\x00engine")  # an imported plan: a whole build without an export
    grid = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(8,), server_gpu=True)
    result = build(
        BuildOptions(
            "tiny",
            formats=["trt"],
            grid=grid,
            serving="native",
            plans={"fp32": str(tmp_path / "p.plan")},
            repository=str(tmp_path / "repo"),
            build_dir=str(tmp_path / "b"),
        )
    )
    assert [d.name for d in result.variant_dirs] == ["tiny_trt_gpu1_nodb_mbs8"]
    assert result.manifest_path == tmp_path / "b" / "tiny" / "manifest.json"
