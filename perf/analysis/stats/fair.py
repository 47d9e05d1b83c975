"""When a comparison is evidence: the same host load, and a setting that can act at the load compared.

Every section that states an effect, a ratio or a speed-up (main effects, fair pairs, the
conclusions, serving efficiency, run comparison) applies these two rules before it shows a
number, and says why where it does not:

- **fairness** (:func:`unfair`): a level flagged ``host busy`` was measured while other
  processes used the host: compared with a level measured under another load, the
  difference may be the host's moment, not the settings (issue 24: the same ONNX call
  measured 110.4 and 31.6 infer/s ten minutes apart). Such a comparison is "not measured
  fairly", with the load that made it so.
- **physical sense** (:func:`cannot_act`): a second model instance can only help when two
  requests are in flight, and dynamic batching (with its queue delay and preferred sizes)
  only forms batches from requests waiting together. Measured with one request in flight
  (concurrency 1), or where the batching variant's executions held one request on average,
  such a setting "cannot act at this load", whatever number the difference shows (issue
  24: "2 instances: +80.3 %" at concurrency 1 with an average server batch of 1.00).
"""

from __future__ import annotations

from perf.analysis.stats.points import Point
from perf.records.levels import HOST_BUSY

#: Requests per execution (avg server batch size / client batch size) at or above which the
#: dynamic batcher formed batches.
BATCHED = 1.1
#: Factors (:data:`perf.analysis.stats.pairs.FACTORS` keys) that act only with several requests in flight.
NEEDS_CONCURRENCY = ("count", "batching", "delay", "preferred")
#: Of those, the ones that act only through the batches the dynamic batcher forms.
BATCHING = ("batching", "delay", "preferred")


def unfair(*points: Point) -> str | None:
    """Why a comparison of ``points`` is not fair (one was measured ``host busy``), or ``None``.

    Returns:
        ``"not measured fairly: `v` c=4 was measured while other processes used 35 % of one core
        (host busy)"``, or ``None`` when none of them was flagged.
    """
    busy = [p for p in points if p.status == HOST_BUSY]
    if not busy:
        return None
    load = busy_load(*busy)
    names = ", ".join(
        dict.fromkeys(f"`{p.variant}` c={p.concurrency}" + (f" b={p.batch_size}" if p.batch_size != 1 else "") for p in busy)
    )
    used = f"{load:.0f} % of one core" if load is not None else "the host's CPU"
    verb = "was" if len(busy) == 1 else "were"
    return f"not measured fairly: {names} {verb} measured while other processes used {used} (host busy)"


def busy_load(*points: Point) -> float | None:
    """Other processes' CPU (% of one core) at the ``host busy`` ones of ``points``: the most any
    of their rounds (trials) saw, since one busy round flags a point and its median may hide it;
    ``None`` when none is flagged or none was sampled."""
    vals = [p.high.get("host_busy_pct", p.get("host_busy_pct")) for p in points if p.status == HOST_BUSY]
    return max((v for v in vals if v is not None), default=None)


def requests_per_execution(p: Point) -> float | None:
    """Requests the server ran per execution at ``p``: avg server batch size / client batch size."""
    return per_execution(p.get("avg_server_batch_size"), p.batch_size)


def per_execution(avg_server_batch_size: float | None, batch_size: int) -> float | None:
    """Requests per execution from a level's average server batch size (inferences / executions) and its client
    batch size (each request carries that many inferences); ``None`` without the average."""
    return None if avg_server_batch_size is None else avg_server_batch_size / max(1, batch_size)


def cannot_act(factor: str, *points: Point, batching_on: tuple[Point, ...] = ()) -> str | None:
    """Why ``factor`` cannot act at the levels compared, or ``None`` (see the module docstring).

    Args:
        factor: A :data:`perf.analysis.stats.pairs.FACTORS` key (``"count"``, ``"batching"``...).
        points: The levels compared.
        batching_on: Those of them that ran with dynamic batching on.

    Returns:
        ``"cannot act at this load: only one request in flight (concurrency 1)"``, ``"cannot act
        at this load: executions held 1.00 request on average (the batcher formed no batch)"``,
        or ``None``.
    """
    if factor not in NEEDS_CONCURRENCY or not points:
        return None
    if all(p.concurrency == 1 for p in points):
        return "cannot act at this load: only one request in flight (concurrency 1)"
    if factor in BATCHING:
        formed = [r for p in batching_on if (r := requests_per_execution(p)) is not None]
        if formed and max(formed) < BATCHED:
            return f"cannot act at this load: executions held {max(formed):.2f} requests on average (the batcher formed no batch)"
    return None
