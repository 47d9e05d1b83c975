"""The report's per-level tables: the top variants at each concurrency level, and the request-rate levels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.units import infer_per_s_legend
from core.wording import sentence
from perf.analysis.recommendation.frontier import size_of
from perf.analysis.stats.curves import gpu_metric, has_metric
from perf.analysis.stats.points import P99, THROUGHPUT, Point, fmt_spread, rate_points
from perf.markdown import (
    APPENDIX_FILE,
    CPU_MEASURES,
    LIST_LIMIT,
    TOP_N,
    UNSTABLE_MARK,
    capped,
    errors_text,
    flag_mark,
    fmt,
    fmt_given,
    md_text,
    name_then_numbers,
    short_error,
    table,
)
from perf.records.levels import (
    FLAG_MEANINGS,
    HOST_BUSY,
    TRANSIENT_WORDS,
    UNSTABLE,
    LevelResult,
    transient_failure,
    window_failure,
)
from perf.records.results import FLAT_FILE, RESULTS_FILE, RunResult
from perf.records.workloads import workload


def _top(
    here: list[tuple[str, Point]], failed: set[str] | frozenset[str], top_n: int, baseline: str | None
) -> list[tuple[str, Point]]:
    """The rows of one level: highest throughput first (measured levels of variants that did
    not fail, then the failed variants', then failed levels), the first ``top_n`` plus the baseline."""
    ranked = sorted(here, key=lambda r: (not r[1].ok, r[0] in failed, -(r[1].get(THROUGHPUT) or 0.0)))
    shown = ranked[:top_n]
    shown += [r for r in ranked[top_n:] if r[0] == baseline]
    return shown


#: Lines report.md gives the per-level tables (issue 26: an auto ladder with bisection steps made a
#: dozen levels and 161 lines): every level's table when all fit, else the levels :func:`body_levels`
#: chooses, as many as fit; :mod:`perf.report.appendix` has every level's table.
LEVEL_TABLE_LINES = 60
#: Lines of the level tables' section besides the tables (heading, legend, which levels, the blank end).
LEVEL_TABLES_INTRO = 6


def _columns(points: dict[str, list[Point]]) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, int]]]:
    """The level tables' columns ``(title, metric, decimals)``, and the CPU ones among them."""
    gpu = gpu_metric(points)
    cols = [
        ("throughput (infer/s)", THROUGHPUT, 1),
        ("p50 (ms)", "latency_p50_ms", 2),
        ("p90 (ms)", "latency_p90_ms", 2),
        ("p95 (ms)", "latency_p95_ms", 2),
        ("p99 (ms)", P99, 2),
        ("queue (µs)", "server_queue_us", 0),
        ("compute infer (µs)", "server_compute_infer_us", 0),
        ("avg server batch", "avg_server_batch_size", 2),
    ]
    utils = [(f"{label} ({unit})", m, d) for m, (label, unit, d, _) in CPU_MEASURES.items() if has_metric(points, m)]
    cols += utils
    if gpu:
        cols.append(("GPU util (%)", gpu, 1))
    return cols, utils


def _level_block(
    key: tuple[int, int],
    points: dict[str, list[Point]],
    cols: list[tuple[str, str, int]],
    failed: set[str] | frozenset[str],
    top_n: int,
    baseline: str | None,
    verdicts: dict[tuple[str, int, int], str],
) -> list[str]:
    """One level's heading and table (the ``top_n`` by throughput plus the baseline); a p99 cell
    whose budget verdict goes the other way says the number the verdict used (``verdicts``)."""
    bs, conc = key
    here = [(n, p) for n, pts in points.items() for p in pts if (p.batch_size, p.concurrency) == key]
    more = f" (top {top_n} of {len(here)})" if len(here) > top_n else ""
    lines = ["", f"### Concurrency {conc}" + (f", batch size {bs}" if bs != 1 else "") + more]
    top: dict[str, float] = {}  # per client workload: sizes are never compared (trial 16, T16-3: seq=8 bold over seq=128)
    for n, p in here:
        if p.ok and n not in failed:
            top[size_of(p)] = max(top.get(size_of(p), p.value(THROUGHPUT)), p.value(THROUGHPUT))
    rows = []
    for name, p in _top(here, failed, top_n, baseline):
        if not p.ok:
            rows.append([f"`{name}`", f"failed: {errors_text(*p.errors)}"])
            continue
        cells = [fmt_spread(p, m, d) if m in (THROUGHPUT, P99) else fmt(p.get(m), d) for _, m, d in cols]
        if note := verdicts.get((name, bs, conc)):  # trial 10, F3: the median shown is not what the budget judged
            at = next(i for i, (_, m, _) in enumerate(cols) if m == P99)
            cells[at] += f" ({note})"
        if p.get(THROUGHPUT) == top.get(size_of(p)) and name not in failed:
            cells[0] = f"**{cells[0]}**"
        mark = (
            flag_mark(p.flags)
            + (" (variant failed later)" if name in failed else "")
            + (" (baseline)" if name == baseline and len(here) > top_n else "")
        )
        rows.append([f"`{name}`{mark}", *cells])
    return lines + table(["variant", *(c[0] for c in cols)], rows, name_then_numbers(1 + len(cols)))


