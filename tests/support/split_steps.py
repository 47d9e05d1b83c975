"""A rounds run whose top level's last step went both ways (trial 27, T27-4: `tinyvit_onnx_cpu1_nodb_mbs64`'s ladder
capped at c=4, its step from c=2 split 2 rounds up and 2 down, ratios 0.67–1.52, called its peak while the appendix
said "no knee")."""

from __future__ import annotations

from factories import rounds_run

from perf.records.results import RunResult

#: c=2's rounds: 4 shared with c=4, 3 more alone (its median 600.0, c=4's 643.5: +7.3 %).
C2 = {0: 600.0, 1: 620.0, 2: 630.0, 3: 640.0, 4: 450.0, 5: 450.0, 6: 450.0}
#: c=4 over c=2 in each shared round: their median gain +2.9 %, within the 5 % a step must gain, the rounds both ways.
SPLIT = {0: 1.52, 1: 1.08, 2: 0.98, 3: 0.67}
#: A plateau the rounds agree on: every round within ±3 %.
FLAT = {0: 1.03, 1: 1.01, 2: 0.99, 3: 0.97}


def top_step_run(ratios: dict[int, float] = SPLIT) -> RunResult:
    """A finished rounds run of variant ``v`` at c=1, 2, 4 (p99 2 ms per request in flight): c=4's rounds are c=2's
    times ``ratios``."""
    return rounds_run({1: {r: 530.0 + r for r in C2}, 2: C2, 4: {r: C2[r] * x for r, x in ratios.items()}})
