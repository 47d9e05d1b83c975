"""export-deployment --variant with a typo names the closest measured variant (trial 24, T24-13: "variant
'segnet_onnx_cpu1_nodb_mb8' is not in run s3" and the list, where `clients check` says "did you mean")."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result

from core.errors import PerfError
from perf.deploy.choose import choose_variant

NAMES = ("segnet_onnx_cpu1_db500_mbs8", "segnet_onnx_cpu1_nodb_mbs8")


def test_a_misspelt_variant_gets_a_did_you_mean(tmp_path: Path) -> None:
    run = run_result([variant_result(n, [level_result(1, 100.0, 5.0)]) for n in NAMES], settings={})
    with pytest.raises(PerfError) as refused:
        choose_variant(run, "segnet_onnx_cpu1_nodb_mb8", results_dir=tmp_path)
    said = str(refused.value)
    assert "is not in run" in said and "(did you mean 'segnet_onnx_cpu1_nodb_mbs8'?)" in said, said
    with pytest.raises(PerfError) as refused:  # nothing close: no guess
        choose_variant(run, "resnet", results_dir=tmp_path)
    assert "did you mean" not in str(refused.value)
