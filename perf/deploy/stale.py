"""The bundles in a run's folder that are of an earlier pick (:func:`stale_bundles`): a bundle of the run's
recommendation whose variant a later ``--resume`` no longer picks (trial 22, F-stale-bundle: after the resume changed
the pick, the bundle's README still said "The run's recommendation" and neither the resume's end nor report.md said
the run folder held a bundle of a variant no longer picked). Said by the report's console (a sweep's and a resume's
end), report.md's Recommendation (given to :func:`perf.report.write.write_report` by its caller) and
``export-deployment``."""

from __future__ import annotations

from pathlib import Path

from core.errors import PerfError
from perf.deploy.choose import Chosen, choose_variant
from perf.deploy.pick_state import BUNDLE_PREFIX, RECOMMENDATION_WHY
from perf.deploy.readme import first_lines
from perf.markdown import fmt_given
from perf.records.results import RunResult

#: How :func:`stale_bundles` says a bundle of a variant the run no longer picks (report.md labels it by these words).
EARLIER = "was written for an earlier pick"


def recommended_variant(folder: Path) -> str | None:
    """The variant of the bundle in ``folder`` when its README says it is the run's recommendation
    (:data:`RECOMMENDATION_WHY`), else ``None`` (a named variant, a what-if budget's pick, no README)."""
    try:
        lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    head = lines[0] if lines else ""
    if not head.startswith("# Deployment bundle: `") or not any(ln.startswith(RECOMMENDATION_WHY) for ln in lines):
        return None
    return head.removeprefix("# Deployment bundle: `").partition("`")[0] or None


def current_choice(run: RunResult, run_dir: Path) -> Chosen | None:
    """What ``export-deployment`` picks of ``run`` now under its own budget, whatever it waits for (an unfinished run,
    variants cut unmeasured: the pick stands), with the caveats its README would open with; ``None`` when nothing is
    picked (no level within the budget...)."""
    try:
        return choose_variant(run, None, None, True, Path(run_dir).parent, allow_refused_flags=True, allow_cut=True)
    except PerfError:
        return None


def current_pick(run: RunResult, run_dir: Path) -> str | None:
    """The variant of :func:`current_choice`, else ``None``."""
    chosen = current_choice(run, run_dir)
    return chosen.variant if chosen is not None else None


def outdated_caveats(folder: Path, chosen: Chosen) -> list[str]:
    """The caveats the README of the bundle in ``folder`` opens with (:func:`perf.deploy.readme.first_lines`) that the
    run's pick now (``chosen``) no longer carries, each as the README says it, quoted; ``[]`` for none (break-it F8: a
    bundle written with ``--allow-unfinished --allow-cut`` still opened "Not a finished run's pick" and "The pick is the
    best of 2 of the 4 variants" after a resume had finished the run, measured every variant and kept the pick)."""
    try:
        lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    head = lines[: next((i for i, ln in enumerate(lines) if ln.startswith("## ")), len(lines))]  # title, first_lines

    def lead(line: str) -> str:  # "Not a finished run's pick", "The pick is the best of 2 of the 4 variants"
        return line.split("**")[1].split(";")[0].removesuffix(":").strip() if line.count("**") >= 2 else ""

    now = {lead(ln) for ln in first_lines(chosen)}
    return [lead(ln) for ln in head if ln.startswith("**") and lead(ln) and lead(ln) not in now]


def export_flags(run: RunResult, run_dir: Path) -> list[str]:
    """The flags ``export-deployment RUN`` needs to deploy :func:`current_pick` (``--allow-unfinished``,
    ``--allow-cut``, ``--allow-refused-flags``: each it would refuse the run without), ``[]`` for none (break-it of
    this session, F7: the stale-bundle line advised the bare command, which then refused the run)."""
    parent, flags = Path(run_dir).parent, []
    for flag in ("--allow-unfinished", "--allow-cut", "--allow-refused-flags"):
        try:  # every other allowance given: refused only for want of this one
            choose_variant(
                run,
                None,
                None,
                flag != "--allow-unfinished",
                parent,
                allow_refused_flags=flag != "--allow-refused-flags",
                allow_cut=flag != "--allow-cut",
            )
        except PerfError:
            flags.append(flag)
    return flags


def _own_budget(run: RunResult) -> str:
    """Which pick :func:`current_pick` is, said with its budget (break-it F12: under a what-if report's other budget,
    "the pick is now X" followed "No level meets the p99 budget of 0.10 ms"): ``"under its own p99 budget of 25.00
    ms"``, ``"by its best peak (it has no latency budget)"``."""
    ms = run.settings.get("latency_budget_ms")
    if ms is None:
        return "by its best peak (it has no latency budget)"
    return f"under its own p{int(run.settings.get('latency_percentile') or 99)} budget of {fmt_given(float(ms))} ms"


def stale_bundles(run_dir: Path, run: RunResult) -> list[str]:
    """One sentence per bundle in ``run_dir`` written as the run's recommendation (:func:`recommended_variant`) whose
    variant is not the run's pick now (:func:`current_pick`, under the run's own budget, whatever a what-if report
    asks): ``"`deployment-a` was written for an earlier pick (`a`); the run's pick under its own p99 budget is now `b`:
    `triton-perf export-deployment RUN` writes its bundle"`` (with the flags it needs: :func:`export_flags`; where
    ``deployment-b`` is there already, that it holds it); ``[]`` for none. A kept previous bundle (``.previous-N``) is
    not listed: it was replaced, and says so by its name."""
    folders = sorted(d for d in Path(run_dir).glob(f"{BUNDLE_PREFIX}*") if d.is_dir() and ".previous-" not in d.name)
    bundles = [(d, v) for d in folders if (v := recommended_variant(d)) is not None]
    if not bundles:
        return []
    chosen = current_choice(run, run_dir)
    pick = chosen.variant if chosen is not None else None
    command = f"`triton-perf export-deployment {run_dir}`"
    if pick is None:
        now = f"the run has no pick to deploy now ({command} says why)"
    elif (Path(run_dir) / f"{BUNDLE_PREFIX}{pick}").is_dir():
        now = f"the run's pick {_own_budget(run)} is now `{pick}`, whose bundle `{BUNDLE_PREFIX}{pick}` is there too"
    else:
        flags = export_flags(run, run_dir)
        command = f"`triton-perf export-deployment {run_dir}{''.join(' ' + f for f in flags)}`"
        now = f"the run's pick {_own_budget(run)} is now `{pick}`: {command} writes its bundle"
    said = [f"`{d.name}` {EARLIER} (`{v}`); {now}" for d, v in bundles if v != pick]
    for d, v in bundles:  # the pick's own bundle, its README opening with caveats the run no longer carries (F8)
        if v == pick and chosen is not None and (old := outdated_caveats(d, chosen)):
            again = f"`triton-perf export-deployment {run_dir}{''.join(' ' + f for f in export_flags(run, run_dir))}`"
            quoted = " and ".join(f'"{c}"' for c in old)
            said.append(
                f"`{d.name}` (of the run's pick, `{v}`) opens its README with {quoted}, which the run's pick no longer "
                f"carries; {again} writes it again (keeping this one beside it)"
            )
    return said
