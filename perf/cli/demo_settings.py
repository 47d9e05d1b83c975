"""``make demo``'s ``DEMO_*`` settings checked before its first step (trial 12, F18: ``DEMO_TIME_BUDGET=2min``
was refused only at step 3, after the build and the served check, and the error named ``--time-budget``,
which make demo cannot be given).

Each sweep value is parsed by the flag it becomes (``triton-perf sweep``'s own parameters, so no second parser)
and a refusal names the variable: ``make demo: DEMO_TIME_BUDGET=2min: time budget '2min' is not a duration``.
``DEMO_MODEL`` is checked as ``builders build --model`` reads it, without running it (a built-in name, or a
factory whose file exists and can define it, with a ``DEMO_SPEC``), and ``DEMO_SPEC`` as every file argument
(:func:`core.names.file_problem`). Every problem is said as ``VARIABLE=VALUE: what is wrong``, then
``  -> what is expected`` on a line of its own (break tests B10, B17). ``scripts/demo.sh`` runs it once,
with its list of ``VARIABLE --flag VALUE`` triples (``DEMO_MODEL`` and ``DEMO_SPEC`` from the environment)::

    python -m perf.cli.demo_settings DEMO_TIME_BUDGET --time-budget 2min DEMO_BUDGET_MS --latency-budget-ms 25
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from core.names import close_names, file_problem
from core.units import Duration, parse_in, plain
from perf.cli.demo_commands import offered, restore, sweep_commands

#: Every ``DEMO_*`` variable ``scripts/demo.sh`` reads (its header lists them; tests/project/test_demo_script.py checks
#: the script reads these and no others): another one set is a typo make demo would ignore (trial 21 kind K1).
DEMO_VARIABLES = (
    "DEMO_MODEL",
    "DEMO_SPEC",
    "DEMO_CONCURRENCY",
    "DEMO_BUDGET_MS",
    "DEMO_TIME_BUDGET",
    "DEMO_WINDOW_MS",
    "DEMO_VARIANTS",
    "DEMO_PROFILE",
    "DEMO_MAX_BATCH_SIZES",
    "DEMO_BUILD_FLAGS",
)


def unknown_variables(environ: Iterable[str]) -> list[str]:
    """One problem per ``DEMO_*`` name in ``environ`` that make demo does not read (``DEMO_TIMEBUDGET=2m``
    would run the 6-minute default without a word), with the closest known name."""
    out = []
    for name in sorted(n for n in environ if n.startswith("DEMO_") and n not in DEMO_VARIABLES):
        close = close_names(name, DEMO_VARIABLES, n=1)
        said = f" (did you mean {close[0]}?)" if close else ""
        out.append(
            f"{name} is set, but make demo reads no such variable{said}: it would be ignored\n"
            f"  -> make demo reads {', '.join(DEMO_VARIABLES)}; unset {name} (or set the one you meant)"
        )
    return out


#: A flag's metavar said as the unit of its number.
_UNITS = {"MS": "milliseconds", "S": "seconds"}


def _number_words(var: str, value: str, param: click.Parameter) -> str:
    """``DEMO_WINDOW_MS=0: 0 is below 50`` and what the variable takes, for a value a click number type
    refused (its own words, "0 is not in the range x>=50.", name neither the variable nor the unit)."""
    kind: Any = param.type
    duration = isinstance(kind, Duration)  # "300ms" read as 300 (trial 30, F15)
    whole = isinstance(kind, click.types.IntParamType) or (duration and kind.integer)
    number_words = "a whole number" if whole else "a number"
    unit = _UNITS.get(getattr(param, "metavar", None) or "")
    low, high = (kind.low, kind.high) if duration else (getattr(kind, "min", None), getattr(kind, "max", None))
    low_open, high_open = getattr(kind, "min_open", False), getattr(kind, "max_open", False)
    bounds = [f"{'above' if low_open else 'at least'} {plain(low)}"] if low is not None else []
    bounds += [f"{'below' if high_open else 'at most'} {plain(high)}"] if high is not None else []
    try:
        number = parse_in(value, kind.unit, var) if duration else int(value) if whole else float(value)
    except ValueError as e:  # a duration's own words: another unit said in the flag's
        wrong = str(e) if duration else f"{value!r} is not {number_words}"
    else:
        below = low is not None and (number < low or (low_open and number == low))
        if whole and number != int(number):
            wrong = f"{value!r} is not {number_words}"
        else:
            edge = plain(low if below else high)  # type: ignore[arg-type]
            wrong = f"{plain(number)} is {'not above' if below and low_open else 'below' if below else 'not below' if high_open else 'above'} {edge}"
    expected = number_words + (f" of {unit}" if unit else "") + (f", {' and '.join(bounds)}" if bounds else "")
    return f"{var}={value}: {wrong}\n  -> set {var} to {expected}"


class _Notes(logging.Handler):
    """The warnings a flag's parser logs (``time budget '90' has no unit: read as 90 s``), kept to be said
    of the variable instead of printed bare."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.said.append(record.getMessage())


