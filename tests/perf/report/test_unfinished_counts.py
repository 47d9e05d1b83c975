"""What an unfinished run holds (the Ctrl-C line, report.md, compare, export-deployment) puts every
variant in one named group, so its counts add up to the run's (trial 19, T19-13: "numbers for 1 of 4
variants (...), 2 not measured (...)" left out the 4th, cut for time)."""

from __future__ import annotations

import re

from factories import level_result, run_result, variant_result

from perf.records.unfinished import holds_text


def _counts_add_up(text: str, total: int) -> None:
    said = [int(n) for n in re.findall(r"(?:numbers for |, )(\d+) (?:of \d+ variants|[a-z][a-z ]+ \()", text)]
    assert sum(said) == total, text


def test_every_variant_of_an_interrupted_run_is_counted_and_named():
    run = run_result(
        [
            variant_result("a", [level_result(1, 400.0, 3.0, spread=True)], status="pending"),
            variant_result("b", status="pending"),
            variant_result("c", status="skipped", error="cut for time: 3 variants need about 94 s, 40 s left"),
            variant_result(
                "d",
                status="skipped",
                error="not measured: the time budget ended before its first round (a longer --time-budget measures it)",
            ),
            variant_result("e", status="skipped", error="no asked level can run on it: batch 128 over max_batch_size 64"),
            variant_result("f", status="failed", error="the model did not load"),
        ],
        run_id="k",
        settings={"concurrency": [1, 2], "batch_sizes": [1], "protocol": "grpc"},
    )
    text = holds_text(run)
    assert "numbers for 1 of 6 variants (1 of them part-measured: `a`)" in text
    assert ", 1 not measured (`b`), 2 cut for time (`c`, `d`), 1 skipped (`e`), 1 failed (`f`)" in text
    _counts_add_up(text, 6)