def body_levels(
    blocks: dict[tuple[int, int], list[str]],
    points: dict[str, list[Point]],
    picks: Iterable[tuple[int, int]] = (),
    budget: int = LEVEL_TABLE_LINES,
) -> list[tuple[int, int]]:
    """The levels ``(batch size, concurrency)`` whose tables report.md shows: every one when all
    ``blocks`` fit in ``budget`` lines; else, in this order and as many as fit (at least one): the
    levels of the picks, the lowest concurrency of each batch size, then the levels most variants
    reached (higher concurrency first on a tie)."""
    keys = sorted(blocks)
    if sum(len(b) for b in blocks.values()) <= budget:
        return keys
    reached = {k: sum(any((p.batch_size, p.concurrency) == k for p in pts) for pts in points.values()) for k in keys}
    lowest = [min(k for k in keys if k[0] == bs) for bs in sorted({k[0] for k in keys})]
    order = [k for k in picks if k in blocks] + lowest + sorted(keys, key=lambda k: (-reached[k], -k[1]))
    chosen: list[tuple[int, int]] = []
    used = 0
    for k in dict.fromkeys(order):
        if chosen and used + len(blocks[k]) > budget:
            continue
        chosen.append(k)
        used += len(blocks[k])
    return sorted(chosen)


def level_tables(
    points: dict[str, list[Point]],
    failed: set[str] | frozenset[str] = frozenset(),
    top_n: int = TOP_N,
    baseline: str | None = None,
    up: str = "",
    picks: Iterable[tuple[int, int]] | None = None,
    budget: int = LEVEL_TABLE_LINES,
    rounds: bool = False,
    verdicts: dict[tuple[str, int, int], str] | None = None,
) -> list[str]:
    """Markdown lines: one table per (batch size, concurrency) comparing the variants, highest
    throughput first: the ``top_n`` best (default :data:`TOP_N`) plus the ``baseline`` variant,
    the rest counted and left to ``flat.csv`` and ``results.json``. With ``picks`` (the report's
    body) only the levels :func:`body_levels` chooses within :data:`LEVEL_TABLE_LINES` lines, the
    others named with a link to the appendix; without (the appendix) every level.

    Columns: throughput (infer/s), p50/p90/p95/p99 (ms), server queue and compute infer
    (µs per request), avg server batch size, and when the run has them: host CPU (%, Triton's
    ``nv_cpu_utilization``: every process on the host), the server's own CPU (cores: the
    tritonserver process and its children) and GPU utilisation (%).
    Medians over trials, with [min–max] for throughput and p99 when a level has trials.

    Args:
        points: :func:`perf.analysis.stats.points.run_points` of the run.
        failed: Names of failed variants (flagged, never bold as the level's best).
        top_n: Rows per level before the baseline.
        baseline: The variant always shown (the 1-instance, no-batching one), if any.
        up: Prefix of links to the run folder's files (``"../"`` from a what-if folder).
        picks: The levels ``(batch size, concurrency)`` of the recommendation's picks, shown first
            when not every level fits; ``None``: every level (the appendix).
        budget: Lines the level tables may take with ``picks`` (default :data:`LEVEL_TABLE_LINES`;
            the report gives them what its other sections leave, up to that).
        rounds: The run measured in rounds: a level's medians are over its rounds.
        verdicts: :func:`perf.analysis.ranking.budget_latency.verdict_notes`: said in a level's p99 cell
            where its budget verdict goes the other way from the median shown.
    """
    cols, utils = _columns(points)
    keys = sorted({(p.batch_size, p.concurrency) for pts in points.values() for p in pts})
    blocks = {k: _level_block(k, points, cols, failed, top_n, baseline, verdicts or {}) for k in keys}
    shown = keys if picks is None else body_levels(blocks, points, picks, budget)
    multi_trial = any(p.trials > 1 for pts in points.values() for p in pts)
    over = "rounds" if rounds else "trials"
    many = any(len({n for n, pts in points.items() for p in pts if (p.batch_size, p.concurrency) == k}) > top_n for k in keys)
    lines = [
        "## Results per concurrency level",
        "",
        (
            f"The {top_n} highest-throughput variants at each level, plus the baseline (1 instance, no batching); "
            f"every variant's numbers are in [{FLAT_FILE}]({up}{FLAT_FILE}) and [{RESULTS_FILE}]({up}{RESULTS_FILE}). "
            if many
            else ""
        )
        + f"Medians over {over}"
        + (f", with the [min–max] spread over {over} for throughput and p99" if multi_trial else "")
        + f". **Bold**: highest throughput at the level{_BOLD_PER_SIZE if _sizes(points) > 1 else ''}. `—`: not measured on this host. "
        f"{UNSTABLE_MARK} unstable: {FLAG_MEANINGS[UNSTABLE]} at this level; "
        f"{UNSTABLE_MARK} host busy: {FLAG_MEANINGS[HOST_BUSY]} during it (kept, but treat with care)."
        + "".join(f" {label}: {sentence(CPU_MEASURES[m][3])}" for label, m, _ in utils)
        + "".join(f" {sentence(w)}" for w in [infer_per_s_legend(k[0] for k in shown)] if w),  # rows (T23-15)
    ]
    if len(shown) < len(keys):
        lines += [
            "",
            f"{len(shown)} of the {len(keys)} levels measured here: {_levels_text(shown)} ({_why_shown(shown, picks or ())}); "
            f"every level's table: [{APPENDIX_FILE}]({APPENDIX_FILE}).",
        ]
    for k in shown:
        lines += blocks[k]
    return [*lines, ""]