def _knob_problem(var: str, flag: str, value: str) -> tuple[str | None, list[str]]:
    """The sweep flag's own refusal of ``value``, said of ``var`` (``None`` when it parses), and the
    warnings its parser gave, said of ``var`` too."""
    from perf.cli.main import cli

    notes, root = _Notes(), logging.getLogger()
    root.addHandler(notes)
    problem = None
    try:
        cli.commands["sweep"].make_context("sweep", [flag, value])
    except click.UsageError as e:
        param = getattr(e, "param", None)
        if param is not None and isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType, Duration)):
            problem = _number_words(var, value, param)
        else:
            words = e.message.replace(f"'{flag}'", var).replace(flag, var)
            problem = f"{var}={value}: {words}"
    finally:
        root.removeHandler(notes)
    return problem, [f"{var}={value}: {n.replace(flag, var)}" for n in notes.said]


def model_problem(model: str, spec: str | None) -> str | None:
    """What keeps ``DEMO_MODEL`` from building, found without running anything, or ``None``: a name that
    is no built-in model, a factory whose file is missing or cannot define it, or a model of yours
    without ``DEMO_SPEC`` (``builders build`` refuses each a few seconds into step 1, naming ``--model``).
    A ``package.module:factory`` is checked for its form only: its import runs code."""
    from builders.model.builtin import BUILTINS
    from builders.model.factory import FACTORY_FORMS, may_define, top_level_functions

    if model in BUILTINS:
        return None
    builtins = sorted(BUILTINS)
    expected = f"a built-in model ({', '.join(builtins)}), or your model's factory as {FACTORY_FORMS} with DEMO_SPEC"
    where, _, fn = model.rpartition(":")
    if not where or not fn.isidentifier():
        close = close_names(model, builtins, n=1)
        wrong = f"{model!r} is no built-in model" + (f" (did you mean {close[0]}?)" if close else "")
        if where or model.endswith(".py"):
            wrong = f"{model!r} names no function to call (no :factory)"
        return f"DEMO_MODEL={model}: {wrong}\n  -> set DEMO_MODEL to {expected}"
    if where.endswith(".py") or "/" in where or os.sep in where:
        path = Path(where)
        if problem := file_problem(path, "its file", "*.py"):
            return f"DEMO_MODEL={model}: {problem[0]}\n  -> {problem[1]}"
        if path.suffix != ".py":
            return f"DEMO_MODEL={model}: its file {where} is not a .py file\n  -> set DEMO_MODEL to {expected}"
        if not may_define(path, fn):
            names = top_level_functions(path)
            close = close_names(fn, names, n=1)
            return (
                f"DEMO_MODEL={model}: {where} defines no {fn!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                + (f"; its top-level functions: {', '.join(names)}" if names else "; it defines no top-level function")
                + f"\n  -> set DEMO_MODEL to {where}:FACTORY, FACTORY the function of {where} that returns the nn.Module"
            )  # fmt: skip
    if not spec:
        return (
            f"DEMO_MODEL={model}: a model of yours needs its input spec, and DEMO_SPEC is not set\n"
            "  -> set DEMO_SPEC to its spec file (the JSON `builders build --spec` reads; `builders spec --example` prints one)"
        )
    return None


