"""Two runs compared and written (``triton-perf compare``): the matched levels, the comparison's
markdown and its summary (:func:`compare_runs`); each level's rule and verdict are
:mod:`perf.analysis.comparison.verdicts`'.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from core.errors import PerfError
from core.units import infer_per_s_legend
from core.wording import count, sentence
from perf.analysis.comparison.model_files import BULLET as FILES_BULLET
from perf.analysis.comparison.model_files import model_files
from perf.analysis.comparison.settings import differing
from perf.analysis.comparison.unmatched import no_shared_level
from perf.analysis.comparison.verdicts import (
    HIGHER,
    LOWER,
    NO_CALL,
    UNFAIR,
    UNKNOWN,
    both_rounds,
    env_line,
    judge,
    measured,
    not_measured,
    rule_text,
)
from perf.analysis.stats.points import MIN_TRIALS_FOR_SPREAD, P99, THROUGHPUT, Point, fmt_spread, run_points
from perf.markdown import UNSTABLE_MARK, Align, flag_mark, table, write_kept
from perf.records.results import RunResult, load
from perf.records.unfinished import unfinished_text
from perf.records.workloads import split_by_workload

log = logging.getLogger(__name__)

#: ``(run, subject) -> sentence | None``: why a run's numbers may be mislabelled, a flag it passed through being
#: refused by this version (:func:`perf.sweep.refused_run.refused_flags_text`).
Refused = Callable[[RunResult, str], "str | None"]


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
    *,
    refused: Refused,
) -> str:
    """The comparison report as markdown (see :func:`compare_runs`); ``folders``: the runs' folders
    (their parents named in the command that continues an interrupted one; ``None``: not known); ``refused``:
    as :func:`compare_runs`'."""
    lines = [f"{_HEADING}{a.run_id} ({label_a}) → {b.run_id} ({label_b})", ""]
    for label, run, folder in ((label_a, a, folders[0]), (label_b, b, folders[1])):  # an interrupted run is said first
        parent = Path(folder).parent if folder is not None else None
        if (flags := refused(run, f"**{label}** (run `{run.run_id}`)")) is not None:  # the console's line (R16-10)
            lines += [f"> {sentence(flags)}", ""]
        if (stopped := unfinished_text(run, f"**{label}** (run `{run.run_id}`)", parent)) is not None:
            lines += [f"> {sentence(stopped)}", ""]
    ea, eb = env_line(a), env_line(b)
    sa, sb = env_line(a, outcomes=False), env_line(b, outcomes=False)  # "(differs)" on settings only (trial 28, T28-9)
    files = model_files(a, b, [name for name, _, _ in matched_points(a, b)], label_a, label_b)  # T25-5
    lines += table(
        ["", f"{label_a}: {a.run_id}", f"{label_b}: {b.run_id}"],
        [[f"{k}{' (differs)' if sa[k] != sb[k] else ''}", ea[k], eb[k]] for k in ea]
        + [[f"{label}{' (differs)' if both else ''}", ca, cb] for label, ca, cb, both in differing(a, b)]  # T29-6
        + [[f"model files{' (differ)' if files.differ else ''}", files.cell(), files.cell()]],
        ["left"] * 3,
    )
    lines += [
        "",
        "Changes are (B − A) / A. Matched by variant name, input size and (concurrency, batch size). "
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
        "other processes used the host's CPU during it."
        + "".join(f" {sentence(w)}" for w in [infer_per_s_legend(p.batch_size for _, p, _ in matched_points(a, b))] if w),
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
                f"{fmt_spread(p, metric, digits)}{flag_mark(p.flags)}",
                f"{fmt_spread(q, metric, digits)}{flag_mark(q.flags)}",
                pct,
                sig,
            ]
        rows.setdefault(name, []).append(cells)
    lines += ["## Summary", "", f"- Matched levels: {sum(len(r) for r in rows.values())} in {count(len(rows), 'variant')}."]
    lines += _summary(a, b, counts, label_a, label_b)
    if (differ := files.bullet(label_a, label_b)) is not None:  # beside the verdicts' counts, said by the console too
        lines.insert(lines.index(next(ln for ln in lines if ln.startswith("- p99 latency:"))) + 1, differ)
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


#: The Summary bullets the console prints as the comparison's headline (:func:`headline`).
HEADLINE_BULLETS = ("- Matched levels:", "- Throughput:", "- p99 latency:", FILES_BULLET)


def headline(markdown: str) -> list[str]:
    """The lines ``triton-perf compare`` prints below the file's path: the written comparison's Summary counts, matched
    levels, throughput and p99 (trial 23, T23-13: the console said only "comparison: <path>"), in the file's words."""
    summary = markdown.split("\n## Summary\n", 1)[-1].split("\n## ", 1)[0]
    return [ln[2:] for ln in summary.splitlines() if ln.startswith(HEADLINE_BULLETS)]


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
        raise PerfError(f"--out {out} is a folder", hint=f"name a file, e.g. --out {out / 'compare.md'}", flag="--out")
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
            flag="--out",
        )


def compare_runs(run_a: Path, run_b: Path, out: Path | None = None, *, refused: Refused) -> Path:
    """Compare two sweeps (before/after, or two machines) and write a markdown report.

    Per variant (matched by name) and level (matched by concurrency and batch size): the
    throughput (infer/s) and p99 latency (ms) of each run, the change in %, and the verdict of
    the rule that fits how the runs measured (:func:`perf.analysis.comparison.verdicts.rule_text`: a rank-sum test over two rounds
    runs' rounds, else the trial-spread rule).

    Args:
        run_a: Run folder of the baseline ("before") sweep.
        run_b: Run folder of the compared ("after") sweep.
        out: Markdown file to write (default ``<run_b>/compare_<run_a id>.md``).
        refused: A run's refused pass-through flags in one sentence about ``subject``, ``None`` when it passed
            none (:func:`perf.sweep.refused_run.refused_flags_text`, a layer above this one): said first of each
            run, as the console says it (issue 26: compare.md left out what the console printed). Required.

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
        raise no_shared_level(a, b)
    out = Path(out) if out else Path(run_b) / f"compare_{a.run_id}.md"
    _refuse_foreign(out)
    text = compare_markdown(a, b, folders=(Path(run_a), Path(run_b)), refused=refused)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_kept(out, text)  # an earlier comparison with a user's edits is kept aside (trial 25, T25-17)
    log.info("comparison written to %s", out)
    return out
