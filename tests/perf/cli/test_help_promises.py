"""What a --help text promises about replacing or overwriting matches what the command does
(trial 8 F10: `triton-perf export-deployment --help` said a previous bundle at --out "is
replaced"; it is kept as OUT.previous-N, which frightened a user into copying bundles by hand)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from clients.cli.main import cli as clients_cli
from perf.cli.main import cli as perf_cli
from perf.deploy.bundle import move_in

#: Every help text that says something is replaced or overwritten, with the test that checks it does.
CHECKED = {
    # tests/builders/test_build_sources.py: a build of another source under the same name is refused without --force
    ("builders build", "--force"),
    # tests/perf/coldstart/test_coldstart_into.py: --into keeps the run's cold starts, --replace keeps the replaced ones
    ("triton-perf coldstart", "--into"),
    # tests/perf/analysis/test_compare.py: only an earlier comparison is replaced, any other file kept
    ("triton-perf compare", "--out"),
}


def _helps() -> Iterator[tuple[str, str, str]]:
    def walk(cmd: click.Command, path: list[str]) -> Iterator[tuple[list[str], click.Command]]:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path, cmd

    for root, name in ((builders_cli, "builders"), (clients_cli, "clients"), (perf_cli, "triton-perf")):
        for path, cmd in walk(root, [name]):
            yield " ".join(path), "(doc)", cmd.help or ""
            for p in cmd.params:
                yield " ".join(path), (p.opts or [p.name or ""])[0], getattr(p, "help", None) or ""


def test_every_help_that_promises_a_replacement_is_one_checked():
    promising = {
        (command, flag)
        for command, flag, text in _helps()
        if re.search(r"\b(is|are|gets?|get) (replaced|overwritten)\b|\breplaces? (it|them|the|its|a|an)\b|\boverwrites?\b", text)
        and "rebuild replaced" not in text
    }
    assert promising <= CHECKED, f"help texts promising a replacement no test checks: {sorted(promising - CHECKED)}"


def test_export_deployment_help_says_a_previous_bundle_is_kept(tmp_path: Path):
    res = CliRunner().invoke(perf_cli, ["export-deployment", "--help"], terminal_width=400)
    text = " ".join(res.output.split())
    assert "a previous bundle there is kept beside it as OUT.previous-N" in text and "is replaced" not in text
    out = tmp_path / "bundle"  # and that is what happens: move_in keeps the previous bundle whole
    (tmp_path / "new").mkdir()
    out.mkdir()
    (out / "MYNOTES.txt").write_text("my edits")
    assert move_in(tmp_path / "new", out) == tmp_path / "bundle.previous-1"
    assert (tmp_path / "bundle.previous-1" / "MYNOTES.txt").read_text() == "my edits" and out.is_dir()


def test_export_deployment_help_says_the_budget_chooses_a_named_variants_level_too():
    """--latency-budget-ms said "Budget for the recommendation when --variant is not given": a named variant's
    level is its best within that budget too (tests/perf/cli/test_help_defaults.py deploy_variant runs both)."""
    helps = {flag: " ".join(text.split()) for command, flag, text in _helps() if command == "triton-perf export-deployment"}
    assert "a named --variant's" in helps["--latency-budget-ms"] and "not given" not in helps["--latency-budget-ms"]
    assert "at its best level within the latency budget" in helps["--variant"]
    assert "The budget is on the run's percentile" in helps["--variant"]


def test_the_concurrency_help_names_the_levels_the_rounds_design_measures_first() -> None:
    """T25-8: `triton-perf sweep -h` said auto walks "each variant's ladder 1, 2, 4 ..." while the default rounds design
    measures 1, 4, 16 first and the doublings next to the best join later; the levels said are the scheduler's own."""
    from perf.records.rounds import RoundRules
    from perf.records.search import SearchRules
    from perf.search import ladder as ladders
    from perf.search.policy import ladder

    steps, adaptive = ladder("auto", SearchRules())
    first = ladders.coarse(steps, RoundRules(), None)[: RoundRules().first_levels]  # ladders.start's first round
    assert adaptive
    text = " ".join(CliRunner().invoke(perf_cli, ["sweep", "-h"], terminal_width=200).output.split())
    assert f"coarse levels {', '.join(map(str, first))} first" in text, first
    assert "ladder 1, 2, 4 ..." not in text and "--design sequential walks 1, 2, 4 ... in turn" in text
