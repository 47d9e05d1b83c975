"""Dynamic input shapes with the real bundled tritonserver and perf_analyzer (issue 19, item 11):
``clients infer`` says which shapes and ranges it made up and takes ``--shape``/``--input-data``;
``triton-perf sweep`` says which size it used, and sweeps ``--shapes seq=...`` as a level dimension."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from source_builds import POOLED_VARIANT, pooled_repo
from tables import table_rows

from clients.cli.main import cli as clients_cli
from clients.server import ServerOptions, TritonServer
from perf.records import results
from perf.records.settings import MeasureSettings
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
VARIANT = POOLED_VARIANT


@pytest.fixture(scope="module")
def seq_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pooled_repo(tmp_path_factory.mktemp("seq"))


def test_clients_infer_says_what_it_made_up_and_takes_shapes_and_input_data(seq_repo: Path, tmp_path: Path) -> None:
    with TritonServer(ServerOptions(seq_repo, runtime="bundled", load_models=(VARIANT,))) as srv:
        runner = CliRunner()
        base = ["infer", VARIANT, "--url", srv.http_url, "-r", str(seq_repo)]
        res = runner.invoke(clients_cli, base)
        assert res.exit_code == 0, res.output
        out = " ".join(res.output.split())
        assert (
            "input ids [1, 24] (batch 1 × [24] per sample) int64: integers uniform in [0, 49] (the build's value_range); seq=24 "
            "(the build's opt size" in out
        )
        res = runner.invoke(clients_cli, [*base, "--shape", "ids:12", "-b", "2"])
        assert res.exit_code == 0, res.output
        assert "inputs: ids [2, 12] (batch 2 × [12] per sample) int64" in res.output and "seq=12 (--shape)" in res.output
        res = runner.invoke(clients_cli, [*base, "--shape", "ids:12,3"])
        said = " ".join(f"{res.output} {res.exception}".split())  # a typed mistake: exit 2 (3aa151c), the words either way
        assert res.exit_code == 2 and "does not fit its config dims [-1]" in said, said
        res = runner.invoke(clients_cli, [*base, "--shape", "ids:33"])  # the build verified seq for 1..32 only
        said = " ".join(f"{res.output} {res.exception}".split())
        assert res.exit_code == 2 and "sets axis seq to 33, outside the build's verified range 1..32" in said, said
        data = tmp_path / "ids.json"
        data.write_text(json.dumps({"data": [{"ids": {"content": [1, 2, 3, 4, 5], "shape": [5]}}]}))
        res = runner.invoke(clients_cli, [*base, "--input-data", str(data)])
        assert res.exit_code == 0, res.output
        assert f"input ids [1, 5] (batch 1 × [5] per sample) int64: from {data}" in res.output


def test_a_sweep_says_the_size_it_used_and_sweeps_shapes_as_levels(seq_repo: Path, tmp_path: Path) -> None:
    fast = MeasureSettings(measurement_interval_ms=300, max_trials=4, unstable_retries=0)
    run, run_dir = run_sweep(
        SweepOptions(
            ServerOptions(seq_repo, runtime="bundled"),
            concurrency=(1,),
            measure=fast,
            results_dir=tmp_path,
            run_id="plain",
            warmup_requests=0,
            design="sequential",
        )
    )
    assert run.variant(VARIANT).dynamic_axes == "seq=24 (the build's opt size of axis seq)"
    from perf.report.write import write_report

    assert (
        "Dynamic input dims of every variant: seq=24 (the build's opt size of axis seq), at every level"
        in write_report(run_dir).read_text()
    )

    cmd = [
        str(ROOT / "perf" / "run_sweep.sh"),
        "--design",
        "sequential",
        "--repository",
        str(seq_repo),
        "--runtime",
        "bundled",
        "--concurrency",
        "1,2",
        "--shapes",
        "seq=8,32",
        "--measurement-interval",
        "300",
        "--max-trials",
        "4",
        "--unstable-retries",
        "0",
        "--results-dir",
        str(tmp_path),
        "--run-id",
        "shapes",
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=280, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert "c=1 seq=8" in res.stderr and "c=2 seq=32" in res.stderr  # progress lines name the size
    run = results.load(tmp_path / "shapes")
    v = run.variant(VARIANT)
    assert sorted((lv.concurrency, lv.shape) for lv in v.levels) == [(1, "seq=32"), (1, "seq=8"), (2, "seq=32"), (2, "seq=8")]
    assert all(lv.ok for lv in v.levels) and run.settings["sweep_axes"] == {"seq": [8, 32]}
    commands = (tmp_path / "shapes" / results.COMMANDS_FILE).read_text()
    assert "--shape ids:8" in commands and "--shape ids:32" in commands
    report = (tmp_path / "shapes" / "report.md").read_text()
    assert f"`{VARIANT} [seq=8]`" in report and f"`{VARIANT} [seq=32]`" in report
    assert "Dynamic axes swept as a level dimension (`--shapes`): seq = 8, 32" in report
    assert f"{VARIANT} [seq=8]" in table_rows(res.stdout)  # the summary table too (the label under the name)
