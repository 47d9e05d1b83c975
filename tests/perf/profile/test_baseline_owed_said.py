"""What ``triton-perf baseline RUN`` and a sweep's resume say and measure of a run whose in-process baseline some
variants owe (:func:`perf.analysis.baseline_owed.baseline_owed`): the words match what the command would do (s24b)."""

from __future__ import annotations

from click.testing import CliRunner

from perf.cli.main import cli
from tests.perf.profile.test_baseline_owed import NEW, _run


def test_variants_of_an_old_record_s_unmeasurable_variant_say_it_cannot_be_measured(tmp_path):
    """A record from before ``unmeasurable``: `--variants B` of a variant the baseline cannot run was planned, said
    "not measurable in-process" in a warning, then refused as the run "has its in-process baseline", which B has not
    (the s23s fix read only the record's ``unmeasurable``, which such a record does not hold)."""
    run_dir, _run_ = _run(tmp_path)  # NEW: no target; its config names no artifact the toolkit runs
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", NEW])
    assert res.exit_code == 1, res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert "has its in-process baseline" not in text and "has the in-process baseline" not in text, text
    assert f"`{NEW}` cannot be measured in-process (`{NEW}`: no build record or no artifact the toolkit runs)" in text
