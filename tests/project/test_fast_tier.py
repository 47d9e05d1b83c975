"""The fast tier's guard (tests/support/fast_tier.py): inside it a real export or a pip/lint/type
run fails the test with what to do; everything else runs."""

from __future__ import annotations

import subprocess
import sys

import fast_tier
import pytest
import torch


@pytest.mark.parametrize(
    "args, tool",
    [
        (["/venv/bin/ruff", "check", "."], "ruff"),
        (["mypy"], "mypy"),
        ([sys.executable, "-m", "pip", "install", "x"], "pip"),
        ("lint-imports --no-cache", "lint-imports"),
        ([sys.executable, "-c", "pass"], None),
        (["bash", "scripts/gpu_check.sh"], None),
        (["/work/bin/perf_analyzer", "--version"], None),
    ],
)
def test_the_tools_a_fast_test_does_not_start(args, tool) -> None:
    assert fast_tier.refused_tool(args) == tool


def test_an_export_or_a_lint_run_fails_the_test_saying_mark_it_slow() -> None:
    before = (torch.jit.script, subprocess.Popen.__init__)
    with fast_tier.guard():
        for call in (
            lambda: torch.jit.script(torch.nn.Identity()),
            lambda: torch.onnx.export(torch.nn.Identity(), (torch.zeros(1),), "x.onnx"),
            lambda: subprocess.run(["ruff", "check", "."]),
        ):
            with pytest.raises(pytest.fail.Exception, match=r"in the fast tier .*mark the test `@pytest.mark.slow`"):
                call()
        assert subprocess.run([sys.executable, "-c", "print(2)"], capture_output=True, text=True).stdout == "2\n"
    assert (torch.jit.script, subprocess.Popen.__init__) == before  # put back on leaving
