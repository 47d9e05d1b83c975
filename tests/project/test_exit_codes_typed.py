"""Refusals of what was typed exit 2 in the commands trial 19 found exiting 1 (T19-2; the rule:
tests/project/test_exit_codes.py): ``builders validate`` of a path that is not there, ``clients infer -b``
over the model's max_batch_size, ``export-deployment --variant`` naming no variant of the run and a
``--shape`` outside the build's verified range wherever the sweep's checks of it run (``coldstart``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.cli import EXIT_USAGE
from core.errors import ToolkitError
from perf.measure.inputs import check_variant_shapes


def test_validate_of_a_path_that_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    from builders.cli.main import cli

    res = CliRunner().invoke(cli, ["validate", str(tmp_path / "model_repositry")])
    assert res.exit_code == EXIT_USAGE, res.output
    assert "model_repositry does not exist" in res.output


def test_infer_with_a_batch_size_over_max_batch_size_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import clients.infer
    from clients.cli.main import cli
    from clients.inputs import ModelSignature

    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [16]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "h:1", "-r", "/nonexistent", "-b", "100"])
    assert res.exit_code == EXIT_USAGE, res.output
    assert "batch size 100 is outside 1..8 (max_batch_size)" in res.output
    config["max_batch_size"] = 0
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "h:1", "-r", "/nonexistent", "-b", "4"])
    assert res.exit_code == EXIT_USAGE and "does not batch" in res.output, res.output


def test_export_deployment_of_a_variant_not_in_the_run_is_a_usage_error(tmp_path: Path) -> None:
    from perf.cli.main import cli
    from perf.records import results

    settings = {"concurrency": [1], "batch_sizes": [1], "protocol": "grpc", "repository": str(tmp_path / "repo")}
    run = run_result([variant_result("a", [level_result(1, 400.0, 3.0)])], run_id="k", settings=settings, finished="now")
    results.save(run, tmp_path / "k")
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path / "k"), "--variant", "b"])
    assert res.exit_code == EXIT_USAGE, res.output
    assert "variant 'b' is not in run k" in res.output


def test_export_deployment_of_a_variant_the_run_did_not_measure_is_a_usage_error(tmp_path: Path) -> None:
    """s16's left open: a typed --variant that the run holds but did not measure (failed) exited 1, beside 2 for a
    name not in the run: both refuse the name typed, with the run's valid names (README's exit-code rule)."""
    from perf.cli.main import cli
    from perf.records import results

    settings = {"concurrency": [1], "batch_sizes": [1], "protocol": "grpc", "repository": str(tmp_path / "repo")}
    failed = variant_result("b", [], status="failed", error="server crashed")
    run = run_result([variant_result("a", [level_result(1, 400.0, 3.0)]), failed], run_id="k", settings=settings, finished="now")
    results.save(run, tmp_path / "k")
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path / "k"), "--variant", "b"])
    assert res.exit_code == EXIT_USAGE, res.output
    assert "variant 'b' was not measured in run k (status failed: server crashed)" in res.output
    assert "valid variants of run k: a" in res.output


def test_infer_of_a_model_the_server_does_not_know_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The MODEL typed to `clients infer` that the server does not know (a typo: "did you mean") exited 1; a model
    the server knows but has not loaded is found while working (1). The sweep's own calls carry no flag."""
    import clients.infer
    from clients.cli.main import cli
    from core.errors import ClientError

    class Client:
        def is_server_live(self) -> bool:
            return True

        def is_model_ready(self, model: str) -> bool:
            return False

        def get_model_repository_index(self) -> list[dict[str, str]]:
            return [{"name": "mlp_onnx_cpu1_nodb_mbs8", "state": "UNAVAILABLE"}]

        def close(self) -> None:
            pass

    monkeypatch.setattr(clients.infer, "make_client", lambda url, protocol: Client())
    res = CliRunner().invoke(cli, ["infer", "mlp_onx_cpu1_nodb_mbs8", "--url", "h:1", "-r", "/nonexistent"])
    assert res.exit_code == EXIT_USAGE, res.output
    assert "unknown to the server (did you mean 'mlp_onnx_cpu1_nodb_mbs8'?)" in res.output
    res = CliRunner().invoke(cli, ["infer", "mlp_onnx_cpu1_nodb_mbs8", "--url", "h:1", "-r", "/nonexistent"])
    assert res.exit_code == 1 and "is not ready on the server" in str(res.exception or res.output), res.output
    with pytest.raises(ClientError) as err:
        clients.infer.model_io(Client(), "mlp_onx_cpu1_nodb_mbs8", "http", "h:1")
    assert err.value.flag is None


def test_a_typed_shape_outside_the_verified_range_keeps_its_flag_through_the_sweeps_checks() -> None:
    spec = ModelSpec(
        inputs=[TensorSpec("item_ids", "int64", ["num_items"])],
        outputs=[TensorSpec("scores", "float32", ["num_items"])],
        dynamic_axes={"num_items": (1, 50, 200)},
    )
    config = {
        "name": "ranker",
        "max_batch_size": 64,
        "input": [{"name": "item_ids", "data_type": "TYPE_INT64", "dims": [-1]}],
        "output": [{"name": "scores", "data_type": "TYPE_FP32", "dims": [-1]}],
    }
    with pytest.raises(ToolkitError) as err:
        check_variant_shapes("ranker", config, spec, {"item_ids": [250]})
    assert "outside the build's verified range 1..200" in err.value.message
    assert err.value.flag == "--shape"  # a usage error (exit 2) in the sweep and coldstart, as in clients infer


@pytest.mark.parametrize(
    ("cli_module", "args", "said"),
    [
        ("builders.cli.main", ["build", "--model", "mlp", "--spec", "{missing}.json"], "spec file {missing}.json does not exist"),
        ("builders.cli.main", ["spec", "--build", "{missing}"], "there is no folder {missing}: not a build folder"),
        ("builders.cli.main", ["build", "--model", "mlp", "--plan", "{missing}.plan"], "--plan {missing}.plan does not exist"),
    ],
)
def test_a_typed_path_that_is_not_there_is_a_usage_error(cli_module: str, args: list[str], said: str, tmp_path: Path) -> None:
    """Trial 21: ``builders build --spec /missing.json`` and ``builders spec --build /missing`` exited 1 where
    ``--model /missing.py`` and ``builders validate /missing`` exit 2 (core.cli's rule: a mistake in what was typed)."""
    import importlib

    missing = str(tmp_path / "nope")
    res = CliRunner().invoke(importlib.import_module(cli_module).cli, [a.format(missing=missing) for a in args])
    assert res.exit_code == EXIT_USAGE, res.output
    assert said.format(missing=missing) in res.output
    assert "loading model" not in res.output  # refused before any work


def test_a_typed_perf_analyzer_or_input_data_path_that_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    """The sweep's ``--perf-analyzer`` and ``--input-data`` paths (trial 21: both exited 1)."""
    from perf.measure.analyzer import find_perf_analyzer
    from perf.measure.user_data import check_user_data

    with pytest.raises(ToolkitError, match="does not exist or is not executable") as e:
        find_perf_analyzer(tmp_path / "perf_analyzer")
    assert e.value.flag == "--perf-analyzer"
    with pytest.raises(ToolkitError, match="does not exist") as e:
        check_user_data("v", {"name": "v", "input": []}, None, tmp_path / "data.json")
    assert e.value.flag == "--input-data"
