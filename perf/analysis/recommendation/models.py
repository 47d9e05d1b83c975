"""The models a sweep's variants serve: one rule for every command that ranks or picks among a run's variants.

A sweep answers "which setup serves my model best", a question of one model: the infer/s of a 512->2048 MLP and of a
GRU do not compare (trial 25, T25-12: `--variants` defaults to every model in the repository, and after `make demo`
a newcomer's own model's sweep ranked it against the 8 mlp variants and recommended one of either). So:

- a sweep whose variants serve more than one model is refused before any server starts or any run folder is made
  (:func:`perf.sweep.context.SweepBase`, its resume too), naming each model with its variant count and the
  ``--variants 'MODEL_*'`` that sweeps it alone, and ``triton-perf colocate`` for several models on one server;
- a run saved before that rule, whose variants serve several models, gets no pick across them: the recommendation
  (:func:`perf.analysis.recommendation.recommend.recommend`, which the report, the console summary, its plots and
  ``export-deployment``'s default pick all read) is refused with the same words; its numbers stay in ``results.json``
  and ``flat.csv``, and ``export-deployment --variant NAME`` still bundles a variant named on purpose.

A variant's model is the one its build recorded (the repository index entry, ``results.json``'s ``params``), never
read from its name; a model folder no build wrote (no recorded model) is not counted.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from core.errors import PerfError
from core.wording import count
from perf.records.results import RunResult
from perf.records.workloads import variant_name

#: What the several-model refusals say of why, after the models are named.
WHY = "the setups of one model are ranked against each other, and the throughput of different models does not compare"


def models_of(recorded: Mapping[str, str | None]) -> dict[str, list[str]]:
    """Model -> its variants (sorted), of ``recorded`` (variant -> the model its build recorded; ``None``: none
    recorded, not counted)."""
    out: dict[str, list[str]] = {}
    for name, model in sorted(recorded.items()):
        if model:
            out.setdefault(str(model), []).append(name)
    return dict(sorted(out.items()))


def named(models: Mapping[str, list[str]]) -> str:
    """``"2 models: mlp (8 variants), seqnet (8 variants)"``."""
    return f"{count(len(models), 'model')}: " + ", ".join(f"{m} ({count(len(vs), 'variant')})" for m, vs in models.items())


def pattern(model: str, models: Mapping[str, list[str]]) -> str:
    """The ``--variants`` value that names ``model``'s variants of ``models`` alone: ``'MODEL_*'``, or its variants as
    a comma list where that pattern would take another model's too (a model named ``mlp_big`` beside ``mlp``): one
    ``'MODEL_FORMAT_*'`` per format where those take none of the others' and are fewer than the names, else the names."""
    others = [v for m, vs in models.items() if m != model for v in vs]
    star = f"{model}_*"
    if not fnmatch.filter(others, star):
        return f"'{star}'"
    # one glob per format where that takes no other model's (trial 27, T27-16: tinyvit's 8 names beside tinyvit_v2)
    mine = models[model]
    globs = sorted({f"{model}_{v[len(model) + 1 :].split('_')[0]}_*" for v in mine if v.startswith(f"{model}_")})
    fits = all(any(fnmatch.fnmatchcase(v, g) for g in globs) for v in mine) and not any(fnmatch.filter(others, g) for g in globs)
    return f"'{','.join(globs)}'" if fits and len(globs) < len(mine) else ",".join(mine)


def advice(models: Mapping[str, list[str]]) -> str:
    """What to do instead: each model on its own, or ``triton-perf colocate`` for several models on one server."""
    alone = " or ".join(f"--variants {pattern(m, models)}" for m in models)
    colocate = " ".join(f"--model {m}={pattern(m, models)}" for m in models)
    return (
        f"measure one model at a time: {alone}; to serve several models on one server and find the combination "
        f"that does, run triton-perf colocate {colocate}"
    )


def several(names: Iterable[str], recorded: Mapping[str, str | None]) -> dict[str, list[str]] | None:
    """The models of ``names`` (:func:`models_of`, ``recorded`` giving each one's model) when there are two or more,
    else ``None``."""
    models = models_of({n: recorded.get(n) for n in names})
    return models if len(models) > 1 else None


def run_models(run: RunResult) -> dict[str, list[str]]:
    """Model -> the variants of ``run`` that serve it (a series of one client workload counted as its variant:
    :func:`perf.records.workloads.variant_name`), by the model each one's ``params`` record."""
    return models_of({variant_name(v): (v.params or {}).get("model") for v in run.variants})


def refuse_several_models(run: RunResult) -> None:
    """Refuse a pick among ``run``'s variants when they serve several models (module docstring).

    Raises:
        PerfError: they do; the message names each model with its variant count, the hint what to do.
    """
    models = run_models(run)
    if len(models) > 1:
        raise PerfError(
            f"run {run.run_id} measured variants of {named(models)}; {WHY}, so no variant is ranked or picked across "
            "them (a sweep of this version refuses such a run before it starts)",
            hint=f"its numbers stay in results.json and flat.csv; {advice(models)}; triton-perf export-deployment --variant NAME "
            "still bundles a variant named on purpose",
        )
