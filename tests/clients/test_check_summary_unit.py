"""The line under ``clients check``'s table counts the rows shown, then the variants (issue 26:
"16 of 16 checks passed" under a 32-row table; "4 checks" over 2 rows), and every count agrees
with its noun."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from builders.verify.compare import compare_outputs
from clients.check import CheckResult, check_summary
from clients.cli.main import results_table
from core.cli import print_table
from core.wording import count, of, plural


def _output(name: str, passed: bool = True) -> dict:
    """A float output's comparison (builders.verify.compare.OutputComparison.to_json); a failed one out of tolerance."""
    problem = None if passed else "max relative error 0.1 > tolerance 0.0001"
    return {
        "name": name, "passed": passed, "max_abs_err": 0.0, "max_rel_err": 0.0 if passed else 0.1, "rtol": 1e-4,
        "problem": problem, "differing": None, "elements": None,
    }  # fmt: skip


def _rows(results: list[CheckResult]) -> int:
    out = io.StringIO()
    print_table(results_table(results), Console(file=out))
    return sum(1 for line in out.getvalue().splitlines() if line.startswith("│ v"))


def test_two_outputs_per_check_are_counted_as_the_rows_show() -> None:
    results = [CheckResult(f"v{i}", p, True, [_output("logits"), _output("hidden")]) for i in range(8) for p in ("http", "grpc")]
    assert _rows(results) == 32
    line = check_summary(results)
    assert line == "32 of 32 rows passed (every output within tolerance); 8 of 8 variants passed over http and grpc"


def test_a_variant_that_did_not_load_is_one_row_and_counted_by_name() -> None:
    results = [
        CheckResult("v0", "http", True, [_output("y")]),
        CheckResult("v0", "grpc", False, [_output("y", passed=False)]),
        CheckResult("v1", "http", False, [], "failed to load: no model.py"),
        CheckResult("v1", "grpc", False, [], "failed to load: no model.py"),
    ]
    assert _rows(results) == 3
    line = check_summary(results)
    assert line == (
        "1 of 3 rows passed: 1 row got no output (the error in the row), 1 output out of tolerance; "
        "0 of 2 variants passed over http and grpc"
    )


def test_a_pass_that_did_not_exercise_the_precision_is_counted_among_the_passes() -> None:
    results = [
        CheckResult("v_fp16", "http", True, [_output("y")], not_exercised="CPU kernels compute fp16 in fp32"),
        CheckResult("v_fp32", "http", True, [_output("y")]),
    ]
    assert check_summary(results).endswith(
        "; 1 of 2 passing rows did not exercise the variant's precision (pass*: CPU kernels compute fp16 in fp32)"
    )


def test_two_variants_that_did_not_load_are_two_rows_and_counted_as_two(  # new-user trial: "4 checks" over 2 rows
) -> None:
    results = [CheckResult(v, p, False, [], f"{v}: load failed") for v in ("va", "vb") for p in ("http", "grpc")]
    assert _rows(results) == 2
    assert check_summary(results) == (
        "0 of 2 rows passed: 2 rows got no output (the error in the row); 0 of 2 variants passed over http and grpc"
    )


def test_nouns_agree_with_their_number() -> None:
    assert count(1, "variant") == "1 variant" and count(0, "variant") == "0 variants"
    assert of(1, 1, "variant × protocol check") == "1 of 1 variant × protocol check"
    assert [plural(n) for n in ("batch", "pass", "entry", "key", "model")] == ["batches", "passes", "entries", "keys", "models"]


def _table(results: list[CheckResult]) -> str:
    out = io.StringIO()
    print_table(results_table(results), Console(file=out, width=200))
    return out.getvalue()


