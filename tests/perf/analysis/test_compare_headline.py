"""``triton-perf compare A B`` prints the comparison's Summary counts below the file's path (trial 23, T23-13: the console
said only "comparison: results/ctr-b/compare_ctr-a.md"), in the file's words; at a client batch above 1 the file's
legend says what infer/s counts (T23-15)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from core.units import INFER_PER_S_MEANS
from perf.cli.main import cli
from perf.records.results import save


def _runs(tmp_path: Path, batch: int = 1) -> tuple[Path, Path]:
    for name, folder, thr in (("before", "a", (100.0, 300.0)), ("after", "b", (102.0, 360.0))):
        levels = [level_result(c, t, 2.0 * c, batch_size=batch) for c, t in zip((1, 4), thr, strict=True)]
        run = run_result([variant_result("v", levels)])
        run.run_id = name
        save(run, tmp_path / folder)
    return tmp_path / "a", tmp_path / "b"


def test_the_console_says_the_summary_counts(tmp_path: Path) -> None:
    a, b = _runs(tmp_path)
    res = CliRunner().invoke(cli, ["compare", str(a), str(b)])
    assert res.exit_code == 0, res.output
    text = (b / "compare_before.md").read_text()
    for head in ("Matched levels:", "Throughput:", "p99 latency:"):
        line = next(ln[2:] for ln in text.splitlines() if ln.startswith(f"- {head}"))
        assert line in res.output.splitlines()  # the file's words, each on its own line
    assert INFER_PER_S_MEANS not in text


def test_a_batch_4_comparison_says_what_infer_s_counts(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, batch=4)
    assert CliRunner().invoke(cli, ["compare", str(a), str(b)]).exit_code == 0
    assert INFER_PER_S_MEANS in (b / "compare_before.md").read_text()
