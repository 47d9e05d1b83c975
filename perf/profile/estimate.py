"""How long an in-process baseline takes: the one estimate a sweep's plan line, its time budget and
a skipped baseline's words all use (trial 9, F15: the plan said about 105 s for 7 variants, the skip
120 s for 8, at 15 s a variant, while the demo's 8 variants took 35 s).

The baseline times *points* (one key, an artifact or the eager model under one served instance's
threads, at one input size and batch size; :func:`perf.profile.baseline.run_baseline`: each fixed input size
the clients send, :attr:`perf.records.baseline.BaselineTarget.sizes`), and variants that share an
artifact and thread count share their points (the demo's 8 variants are 6 keys and 40 points). One
point costs its timing (:class:`perf.profile.timing.TimingSettings`: the warm-up, then
``min_run_time_s`` of blocks and again of single calls) and the calls beyond it (the rounds' untimed
calls, the fewest single calls and blocks: :data:`POINT_CALLS_S`); each key loads once, priced at the
loads this run measured of the variants of its format (:func:`key_loads`), :data:`KEY_LOAD_S` only before any
is measured. The served numbers do not predict an in-process call (the demo's mlp served at
0.5-4 ms an inference, 0.13 ms in-process at batch 64), so a point's calls are a constant, an estimate.
A key's load is priced from the server's measured loads of the variants of its format (each variant's
``cold_start.load_s``: the server loading that artifact into its python-backend process, the same artifact
the baseline loads; trial 17, T17-11: 4 ONNX keys took 12 s to load and warm up in-process against the 2 s
:data:`KEY_LOAD_S` priced, and the baseline the plan had kept time for was skipped); a format no variant of
has loaded yet (every format before the first load, the eager model always) is priced at :data:`KEY_LOAD_S`,
an assumption said as one (:meth:`BaselineEstimate.load_words`). Where the constants come from:

- :data:`POINT_CALLS_S` is back-computed from two whole baselines' wall times in trial 9 (the 2-core
  VM, host load 2-3): the demo's mlp, 40 points in 35 s at :data:`perf.profile.baseline.SWEEP_TIMING`
  (0.05 s warm-up + 2 x 0.1 s a point) and 6 keys at :data:`KEY_LOAD_S`, gives
  (35 - 6 x 0.5) / 40 - 0.25 = 0.55 s; a 1-D conv forecaster, 19 points in 44 s at 0.2 s timing, about
  1.5 s. 0.75 s is a value between the two, nearer the demo; no single point was timed for it.
- :data:`KEY_LOAD_S` was never measured: a round figure for one ONNX Runtime session, TorchScript file
  or eager model load of the demo's size, which the 0.55 s above assumes; the price of a key only until
  a load of its format is measured.

Where the run has measured a variant (a sweep's baseline after its rounds, ``triton-perf baseline RUN``),
a point's call is taken as long as the server's compute per inference (the levels' ``server_compute_infer_us``
over their average batch, the fastest level: :func:`inference_s`) times its batch size, and the point's
timing as :func:`perf.profile.timing.timing_s` predicts for a call that long (the warm-up's and each
round's fewest calls): for a slow model this is more than the constants' fast calls (trial 14, T14-4: a
MobileNet's baseline estimated 22 s before the rounds, 38 s for its first round alone at its start).

Before the rounds the batch sizes the dynamic batcher will form are not known: each key of a batching
model is counted with :data:`FORMED_GUESS` of them at each input size. The sweep's plan line and a skip say the number as
"estimated"; the baseline's real time is recorded after it (``rounds.budget.baseline_s``). The baseline
stops at the time budget's end (a model timed in fewer rounds is noted), so an estimate that is short
costs rounds, not the section.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from tritonclient.grpc import model_config_pb2 as mc

from builders.repository.view import Repository
from core.wording import count
from perf.markdown import fmt
from perf.profile.plan import BaselineOptions, plan_targets
from perf.profile.runners import baseline_keys
from perf.profile.timing import timing_s, turn_s, warmup_s
from perf.records.results import RunResult

#: The calls one point makes beyond its timing's seconds (s): an estimate from two trial 9 baselines (module docstring).
POINT_CALLS_S = 0.75
#: Loading one key: an ONNX Runtime session, a TorchScript file or the eager model (s): an unmeasured assumption,
#: the price of a key of a format no load of which is measured yet (module docstring).
KEY_LOAD_S = 0.5
#: Batch sizes a dynamic batcher forms, counted per batching key before the rounds (the demo formed 2-5).
FORMED_GUESS = 3


@dataclasses.dataclass(frozen=True)
class BaselineEstimate:
    """What :func:`estimate` counted.

    Attributes:
        seconds: The estimate (s), from :data:`POINT_CALLS_S` and :data:`KEY_LOAD_S` (estimates, module docstring).
        variants: The variants it measures.
        points: The points it times (keys x input sizes x batch sizes).
        guessed: Whether the formed batch sizes were guessed (no level measured yet).
        sizes: The input sizes its points are at (each fixed size the client workloads sent; 1 when
            the run swept none).
        keys: The keys it loads; ``assumed``: how many of them are priced at :data:`KEY_LOAD_S` (no load of
            their format measured); ``load_s``: their loads' price in all (s).
        first_s: What its first model needs before anything is timed and its first round (s): its keys' loads, its
            points' warm-ups and one round of their turns (:func:`perf.profile.timing.warmup_s`, ``turn_s``); less than
            this left, nothing would be measured (trial 22, F-baseline-waste).
    """

    seconds: float
    variants: int
    points: int
    guessed: bool
    sizes: int = 1
    keys: int = 0
    assumed: int = 0
    load_s: float = 0.0
    first_s: float = 0.0

    def load_words(self) -> str:
        """How its keys' loads are priced: ``"20 s of it for 4 key loads: 4 at the server's measured loads of their
        format"``, or ``"3 s of it for 6 key loads: 6 at an assumed 0.5 s each, none of their format measured yet"``."""
        parts = [f"{self.keys - self.assumed} at the server's measured loads of their format"] if self.keys > self.assumed else []
        parts += (
            [f"{self.assumed} at an assumed {KEY_LOAD_S:g} s each, none of their format measured yet"] if self.assumed else []
        )
        return f"{fmt(self.load_s, 0)} s of it for {count(self.keys, 'key load')}: {'; '.join(parts)}" if parts else ""