def problems(
    knobs: Sequence[tuple[str, str, str]], spec: str | None = None, model: str | None = None, notes: list[str] | None = None
) -> list[str]:
    """What is wrong with each setting, in words that name its variable; empty when every one parses.

    Args:
        knobs: ``(variable, flag, value)`` per setting the demo passes to ``triton-perf sweep``.
        spec: ``DEMO_SPEC``'s value (a file ``builders build --spec`` reads), when set.
        model: ``DEMO_MODEL``'s value (what ``builders build --model`` builds), when set.
        notes: Where the warnings of a value taken as it is (``DEMO_TIME_BUDGET=90``: read as 90 s) are
            added, each naming its variable.

    Returns:
        One text per problem: ``VARIABLE=VALUE: what is wrong`` and, where there is one, a second line
        ``  -> what is expected``.
    """
    out = []
    for var, flag, value in knobs:
        problem, said = _knob_problem(var, flag, value)
        out += [problem] if problem else []
        if notes is not None:
            notes += said
    if spec and (missing := file_problem(Path(spec), "the spec file", "*.json")):
        out.append(f"DEMO_SPEC={spec}: {missing[0]}\n  -> {missing[1]}")
    if model and (unbuildable := model_problem(model, spec)):
        out.append(unbuildable)
    return out


#: A flag's value in advice: a number or duration (``31``, ``4m``, ``1000``), ``auto`` or ``none`` (not the next word).
_VALUE = r"[0-9][^\s`;,)]*|auto|none"


def _said_as(var: str, valued: bool) -> Callable[[re.Match[str]], str]:
    """The replacement of a knob's flag found with its value (``valued``: the ``make demo`` command) or without (the
    variable, with that command after a backticked one), where the words offer it; else the words as they are."""

    def said(m: re.Match[str]) -> str:
        if not offered(m.string, m.start(), m.end(), valued):
            return m[0]
        if valued:
            return f"`{var}={m[1]} make demo`"
        return f"{var} (`{var}=... make demo`)" if m[0].startswith("`") else var

    return said


def as_demo(text: str, knobs: Sequence[tuple[str, str]], sweep: Sequence[str] | None = None, own: Collection[str] = ()) -> str:
    """``text`` with each advice that offers one of ``knobs``' flags (:func:`perf.cli.demo_commands.offered`; a
    sentence that names a flag as a fact keeps it) said as ``make demo`` takes it:
    "`--time-budget 8m` keeps it" -> "DEMO_TIME_BUDGET=8m make demo keeps it", "a longer `--time-budget`"
    -> "a longer DEMO_TIME_BUDGET (`DEMO_TIME_BUDGET=... make demo`)", "--round-window 1000" ->
    "`DEMO_WINDOW_MS=1000 make demo`" (trial 13, T13-13: the second
    was left as the sweep's flag in the console, the report and the bundle's README).

    Args:
        text: A line of the sweep's advice.
        knobs: ``(flag, variable)`` per flag ``make demo`` passes (``("--time-budget", "DEMO_TIME_BUDGET")``).
        sweep: The demo's ``perf/run_sweep.sh`` arguments (no ``--run-id``): a sweep flag with no ``DEMO_*``
            setting is said as that command with the flag (:mod:`perf.cli.demo_commands`; trial 17, T17-12:
            "--shapes time=400..16000" after ``make demo``). ``None``: such flags are left as they are.
        own: The flags of the command whose words these are (``export-deployment``'s ``--latency-budget-ms``),
            never said as a sweep command.
    """
    kept: list[str] = []
    if sweep is not None:
        text, kept = sweep_commands(text, sweep, {f for f, _ in knobs}, own)
    for flag, var in knobs:
        text = re.sub(rf"`?{re.escape(flag)} (\S+?)`? keeps it", rf"{var}=\1 make demo keeps it", text)
        # a flag with its value is a command to run (trial 16, T16-20: "or DEMO_BUDGET_MS 31"); one named as a fact
        # is not (trial 26, T26-12: "DEMO_BUDGET_MS (`DEMO_BUDGET_MS=... make demo`) itself has no default")
        text = re.sub(rf"`?{re.escape(flag)}[ =]({_VALUE})`?", _said_as(var, True), text)
        text = re.sub(rf"`{re.escape(flag)}`|(?<![\w-]){re.escape(flag)}(?![\w-])", _said_as(var, False), text)
    return restore(text, kept)


