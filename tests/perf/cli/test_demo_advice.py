"""Every flag the advice after ``make demo`` can name is said as something its user can run: a ``DEMO_*`` setting
that exists, or the demo's own ``perf/run_sweep.sh`` command with the flag (trial 17, T17-12: "-> measure a mix as
clients send it: --shapes time=400..16000", which make demo has no setting for, and ``advice`` dropped it)."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import pytest
from factories import level_result, make_run, params, variant_result

from perf.cli.demo_commands import SCRIPT, options_of, sweep_options
from perf.cli.demo_settings import advice, as_demo, as_demo_args, knob_pairs
from perf.records.results import VariantResult

ROOT = Path(__file__).resolve().parents[3]
#: scripts/demo.sh's KNOBS, read from the script (one list: what it passes and says).
KNOB_ITEMS = re.search(r"KNOBS=\(([^)]*)\)", (ROOT / "scripts" / "demo.sh").read_text()).group(1).split()  # type: ignore[union-attr]
KNOBS = knob_pairs(KNOB_ITEMS)
SWEEP = ["--runtime", "bundled", "--repository", "model_repository", "--variants", "kws_*", "--concurrency", "auto"]
SWEEP += ["--round-window", "300", "--time-budget", "6m", "--latency-budget-ms", "25"]

#: The modules whose words reach make demo's output after its sweep, with the command they are said by (``None``:
#: the sweep's own, ``triton-perf report``'s): the notes below the sweep's table (perf.cli.summary) and the
#: baseline's skip or cut (advice()), step 3b's baseline, step 4's export-deployment.
ADVICE = {
    "perf/analysis/recommendation": None,
    "perf/analysis/ranking": None,
    "perf/analysis/build_checks.py": None,
    "perf/analysis/efficiency.py": None,
    "perf/cli/summary.py": None,
    "perf/sweep/baseline_step.py": None,
    "perf/sweep/baseline_words.py": None,
    "perf/profile/run.py": "baseline",
    "perf/profile/checks.py": "baseline",
    "perf/cli/baseline.py": "baseline",
    "perf/deploy/choose.py": "export-deployment",
    "perf/deploy/caveats.py": "export-deployment",
    "perf/deploy/workloads.py": "export-deployment",
}
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def _emitted() -> dict[tuple[str, str | None], str]:
    """``(flag, own command)`` -> a module that says it, for every flag in a string of the ADVICE modules that is no
    docstring (the strings they build advice from)."""
    found: dict[tuple[str, str | None], str] = {}
    for where, own in ADVICE.items():
        path = ROOT / where
        for module in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            tree = ast.parse(module.read_text())
            docs = {
                id(n.body[0].value)
                for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.body
                and isinstance(n.body[0], ast.Expr)
                and isinstance(n.body[0].value, ast.Constant)
            }
            for n in ast.walk(tree):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                    for flag in _FLAG.findall(n.value):
                        found.setdefault((flag, own), str(module.relative_to(ROOT)))
    return found


EMITTED = _emitted()


def _commands(text: str) -> list[list[str]]:
    """The ``perf/run_sweep.sh`` commands ``text`` says in backticks, as argument lists."""
    return [shlex.split(c) for c in re.findall(rf"`{re.escape(SCRIPT)} ([^`]*)`", text)]


def _parses(args: list[str]) -> None:
    from perf.cli.main import cli

    run_id = [] if "--run-id" in args else ["--run-id", "x"]  # the advice's own --run-id, else one of the test's
    cli.commands["sweep"].make_context("perf/run_sweep.sh", [*args, *run_id], resilient_parsing=False)


def test_the_advice_builders_name_the_flags_the_search_found() -> None:
    """The enumeration finds what trial 17 met, so the test below covers the kind, not a list kept by hand."""
    flags = {f for f, _ in EMITTED}
    assert {"--shapes", "--time-budget", "--trials", "--replace", "--variant"} <= flags


#: A value the sweep's parser takes, per flag whose values have a form (else 7).
EXAMPLE = {"--shapes": "time=1000..16000", "--shape": "x:1,2", "--variants": "kws_*", "--url": "localhost:8000"}


@pytest.mark.parametrize(("flag", "own"), sorted(EMITTED, key=str), ids=lambda x: str(x))
def test_every_flag_the_advice_after_make_demo_names_is_something_its_user_can_run(flag: str, own: str | None) -> None:
    options = sweep_options()
    # the knobs each step's words are said with (scripts/demo.sh: step 4 keeps export-deployment's --latency-budget-ms)
    step = [k for k in KNOBS if not (own == "export-deployment" and k[0] == "--latency-budget-ms")]
    knobs, own_flags = dict(step), options_of(own) if own else set()
    where = EMITTED[(flag, own)]
    if flag in knobs:  # a DEMO_* setting that exists
        for line in (f"-> try {flag} 7", f"a longer `{flag}` gives it"):
            said = as_demo(line, step, SWEEP, own_flags)
            assert f"{knobs[flag]}=" in said and "make demo" in said and flag not in said, (where, said)
    elif flag in own_flags:  # the command's own flag, in its own words: left as it is
        assert as_demo(f"-> try {flag} 7", step, SWEEP, own_flags) == f"-> try {flag} 7"
    elif flag in options:  # the demo's own sweep with the flag
        option = options[flag]
        value = option.type.choices[0] if hasattr(option.type, "choices") else EXAMPLE.get(flag, "7")
        for line in [f"-> try {flag}"] if option.is_flag else [f"-> try {flag} {value} now", f"add one to {flag}, e.g."]:
            said = as_demo(line, step, SWEEP, own_flags)
            (args,) = _commands(said)
            assert flag in args and args[:6] == SWEEP[:6], (where, said)
            if f"{flag} {value}" in line:
                assert args[args.index(flag) + 1] == value and "make demo has no setting" not in said
                _parses(args)
            else:
                assert "make demo has no setting for it" in said
    else:  # another command's flag: said inside that command, spelled out in the same module
        named = [c for c in ("baseline", "export-deployment", "report", "compare", "colocate") if flag in options_of(c)]
        source = (ROOT / where).read_text()
        assert any(f"triton-perf {c}" in source for c in named), (where, flag)
        line = f"`triton-perf {named[0]} results/r {flag}` does it"
        assert as_demo(line, KNOBS, SWEEP) == line


def _kws(db: bool) -> VariantResult:
    p = {**params(2, db=db, model="kws"), "name": f"kws_onnx_cpu2_{'db500' if db else 'nodb'}_mbs64"}
    levels = [level_result(c, 100.0 * c, 5.0 * c, batch_size=1) for c in (1, 2)]
    return variant_result(params=p, levels=levels, axis_ranges={"time": [1000, 8000, 16000]})


def test_make_demo_says_the_mixed_size_advice_as_the_sweep_command_that_takes_it(tmp_path: Path) -> None:
    """Trial 17, T17-12: the sweep's "measure a mix as clients send it: --shapes time=1000..16000" was not
    re-said after make demo (advice() dropped each line it did not change); now the demo's own sweep with it."""
    from perf.records import results

    run = make_run()
    run.variants = [_kws(True), _kws(False)]
    results.save(run, tmp_path)
    knobs, _, sweep = as_demo_args([*KNOB_ITEMS, "--", *SWEEP])
    (said,) = [a for a in advice(tmp_path, knobs, sweep) if "measure a mix" in a]
    assert said.endswith(f"measure a mix as clients send it: `{SCRIPT} {shlex.join(SWEEP)} --shapes time=1000..16000`")
    (args,) = _commands(said)
    _parses(args)


def test_a_run_of_flags_is_one_command_and_a_spelled_out_command_is_kept() -> None:
    said = as_demo("mix: --shapes a=1..2 --shapes b=3..4.", KNOBS, SWEEP)
    assert said == f"mix: `{SCRIPT} {shlex.join(SWEEP)} --shapes a=1..2 --shapes b=3..4`."
    # a demo setting in a run with another flag: the one command, its value replacing the demo's
    (args,) = _commands(as_demo("try --search brute --time-budget 9m", KNOBS, SWEEP))
    assert (
        args[args.index("--time-budget") + 1] == "9m" and args.count("--time-budget") == 1 and args[-2:] == ["--search", "brute"]
    )
    kept = "`triton-perf baseline results/r --replace` measures it; a longer --time-budget keeps it"
    assert as_demo(kept, KNOBS, SWEEP) == kept.replace("--time-budget", "DEMO_TIME_BUDGET")
    # export-deployment's own --latency-budget-ms is its own (step 4), not the sweep's
    own = options_of("export-deployment")
    assert as_demo("or --latency-budget-ms 31", [k for k in KNOBS if k[0] != "--latency-budget-ms"], SWEEP, own) == (
        "or --latency-budget-ms 31"
    )
