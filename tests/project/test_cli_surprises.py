"""CLI behaviour a user would not expect: a repeated single-value flag silently keeping the
last value, tables cut at 80 columns when the output is not a terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from clients.cli.main import cli as clients_cli
from perf.cli.main import cli as perf_cli


def test_perf_sweep_takes_repeated_variants_flags_together(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    # the example: `--variants a --variants b` kept only b
    import perf.sweep.run
    from core.errors import PerfError

    seen = {}

    def fake_sweep(opts, progress):
        seen["variants"] = opts.variants
        raise PerfError("captured")

    monkeypatch.setattr(perf.sweep.run, "Sweep", fake_sweep)
    res = CliRunner().invoke(
        perf_cli, ["sweep", "--repository", str(tmp_path), "--variants", "a_*", "--variants", "b,c", "--variants", "a_*"]
    )
    assert isinstance(res.exception, PerfError), res.output
    assert seen["variants"] == ("a_*", "b", "c")


@pytest.mark.parametrize(
    "cli, args, flag",
    [
        (perf_cli, ["sweep", "--latency-budget-ms", "5", "--latency-budget-ms", "50"], "--latency-budget-ms"),
        (perf_cli, ["report", ".", "--latency-budget-ms=1", "--latency-budget-ms=2"], "--latency-budget-ms"),
        (builders_cli, ["variants", "--model", "a", "--model", "b"], "--model"),
        (clients_cli, ["serve", "--print-cmd", "--http-port", "8000", "--http-port", "9000"], "--http-port"),
        (clients_cli, ["check", "--start-timeout", "5", "--start-timeout", "500"], "--start-timeout"),
    ],
)
def test_a_single_value_flag_given_twice_is_refused(cli, args, flag):
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2, res.output
    assert f"{flag} was given 2 times, and it takes one value" in res.output


def test_repeatable_flags_and_counters_stay_accepted():
    res = CliRunner().invoke(builders_cli, ["variants", "--format", "onnx", "--format", "torchscript", "--instance-counts", "1"])
    assert res.exit_code == 0, res.output
    assert "_onnx_" in res.output and "_ts_" in res.output


def test_tables_off_a_terminal_are_printed_whole():
    # CliRunner's output is not a terminal, as a CI log or `| tee` is: rich would cut at 80 columns
    res = CliRunner().invoke(
        builders_cli,
        [
            "variants",
            "--model",
            "a_model_with_a_rather_long_name_for_ci_logs",
            "--instance-counts",
            "1,2",
            "--dynamic-batching",
            "off,500",
            "--max-batch-sizes",
            "64",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "…" not in res.output
    assert "a_model_with_a_rather_long_name_for_ci_logs_onnx_cpu2_db500_mbs64" in res.output
    # text cells and headers wrap to a sane width (issue 26: tests/core/test_print_table.py); no word is cut
    assert "dynamic" in res.output and "batching" in res.output and "max_batch_size" in res.output


def test_print_table_fits_a_terminal_and_widens_elsewhere():
    import io

    from rich.console import Console
    from rich.table import Table

    from core.cli import print_table

    t = Table()
    t.add_column("variant")
    t.add_column("result")
    t.add_row("v" * 60, "FAIL " + "x" * 70)
    plain = io.StringIO()
    print_table(t, Console(file=plain, width=80))
    assert "x" * 70 in plain.getvalue() and "…" not in plain.getvalue()
    tty = io.StringIO()
    print_table(t, Console(file=tty, width=80, force_terminal=True, color_system=None))
    assert max(len(line) for line in tty.getvalue().splitlines()) <= 80  # a terminal keeps its width


def test_results_table_of_clients_check_keeps_output_names():
    import io

    from rich.console import Console

    from clients.check import CheckResult
    from clients.cli.main import results_table
    from core.cli import print_table

    r = CheckResult(
        "tiny_onnx_cpu2_db500_mbs8",
        "grpc",
        False,
        [
            {
                "name": "OUTPUT__0_with_a_long_served_name",
                "passed": False,
                "max_abs_err": 0.5,
                "max_rel_err": 0.25,
                "rtol": 1e-4,
                "problem": "max rel err 0.25 > rtol 1e-04 at index [3, 7]",
            }
        ],
        None,
    )
    out = io.StringIO()
    print_table(results_table([r]), Console(file=out, width=80))
    assert "OUTPUT__0_with_a_long_served_name" in out.getvalue() and "OUTPU…" not in out.getvalue()


@pytest.mark.parametrize(
    "cli, args",
    [
        (clients_cli, ["infer", "some_model", "--shape", "input_ids"]),  # no dims: before any server is asked
        (perf_cli, ["coldstart", "--shape", "x:0"]),
        (perf_cli, ["sweep", "--shape", "x:a,b"]),
    ],
)
def test_a_malformed_shape_flag_is_a_usage_error_in_every_command(cli, args, monkeypatch, capsys):
    from core.cli import EXIT_USAGE, run_cli

    monkeypatch.setattr("sys.argv", ["prog", *args])
    with pytest.raises(SystemExit) as exit_:
        run_cli(cli)
    err = capsys.readouterr().err
    assert exit_.value.code == EXIT_USAGE and ("is not NAME:dims" in err or "every dim must be" in err) and "--shape" in err, err


def test_run_sweep_sh_names_itself_in_its_usage_errors():
    import subprocess

    root = Path(__file__).resolve().parents[2]
    res = subprocess.run([str(root / "perf/run_sweep.sh"), "--no-such-flag"], capture_output=True, text=True, cwd=root)
    assert res.returncode == 2 and res.stderr.startswith("Usage: perf/run_sweep.sh [OPTIONS]"), res.stderr
    assert "perf.cli.main" not in res.stderr


def test_a_repository_that_does_not_exist_is_named_so(tmp_path: Path):
    from builders.repository.view import Repository
    from core.errors import RepositoryError

    for indexed in (True, False):
        with pytest.raises(RepositoryError, match="does not exist") as err:
            Repository(tmp_path / "nowhere").names(indexed=indexed)
        assert "index.json" not in str(err.value)
    res = CliRunner().invoke(clients_cli, ["check", "--repository", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "does not exist" in res.output and "index.json" not in res.output


def test_a_shape_outside_the_verified_range_is_refused_before_anything_is_sent(tmp_path: Path, monkeypatch):
    # the trial: `triton-perf coldstart --shape input_ids:999` started a server, warned, and exited 0
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec
    from core.errors import PerfError
    from perf.measure.inputs import check_variant_shapes

    spec = ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 9)),), (), {"seq": (1, 24, 64)})
    config = {"name": "m_onnx", "max_batch_size": 8, "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]}]}
    check_variant_shapes("m_onnx", config, spec, {"ids": (32,)})
    with pytest.raises(PerfError) as err:
        check_variant_shapes("m_onnx", config, spec, {"ids": (999,)})
    assert err.value.message.count("m_onnx") == 1 and "999" in err.value.message  # the variant named once
    # coldstart checks every variant before its server starts
    import perf.cli.coldstart as cold
    from builders.repository.view import Repository

    started = []
    monkeypatch.setattr("clients.server.TritonServer.__enter__", lambda self: started.append(1) or self)
    monkeypatch.setattr(Repository, "names", lambda self, *a, **k: ["m_onnx"])
    monkeypatch.setattr("builders.config.pbtxt.read_config", lambda path: _config_proto(config))
    monkeypatch.setattr(Repository, "variant", lambda self, n: type("V", (), {"served_spec": spec})())
    res = CliRunner().invoke(cold.coldstart, ["--repository", str(tmp_path), "--shape", "ids:999"])
    assert res.exit_code == 2 and "999" in res.output and not started  # typed: a usage error of --shape (T19-2)


def _config_proto(config: dict):
    from google.protobuf import json_format
    from tritonclient.grpc import model_config_pb2 as mc

    return json_format.ParseDict(config, mc.ModelConfig())