#: The bold's scope in a run of several client workloads (input sizes, client batch sizes).
_BOLD_PER_SIZE = " for its input size (one per size: sizes are the client's, never compared)"


def _sizes(points: dict[str, list[Point]]) -> int:
    """How many client workloads (:func:`perf.analysis.recommendation.frontier.size_of`) ``points`` hold."""
    return len({size_of(p) for pts in points.values() for p in pts})


def _why_shown(shown: Sequence[tuple[int, int]], picks: Iterable[tuple[int, int]]) -> str:
    """Why report.md shows the levels ``shown``, true of them (trial 23, T23-8: "the picks' levels" over c=1 alone, the
    best peak's c=4 left out): each pick's level shown, by the pick (``picks`` a mapping level -> the pick's words,
    :func:`pick_levels`), each one left out (it did not fit), then the others' rule."""
    named: Mapping[tuple[int, int], Sequence[str] | str] = picks if isinstance(picks, Mapping) else dict.fromkeys(picks, "a pick")
    said = [f"{_levels_text([k])}: {_joined(w)}'s level" for k, w in named.items() if k in shown]
    left = [f"{_joined(w)}'s level, {_levels_text([k])}, did not fit" for k, w in named.items() if k not in shown]
    if len(said) < len(shown):
        said.append(
            "the others: the lowest, then those most variants reached" if said else "the lowest, then those most variants reached"
        )
    return "; ".join(said + left)


def _joined(words: Sequence[str] | str) -> str:
    """``"the best under the budget"``, or ``"the best under the budget and the best peak"``: the picks at one level."""
    return words if isinstance(words, str) else " and ".join(words)


def pick_levels(picks: Iterable[tuple[str, tuple[int, int] | None]]) -> dict[tuple[int, int], list[str]]:
    """``[(words, level or None), ...]`` -> each picked level ``(batch size, concurrency)`` and the picks at it, for
    :func:`level_tables`' ``picks``."""
    out: dict[tuple[int, int], list[str]] = {}
    for words, level in picks:
        if level is not None:
            out.setdefault(level, []).append(words)
    return out


def _levels_text(keys: Sequence[tuple[int, int]]) -> str:
    """``"c=1, 8, 12"``; ``"c=1 b=4"`` parts where a batch size is not 1."""
    return ", ".join(f"c={c}" + (f" b={b}" if b != 1 else "") for b, c in keys)


