"""A name typed in another case gets the "did you mean" a typo gets, wherever the toolkit matches a name
against the names it knows (issue 26: `--workload TIME=...` got no "did you mean 'time'?" while `tme`
did: every matcher called difflib.get_close_matches, which compares case-sensitively)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from builders.repository.patterns import meant
from core.names import close_names, unknown_names_error

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("typed", "valid", "expected"),
    [
        ("TIME", ["seq", "time"], ["time"]),  # only the case differs: no letter in common for difflib
        ("Time", ["time", "Time2"], ["time"]),
        ("TME", ["seq", "time"], ["time"]),  # a typo in another case
        ("tme", ["seq", "time"], ["time"]),  # a typo, as before
        ("INPUT_IDS", ["attention_mask", "input_ids"], ["input_ids"]),
        ("zzz", ["seq", "time"], []),  # nothing close
    ],
)
def test_the_closest_name_ignores_case(typed: str, valid: list[str], expected: list[str]) -> None:
    assert close_names(typed, valid) == expected


def test_every_flag_check_and_variant_pattern_suggests_across_case() -> None:
    err = unknown_names_error("--workload", ["TIME"], ["time", "b"], kind="axis", owner="its workloads")
    assert err is not None and "'TIME' (did you mean 'time'?) names no axis" in err.message
    known = ["mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_db500_mbs64"]
    assert meant("MLP_ONNX_CPU1_NODB_MBS64", known) == "mlp_onnx_cpu1_nodb_mbs64"  # a variant name
    assert meant("MLP_onnx_cpu2_*", known) == "mlp_onnx_cpu2_*"  # a pattern whose model part is in another case


def test_no_matcher_compares_names_case_sensitively_on_its_own() -> None:
    """The kind: every "did you mean" goes through core.names.close_names, none calls difflib itself."""
    own = []
    for folder in ("core", "builders", "clients", "perf", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr == "get_close_matches":
                    own.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(own) == 1 and own[0].startswith("core/names.py:"), own
