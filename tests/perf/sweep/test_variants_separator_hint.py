"""``perf/run_sweep.sh --variants 'tinyvit-onnx*'`` (a '-' for the '_') is told the pattern meant, as the launcher and
the comma list are (trial 27, T27-16: the sweep listed the known names with no "did you mean"). The rule is
:func:`builders.repository.patterns.meant`'s; this is the sweep's command line reading it. No server."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from perf.cli import main as perf_cli


def test_the_sweep_tells_a_pattern_with_another_separator_the_pattern_meant(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("tinyvit_onnx_cpu1_nodb_mbs64", "tinyvit_ts_cpu1_nodb_mbs64"):
        (repo / name).mkdir(parents=True)
        (repo / name / "config.pbtxt").write_text(f'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\n')
    res = CliRunner().invoke(
        perf_cli.cli,
        ["sweep", "--repository", str(repo), "--variants", "tinyvit-onnx*", "--results-dir", str(tmp_path / "r"), "--no-report"],
    )
    text = " ".join(res.output.split())
    assert res.exit_code == 2, text
    assert f"Invalid value for --variants: no variant in {repo} matches 'tinyvit-onnx*' (did you mean 'tinyvit_onnx*'?)" in text
    assert not (tmp_path / "r").exists()  # refused before anything ran
