"""What a co-location run is asked to do (:class:`ColocateOptions`, whose fields are
``triton-perf colocate``'s flags: :mod:`core.options`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import click
from pydantic import BeforeValidator, ConfigDict, Field
from pydantic.dataclasses import dataclass

from clients.runtimes.options import ServerOptions
from core.naming import variant_patterns
from core.options import NOT_A_FLAG, Flag
from core.units import Duration, NotAboveZero, parse_ms
from perf.analysis.stats.paired import GAP_ROUNDS
from perf.analysis.stats.paired import min_rounds as fewest_rounds
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT
from perf.records.colocation import Objective
from perf.records.settings import MeasureSettings
from perf.search.budget import parse_duration

#: The help panels of ``triton-perf colocate``.
WHAT_PANEL = "What to co-locate"
RUN_PANEL = "Run folder and budget"
#: Server settings the run sets itself (explicit model control, nothing loaded at start, the log
#: in the run folder): not offered as flags.
COLOCATE_SETS = ("model_control", "load_models", "log_file")
#: The default ``--time-budget`` (s).
DEFAULT_TIME_BUDGET_S = 600.0


def _pairs(kind: str, convert: Callable[[str], Any]) -> Callable[[tuple[str, ...]], dict[str, Any]]:
    """A parser of repeated ``NAME=VALUE`` flags into ``{NAME: convert(VALUE)}``."""

    def parse(values: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for text in values:
            name, sep, value = text.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not name or not value:
                raise ValueError(f"{text!r} is not NAME={kind} (e.g. mlp={_EXAMPLES[kind]})")
            if name in out:
                raise ValueError(f"{name} is given twice; give each model once")
            try:
                out[name] = convert(value)
            except ValueError:
                raise ValueError(f"{text!r}: {value!r} is not a {kind}") from None
        return out

    return parse


_EXAMPLES = {"PATTERN[,PATTERN]": "'mlp_onnx_*'", "CONCURRENCY": "4", "WEIGHT": "2", "VARIANT": "mlp_onnx_cpu2_nodb_mbs64"}
#: The key of a per-model value given without a model name: every model not named.
EVERY_MODEL = "*"


def per_model(
    kind: str, example: str, number: Callable[[str], float | None] | None = None
) -> Callable[[tuple[str, ...]], dict[str, float]]:
    """A parser of a per-model number flag: ``25`` (every model), ``mlp=25,tiny=10``, or both
    (``25,tiny=10``: tiny 10, every other model 25), repeatable; each value above zero. The
    result maps a model to its value, :data:`EVERY_MODEL` to the value of models not named.
    ``number`` reads one value (:func:`core.units.parse_ms` for milliseconds: ``25ms`` too)."""

    def parse(values: tuple[str, ...]) -> dict[str, float]:
        out: dict[str, float] = {}
        for item in (p.strip() for v in values for p in v.split(",")):
            if not item:
                continue
            name, sep, text = item.rpartition("=")
            name = name.strip() if sep else EVERY_MODEL
            if sep and not name:
                raise ValueError(f"{item!r} is not NAME={kind} or {kind} (e.g. {example})")
            if name in out:
                said = "a value for every model" if name == EVERY_MODEL else name
                raise ValueError(f"{said} is given twice; give each model one {kind}")
            try:
                value = float(text) if number is None else float(number(text) or 0)
            except NotAboveZero as e:
                raise ValueError(f"{item!r}: {e}") from None
            except ValueError as e:
                why = f": {e}" if number is not None else ""
                raise ValueError(f"{item!r} is not NAME={kind} or {kind} (e.g. {example}){why}") from None
            if not value > 0 or value == float("inf"):
                raise ValueError(f"{item!r}: a {kind} must be a number above 0")
            out[name] = value
        return out

    return parse


def _every_model(value: Any) -> Any:
    """A single number given through the Python API stands for every model."""
    if value is None:
        return {}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {EVERY_MODEL: float(value)}
    return value


def for_model(values: dict[str, float], model: str) -> float | None:
    """A model's own value of a per-model flag, else the value for every model, else ``None``."""
    return values.get(model, values.get(EVERY_MODEL))


def _patterns(value: str) -> tuple[str, ...]:
    return tuple(variant_patterns(value))


def _concurrency(value: str) -> int:
    n = int(value)
    if n < 1:
        raise ValueError(value)
    return n


def _weight(value: str) -> float:
    w = float(value)
    if not w > 0:
        raise ValueError(value)
    return w