def advice(run_dir: Path, knobs: Sequence[tuple[str, str]], sweep: Sequence[str] | None = None) -> list[str]:
    """The run's advice that names a sweep flag, each said by :func:`as_demo`: the line that skips the in-process
    baseline, the note on one the budget cut after it started (the re-check of trial 14: "--time-budget 2m keeps
    it" in a demo) and every note the sweep printed below its table (:func:`perf.cli.summary.summary`: the pick's
    caveat on the variants cut for time, the recommendation's notes, batching measured at uniform sizes). With
    ``sweep`` (the demo's ``perf/run_sweep.sh`` arguments), a flag with no ``DEMO_*`` setting is said as that
    command (trial 17, T17-12: the "--shapes time=400..16000" advice was dropped, unchanged)."""
    from perf.cli.summary import summary
    from perf.records.results import load
    from perf.sweep.baseline_step import CUT_NOTE

    run = load(run_dir)
    texts = [f"in-process baseline {c.reason}" for c in (run.rounds.cuts if run.rounds else []) if c.kind == "baseline"]
    texts += [n for n in (run.baseline.notes if run.baseline else []) if n.startswith(CUT_NOTE)]  # cut after it started
    texts += summary(run).notes
    said = [as_demo(t, knobs, sweep) for t in dict.fromkeys(texts)]
    return [s for s, t in zip(said, dict.fromkeys(texts), strict=True) if s != t]


def cut_caveat(run_dir: Path, knobs: Sequence[tuple[str, str]], sweep: Sequence[str] | None = None) -> str | None:
    """Why step 4 writes no bundle of the run in ``run_dir``: its time budget cut variants before they were measured,
    so its pick is of some of them only (:func:`perf.deploy.pick_state.cut_refusal`; trial 22, F-demo-cut-winner: the
    cut variant beat the bundled pick 1.85x), in the pick's caveat said by :func:`as_demo` (the ``DEMO_*`` setting or
    the demo's resume command that measures them); ``None`` when none was cut unmeasured."""
    from perf.analysis.measured import cut_variants
    from perf.analysis.recommendation.cuts import caveat_subject, unmeasured_caveat
    from perf.analysis.recommendation.recommend import recommend
    from perf.records.results import load
    from perf.records.workloads import split_by_workload

    run = load(run_dir)
    if not cut_variants(run)[0]:
        return None
    rec = recommend(split_by_workload(run), run.settings.get("latency_budget_ms"))
    return as_demo(
        unmeasured_caveat(run, caveat_subject(rec.best_under_budget, rec.best_peak, rec.latency_budget_ms)) or "", knobs, sweep
    )


#: Step 3b's share of ``DEMO_TIME_BUDGET`` (the traces and the precision study, after the sweep's budget;
#: trial 14, T14-9: 373 s outside any budget, for a 2-minute one): a quarter, so ``make demo``'s steps 3 and 3b
#: end within 5/4 of it (6m: 90 s more; the demo's mlp takes about 10 s of it).
PROFILE_SHARE = 0.25


def profile_budget(text: str) -> str:
    """Step 3b's ``--time-budget``: :data:`PROFILE_SHARE` of the ``DEMO_TIME_BUDGET`` value ``text``, in whole
    seconds (``"6m"`` -> ``"90s"``; ``"none"`` -> ``"none"``), parsed by the sweep's one parser."""
    from perf.search.budget import parse_duration

    seconds = parse_duration(text)
    return "none" if seconds is None else f"{max(1, round(seconds * PROFILE_SHARE))}s"