def request_rate_table(run: RunResult) -> list[str]:
    """Markdown lines for the request-rate levels (``--request-rates``), one row per level
    (variant, client batch size, offered rate), as the concurrency tables have: the median over
    its rounds (or trials) of the achieved rate (requests/s), the share perf_analyzer sent late
    (%), throughput (infer/s) and p99 (ms) with their [min–max], p50 (ms), server queue and
    compute infer (µs); the status is the level's worst round's (``not achieved`` when the
    achieved rate fell short of the offered one by more than the stability tolerance), and the
    rounds column counts the rounds that measured it (a failed one named). Empty when the run
    has none. They are not part of the concurrency analysis above (a fixed arrival rate is a
    different load model). Trial 9 F35: one row per round, numbered from 0, no level's median."""
    levels = rate_points(run)  # what request_rates.png draws too
    if not levels:
        return []
    unit = "rounds" if run.rounds is not None else "trials"
    body = []
    for (name, batch, rate), p in levels.items():
        measured = f"{p.trials} of {p.trials + len(p.errors)}" if p.errors else str(p.trials)
        if p.errors:
            measured += f" ({len(p.errors)} failed: {errors_text(p.errors[0])})"
        if not p.trials:
            body.append([f"`{name}`", fmt_given(rate, 0), batch, measured, "—", "—", "failed", *["—"] * 5])
            continue
        late = fmt(p.get("delayed_pct"), 0) if p.get("delayed_pct") is not None else "≤ 1"
        body.append(
            [
                f"`{name}`",
                fmt_given(rate, 0),
                batch,
                measured,
                fmt_spread(p, "achieved_rate_per_s"),
                late,
                flag_mark(p.flags).strip() or p.status,
                fmt_spread(p, THROUGHPUT),
                fmt(p.get("latency_p50_ms"), 2),
                fmt_spread(p, P99, 2),
                fmt(p.get("server_queue_us"), 0),
                fmt(p.get("server_compute_infer_us"), 0),
            ]
        )
    headers = [
        "variant",
        "offered (req/s)",
        "batch",
        unit,
        "achieved (req/s)",
        "sent late (%)",
        "status",
        "throughput (infer/s)",
        "p50 (ms)",
        "p99 (ms)",
        "queue (µs)",
        "compute infer (µs)",
    ]
    note = (
        f"Each row is one level: the median over its {unit} [min–max]; its status is its worst {unit[:-1]}'s "
        f"({UNSTABLE_MARK} not achieved: the achieved rate fell short of the offered one)."
    )
    return ["", "## Request-rate levels", "", note, "", *table(headers, body, name_then_numbers(len(headers)))]


#: What a level's failed measurement is of, by whether the run is a rounds run.
NOUN = {True: "round", False: "trial"}


def failed_measurements(run: RunResult, since: bool = False) -> list[tuple[str, str]]:
    """``(where, message)`` per level with a failed measurement (a visit of a rounds run, a trial of
    a sequential one): the variant, the level and which rounds or trials, and perf_analyzer's
    message(s), shortened (:func:`perf.markdown.short_error`). A rounds level keeps its other rounds'
    numbers, so without this a failed visit showed only in ``results.json`` and ``flat.csv``.

    A level measured again after its last failure (a later round or trial ok: a resume's, or the rounds'
    own) is no failed measurement: its failures are listed by ``since=True`` only, each message ending with the
    rounds that measured it since (trial 22, F-resume-stale-fail: "failed measurement: ... c=16 b=1, round 2:
    Received exit signal." at a resume's end, the level measured in rounds 5 and 6 and the variant's best)."""
    groups: dict[tuple[str, str], list[LevelResult]] = {}
    for v in run.variants:
        for lv in v.levels:
            load = f"rate={fmt_given(lv.request_rate, 0)}/s" if lv.request_rate is not None else f"c={lv.concurrency}"
            sized = lv.shape and workload(v) is None  # a series' name carries its size already (T24-4)
            groups.setdefault((v.name, f"{load} b={lv.batch_size}" + (f" {lv.shape}" if sized else "")), []).append(lv)
    noun = NOUN[run.rounds is not None]
    out = []
    for (name, where), all_lvs in groups.items():
        lvs = sorted((lv for lv in all_lvs if not lv.ok), key=lambda lv: lv.trial)
        if not lvs:
            continue
        later = sorted({lv.trial + 1 for lv in all_lvs if lv.ok and lv.trial > lvs[-1].trial})
        if bool(later) != since:
            continue
        which = ", ".join(str(lv.trial + 1) for lv in lvs)
        message = short_error(*(lv.error or "perf_analyzer measured no throughput" for lv in lvs))
        if all(transient_failure(lv.error) and not window_failure(lv.error) for lv in lvs):  # re-check of trial 14, NEW-3
            message += f" ({TRANSIENT_WORDS})"
        if later:
            message = (
                message.rstrip(".") + f"; measured since in {noun}{'s' if len(later) > 1 else ''} {', '.join(map(str, later))}"
            )
        out.append((f"{name} {where}, {noun}{'s' if len(lvs) > 1 else ''} {which}", message))
    return out


def failed_lines(run: RunResult, limit: int | None = LIST_LIMIT) -> list[str]:
    """The report's bullets of :func:`failed_measurements`: the first ``limit`` (``None``: all,
    for the appendix), then how many more the appendix lists."""
    out = []
    for since in (False, True):
        failed = failed_measurements(run, since)
        if not failed:
            continue
        kept = "; the level's other rounds are kept" if run.rounds is not None else ""
        items = [f"`{where.split(' ', 1)[0]}` {md_text(where.split(' ', 1)[1])}: {md_text(msg)}" for where, msg in failed]
        head = (
            f"- **Failed, then measured** ({len(failed)}; perf_analyzer's message, then the {NOUN[run.rounds is not None]}s "
            "that measured the level since: its numbers stand):"
            if since
            else f"- **Failed measurements** ({len(failed)}; perf_analyzer's message{kept}):"
        )
        out += [head, *capped(items, limit or len(items), indent="  "), ""]
    return out
