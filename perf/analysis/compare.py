"""Run-to-run comparison: two sweeps (before/after, or two machines) level by level.

Levels are matched by variant name and (concurrency, batch size); each side is the median
over its trials, or over its rounds in a rounds run (:func:`perf.analysis.stats.aggregate`).
Which rule calls a change depends on how the two runs measured (:func:`rule_text` says it in
the comparison):

- **two rounds runs**: their rounds ran at different times and cannot be paired round by round,
  so each run's paired rule (:mod:`perf.analysis.paired`) does not apply across them; an exact
  rank-sum test on the two runs' per-round values does (:mod:`perf.analysis.unpaired`): a change
  is "higher"/"lower" at p <= 5 %, else *not distinguishable at this noise*, and with too few
  rounds on a side *too few rounds to tell*.
- **otherwise** (a sequential run on either side): :mod:`perf.analysis.stats`'s noise rule, a
  rounds run's rounds standing as its trials: *significant* only when both runs measured the
  level in at least 2 trials and the change exceeds both min–max spreads; a level measured once
  on either side has an unknown spread, and the comparison suggests ``--trials``.

A level flagged host busy (:func:`perf.analysis.fair.unfair`: one busy round flags it) is, between
two rounds runs, judged by the same rank-sum test on the rounds of each run that were not busy,
when each has enough of them; otherwise, and always in the sequential case, it is *not measured
fairly*, and the summary says what would measure it (one sweep of both, or a quiet host). A
variant a run never measured (cut for time, failed, skipped) is listed as such, never as a
result of that run alone.
"""

from __future__ import annotations

import logging
from pathlib import Path

from core.errors import PerfError
from core.wording import count, sentence
from perf.analysis.fair import unfair
from perf.analysis.stats import MIN_TRIALS_FOR_SPREAD, P99, THROUGHPUT, Delta, Point, delta, fmt_spread, run_points
from perf.analysis.unpaired import RULE as RANK_SUM_RULE
from perf.analysis.unpaired import rank_sum
from perf.markdown import UNSTABLE_MARK, Align, errors_text, flag_mark, table
from perf.records.results import RunResult, load
from perf.records.unfinished import unfinished_text
from perf.records.workloads import split_by_workload

log = logging.getLogger(__name__)

#: Counters of one metric's verdicts: B higher, B lower, no call, no rule applies, not fair.
HIGHER, LOWER, NO_CALL, UNKNOWN, UNFAIR = range(5)


def _measurement(run: RunResult) -> str:
    """How ``run`` measured a level, in its design's own terms."""
    if run.rounds is not None:
        return f"rounds design: {count(len(run.rounds.measured()), 'round')}, visits of {run.rounds.rules.window_ms} ms windows"
    s = run.settings
    window = (
        f"{s.get('measurement_request_count', '?')}-request windows"
        if s.get("measurement_mode") == "count_windows"
        else f"{s.get('measurement_interval_ms', '?')} ms windows"
    )
    return f"sequential design: {window}, {count(int(s.get('trials') or 1), 'trial')}"


def _env_line(run: RunResult) -> dict[str, str]:
    env = run.environment
    server = env.get("server") or {}
    gpus = ", ".join(g.get("name", "?") for g in env.get("gpus") or []) or "none"
    return {
        "host": str(env.get("host", "?")),
        "cpu": f"{env.get('cpu', '?')} ({env.get('cpu_count', '?')} cores)",
        "gpus": gpus,
        "server runtime": f"{server.get('runtime', '?')} {server.get('version') or ''}".strip(),
        "perf_analyzer": str((env.get("perf_analyzer") or {}).get("version", "?")),
        "protocol": str(run.settings.get("protocol", "?")),
        "measurement": _measurement(run),
    }


def both_rounds(a: RunResult, b: RunResult) -> bool:
    """Whether both runs measured in interleaved rounds (the rank-sum rule applies)."""
    return a.rounds is not None and b.rounds is not None


def rule_text(a: RunResult, b: RunResult, label_a: str = "A", label_b: str = "B") -> str:
    """The rule the comparison of ``a`` and ``b`` calls a change by, in words (module docstring)."""
    if both_rounds(a, b):
        return sentence(f"Both runs measured in interleaved rounds: {RANK_SUM_RULE}")
    rounds = [label for label, run in ((label_a, a), (label_b, b)) if run.rounds is not None]
    stand = (
        f" {rounds[0]} measured in rounds and the other one level after another: its rounds stand as its trials "
        "(rounds cannot be paired with another run's trials)."
        if rounds
        else ""
    )
    return (
        f"Values are medians over trials [min–max].{stand} **Significant** means both runs measured the level in at "
        f"least {MIN_TRIALS_FOR_SPREAD} trials and the change exceeds both min–max trial spreads; with fewer trials "
        "the spread is unknown and no noise level is assumed."
    )


