"""A run recorded with a flag passed through that this version refuses (recheck of trial 16, R16-10): its
``--resume`` was refused, but ``triton-perf report`` and ``export-deployment`` built from its mislabelled levels
with no word (``--perf-analyzer-arg=--concurrency-range=1:4``: perf_analyzer measured 1..4 at every level, filed
under c=16). Now the report says it on the console and first in report.md and its Recommendation; the bundle is
refused (a named variant's too) unless ``--allow-refused-flags`` is given, and then its README says it first."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from core.errors import PerfError
from perf.cli.main import cli
from perf.deploy.choose import ALLOW_REFUSED_FLAGS, choose_variant
from perf.deploy.readme import first_lines
from perf.records import results
from perf.report.write import write_report
from perf.sweep.refused_run import refused_flags_text

ARG = "--perf-analyzer-arg=--concurrency-range=1:4"
WHY = "perf_analyzer's --concurrency-range is a level's concurrency, which the sweep sets per level"
MISLABELLED = "its numbers may not be what they are labelled"


def _run(extra_args: tuple[str, ...] = ("--concurrency-range=1:4",), server: dict | None = None):
    variants = [
        variant_result(n, [level_result(c, thr * c, 2.0 * c, trial=r, spread=True) for c in (1, 16) for r in range(3)])
        for n, thr in (("fast", 300.0), ("slow", 100.0))
    ]
    settings = {"latency_budget_ms": 250.0, "extra_args": list(extra_args), "server": server or {"runtime": "bundled"}}
    return run_result(variants, run_id="old", settings=settings, finished="x")


def test_the_one_sentence_names_the_flag_why_and_what_the_numbers_are() -> None:
    text = refused_flags_text(_run())
    assert text is not None and text.startswith(
        f"run `old` was measured with a flag this version refuses: {ARG} is refused: {WHY}"
    )
    assert MISLABELLED in text and "--run-id NEW" in text
    assert refused_flags_text(_run(("--max-threads=16",))) is None  # a flag that goes through: nothing to say
    # tritonserver's too: another config than the one recorded was served
    srv = _run((), {"runtime": "bundled", "extra_args": ["--model-config-name=other"]})
    assert "--server-arg=--model-config-name=other is refused: tritonserver's --model-config-name" in (
        refused_flags_text(srv) or ""
    )
    # a server the toolkit did not start never got its flags: nothing was mislabelled by them
    remote = _run((), {"runtime": "remote", "urls": ["h:8001"], "extra_args": ["--model-config-name=other"]})
    assert refused_flags_text(remote) is None


def test_export_deployment_refuses_unless_asked_and_the_bundle_says_it_first() -> None:
    run = _run()
    for named in (None, "slow"):  # a named variant's levels are as mislabelled
        with pytest.raises(PerfError) as e:
            choose_variant(run, named)
        assert e.value.message.startswith(f"nothing deployed: run `old` was measured with a flag this version refuses: {ARG}")
        assert MISLABELLED in e.value.message and ALLOW_REFUSED_FLAGS in (e.value.hint or "")
    chosen = choose_variant(run, allow_refused_flags=True)
    assert chosen.variant == "fast" and chosen.refused is not None and ARG in chosen.refused
    said = "\n".join(first_lines(chosen))
    assert "**Deployed from numbers that may be mislabelled** (exported with `--allow-refused-flags`)" in said and ARG in said
    assert choose_variant(_run(()), "slow").refused is None


def test_the_cli_refuses_with_one_message_and_offers_the_flag(tmp_path: Path) -> None:
    results.save(_run(), tmp_path)
    res = CliRunner().invoke(cli, ["export-deployment", str(tmp_path)], env={"COLUMNS": "300"})
    assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output  # main() prints it, no traceback
    assert ARG in str(res.exception) and ALLOW_REFUSED_FLAGS in str(res.exception) and not (tmp_path / "deployment-fast").exists()
    helped = CliRunner().invoke(cli, ["export-deployment", "--help"], env={"COLUMNS": "300"})
    assert ALLOW_REFUSED_FLAGS in helped.output


def test_the_report_says_it_on_the_console_and_first_in_report_md(tmp_path: Path) -> None:
    results.save(_run(), tmp_path)
    res = CliRunner().invoke(cli, ["report", str(tmp_path)], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert any(ln.startswith("run `old` was measured with a flag this version refuses") for ln in res.output.splitlines())
    text = " ".join(res.output.split())  # a console line over 300 characters is folded at its clauses (acd13a8)
    said = text[text.index("run `old` was measured with a flag this version refuses") :][:1200]
    assert ARG in said and MISLABELLED in said
    md = (tmp_path / "report.md").read_text().splitlines()
    first = next(i for i, ln in enumerate(md) if ln.startswith("> **This run** was measured with a flag this version refuses"))
    assert first < md.index("## Recommendation")
    rec = md[md.index("## Recommendation") + 2]
    assert rec.startswith("- **A pick from numbers that may be mislabelled**: run `old` was measured") and ARG in rec
    clean = tmp_path / "clean"
    results.save(_run(()), clean)
    assert "refuses" not in write_report(clean).read_text()


def test_compare_md_says_it_first_as_the_console_does(tmp_path: Path) -> None:
    """Issue 26: ``compare`` printed the sentence on the console, but compare.md, the file a reader keeps, left it out."""
    old, new = tmp_path / "old", tmp_path / "new"
    results.save(_run(), old)
    clean = _run(())
    clean.run_id, clean.created = "new", "later"
    results.save(clean, new)
    res = CliRunner().invoke(cli, ["compare", str(old), str(new)], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert any(ln.startswith("run `old` was measured with a flag this version refuses") for ln in res.output.splitlines())
    md = (new / "compare_old.md").read_text().splitlines()
    said = [ln for ln in md if "was measured with a flag this version refuses" in ln]
    assert len(said) == 1 and said[0].startswith(f"> **A** (run `old`) was measured with a flag this version refuses: {ARG}")
    assert MISLABELLED in said[0] and md.index(said[0]) < next(i for i, ln in enumerate(md) if ln.startswith("|"))