def estimate(
    opts: BaselineOptions, repo: Repository | None = None, configs: dict[str, mc.ModelConfig] | None = None
) -> BaselineEstimate:
    """The time (s) :func:`perf.profile.baseline.run_baseline` of ``opts`` takes (module rule).

    Args:
        opts: The baseline to estimate.
        repo: ``opts.repository`` as the caller read it (a sweep's, read once); default: read here.
        configs: Each variant's parsed ``config.pbtxt`` as the caller read it (a sweep's plans, read once); the
            others are read from their files (:func:`perf.profile.plan.plan_targets`). No reference inputs are read.

    Raises:
        RepositoryError: unknown variants (:func:`perf.profile.plan.plan_targets`).
    """
    planned, _ = plan_targets(opts, repo, configs, shapes=False)
    measured = opts.run is not None and any(lv.usable for v in opts.run.variants for lv in v.levels)
    loads = key_loads(opts.run, {target.variant: target.key.format for target, *_ in planned})
    calls: dict[tuple[object, str | None, int], float] = {}  # point -> its call (s), 0 where not measured
    for target, rv, *_ in planned:
        per = inference_s(opts.run, target.variant)
        keys = baseline_keys(target.key, rv, opts.eager)
        for size in target.sizes:  # the sizes run_baseline times, each at its batch sizes
            batches = list(size.batch_sizes)
            top = max(batches, default=1)
            if not measured and top > 1:  # the batches its batcher will form, between 1 and max_batch_size
                batches += [1 + (top - 1) * (i + 1) // (FORMED_GUESS + 1) for i in range(FORMED_GUESS)]
            for pt in ((key, size.shape, b) for key in keys for b in batches):
                calls[pt] = max(calls.get(pt, 0.0), per * pt[2])
    timed = sum(timing_s([c], opts.timing) + POINT_CALLS_S for c in calls.values())
    loaded = {k for k, *_ in calls}
    load_s = sum(loads.get(getattr(k, "format", ""), KEY_LOAD_S) for k in loaded)
    assumed = sum(1 for k in loaded if getattr(k, "format", "") not in loads)
    sizes = len({size for _, size, _ in calls}) or 1
    first = planned[0][0].key.model if planned else None  # run_baseline's first model
    first_s = sum(
        warmup_s(c, opts.timing) + turn_s(c, opts.timing) for pt, c in calls.items() if getattr(pt[0], "model", None) == first
    )
    first_s += sum(loads.get(getattr(k, "format", ""), KEY_LOAD_S) for k in loaded if getattr(k, "model", None) == first)
    return BaselineEstimate(
        round(timed + load_s, 1), len(planned), len(calls), not measured, sizes, len(loaded), assumed, load_s, round(first_s, 1)
    )


def key_loads(run: RunResult | None, formats: Mapping[str, str]) -> dict[str, float]:
    """The price of loading one key of each format (s): the mean of the loads ``run`` measured of the variants of
    that format (``formats``: variant -> its artifact's format; each variant's ``cold_start.load_s``, module
    docstring); a format with none is absent (priced at :data:`KEY_LOAD_S` by the caller)."""
    by_format: dict[str, list[float]] = {}
    for v in run.variants if run is not None else []:
        if v.name in formats and v.cold_start is not None and v.cold_start.load_s:
            by_format.setdefault(formats[v.name], []).append(v.cold_start.load_s)
    return {f: sum(s) / len(s) for f, s in by_format.items()}


def inference_s(run: RunResult | None, variant: str) -> float:
    """The server's compute per inference of ``variant`` in ``run`` (s): its fastest usable level's
    ``server_compute_infer_us`` over that level's average batch (module docstring); 0 where none was measured."""
    v = next((v for v in run.variants if v.name == variant), None) if run is not None else None
    per = [
        lv.server_compute_infer_us / max(1.0, lv.avg_server_batch_size or 1.0)
        for lv in (v.levels if v is not None else [])
        if lv.usable and lv.server_compute_infer_us
    ]
    return min(per, default=0.0) * 1e-6


@dataclasses.dataclass(frozen=True)
class ProfileEstimate:
    """What :func:`profile_estimate` counted for ``triton-perf baseline --trace/--precision``.

    Attributes:
        seconds: At most about this (s): each trace's load and calls, each studied model's load, and
            each precision row held to :data:`perf.profile.precision_study.ROW_MAX_S`.
        traces: The traces it writes.
        rows: The precision rows it times (fp32 with the asked ones, on each device of this host).
    """

    seconds: float
    traces: int
    rows: int

    def words(self) -> str:
        """``"2 traces and 3 precision rows (each row's timing held to 10 s): at most about 40 s"``."""
        from perf.profile.precision_study import ROW_MAX_S

        parts = [count(self.traces, "trace")] if self.traces else []
        parts += [f"{count(self.rows, 'precision row')} (each row's timing held to {ROW_MAX_S:g} s)"] if self.rows else []
        return f"{' and '.join(parts)}: at most about {self.seconds:.0f} s"


def profile_estimate(opts: BaselineOptions, *, trace: bool, precisions: Sequence[str]) -> ProfileEstimate:
    """The time :func:`perf.profile.run.profile_variants` of ``opts`` takes at most, said before it starts:
    the traces at the served speed (:func:`inference_s`, each load priced as :func:`estimate` does), the precision rows at their
    bound (their eager calls are not the served ones: trial 14, T14-9, an fp16 MobileNet's seconds a call)."""
    from perf.profile.precision_study import ROW_MAX_S, host_devices, study_precisions
    from perf.profile.trace import WARMUP_RUNS

    planned, _ = plan_targets(opts, shapes=False)
    loads = key_loads(opts.run, {target.variant: target.key.format for target, *_ in planned})
    traces: dict[tuple[str, str, str], float] = {}
    models = set()
    for target, rv, *_ in planned:
        keys = baseline_keys(target.key, rv, opts.eager)
        call = inference_s(opts.run, target.variant) * max((b for z in target.sizes for b in z.batch_sizes), default=1)
        for k in keys if trace else []:
            traces[(k.model, k.format, k.device)] = max(traces.get((k.model, k.format, k.device), 0.0), call)
        models.add(target.key.model)
    rows = len(models) * len(study_precisions(precisions)) * len(host_devices()) if precisions else 0
    seconds = sum(loads.get(k[1], KEY_LOAD_S) + (WARMUP_RUNS + 1) * c for k, c in traces.items())
    seconds += (KEY_LOAD_S * len(models) + rows * ROW_MAX_S) if precisions else 0.0
    return ProfileEstimate(round(seconds, 1), len(traces), rows)
