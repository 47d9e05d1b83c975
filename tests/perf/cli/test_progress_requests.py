"""The sweep's progress line of a level at client batch 4 gives its requests/s beside infer/s, as ``clients infer``
does (trial 23, T23-15: "round 1: v c=1 b=4: 7923 infer/s, p99 1.32 ms"); at batch 1 one number."""

from __future__ import annotations

import io
from pathlib import Path

from factories import level_result
from rich.console import Console

from perf.cli.sweep_progress import SweepProgress


def _line(batch: int) -> str:
    out = io.StringIO()
    p = SweepProgress(Console(file=out, width=300))
    p.task = p.bar.add_task("x", total=1)
    level = level_result(1, 7923.0, 1.32, batch_size=batch)
    p.on_event({"event": "level_done", "level": level, "variant": "v", "round": 0})
    return out.getvalue()


def test_a_batch_4_level_says_its_requests_per_s() -> None:
    assert "round 1: v c=1 b=4: 7,923.0 infer/s (1,980.8 requests/s of batch 4), p99 1.32 ms" in _line(4)
    assert "requests/s" not in _line(1) and "7,923.0 infer/s, p99 1.32 ms" in _line(1)


def test_clients_and_the_sweep_print_a_throughput_by_one_rule() -> None:
    """T25-4: `clients infer` printed "2622.4 infer/s", the sweep's progress "3019 infer/s", its tables "3,014.3": one
    format (core.units.thousands) everywhere a throughput is printed; the README's example is that format."""
    import ast

    from core.units import throughput_text

    root = Path(__file__).resolve().parents[3]
    for path in ("clients/cli/main.py", "perf/cli/sweep.py"):
        for call in ast.walk(ast.parse((root / path).read_text())):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "throughput_text":
                assert len(call.args) == 2 and not call.keywords, f"{path}:{call.lineno} formats its own numbers"
    said = throughput_text(11777.3, 4)
    assert said == "11,777.3 infer/s (2,944.3 requests/s of batch 4)" and said in (root / "README.md").read_text()
