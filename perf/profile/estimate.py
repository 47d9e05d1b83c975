"""How long an in-process baseline takes: the one estimate a sweep's plan line, its time budget and
a skipped baseline's words all use (trial 9, F15: the plan said about 105 s for 7 variants, the skip
120 s for 8, at 15 s a variant, while the demo's 8 variants took 35 s).

The baseline times *points* (one key, an artifact or the eager model under one served instance's
threads, at one batch size; :func:`perf.profile.baseline.run_baseline`), and variants that share an
artifact and thread count share their points (the demo's 8 variants are 6 keys and 40 points). One
point costs its timing (:class:`perf.profile.timing.TimingSettings`: the warm-up, then
``min_run_time_s`` of blocks and again of single calls) and the calls beyond it (the rounds' untimed
calls, the fewest single calls and blocks: :data:`POINT_CALLS_S`); each key loads once
(:data:`KEY_LOAD_S`). The served numbers do not predict an in-process call (the demo's mlp served at
0.5-4 ms an inference, 0.13 ms in-process at batch 64), so the calls are a constant, calibrated on
trial 9's runs on the 2-core VM at a load of 2-3: 0.55 s a point beyond its timing for the demo's mlp
(40 points in 35 s), about 1.5 s for a 1-D conv forecaster (19 points in 44 s at 0.2 s timing). Before
the rounds the batch sizes the dynamic batcher will form are not known: each key of a batching model
is counted with :data:`FORMED_GUESS` of them. The baseline stops at the time budget's end (a model
timed in fewer rounds is noted), so an estimate that is short costs rounds, not the section.
"""

from __future__ import annotations

import dataclasses

from perf.profile.baseline import BaselineOptions, plan_targets
from perf.records.baseline import EAGER

#: The calls one point makes beyond its timing's seconds (s; module docstring: 0.55-1.5 s seen).
POINT_CALLS_S = 0.75
#: Loading one key: an ONNX Runtime session, a TorchScript file or the eager model (s).
KEY_LOAD_S = 0.5
#: Batch sizes a dynamic batcher forms, counted per batching key before the rounds (the demo formed 2-5).
FORMED_GUESS = 3


@dataclasses.dataclass(frozen=True)
class BaselineEstimate:
    """What :func:`estimate` counted.

    Attributes:
        seconds: The estimate (s).
        variants: The variants it measures.
        points: The points it times (keys x batch sizes).
        guessed: Whether the formed batch sizes were guessed (no level measured yet).
    """

    seconds: float
    variants: int
    points: int
    guessed: bool


def estimate(opts: BaselineOptions) -> BaselineEstimate:
    """The time (s) :func:`perf.profile.baseline.run_baseline` of ``opts`` takes (module rule).

    Raises:
        RepositoryError: unknown variants (:func:`perf.profile.baseline.plan_targets`).
    """
    planned, _ = plan_targets(opts)
    measured = opts.run is not None and any(lv.usable for v in opts.run.variants for lv in v.levels)
    points: set[tuple[object, int]] = set()
    for target, *_ in planned:
        batches = list(target.batch_sizes)
        top = max(batches, default=1)
        if not measured and top > 1:  # the batches its batcher will form, between 1 and max_batch_size
            batches += [1 + (top - 1) * (i + 1) // (FORMED_GUESS + 1) for i in range(FORMED_GUESS)]
        keys = [target.key] + ([dataclasses.replace(target.key, format=EAGER, precision="fp32")] if opts.eager else [])
        for key in keys:
            points |= {(key, b) for b in batches}
    t = opts.timing
    seconds = len(points) * (t.warmup_s + 2 * t.min_run_time_s + POINT_CALLS_S) + KEY_LOAD_S * len({k for k, _ in points})
    return BaselineEstimate(round(seconds, 1), len(planned), len(points), not measured)
