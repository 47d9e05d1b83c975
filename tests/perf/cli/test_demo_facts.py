"""make demo says a sweep flag as its ``DEMO_*`` setting (or its own sweep command) only where the words offer the flag
to be given: a command, or advice ("a longer --time-budget", "pass --latency-budget-ms"). A sentence that names the
flag as a fact keeps it (trial 26, T26-12: "the p99 25 ms budget is make demo's default (DEMO_BUDGET_MS unset), not
typed (DEMO_BUDGET_MS (`DEMO_BUDGET_MS=... make demo`) itself has no default)")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from perf.cli.demo_settings import as_demo, knob_pairs

ROOT = Path(__file__).resolve().parents[3]
KNOBS = knob_pairs(re.search(r"KNOBS=\(([^)]*)\)", (ROOT / "scripts" / "demo.sh").read_text()).group(1).split())  # type: ignore[union-attr]
SWEEP = ["--runtime", "bundled", "--repository", "model_repository", "--variants", "kws_*", "--concurrency", "auto"]
SWEEP += ["--round-window", "300", "--time-budget", "6m", "--latency-budget-ms", "25"]

#: Sentences that name a flag as a fact, each from the project's words.
FACTS = [
    "the p99 25 ms budget is make demo's default (DEMO_BUDGET_MS unset), not typed (`--latency-budget-ms` itself has no default)",
    "Requests per window (count_windows), 300: a rounds visit's windows are time windows of --round-window.",
    "the recommendation under the given --latency-budget-ms 25 (a what-if: 31)",
    "pruning applies to --concurrency auto only: an explicit list is measured whole",
    "every number of run `s1` was measured at time=4000 only (its `--shapes` size deployed)",
    "the --no-report run wrote no plots",
]

#: Advice that offers a flag, and what make demo says instead.
ADVICE = {
    "not measured (a longer --time-budget measures it)": "(a longer DEMO_TIME_BUDGET measures it)",
    "as the run had none (--time-budget gives one)": "(DEMO_TIME_BUDGET gives one)",
    "a --time-budget of at least its estimate (said first)": "a DEMO_TIME_BUDGET of at least",
    "No latency budget given (pass `--latency-budget-ms`, and": "pass DEMO_BUDGET_MS (`DEMO_BUDGET_MS=... make demo`), and",
    "give --time-budget 9m": "give `DEMO_TIME_BUDGET=9m make demo`",
    "sweep again with longer windows (--round-window 1000)": "(`DEMO_WINDOW_MS=1000 make demo`)",
    "or --latency-budget-ms 31": "or `DEMO_BUDGET_MS=31 make demo`",
    "add one to --shapes, e.g.": "add one to --shapes (make demo has no setting for it: `perf/run_sweep.sh --runtime",
    "-> try --no-baseline": "-> try `perf/run_sweep.sh --runtime",
}


@pytest.mark.parametrize("fact", FACTS)
def test_a_sentence_that_names_a_flag_is_said_as_it_is(fact: str) -> None:
    assert as_demo(fact, KNOBS, SWEEP) == fact
    assert as_demo(fact, KNOBS) == fact


@pytest.mark.parametrize(("line", "said"), ADVICE.items())
def test_advice_that_offers_a_flag_is_said_as_make_demo_takes_it(line: str, said: str) -> None:
    assert said in as_demo(line, KNOBS, SWEEP)


#: The modules whose words make demo says after its sweep (tests/perf/cli/test_demo_advice.py's ADVICE), the report's
#: and the run record's, with the texts in them that name a knob flag as a fact.
MODULES = ["perf/analysis", "perf/cli/summary.py", "perf/sweep/baseline_step.py", "perf/sweep/baseline_words.py"]
MODULES += ["perf/profile", "perf/deploy", "perf/report", "perf/records"]
NAMED = (
    "the given --latency-budget-ms",
    "time windows of --round-window",
    "window is --round-window",
    "this command's --time-budget",
    "concurrency asked (--concurrency)",  # triton-perf compare's row of a setting that differs (its flag, a fact)
)


def _texts() -> list[tuple[str, str]]:
    """``(where, text)`` per string of :data:`MODULES` (no docstring) that names a knob flag, an f-string's values said 7."""
    found = []
    for where in MODULES:
        path = ROOT / where
        for module in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            tree = ast.parse(module.read_text())
            docs = {
                id(n.body[0].value)
                for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)
            }
            parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
            for n in ast.walk(tree):
                if isinstance(n, ast.JoinedStr):
                    text = "".join(str(v.value) if isinstance(v, ast.Constant) else "7" for v in n.values)
                elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs | parts:
                    text = n.value
                else:
                    continue
                if any(re.search(rf"{re.escape(flag)}(?![\w-])", text) for flag, _ in KNOBS):
                    found.append((f"{module.relative_to(ROOT)}:{n.lineno}", text))
    return found


def test_every_knob_flag_the_words_name_is_either_offered_and_said_as_its_setting_or_named_and_kept() -> None:
    """The kind: each text that names a knob flag, said by make demo, is advice said as the setting (no flag left) or
    a fact kept word for word; a new text that is neither (a flag half said) fails here."""
    texts = _texts()
    assert len(texts) > 10, texts  # the search finds the words
    wrong = []
    for where, text in texts:
        said = as_demo(text, KNOBS, SWEEP)
        if text.strip("'\"") in {flag for flag, _ in KNOBS} or "--resume" in text:
            continue  # a flag's name alone (a parameter), or a resume of the run (its own command)
        if any(named in text for named in NAMED):
            wrong += [] if said == text else [(where, said)]
            continue
        rest = re.sub(r"`perf/run_sweep\.sh [^`]*`", "", said)  # the demo's own sweep command, with the flag
        wrong += [(where, said)] if [f for f, _ in KNOBS if re.search(rf"{re.escape(f)}(?![\w-])", rest)] else []
    assert not wrong