def _sig(d: Delta | None, why: str | None = None) -> str:
    """``yes``/``no``/``spread unknown (...)``, or ``not measured fairly (host busy)`` where a side
    was measured on a busy host (:func:`perf.analysis.fair.unfair`)."""
    if d is None:
        return "—"
    if why:
        return "not measured fairly (host busy)"
    return d.unknown_note if d.significant is None else ("yes" if d.significant else "no")


def _pct(d: Delta | None) -> str:
    return "—" if d is None or d.change_pct is None else f"{d.change_pct:+.1f}"


def _round_values(run: RunResult, p: Point, metric: str, quiet: bool = False) -> list[float]:
    """``metric`` of ``p``'s level in every round (trial) that measured it; ``quiet``: only the
    rounds not flagged host busy."""
    v = run.variant(p.variant)
    return [
        x
        for lv in (v.levels if v else [])
        if lv.request_rate is None and (lv.concurrency, lv.batch_size) == (p.concurrency, p.batch_size) and lv.ok
        if not (quiet and lv.host_busy)
        if (x := getattr(lv, metric)) is not None
    ]


def _quiet_verdict(a: RunResult, b: RunResult, p: Point, q: Point, metric: str) -> tuple[str, str, int]:
    """A level one side of which was flagged host busy (one busy round flags it): judged again on the
    rounds of each run that were not busy, by the same rank-sum rule, when there are enough of them
    (a busy host flags a few rounds of most levels, and "not measured fairly" everywhere answered
    nothing, trial 9 F24); else ``not measured fairly``, with the quiet rounds each run has."""
    qa, qb = _round_values(a, p, metric, quiet=True), _round_values(b, q, metric, quiet=True)
    r = rank_sum(qa, qb)
    if r is None or not r.callable:
        return (
            _pct(delta(p, q, metric)),
            f"not measured fairly (host busy; quiet rounds {len(qa)} in A, {len(qb)} in B: too few)",
            UNFAIR,
        )
    pct = "—" if r.change_pct is None else f"{r.change_pct:+.1f} q"
    kind = NO_CALL if r.verdict == "not distinguishable" else HIGHER if r.verdict == "higher" else LOWER
    return pct, f"{r.describe()} on its quiet rounds ({len(qa)} in A, {len(qb)} in B)", kind


def judge(a: RunResult, b: RunResult, p: Point, q: Point, metric: str) -> tuple[str, str, int | None]:
    """One metric of one matched level: the change in % (B − A) / A, the verdict's cell and its
    counter (:data:`HIGHER`... ; ``None`` when a side lacks the metric), by :func:`rule_text`'s rule."""
    d = delta(p, q, metric)
    if d is None:
        return "—", "—", None
    why = unfair(p, q)
    up = HIGHER if d.b > d.a else LOWER
    if both_rounds(a, b):
        r = rank_sum(_round_values(a, p, metric), _round_values(b, q, metric))
        if r is None:
            return _pct(d), "—", None
        if why:
            return _quiet_verdict(a, b, p, q, metric)
        if not r.callable:
            return _pct(d), r.describe(), UNKNOWN
        return _pct(d), r.describe(), NO_CALL if r.verdict == "not distinguishable" else up
    kind = UNFAIR if why else UNKNOWN if d.significant is None else up if d.significant else NO_CALL
    return _pct(d), _sig(d, why), kind


def measured(run: RunResult) -> list[str]:
    """The variants ``run`` has numbers for (at least one level with a throughput), in its order."""
    pts = run_points(run)
    return [n for n in pts if any(p.ok for p in pts[n])]


def not_measured(run: RunResult) -> dict[str, list[str]]:
    """The variants ``run`` lists but has no numbers for, by why (cut for time, failed, skipped,
    not reached): a variant never measured is not a result of that run."""
    have = set(measured(run))
    out: dict[str, list[str]] = {}
    for v in run.variants:
        if v.name not in have:
            why = errors_text(v.error) or ("not reached: the run stopped before it" if v.status == "pending" else v.status)
            out.setdefault(why, []).append(v.name)
    return out