def knob_pairs(items: Iterable[str]) -> list[tuple[str, str]]:
    """``(flag, variable)`` per ``make demo`` knob written ``FLAG:VARIABLE:DEFAULT`` (``scripts/demo.sh``'s
    ``KNOBS``; its default is the script's, not needed here): ``"time-budget:DEMO_TIME_BUDGET:6m"`` ->
    ``("--time-budget", "DEMO_TIME_BUDGET")``.

    Raises:
        ValueError: An item without ``FLAG:VARIABLE`` (a script edited into another form), named.
    """
    pairs = []
    for item in items:
        flag, _, rest = item.partition(":")
        var = rest.partition(":")[0]
        if not flag or not var:
            raise ValueError(f"make demo knob {item!r} is not FLAG:VARIABLE:DEFAULT (scripts/demo.sh's KNOBS)")
        pairs.append(("--" + flag, var))
    return pairs


def translate(
    knobs: Sequence[tuple[str, str]], lines: Iterable[str], sweep: Sequence[str] | None = None, own: Collection[str] = ()
) -> Iterator[str]:
    """Each line of a later step's output said by :func:`as_demo` (trial 14: steps 3b and 4 repeated the
    sweep's "a longer `--time-budget` measures them" after the demo had said it as DEMO_TIME_BUDGET)."""
    for line in lines:
        yield as_demo(line, knobs, sweep, own)


def as_demo_args(args: Sequence[str]) -> tuple[list[tuple[str, str]], set[str], list[str] | None]:
    """``--as-demo``'s arguments read: ``[--own COMMAND] KNOB... [-- SWEEP_ARGS...]`` -> the knobs
    (:func:`knob_pairs`), ``triton-perf COMMAND``'s own flags (never said as a sweep command) and the demo's
    ``perf/run_sweep.sh`` arguments (``None`` without ``--``)."""
    from perf.cli.demo_commands import options_of

    args = list(args)
    own: set[str] = set()
    if args[:1] == ["--own"]:
        own, args = options_of(args[1]), args[2:]
    sweep = args[args.index("--") + 1 :] if "--" in args else None
    return knob_pairs(args[: args.index("--")] if "--" in args else args), own, sweep


def main(argv: Sequence[str] | None = None) -> int:
    """Check ``VARIABLE --flag VALUE`` triples (and ``DEMO_MODEL``, ``DEMO_SPEC`` from the environment):
    each problem ``make demo:`` lines on stderr, exit 2 (a usage error) when there is one, else 0 silently.
    ``--profile-budget VALUE``: print :func:`profile_budget`; ``--cut-caveat RUN_DIR KNOB... [-- SWEEP_ARGS...]``:
    print :func:`cut_caveat`, if any; ``--as-demo [--own COMMAND] FLAG:VARIABLE[:DEFAULT]...
    [-- SWEEP_ARGS...]``: copy stdin to stdout through :func:`translate`, line by line as it comes (:func:`as_demo_args`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--profile-budget"]:
        click.echo(profile_budget(args[1]))
        return 0
    if args[:1] == ["--cut-caveat"]:  # RUN_DIR KNOB... [-- SWEEP_ARGS...]: the caveat, or nothing
        pairs, _, sweep = as_demo_args(args[2:])
        if (caveat := cut_caveat(Path(args[1]), pairs, sweep)) is not None:
            click.echo(caveat)
        return 0
    if args[:1] == ["--as-demo"]:
        pairs, own, sweep = as_demo_args(args[1:])
        for line in translate(pairs, sys.stdin, sweep, own):
            sys.stdout.write(line)
            sys.stdout.flush()
        return 0
    knobs = [(args[i], args[i + 1], args[i + 2]) for i in range(0, len(args) - 2, 3)]
    notes: list[str] = []
    found = unknown_variables(os.environ)
    found += problems(knobs, os.environ.get("DEMO_SPEC") or None, os.environ.get("DEMO_MODEL") or None, notes)
    for text in notes + found:
        click.echo(f"make demo: {text}", err=True)
    if found:
        click.echo("make demo: nothing was built or started; set the variable(s) above and run it again", err=True)
    return 2 if found else 0


if __name__ == "__main__":
    sys.exit(main())
