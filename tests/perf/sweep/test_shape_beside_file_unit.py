"""A sweep's ``--shape`` beside a file of ``--input-data`` is refused before anything starts (R2): the
file's entries carry their own shapes (every user file is written so), and perf_analyzer fails every
level at its start on a ``--shape`` that differs from them (tests/perf/measure/
test_shape_beside_file_integration.py runs the real binary), while one that agrees changes nothing;
the sweep passed both along, so the user learnt it level by level, after the server had started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from served_configs import write_variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from core.errors import FlagError
from perf.cli.main import cli as perf_cli
from perf.sweep.preflight import check_mixed

SPEC = ModelSpec.from_flags(["x:float32:time"], ["y"], ["time=100,400,1600"])
VARIANT = Variant("echo", "onnx", max_batch_size=8)


def test_a_shape_beside_a_file_of_inputs_is_refused_and_beside_perf_analyzers_own_forms_taken(tmp_path: Path) -> None:
    data = tmp_path / "d.json"
    with pytest.raises(FlagError, match=r"^--shape x:400 with --input-data .*d\.json: the file's entries carry") as e:
        check_mixed({}, (1,), data, {"x": (400,)})
    assert e.value.flag == "--shape" and "drop --shape" in (e.value.hint or "")
    for own in (
        tmp_path,
        Path("random"),
        Path("zero"),
        None,
    ):  # a folder of raw files, perf_analyzer's own data: sized by --shape
        check_mixed({}, (1,), own, {"x": (400,)})
    check_mixed({}, (1,), data, {})


def test_the_sweep_refuses_it_before_a_server_starts(fake_build, tmp_path: Path) -> None:
    repo = fake_build(SPEC, VARIANT)
    write_variant_config(repo, SPEC, VARIANT)
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"data": [{"x": {"content": [0.5] * 120, "shape": [120]}}]}))
    results = tmp_path / "results"
    res = CliRunner().invoke(
        perf_cli,
        ["sweep", "-r", str(repo), "--input-data", str(data), "--shape", "x:400", "--results-dir", str(results), "--runtime", "remote", "--url", "127.0.0.1:9"],
        terminal_width=400,
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert f"Error: --shape x:400 with --input-data {data}: the file's entries carry" in res.output  # the flag named once
    assert not results.exists()