def _summary(a: RunResult, b: RunResult, counts: dict[str, list[int]], label_a: str, label_b: str) -> list[str]:
    """The summary's counts per metric, what the unknown ones need, and the variants not in both."""
    t, l99 = counts[THROUGHPUT], counts[P99]
    lines = []
    if both_rounds(a, b):
        more, no, unknown = "", "not distinguishable at this noise", "too few rounds to tell"
        if t[UNKNOWN] or l99[UNKNOWN]:
            lines.append(
                "- Levels with too few rounds to tell have fewer than 4 rounds in a run (or 3 against fewer than 5): "
                "levels a run's ladder retired early, or rounds its time budget ended; no difference at such round "
                "counts can reach 5 %."
            )
    else:
        more, no, unknown = "significantly ", "not significant", "with unknown spread"
        if t[UNKNOWN] or l99[UNKNOWN]:
            who = "both sweeps" if a.rounds is None and b.rounds is None else "the sequential sweep"
            lines.append(
                f"- Levels with unknown spread were measured in fewer than {MIN_TRIALS_FOR_SPREAD} trials in A or B: "
                f"run {who} with `--trials 3` (or more) to tell a change from run-to-run variation."
            )
    head = [
        f"- Throughput: {t[HIGHER]} {more}higher in B, {t[LOWER]} {more}lower, {t[NO_CALL]} {no}, {t[UNKNOWN]} "
        f"{unknown}, {t[UNFAIR]} not measured fairly (a side host busy).",
        f"- p99 latency: {l99[LOWER]} {more}lower in B, {l99[HIGHER]} {more}higher, {l99[NO_CALL]} {no}, "
        f"{l99[UNKNOWN]} {unknown}, {l99[UNFAIR]} not measured fairly (a side host busy).",
    ]
    if t[UNFAIR] or l99[UNFAIR]:
        lines.append(
            "- Not measured fairly: other processes used the host while a side measured the level, in too many of "
            "its rounds. Two runs' rounds cannot be paired; to compare two setups on a host others use, sweep them "
            "in one run (its interleaved rounds measure them under the same load, and its report pairs them), or "
            "rerun both while nothing else runs."
        )
    ma, mb = measured(a), measured(b)
    for label, mine, other in ((label_a, ma, mb), (label_b, mb, ma)):
        only = [n for n in mine if n not in other]
        if only:
            lines.append(f"- Only in {label}: {', '.join(only)}.")
    for label, run in ((label_a, a), (label_b, b)):
        for why, names in not_measured(run).items():
            lines.append(f"- Not measured in {label} ({why}): {', '.join(names)}.")
    return head + lines


def compare_markdown(
    a: RunResult,
    b: RunResult,
    label_a: str = "A",
    label_b: str = "B",
    folders: tuple[Path | None, Path | None] = (None, None),
) -> str:
    """The comparison report as markdown (see :func:`compare_runs`); ``folders``: the runs' folders
    (their parents named in the command that continues an interrupted one; ``None``: not known)."""
    lines = [f"{_HEADING}{a.run_id} ({label_a}) → {b.run_id} ({label_b})", ""]
    for label, run, folder in ((label_a, a, folders[0]), (label_b, b, folders[1])):  # an interrupted run is said first
        parent = Path(folder).parent if folder is not None else None
        if (stopped := unfinished_text(run, f"**{label}** (run `{run.run_id}`)", parent)) is not None:
            lines += [f"> {sentence(stopped)}", ""]
    ea, eb = _env_line(a), _env_line(b)
    lines += table(
        ["", f"{label_a}: {a.run_id}", f"{label_b}: {b.run_id}"],
        [[f"{k}{' (differs)' if ea[k] != eb[k] else ''}", ea[k], eb[k]] for k in ea],
        ["left"] * 3,
    )
    lines += [
        "",
        "Changes are (B − A) / A. Matched by variant name and (concurrency, batch size). "
        + rule_text(a, b, label_a, label_b)
        + (
            " A level measured while other processes used the host (host busy) is marked; a change involving it is "
            "judged by the same test on the rounds of each run that were not busy (its Δ % then between their "
            "medians, marked q), and is *not measured fairly* where a run has too few of them: the two runs may "
            "differ by the host's load, not by what changed. "
            if both_rounds(a, b)
            else " A level measured while other processes used the host (host busy) is marked, and a change "
            "involving it is *not measured fairly*: the two runs may differ by the host's load, not by what changed. "
        )
        + f"{UNSTABLE_MARK} unstable: perf_analyzer did not reach a stable measurement; {UNSTABLE_MARK} host busy: "
        "other processes used the host's CPU during it.",
        "",
    ]
    rows: dict[str, list[list[object]]] = {}
    counts = {THROUGHPUT: [0] * 5, P99: [0] * 5}
    for name, p, q in matched_points(a, b):
        cells: list[object] = [p.concurrency, p.batch_size]
        for metric, digits in ((THROUGHPUT, 1), (P99, 2)):
            pct, sig, kind = judge(a, b, p, q, metric)
            if kind is not None:
                counts[metric][kind] += 1
            cells += [
                f"{fmt_spread(p, metric, digits)}{flag_mark(p.status)}",
                f"{fmt_spread(q, metric, digits)}{flag_mark(q.status)}",
                pct,
                sig,
            ]
        rows.setdefault(name, []).append(cells)
    lines += ["## Summary", "", f"- Matched levels: {sum(len(r) for r in rows.values())} in {count(len(rows), 'variant')}."]
    lines += _summary(a, b, counts, label_a, label_b)
    verdict = "verdict" if both_rounds(a, b) else "significant"
    headers = [
        "concurrency",
        "batch",
        f"throughput {label_a} (infer/s)",
        f"throughput {label_b} (infer/s)",
        "Δ %",
        verdict,
        f"p99 {label_a} (ms)",
        f"p99 {label_b} (ms)",
        "Δ %",
        verdict,
    ]
    right: Align = "right"
    align: list[Align] = [right, right, right, right, right, "center", right, right, right, "center"]
    for name, body in rows.items():
        lines += ["", f"## {name}", "", *table(headers, body, align)]
    return "\n".join(lines) + "\n"