def test_the_summary_and_table_say_the_one_batch_and_axis_sizes_checked() -> None:
    """Trial 7 F17: "12 of 12 rows passed (every output within tolerance)" over one saved batch
    (batch 4, ncat=8), without saying which: the sizes sent are read from the reference inputs."""
    import numpy as np

    from builders.model.tensor import TensorSpec
    from clients.shapes import batch_sizes_of

    specs = [TensorSpec("features", "float32", (24,)), TensorSpec("cat_ids", "int64", ("ncat",))]
    sent = {"features": np.zeros((4, 24), np.float32), "cat_ids": np.zeros((4, 8), np.int64)}
    sizes = batch_sizes_of(specs, sent)
    assert sizes == {"batch": 4, "ncat": 8}
    results = [CheckResult(f"v{i}", p, True, [_output("y")], sizes=sizes) for i in range(2) for p in ("http", "grpc")]
    assert check_summary(results) == (
        "4 of 4 rows passed (every output within tolerance), at batch 4, ncat=8 only (the build's one saved "
        "reference batch; other sizes not checked here); 2 of 2 variants passed over http and grpc"
    )
    assert "served outputs vs PyTorch reference, at batch 4, ncat=8" in _table(results)
    other = CheckResult("w", "http", True, [_output("y")], sizes={"batch": 2, "seq": 16})
    assert "at batch 4, ncat=8 (2 variants); batch 2, seq=16 (1 variant) only" in check_summary([*results, other])
    table = _table([*results, other])
    assert "┃ at " in table and "batch 2, seq=16" in table  # a column where the variants differ


def test_sizes_of_a_batch_without_a_dynamic_axis_is_the_batch_alone() -> None:
    import numpy as np

    from builders.model.tensor import TensorSpec
    from clients.shapes import batch_sizes_of, batch_sizes_text

    assert batch_sizes_text(batch_sizes_of([TensorSpec("x", "float32", (3,))], {"x": np.zeros((2, 3))})) == "batch 2"
    assert batch_sizes_of([TensorSpec("x", "float32", (3,))], {}) == {}


def test_an_integer_or_bool_output_is_said_in_the_builds_words_not_as_an_error() -> None:
    """Trial 19, T19-10: a bool mask showed "0 | 0 | 1e-04" under "max abs err / max rel err / rtol" where the
    build said "0 of 12,800 elements differ": its row now says the build's count, its error cells "-"."""
    mask = {**_output("mask"), "differing": 0, "elements": 12800}
    out = io.StringIO()
    print_table(results_table([CheckResult("ranker", "http", True, [_output("scores"), mask])]), Console(file=out, width=300))
    table = out.getvalue()
    row = next(line for line in table.splitlines() if "mask" in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert cells[3:6] == ["-", "-", "-"], row
    flat = " ".join(table.replace("│", " ").split())  # the result cell wraps onto a second line
    assert "pass: 0 of 12,800 elements differ (0), within the integer/bool-output bound 0.0001" in flat
    scores = next(line for line in table.splitlines() if "scores" in line)
    assert "1e-04" in scores and "elements differ" not in scores  # a float output keeps its errors and rtol


def _compared(name: str, actual: np.ndarray, expected: np.ndarray) -> dict:
    return compare_outputs({name: actual}, {name: expected}, 1e-4)[0].to_json()


def test_the_summary_names_the_bound_each_output_was_held_to() -> None:
    """s16's left open (T19-10's kind): "every output within tolerance" under a bool mask compared by the count of
    elements that differ (the integer/bool-output bound), and "out of tolerance" for one over that bound or failed
    before any bound applied (a shape)."""
    mask = np.array([[True, False, True, True]])
    scores = np.array([[0.5, 0.25, 1.0, 2.0]], dtype=np.float32)
    ok_mask, ok_scores = _compared("mask", mask, mask), _compared("scores", scores, scores)
    both = [CheckResult("v", "http", True, [ok_scores, ok_mask])]
    assert check_summary(both).startswith(
        "2 of 2 rows passed (every output within its bound: tolerance, or the integer/bool-output bound for 1 "
        "integer/bool output); "
    ), check_summary(both)
    only_mask = [CheckResult("v", "http", True, [ok_mask])]
    assert check_summary(only_mask).startswith("1 of 1 row passed (every output within the integer/bool-output bound); ")
    bad_mask = _compared("mask", ~mask, mask)
    bad_shape = _compared("scores", scores[:, :2], scores)
    failed = [CheckResult("v", "http", False, [bad_mask, bad_shape])]
    assert check_summary(failed).startswith(
        "0 of 2 rows passed: 1 output over the integer/bool-output bound, 1 output failed before any bound applied "
        "(shape, dtype, NaN or missing: the row says which); "
    ), check_summary(failed)
    assert "tolerance" not in check_summary(failed)
