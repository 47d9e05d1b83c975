"""A served check that matches the reference does not vouch for a precision the server's
kernels never computed in (issue 11, verdicts): ``pass*`` with the reason, never a bare pass."""

from __future__ import annotations

import re
import types

import pytest
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from builders.config.variants import Variant
from clients.check import precision_not_exercised
from clients.cli.main import cli as clients_cli


def _variant(**params):
    return types.SimpleNamespace(params=Variant(model="m", **params))


@pytest.mark.parametrize(
    ("params", "caveat"),
    [
        ({"format": "onnx", "precision": "fp16"}, "computes it in fp32"),  # ORT CPU upcasts
        ({"format": "onnx", "precision": "bf16"}, "computes it in fp32"),
        ({"format": "onnx", "precision": "fp16", "kind": "gpu", "max_batch_size": 4}, None),  # ORT CUDA fp16 kernels
        ({"format": "torchscript", "precision": "fp16"}, None),  # torch CPU rounds every op to fp16
        ({"format": "onnx", "precision": "fp32"}, None),
    ],
)
def test_precision_not_exercised_follows_the_kernel_table(params, caveat):
    got = precision_not_exercised(_variant(**params))  # type: ignore[arg-type]
    assert (got is None) if caveat is None else (caveat in got and params["precision"] in got)


def test_unknown_parameters_say_nothing():
    assert precision_not_exercised(types.SimpleNamespace(params=None)) is None  # type: ignore[arg-type]


@pytest.mark.integration
def test_cli_check_marks_a_fp16_onnx_pass_on_cpu_as_not_exercised(tmp_path):
    repo = tmp_path / "repo"
    res = CliRunner().invoke(
        builders_cli,
        ["build", "--model", "verification_models:square16", "--input", "x:float32:16", "--format", "onnx"]
        + ["--precision", "fp32", "--precision", "fp16", "--max-batch-sizes", "4", "--instance-counts", "1"]
        + ["--dynamic-batching", "off", "--repository", str(repo), "--build-dir", str(tmp_path / "b")],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(
        clients_cli,
        ["check", "-r", str(repo), "--runtime", "bundled", "--protocol", "http", "--log-file", str(tmp_path / "s.log")],
    )
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if "square16" in line and "│" in line]
    fp16 = [r for r in rows if "fp16" in r]
    fp32 = [r for r in rows if "fp16" not in r]
    assert fp16 and all("pass*" in r for r in fp16), res.output
    assert fp32 and all(re.search(r"│ pass +│", r) for r in fp32), res.output
    assert (
        "2 of 2 rows passed (every output within tolerance); 2 of 2 variants passed over http; "
        "1 of 2 passing rows did not exercise the variant's precision" in _without_sizes(res.output)
    )


def _without_sizes(text: str) -> str:
    """The check's summary with its whitespace joined and the checked-sizes clause (clients.check) taken out."""
    joined = " ".join(text.split())
    assert "only (the build's one saved reference batch; other sizes not checked here)" in joined, joined
    return re.sub(
        r", at batch [^;()│┃└┘━─]*? only \(the build's one saved reference batch; other sizes not checked here\)", "", joined
    )