def matched_points(a: RunResult, b: RunResult) -> list[tuple[str, Point, Point]]:
    """(variant, point in a, point in b) for every level measured in both runs, matched by
    variant name and (concurrency, batch size), in ``a``'s order."""
    pa, pb = run_points(a), run_points(b)
    out = []
    for name in [n for n in pa if n in pb]:
        by_key = {(q.concurrency, q.batch_size): q for q in pb[name]}
        for p in pa[name]:
            q = by_key.get((p.concurrency, p.batch_size))
            if q is not None and p.ok and q.ok:
                out.append((name, p, q))
    return out


#: The first line of every comparison :func:`compare_markdown` writes: a file that starts so is one
#: this command wrote, and writing it again loses nothing.
_HEADING = "# Comparison: "


def _refuse_foreign(out: Path) -> None:
    """Refuse to write over a file that is not a comparison (``--out results/r1/report.md`` replaced
    the run's report): a comparison is written anew, anything else is the user's and stays.

    Raises:
        PerfError: ``out`` is a folder, or an existing file that does not start as a comparison.
    """
    if out.is_dir():
        raise PerfError(f"--out {out} is a folder", hint=f"name a file, e.g. --out {out / 'compare.md'}")
    if not out.exists():
        return
    try:
        with out.open(encoding="utf-8", errors="replace") as f:
            first = f.readline()
    except OSError as e:
        raise PerfError(f"--out {out} cannot be read ({e.strerror}): nothing written", hint="name a new file") from e
    if not first.startswith(_HEADING):
        raise PerfError(
            f"--out {out} exists and is not a comparison (it starts {first.strip()[:60]!r}): nothing written, it is kept",
            hint="name a new file, or delete that one first if it is yours to lose",
        )


def compare_runs(run_a: Path, run_b: Path, out: Path | None = None) -> Path:
    """Compare two sweeps (before/after, or two machines) and write a markdown report.

    Per variant (matched by name) and level (matched by concurrency and batch size): the
    throughput (infer/s) and p99 latency (ms) of each run, the change in %, and the verdict of
    the rule that fits how the runs measured (:func:`rule_text`: a rank-sum test over two rounds
    runs' rounds, else the trial-spread rule).

    Args:
        run_a: Run folder of the baseline ("before") sweep.
        run_b: Run folder of the compared ("after") sweep.
        out: Markdown file to write (default ``<run_b>/compare_<run_a id>.md``).

    Returns:
        The path written.

    Raises:
        PerfError: the two folders are one, a run folder has no readable ``results.json``, the
            two runs share no measured level, or ``out`` is a file other than a comparison (kept).
    """
    if Path(run_a).resolve() == Path(run_b).resolve():
        raise PerfError(
            f"both runs are {run_a}: a run compared with itself shows no change by construction",
            hint="give the run before the change and the run after it (two folders under results/)",
        )
    a, b = (split_by_workload(load(Path(r)), batches=False) for r in (run_a, run_b))
    if (a.run_id, a.created) == (b.run_id, b.created):
        raise PerfError(
            f"{run_a} and {run_b} hold the same run ({a.run_id}, started {a.created}): one is a copy of the other, "
            "so every level would compare equal",
            hint="give the run before the change and the run after it",
        )
    if not matched_points(a, b):
        raise PerfError(
            f"runs {a.run_id} and {b.run_id} share no measured level",
            hint="compare runs that swept the same variant names at the same concurrency and batch sizes",
        )
    out = Path(out) if out else Path(run_b) / f"compare_{a.run_id}.md"
    _refuse_foreign(out)
    text = compare_markdown(a, b, folders=(Path(run_a), Path(run_b)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    log.info("comparison written to %s", out)
    return out
