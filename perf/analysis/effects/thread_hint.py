"""A hint, labelled as one and never a measured finding: what to look at when a CPU variant is far slower
than its sibling with more instances and its intra-op threads outnumber the cores the host left free.

Trial 16, T16-21: on a busy 2-core host the 1-instance TorchScript variants were 50x slower than the
2-instance ones; the report said what it was not ("more than the CPU host load explains") and not what to
look at. The toolkit gives each CPU instance ``cores / instances`` intra-op threads
(:mod:`perf.analysis.effects.threads`), so a 1-instance variant runs one operator on 2 threads that must
all finish it: when other processes hold a core, the operator waits for the thread that got no core, on
every call, while the 2-instance sibling's single threads do not wait on each other. Nothing here
measured that (no run with another thread count): it is the likely cause in the run's numbers, with the
config knob that tests it, each backend's own parameter as Triton's docs name it
(:attr:`builders.backends.base.BackendConfig.threads_parameter`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from builders.backends import BACKENDS
from core.units import thousands
from core.wording import count
from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.stats.pairs import BATCHING, differing, pairs, variant_of
from perf.markdown import factor
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import workload

#: How many times the sibling's throughput at one level a variant's must fall below for the hint
#: (trial 16, T16-21: 50x; a second instance alone gives at most its count's factor, here 2x).
FAR_SLOWER_X = 3.0


def thread_hints(run: RunResult) -> list[str]:
    """One hint per CPU variant of ``run`` far slower (:data:`FAR_SLOWER_X`) than its sibling with more instances
    at a level both measured (each client workload on its own) whose intra-op threads x instances exceed the
    host's free cores there (its cores less the median CPU other processes used at that level): ``"Hint, not a
    measured finding: `m_cpu1` is 50x slower than `m_cpu2` at concurrency 1 (12 vs 600 infer/s; `m_cpu1`: 3 visits,
    all host busy), and runs 1 instance x 2 intra-op threads on 2 cores with load 1.1 (0.9 free): ..."``: at the
    level of those ``m_cpu1`` visited most, with how many visits and how many of them host busy. None where the
    threads, the host's cores or its load are not known, and where a twin with the same instances and threads
    (differing in dynamic batching only) was not far slower at that level: the threads do not explain it
    (trial 19, T19-5).

    Args:
        run: A loaded sweep (or its view split by client workload).
    """
    cores = host_cores(run)
    if not cores:
        return []
    out: list[str] = []
    usable = [v for v in run.variants if v.status != "failed"]
    for p in pairs(usable):
        one, more = p.reference, p.changed
        if p.kind != "instances" or p.reference_params.kind != "cpu" or any(h.startswith(f"`{one.name}`") for h in out):
            continue
        threads, their = one.threads_per_instance, more.threads_per_instance
        if threads is None or their is None or threads <= their:
            continue  # the same threads each: the hint's cause is not what differs
        level = _slowest(one, more)
        if level is None:
            continue
        (bs, c), slow, fast, load, visits = level
        used = threads * p.reference_params.count
        if used <= cores - load or _twin_contradicts(one, usable, (bs, c), fast):
            continue
        at = f"concurrency {c}" + (f" (batch {bs})" if bs != 1 else "")
        out.append(
            f"`{one.name}` is {factor(slow / fast)} than `{more.name}` at {at} ({fast_words(slow, fast)}; "
            f"`{one.name}`: {visits}), and runs "
            f"{count(p.reference_params.count, 'instance')} × {count(threads, 'intra-op thread')} on "
            f"{count(cores, 'core')} with load {load:.1f} ({max(cores - load, 0.0):.1f} free; `{more.name}`: "
            f"{count(p.changed_params.count, 'instance')} × {count(their, 'thread')} each): threads that outnumber the free "
            f"cores wait for one another in every operator; try {count(their, 'intra-op thread')} per instance "
            f"({_knob(one)})"
        )
    return [f"Hint, not a measured finding: {h}." for h in out]


def fast_words(slow: float, fast: float) -> str:
    """``"12.3 vs 615.0 infer/s"``: the two medians the ratio comes from, as the tables print them (trial 25,
    T25-20: "29.1 vs 1.07e+03 infer/s" beside the tables' "1,065.6")."""
    return f"{thousands(slow)} vs {thousands(fast)} infer/s"


def _slowest(one: VariantResult, more: VariantResult) -> tuple[tuple[int, int], float, float, float, str] | None:
    """The level both measured where ``one`` is slower than ``more`` by :data:`FAR_SLOWER_X` or more, the one
    ``one`` visited most (then the one with the largest ratio: trial 19, T19-5: the hint rested on a single
    host-busy visit): ``((batch, concurrency), its median throughput, the sibling's, the median load there in
    cores, its visits there in words)``; ``None`` where there is none, or where that level's load was not sampled."""
    mine, theirs = _medians(one.levels), _medians(more.levels)
    far = [(k, mine[k], theirs[k]) for k in mine if k in theirs and 0 < FAR_SLOWER_X * mine[k][0] <= theirs[k][0]]
    if not far:
        return None
    key, (slow, load, lvs), (fast, _, _) = max(far, key=lambda x: (len(x[1][2]), x[2][0] / x[1][0]))
    if load is None:
        return None
    return key, slow, fast, load, visit_words(lvs)


def visit_words(levels: Sequence[LevelResult]) -> str:
    """How many visits a median comes from and how many were host busy: ``"1 visit, host busy"``,
    ``"3 visits, 2 host busy"``, ``"3 visits, all host busy"``, ``"3 visits"``."""
    n, busy = len(levels), sum(lv.host_busy for lv in levels)
    said = count(n, "visit")
    if not busy:
        return said
    return f"{said}, {'host busy' if n == 1 else 'all host busy' if busy == n else f'{busy} host busy'}"


def _twin_contradicts(one: VariantResult, variants: Sequence[VariantResult], key: tuple[int, int], fast: float) -> bool:
    """Whether a twin of ``one`` (a variant differing from it in dynamic batching only, with its instances and
    intra-op threads) measured level ``key`` at more than ``fast`` / :data:`FAR_SLOWER_X` infer/s: the same
    threads on the same cores did not wait for one another there, so they do not explain ``one``'s numbers
    (trial 19, T19-5: the hint's 1-instance x 2-thread variant was 4x slower at c=4, its twin with the same
    threads 1.1x)."""
    mine = variant_of(one)
    for twin in variants:
        theirs = variant_of(twin)
        if mine is None or theirs is None or twin is one or workload(twin) != workload(one):
            continue
        if twin.threads_per_instance != one.threads_per_instance:
            continue
        if not differing(mine, theirs) or not set(differing(mine, theirs)) <= set(BATCHING):
            continue
        level = _medians(twin.levels).get(key)
        if level is not None and FAR_SLOWER_X * level[0] > fast:
            return True
    return False


def _medians(levels: Sequence[LevelResult]) -> dict[tuple[int, int], tuple[float, float | None, list[LevelResult]]]:
    """(batch, concurrency) -> (median throughput in infer/s, median load of other processes in cores, ``None``
    where a round's load was not sampled, the levels they come from) over the usable concurrency levels (no
    request-rate or shape level)."""
    by: dict[tuple[int, int], list[LevelResult]] = {}
    for lv in levels:
        if lv.ok and lv.request_rate is None and lv.shape is None and lv.throughput_infer_per_s:
            by.setdefault((lv.batch_size, lv.concurrency), []).append(lv)
    out = {}
    for key, lvs in by.items():
        loads = [lv.host_busy_pct for lv in lvs]
        load = None if any(x is None for x in loads) else statistics.median(x or 0.0 for x in loads) / 100
        out[key] = (statistics.median(lv.throughput_infer_per_s or 0.0 for lv in lvs), load, lvs)
    return out


def _knob(v: VariantResult) -> str:
    """The config parameter that sets ``v``'s threads per instance, by its served backend, with the doc that
    names it: ``"the config's INTRA_OP_THREAD_COUNT parameter, pytorch_backend README "Parameters""``."""
    backend = v.served[0].settings.backend if v.served else ""
    b = BACKENDS.get(backend)
    if b is None or not b.threads_parameter:
        return "the backend's intra-op thread setting"
    return f"the config's `{b.threads_parameter}` parameter, {b.threads_doc}"
