"""The sweep's progress line of a level at client batch 4 gives its requests/s beside infer/s, as ``clients infer``
does (trial 23, T23-15: "round 1: v c=1 b=4: 7923 infer/s, p99 1.32 ms"); at batch 1 one number."""

from __future__ import annotations

import io

from factories import level_result
from rich.console import Console

from perf.cli.sweep import _progress


def _line(batch: int) -> str:
    out = io.StringIO()
    p = _progress(Console(file=out, width=300))
    p.task = p.bar.add_task("x", total=1)
    level = level_result(1, 7923.0, 1.32, batch_size=batch)
    p.on_event({"event": "level_done", "level": level, "variant": "v", "round": 0})
    return out.getvalue()


def test_a_batch_4_level_says_its_requests_per_s() -> None:
    assert "round 1: v c=1 b=4: 7923 infer/s (1981 requests/s of batch 4), p99 1.32 ms" in _line(4)
    assert "requests/s" not in _line(1) and "7923 infer/s, p99 1.32 ms" in _line(1)
