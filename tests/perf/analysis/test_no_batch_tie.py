"""A tie set's pick never contradicts the run's own batching finding (trial 24, T24-8, T24-10). A mixed-size sweep
(``--shapes H=64..256 --shapes W=64..256 --latency-budget-ms 80``, run s2: tests/data/trial24_s2) said "dynamic
batching (segnet_onnx_cpu1_db500_mbs8) formed no batch under the mixed sizes sent ... -> serve them with batching off",
then named the batching variant first of a tie with the same variant with batching off, in report.md, the console's
Recommendation line and the bundle export-deployment wrote. Now the variant with batching off is named first of such a
tie, saying why (:func:`perf.analysis.ranking.rank._batching_off_first`), a pick of the batching variant says the
finding, and a bundle of it says it with the variant to deploy instead. No server."""

from __future__ import annotations

import gzip
from pathlib import Path

from factories import level_result, params, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.recommendation.uniform_sizes import mixed_no_batch_note
from perf.analysis.stats.no_batch import formed_no_batch
from perf.cli.summary import recommendation_line
from perf.deploy.choose import choose_variant
from perf.deploy.workloads import batching_caveat
from perf.records.results import RunResult, load
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload

S2 = Path(__file__).resolve().parents[2] / "data" / "trial24_s2" / "results.json.gz"
DB, NODB = "segnet_onnx_cpu1_db500_mbs8", "segnet_onnx_cpu1_nodb_mbs8"
MIX = "H=64..256,W=64..256"
#: Per round, c=2: the batching variant ahead in 4 of 6 rounds by 1-3 %: a tie the rule does not separate, named
#: first by the rounds they shared.
ROUNDS = {DB: (100.0, 102.0, 98.0, 101.0, 99.0, 103.0), NODB: (99.0, 100.0, 100.0, 100.0, 100.0, 100.0)}


def _variant(db: bool, held: float, shape: str = MIX):
    p = {**params(1, db, model="segnet", max_batch_size=8), "name": DB if db else NODB}
    levels = [
        level_result(c, t * (0.6 if c == 1 else 1.0), 40.0 + 10 * c, spread=True, shape=shape, trial=r,
                     avg_server_batch_size=1.0 if c == 1 else held)
        for c in (1, 2)
        for r, t in enumerate(ROUNDS[DB if db else NODB])
    ]  # fmt: skip
    return variant_result(DB if db else NODB, levels, params=p)


def _run(held: float = 1.0, shape: str = MIX) -> RunResult:
    variants = [_variant(True, held, shape), _variant(False, 1.0, shape)]
    return run_result(variants, settings={"latency_budget_ms": 80.0, "latency_percentile": 99}, rounds=RoundsRecord(seed=24))


def test_a_tie_where_batching_formed_no_batch_names_the_variant_with_batching_off_first() -> None:
    run = _run()
    assert set(formed_no_batch(run.variants)) == {DB} and mixed_no_batch_note(run) is not None  # one finding, one source
    rec = recommend(run, 80.0)
    for pick in (rec.best_under_budget, rec.best_peak):
        assert pick is not None and pick.tie_set == [NODB, DB], pick and pick.tie_set  # old: [DB, NODB]
        text = pick.describe()
        assert "it is named first by its batching off (batching formed no batch: `segnet_onnx_cpu1_db500_mbs8`, the " in text
        assert "held at most 1.00 requests per execution under the mixed sizes sent, so its requests only wait the queue" in text
        assert pick.no_batch is None  # its own batching is off
    line = recommendation_line(rec) or ""
    assert f"best under the p99 budget of 80.00 ms: `{NODB}` at c=2" in line and DB not in line


def test_batching_that_formed_batches_or_a_pick_the_rule_separated_keeps_the_rules_order() -> None:
    rec = recommend(_run(held=1.8), 80.0)  # batches formed: no finding, the rule's order
    assert rec.best_under_budget is not None and rec.best_under_budget.tie_set == [DB, NODB]
    assert rec.best_under_budget.no_batch is None and "batching off" not in rec.best_under_budget.describe()
    rec = recommend(_run(shape="H=128,W=128"), 80.0)  # one size: Triton can batch it; not the mixed finding
    assert rec.best_under_budget is not None and rec.best_under_budget.variant == DB


def test_the_trial_run_names_batching_off_first_and_says_the_finding_with_a_batching_pick(tmp_path: Path) -> None:
    folder = tmp_path / "s2"
    folder.mkdir()
    (folder / "results.json").write_bytes(gzip.decompress(S2.read_bytes()))
    run = load(folder)
    assert mixed_no_batch_note(run) is not None
    rec = recommend(split_by_workload(run), 80.0)
    under, peak = rec.best_under_budget, rec.best_peak
    assert under is not None and under.variant.startswith(NODB) and under.concurrency == 2  # old: db500 c=2
    assert "it is named first by its batching off (batching formed no batch" in under.describe()
    # the best peak: db500 c=2, nodb's peak (c=16) never in a round with it: not a tie; it says the finding
    assert peak is not None and peak.variant.startswith(DB)
    assert "its dynamic batching formed no batch under the mixed sizes sent" in peak.describe()
    line = recommendation_line(rec) or ""
    assert f"`{NODB} [H=64..256,W=64..256 (mixed)]` at c=2" in line
    assert "(its dynamic batching formed no batch under the mixed sizes sent" in line  # the peak's words, on the line
    # the bundle: the run's pick is the variant with batching off; one of the batching variant, named, says why not
    assert choose_variant(run, results_dir=tmp_path).variant == NODB
    chosen = choose_variant(run, DB, results_dir=tmp_path, workload_text="H=64..256,W=64..256 (mixed)")
    said = [c for c in chosen.caveats if c.startswith("this variant's dynamic batching formed no batch")]
    assert said and said[0].endswith(
        f"-> deploy the same variant with batching off, which the run measured: `triton-perf export-deployment` with --variant {NODB}"
    )
    assert batching_caveat(run, f"{NODB} [H=64..256,W=64..256 (mixed)]") is None