@dataclass(config=ConfigDict(arbitrary_types_allowed=True))
class ColocateOptions:
    """A co-location run; its fields (and those of ``server``) are ``triton-perf colocate``'s flags.

    Attributes:
        server: How to launch tritonserver (its ``repository`` holds every model's variants;
            model control is forced to ``explicit``).
        models: Model name -> the variant names or shell patterns it may be served as
            (``--model mlp='mlp_onnx_*'``, repeated per model; at least two models).
        mix: Model name -> the concurrency perf_analyzer keeps for it (``--mix mlp=4``;
            default 1 for a model not named).
        weights: Model name -> its weight in the weighted throughput (``--weight mlp=2``;
            default 1.0).
        starts: Model name -> the variant the search starts from (``--start``; default: its
            best variant alone, measured first).
        latency_budget_ms: Model -> its p99 budget (ms); :data:`EVERY_MODEL` for every model
            not named (``--latency-budget-ms 25`` or ``mlp=25,tiny=10``; a number through the
            Python API is every model's); a model without one has no budget.
        required_throughput: Model -> the throughput it must reach (infer/s, median over a step's
            rounds at its ``--mix`` concurrency), as ``latency_budget_ms`` is given
            (``--required-throughput mlp=500,tiny=200``); a model without one has none.
        objective: ``throughput`` (the highest weighted throughput) or ``fewest-instances`` (the
            fewest instances in all; needs a required throughput), every target met either way.
        time_budget_s: Wall time the run may spend (s); ``None``: no budget.
        min_rounds: Rounds per search step at least (default 3, the paired rule's large-gap tier; the
            final and brute-force steps measure at least 6).
        max_rounds: Rounds per step at most (default 10).
        window_ms: Each of perf_analyzer's 3 windows in one visit (ms).
        protocol: The protocol perf_analyzer measures with.
        warmup_requests: Requests sent to each variant after its load, before any window.
        results_dir: Parent of run folders.
        run_id: Run folder name (default: ``colocate-`` and a timestamp).
        perf_analyzer: Path of perf_analyzer.
        resume: Continue the interrupted run ``run_id`` (:mod:`perf.colocate.resume`).
        seed: Seed of the rounds' shuffles (default: from the run id).
        host_busy_threshold_pct: Other processes' CPU above which a visit is flagged (% of one core).
        brute: Measure every combination instead of the coordinate search (:mod:`perf.colocate.brute`;
            the benchmark's comparison, not a flag).
        given: The fields set on purpose (:func:`core.options.given_fields`): a resume given no ``time_budget_s``
            runs under what is left of the run's own (:func:`perf.records.resumed.left_of_run`). ``None``: every
            value that differs from the default.
    """

    server: Annotated[ServerOptions, Flag(nested=True, panel=WHAT_PANEL)]
    models: Annotated[
        dict[str, tuple[str, ...]],
        Flag(
            decls=("--model",),
            repeat=True,
            metavar="NAME=PATTERN[,PATTERN]",
            parse=_pairs("PATTERN[,PATTERN]", _patterns),
            panel=WHAT_PANEL,
        ),
    ] = Field(
        default_factory=dict,
        description="A model and the variants it may be served as: names or shell patterns of the repository's model "
        "folders, e.g. --model mlp='mlp_onnx_*' (repeat per model; two at least).",
    )
    mix: Annotated[
        dict[str, int],
        Flag(repeat=True, metavar="NAME=CONCURRENCY", parse=_pairs("CONCURRENCY", _concurrency), panel=WHAT_PANEL),
    ] = Field(
        default_factory=dict,
        description="The traffic mix: the concurrency perf_analyzer keeps for a model, e.g. --mix mlp=4 (repeat per "
        "model) [default: 1 each].",
    )
    weights: Annotated[
        dict[str, float],
        Flag(decls=("--weight",), repeat=True, metavar="NAME=WEIGHT", parse=_pairs("WEIGHT", _weight), panel=WHAT_PANEL),
    ] = Field(
        default_factory=dict,
        description="A model's weight in the weighted throughput the search maximises (sum of weight x infer/s), "
        "e.g. --weight mlp=2 [default: 1 each].",
    )
    starts: Annotated[
        dict[str, str],
        Flag(decls=("--start",), repeat=True, metavar="NAME=VARIANT", parse=_pairs("VARIANT", str), panel=WHAT_PANEL),
    ] = Field(
        default_factory=dict,
        description="The variant a model's search starts from [default: its best variant alone, measured first in the same run].",
    )
    latency_budget_ms: Annotated[
        dict[str, float],
        BeforeValidator(_every_model),
        Flag(repeat=True, metavar="[NAME=]MS[,...]", parse=per_model("MS", "25 or mlp=25,tiny=10", parse_ms), panel=WHAT_PANEL),
    ] = Field(
        default_factory=dict,
        description="The p99 budget (ms): one number for every model (--latency-budget-ms 25) or one per model "
        "(--latency-budget-ms mlp=25,tiny=10; 25,tiny=10: tiny 10, the others 25); a combination is kept only when every "
        "model meets its own [default: none].",
    )
    required_throughput: Annotated[
        dict[str, float],
        BeforeValidator(_every_model),
        Flag(
            repeat=True,
            metavar="[NAME=]INFER/S[,...]",
            parse=per_model("INFER/S", "500 or mlp=500,tiny=200"),
            panel=WHAT_PANEL,
        ),
    ] = Field(
        default_factory=dict,
        description="The throughput a model must reach (infer/s, the median over a step's rounds at its --mix "
        "concurrency), given as --latency-budget-ms is: --required-throughput mlp=500,tiny=200 [default: none].",
    )
    objective: Annotated[Objective, Flag(panel=WHAT_PANEL)] = Field(
        default="throughput",
        description="What the search optimises, every model's budget and required throughput met: throughput (the "
        "highest weighted throughput) or fewest-instances (the fewest instances in all, e.g. CPU cores or GPU "
        "instances; needs --required-throughput).",
    )
    time_budget_s: Annotated[
        float | None,
        Flag(
            decls=("--time-budget",),
            type=click.STRING,
            parse=parse_duration,
            metavar="DURATION",
            default_text="10m",
            panel=RUN_PANEL,
        ),
    ] = Field(
        default=DEFAULT_TIME_BUDGET_S,
        description="Wall time the run may spend (10m, 90s, 1h, or none); a round that does not fit is not measured and "
        "the cut is listed.",
    )
    min_rounds: Annotated[int, Flag(metavar="N", panel=RUN_PANEL)] = Field(
        default=GAP_ROUNDS,
        ge=GAP_ROUNDS,
        description="Rounds per search step at least (a large gap is called from 3; a closer call extends the step up to "
        "--max-rounds; the final step measures at least 6).",
    )
    max_rounds: Annotated[int, Flag(metavar="N", panel=RUN_PANEL)] = Field(
        default=10,
        ge=fewest_rounds(),
        description="Rounds per step at most (more than the least only while a move is undecided).",
    )
    window_ms: Annotated[
        int, Flag(decls=("--round-window",), metavar="MS", type=Duration("ms", integer=True), panel=RUN_PANEL)
    ] = Field(default=300, ge=50, description="Length of each of the 3 perf_analyzer windows of one visit (ms).")
    protocol: Annotated[str, Flag(choices=("grpc", "http"), panel=RUN_PANEL)] = Field(
        default="grpc", description="Protocol perf_analyzer measures with."
    )
    warmup_requests: Annotated[int, NOT_A_FLAG] = 20
    results_dir: Annotated[Path, Flag(path={"file_okay": False}, panel=RUN_PANEL)] = Field(
        default=Path("results"), description="Parent folder of run folders: the run is written to RESULTS_DIR/RUN_ID."
    )
    run_id: Annotated[str | None, Flag(panel=RUN_PANEL)] = Field(
        default=None, description="Run folder name [default: colocate- and a timestamp]."
    )
    perf_analyzer: Annotated[Path | None, Flag(path={"dir_okay": False}, panel=RUN_PANEL)] = Field(
        default=None, description="perf_analyzer binary [default: $PERF_ANALYZER, the venv, PATH]."
    )
    resume: Annotated[bool, Flag(panel=RUN_PANEL)] = Field(
        default=False,
        description="Continue the interrupted run --run-id (a run id or its folder's path; --resume RUN alike): its "
        "models, traffic, targets, objective and seed as recorded; "
        "its complete rounds are not measured again; it runs under what is left of the run's own --time-budget, or a new "
        "one given again.",
    )
    seed: Annotated[int | None, Flag(panel=RUN_PANEL)] = Field(
        default=None, description="Seed of the rounds' shuffled order [default: from the run id; recorded]."
    )
    host_busy_threshold_pct: Annotated[float, NOT_A_FLAG] = HOST_BUSY_THRESHOLD_PCT
    brute: Annotated[bool, NOT_A_FLAG] = False
    given: Annotated[frozenset[str] | None, NOT_A_FLAG] = None

    def measure_settings(self) -> MeasureSettings:
        """perf_analyzer's window settings for every visit."""
        return MeasureSettings(protocol=self.protocol, measurement_interval_ms=self.window_ms)
