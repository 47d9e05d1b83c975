"""The order the search measures variants in (``--search prune``) and a time budget's cut breaks
ties by (:mod:`perf.search.promise`): the configuration order, from each variant's
``config.pbtxt`` alone (:data:`ORDER_RULE`), so an interrupted sweep already holds a useful
recommendation. A guess, not a ranking: nothing measured is in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The rule in words (the report's Search section): a guess from the configs, not a ranking.
ORDER_RULE = (
    "dynamic batching on first, fewer instances first on KIND_CPU (more on KIND_GPU), larger max_batch_size first, "
    "shorter queue delay first: a guess from the configs, no measurement"
)


def promise_key(config: Mapping[str, Any] | None) -> tuple[bool, int, int, int]:
    """Sort key of a variant's ``config.pbtxt`` (protobuf JSON form): most promising first
    (:data:`ORDER_RULE`)."""
    cfg = config or {}
    groups = cfg.get("instance_group") or [{}]
    count = sum(int(g.get("count", 1)) for g in groups)
    gpu = any(g.get("kind") == "KIND_GPU" for g in groups)
    batcher = cfg.get("dynamic_batching")
    delay = int((batcher or {}).get("max_queue_delay_microseconds", 0))
    return (batcher is None, -count if gpu else count, -int(cfg.get("max_batch_size", 0)), delay)


def order(configs: Mapping[str, Mapping[str, Any] | None]) -> list[str]:
    """Variant names, most promising first (stable: ties keep the given order)."""
    return sorted(configs, key=lambda n: promise_key(configs[n]))
