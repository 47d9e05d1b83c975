"""What a sweep is asked to do (:class:`SweepOptions`, whose fields are ``triton-perf sweep``'s
flags: :mod:`core.options`). What a run saves of it and what a resumed run takes back are
:func:`perf.sweep.resuming.run_settings` and :func:`perf.sweep.resuming.resumed_options`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import click
from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from clients.runtimes.models import UNLOAD_WAIT_S
from clients.runtimes.options import SERVER_PANEL, ServerOptions
from clients.shape_flags import parse_shapes
from core.options import NOT_A_FLAG, VARIANT_PATTERNS, Flag
from core.units import Duration, parse_ms
from perf.analysis.ranking.budget_latency import DEFAULT_LATENCY_PERCENTILE, LATENCY_PERCENTILES
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT
from perf.measure.level import HOST_BUSY_PAUSE_S
from perf.records.rounds import DESIGNS, READ_BY, RoundRules
from perf.records.search import SEARCH_MODES, SearchRules
from perf.records.settings import MEASURE_PANEL, MeasureSettings
from perf.search.budget import parse_duration
from perf.search.policy import AUTO, ladder
from perf.sweep.flags import concurrency_item, concurrency_setting, positive_rate, sweep_axes_flags

#: The levels of the adaptive ladder with the default rules (1, 2, 4 ... 64): what
#: ``--concurrency auto`` may reach, and the explicit list of tools that measure every level.
DEFAULT_CONCURRENCY = ladder(AUTO, SearchRules())[0]
DEFAULT_BATCH_SIZES = (1,)
#: The default ``--time-budget`` (s): what keeps ``make demo`` within its README time on a 2-core host.
DEFAULT_TIME_BUDGET_S = 360.0
Progress = Callable[[dict[str, Any]], None]
#: The help panels of ``triton-perf sweep``.
WHAT_PANEL = "What to sweep"
RUN_PANEL = "Run folder"
REPORT_PANEL = "Report and exit"
#: Server settings the sweep sets itself (explicit model control, one variant loaded at a time,
#: the log in the run folder): not offered as flags, not saved.
SWEEP_SETS = ("model_control", "load_models", "log_file")
#: ServerOptions fields a run records and a resumed run takes back.
SERVER_SETTINGS = tuple(f.name for f in dataclasses.fields(ServerOptions) if f.name not in ("repository", "given", *SWEEP_SETS))
#: SweepOptions flags that name the run folder or say how this invocation runs: not saved (a
#: resumed run gets the time budget passed now: ``rounds.budget`` records each one's).
RUN_FLAGS = ("results_dir", "run_id", "time_budget_s")
#: Saved settings a flag given again replaces on resume: what the report says and what runs
#: around the levels (the in-process baseline, permission to share a host), never what a level
#: measures; not given again, the saved value holds (issue 26: a resumed ``--no-baseline`` run
#: measured the baseline).
REPORT_SETTINGS = ("latency_budget_ms", "latency_percentile", "baseline", "allow_shared_host")


@dataclass(config=ConfigDict(arbitrary_types_allowed=True))
class SweepOptions:
    """A sweep; its fields (and those of ``server`` and ``measure``) are ``triton-perf sweep``'s flags.

    Attributes:
        server: How to launch tritonserver (its ``repository`` is the one swept; model
            control is forced to ``explicit``).
        variants: Variant names or shell patterns (``mlp_*``) to sweep; empty = every
            model in the repository.
        concurrency: Concurrency levels, or ``"auto"`` (the default): each variant's ladder
            1, 2, 4 ... grows until throughput stops rising by more than the noise or the
            latency budget is exceeded (:mod:`perf.search.policy`).
        search: ``"brute"`` (every variant at every level), ``"prune"`` (drop variants
            that cannot win after a probe level) or ``None`` (the default: ``prune`` for
            more than 4 variants; :func:`perf.search.policy.resolve_mode`).
        search_rules: The thresholds of the search's rules (recorded with the run; a resumed
            run keeps its own).
        request_rates: Fixed request rates (requests/s) measured as well, as request-rate
            levels (``concurrency`` 0); default none.
        batch_sizes: Client batch sizes (``-b``); values above a variant's max_batch_size are
            skipped for that variant (max_batch_size 0 -> batch 1 only).
        measure: perf_analyzer measurement settings.
        trials: Repetitions of each level (median and spread in the report).
        results_dir: Parent of run folders (default ``results``).
        run_id: Run folder name (default: a timestamp).
        resume: Continue ``results_dir/run_id`` instead of refusing an existing folder.
        perf_analyzer: Path of perf_analyzer (default: $PERF_ANALYZER, the venv, PATH).
        input_data: The user's inputs (:func:`perf.measure.user_data.check_user_data`), default: generated.
        shapes: Input name -> dims (without the batch axis) for dynamic dims, as
            perf_analyzer's ``--shape NAME:dims``; needed where the build's spec gives no
            size (a repository without the toolkit's manifest), checked before any server
            starts (:func:`perf.measure.inputs.resolve_shapes`).
        sweep_axes: Named dynamic axes of the build's spec swept as a level dimension, axis ->
            sizes (``{"seq": (16, 64, 128)}``, a mix ``"LO..HI"``: :mod:`perf.measure.mixed`): every level is
            measured at each combination (:attr:`perf.records.levels.LevelResult.shape`); default none.
        warmup_requests: Requests sent before measuring each variant (default 20).
        latency_budget_ms: Latency budget (ms) for the report's recommendation.
        latency_percentile: The client latency percentile the budget is on (50, 90, 95 or
            99; default 99), as Model Analyzer's ``perf_latency_p9x`` constraints.
        unload_timeout_s: How long a variant may take to be gone after its unload request
            before the server is restarted for the next one (default
            :data:`clients.runtimes.models.UNLOAD_WAIT_S`).
        given: The settings set on purpose (these fields' names, ``"measure"``/``"server"`` and theirs):
            refused where the design does not read them (:mod:`perf.sweep.design_flags`), on resume
            the only ones reported ignored. ``None``: every value that differs from the default.
            The CLI takes them from click's ``ParameterSource`` (:func:`core.options.given_fields`).
        host_busy_threshold_pct: Other processes' mean CPU use during a level (% of one
            core) above which the level is measured again, then flagged "host busy"
            (default 10; :mod:`perf.measure.level`).
        host_busy_pause_s: Pause before that second measurement (default 2 s).
        baseline: Measure the in-process baseline after the last level (:mod:`perf.profile.baseline`;
            default True, ``--no-baseline`` turns it off).
        allow_shared_host: With several ``server.urls``: measure in parallel also on servers
            that share a host or GPU (:mod:`perf.sweep.servers`; refused by default).
        design: ``"rounds"`` (the default: the variants in contention loaded together and
            measured in interleaved, shuffled rounds, compared pairwise; :mod:`perf.sweep.rounds`)
            or ``"sequential"`` (one variant after another, each level until perf_analyzer's
            windows agree). A resumed run keeps its own.
        time_budget_s: Wall time the sweep may spend (s), loads, rounds and the in-process
            baseline included (:mod:`perf.search.budget`); ``None``: no budget.
        seed: Seed of the rounds' shuffles (default: from the run id; recorded in ``rounds``).
        round_window_ms: Window of one visit in a round (ms; ``None``: ``round_rules.window_ms``).
        round_rules: The rounds' thresholds (rounds at least and at most, ladder...).
        max_loaded: Most variants loaded on a server at once (``None``: as many as its memory
            holds; :mod:`perf.sweep.rounds`).
    """

    server: Annotated[ServerOptions, Flag(nested=True, panel=WHAT_PANEL)]
    variants: Annotated[tuple[str, ...], dataclasses.replace(VARIANT_PATTERNS, panel=WHAT_PANEL)] = Field(
        default=(), description="Variant names or shell patterns such as 'mlp_*' [default: every model in the repository]."
    )
    concurrency: Annotated[
        tuple[int, ...] | str,
        Flag(item=concurrency_item, parse=concurrency_setting, metavar="auto|N|START:END[:STEP][,...]", panel=WHAT_PANEL),
    ] = Field(
        default=AUTO,
        description="Concurrency levels: auto (each variant's ladder in the interleaved rounds: coarse levels 1, 4, 16 "
        "first, grown to 64 while a doubling at its top still gains more than the minimum gain in the median over paired "
        "rounds; it ends after 2 flat doublings, at a p99 over the latency budget, or at the time budget's cap; then the "
        "doublings next to its best level (half and double: 2, 8, 32) join; --design sequential walks 1, 2, 4 ... in "
        "turn), or a list 1,2,4 and/or perf_analyzer's range start:end[:step], measured whole in every round.",
    )
    search: Annotated[str | None, Flag(choices=SEARCH_MODES, panel=WHAT_PANEL)] = Field(
        default=None,
        description="brute: every variant at every level; prune: drop those that cannot win (the rounds design: a "
        "variant the leader beats by the paired rule whose ladder can no longer lift it; --design sequential: measure "
        "every variant at the best level so far first and drop one behind it beyond both spreads), each decision "
        "recorded and shown in the report; pruning applies to --concurrency "
        "auto only: an explicit list is measured whole for every variant [default: prune above 4 variants].",
    )
    search_rules: Annotated[SearchRules, NOT_A_FLAG] = Field(default_factory=SearchRules)
    batch_sizes: Annotated[tuple[int, ...], Flag(item=click.IntRange(1), metavar="N[,N...]", panel=WHAT_PANEL)] = Field(
        default=DEFAULT_BATCH_SIZES, description="Client batch sizes (-b); above a variant's max_batch_size they are skipped."
    )
    request_rates: Annotated[tuple[float, ...], Flag(item=positive_rate, metavar="R[,R...]", panel=WHAT_PANEL)] = Field(
        default=(), description="Also measure at these fixed request rates (requests/s), e.g. 100,200 [default: none]."
    )
    measure: Annotated[MeasureSettings, Flag(nested=True, panel=MEASURE_PANEL)] = Field(default_factory=MeasureSettings)
    trials: Annotated[int, Flag(panel=MEASURE_PANEL)] = Field(
        default=1, ge=1, description=f"Repeat each level N times, {READ_BY['sequential']} (a round measures it once)."
    )
    results_dir: Annotated[Path, Flag(path={"file_okay": False}, panel=RUN_PANEL)] = Field(
        default=Path("results"), description="Parent folder of run folders: the run is written to RESULTS_DIR/RUN_ID."
    )
    run_id: Annotated[str | None, Flag(panel=RUN_PANEL)] = Field(
        default=None, description="Run folder name [default: a timestamp]."
    )
    resume: Annotated[bool, NOT_A_FLAG] = False
    perf_analyzer: Annotated[Path | None, Flag(path={"dir_okay": False}, panel=MEASURE_PANEL)] = Field(
        default=None, description="perf_analyzer binary [default: $PERF_ANALYZER, the venv, PATH]."
    )
    input_data: Annotated[Path | None, Flag(panel=MEASURE_PANEL)] = Field(
        default=None,
        description="Your inputs: .npz (by input name), .npy or perf_analyzer's JSON, checked as clients infer checks "
        "them before any server starts; or a folder, random or zero [default: generated from the model's signature].",
    )
    shapes: Annotated[
        dict[str, tuple[int, ...]],
        Flag(decls=("--shape",), repeat=True, metavar="NAME:DIMS", parse=parse_shapes, panel=MEASURE_PANEL, key_sep=":"),
    ] = Field(
        default_factory=dict,
        description="Size of an input's dynamic dims, as perf_analyzer's --shape (dims without the batch axis, e.g. input_ids:128; "
        "repeatable); needed where the build's spec gives none; not with a file of --input-data, nor on an axis --shapes sweeps.",
    )
    sweep_axes: Annotated[
        dict[str, tuple[int | str, ...]],
        Flag(decls=("--shapes",), repeat=True, metavar="AXIS=SIZE|LOW..HIGH[,...]", parse=sweep_axes_flags, panel=WHAT_PANEL),
    ] = Field(
        default_factory=dict,
        description="Sweep a dynamic axis of the build's spec as a level dimension, e.g. --shapes seq=16,64,128 (repeat "
        "for more axes: every combination); LOW..HIGH is one workload of requests of mixed sizes across the range (multiples of "
        "the axis's step where its build declares one), as "
        "variable-length clients send them (Triton batches only equal shapes), e.g. --shapes time=1000..16000; the "
        "report lists each like a concurrency level [default: each axis at the build's opt size, said in the report].",
    )
    warmup_requests: Annotated[int, NOT_A_FLAG] = 20
    latency_budget_ms: Annotated[float | None, Flag(parse=parse_ms, metavar="MS", panel=REPORT_PANEL)] = Field(
        default=None,
        gt=0,
        description="Client latency budget for the recommendation (ms: 50 or 50ms), on the --latency-percentile (p99 by "
        "default) [default: none].",
    )
    latency_percentile: Annotated[int, Flag(choices=LATENCY_PERCENTILES, show_default=False, panel=REPORT_PANEL)] = Field(
        default=DEFAULT_LATENCY_PERCENTILE,
        description="Client latency percentile the budget is on, as Model Analyzer's perf_latency_p9x constraints "
        f"[default: the run's, else {DEFAULT_LATENCY_PERCENTILE}].",
    )
    unload_timeout_s: Annotated[float, NOT_A_FLAG] = UNLOAD_WAIT_S
    given: Annotated[frozenset[str] | None, NOT_A_FLAG] = None
    host_busy_threshold_pct: Annotated[float, Flag(decls=("--host-busy-threshold",), panel=MEASURE_PANEL)] = Field(
        default=HOST_BUSY_THRESHOLD_PCT,
        ge=0,
        description="Other processes' mean CPU use during a visit (% of one core) above which it is flagged 'host "
        "busy': in the rounds design the visit is kept (the ranking pairs the variants within each round, so the load "
        "falls on all alike) and its level is measured again in the next rounds; a level with a flagged visit carries "
        "the mark; in --design sequential the level is measured again after a pause, then flagged.",
    )
    host_busy_pause_s: Annotated[float, NOT_A_FLAG] = HOST_BUSY_PAUSE_S
    baseline: Annotated[bool, Flag(decls=("--no-baseline",), panel=REPORT_PANEL)] = Field(
        default=True,
        description="Do not measure the in-process baseline at the end (each format run without a server at the batch "
        "sizes the server formed; `triton-perf baseline RUN_DIR` measures it later).",
    )
    allow_shared_host: Annotated[bool, Flag(panel=SERVER_PANEL)] = Field(
        default=False,
        description="With several --url servers: measure in parallel even on servers that share a host or GPU (refused "
        "by default: they compete, so their numbers include each other's load).",
    )
    # -- the design (perf.sweep.rounds) --
    design: Annotated[str, Flag(choices=DESIGNS, panel=WHAT_PANEL)] = Field(
        default="rounds",
        description="rounds: the variants in contention loaded together and measured in interleaved, shuffled rounds, "
        "compared pairwise within each round; sequential: one variant after another (the host's load at each moment "
        "is then confounded with the variant).",
    )
    time_budget_s: Annotated[
        float | None,
        Flag(
            decls=("--time-budget",),
            type=click.STRING,
            parse=parse_duration,
            metavar="DURATION",
            default_text="6m",
            panel=RUN_PANEL,
        ),
    ] = Field(
        default=DEFAULT_TIME_BUDGET_S,
        description="Wall time the sweep may spend, loads, rounds and the in-process baseline included (10m, 90s, 1h, or "
        "none); the estimate is printed first, the real time at the end, and what was cut for time is listed.",
    )
    seed: Annotated[int | None, Flag(panel=MEASURE_PANEL)] = Field(
        default=None, description=f"Seed of the rounds' shuffled order, {READ_BY['rounds']} [default: from the run id; recorded]."
    )
    round_window_ms: Annotated[
        int | None, Flag(decls=("--round-window",), metavar="MS", type=Duration("ms", integer=True), panel=MEASURE_PANEL)
    ] = Field(
        default=None,
        ge=50,
        description=f"Length of each of the 3 perf_analyzer windows of a round's visit (ms), {READ_BY['rounds']}; --design "
        f"sequential's window is --measurement-interval [default: {RoundRules().window_ms}].",
    )
    round_rules: Annotated[RoundRules, NOT_A_FLAG] = Field(default_factory=RoundRules)
    max_loaded: Annotated[int | None, Flag(metavar="N", panel=SERVER_PANEL)] = Field(
        default=None,
        ge=1,
        description=f"Most variants loaded on the server at once, {READ_BY['rounds']} [default: as many as memory holds].",
    )

    @property
    def rounds_rules(self) -> RoundRules:
        """The rounds' thresholds with ``--round-window`` applied: the window each visit measures."""
        return (
            self.round_rules
            if self.round_window_ms is None
            else dataclasses.replace(self.round_rules, window_ms=self.round_window_ms)
        )
