"""A user's integer input values outside the build's verified range get one treatment at both
ends (trial 11, F7): ``categories`` all negative was sent by ``clients infer --input-data`` without
a word, while ONNX Runtime's Gather read -1 as a table's last row where eager PyTorch refuses it;
values above the range were said only when the server refused them. Now both ends are sent with
the same warning (the range is what the build drew from, not always all the model accepts), by
``clients infer`` and ``triton-perf sweep --input-data``; a domain break is refused by both."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from served_configs import variant_config, write_variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import DEFAULT_INT_RANGE
from clients.cli.main import cli
from clients.input_files import load_input_file
from clients.inputs import ModelSignature
from clients.server import ServerOptions
from core.errors import ClientError, PerfError
from perf.measure.user_data import check_user_data
from perf.sweep.run import Sweep, SweepOptions

#: A tabular model of this file's own: three category codes (every table has at least 4 rows:
#: verified 0..3), a padding mask and two numbers.
SPEC = ModelSpec.from_flags(["codes:int64:3:0..3", "pad:int64:5:mask", "num:float32:2"], ["y"])
VARIANT = Variant("tab", "onnx", max_batch_size=8)
CONFIG = variant_config(SPEC, VARIANT)
SIG = ModelSignature.from_config(CONFIG)


def _file(tmp_path: Path, name: str, codes: np.ndarray, pad: np.ndarray | None = None) -> Path:
    rows = codes.shape[0]
    path = tmp_path / name
    np.savez(path, codes=codes, pad=np.ones((rows, 5), np.int64) if pad is None else pad, num=np.zeros((rows, 2), np.float32))
    return path


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_values_below_and_above_the_verified_range_get_the_same_warning(tmp_path: Path, caplog) -> None:
    below = _file(tmp_path, "below.npz", -np.arange(1, 7, dtype=np.int64).reshape(2, 3))
    above = _file(tmp_path, "above.npz", np.array([[0, 1, 9], [2, 3, 3]], np.int64))
    within = _file(tmp_path, "within.npz", np.array([[0, 1, 3], [2, 3, 0]], np.int64))
    with caplog.at_level(logging.WARNING):
        assert load_input_file(within, SIG, 1, SPEC)["codes"].shape == (2, 3)
    assert _warnings(caplog) == []
    said = {}
    for path in (below, above):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            sent = load_input_file(path, SIG, 1, SPEC)  # sent, not refused: at either end
        assert sent["codes"].shape == (2, 3)
        (said[path.stem],) = _warnings(caplog)
    assert said["below"].startswith(
        f"input 'codes' from {below} holds -6..-1, outside the build's verified range 0..3 (its value_range): "
        "6 below 0 of its 6 values."
    )
    assert said["above"].startswith(
        f"input 'codes' from {above} holds 0..9, outside the build's verified range 0..3 (its value_range): "
        "1 above 3 of its 6 values."
    )
    # the same words at both ends, save the values and the counts
    strip = lambda s: re.sub(r"from \S+ holds \S+, .*? values\. ", "", s)  # noqa: E731
    assert strip(said["below"]) == strip(said["above"])
    assert "ONNX Runtime's Gather reads it from the table's end" in said["below"]
    assert said["below"].endswith(
        "-> send values within 0..3, or rebuild with the range the model accepts (--input codes:int64:3:LOW..HIGH, "
        'or "value_range" in the spec file)'
    )


def test_an_input_without_a_value_range_is_checked_against_the_default_it_was_verified_on(tmp_path: Path, caplog) -> None:
    spec = ModelSpec.from_flags(["codes:int64:3", "pad:int64:5:mask", "num:float32:2"], ["y"])
    lo, hi = DEFAULT_INT_RANGE
    path = _file(tmp_path, "d.npz", np.array([[lo - 1, lo, hi + 1]], np.int64))
    with caplog.at_level(logging.WARNING):
        load_input_file(path, SIG, 1, spec)
    (said,) = _warnings(caplog)
    assert (
        f"outside the build's verified range {lo}..{hi} (the default range: its spec gives none): 1 below {lo}, 1 above {hi}"
        in said
    )


def test_a_domain_break_is_still_refused(tmp_path: Path) -> None:
    pad = np.ones((2, 5), np.int64)
    pad[1] = 0
    path = _file(tmp_path, "pad.npz", np.zeros((2, 3), np.int64), pad)
    with pytest.raises(ClientError, match=r"input 'pad' has 1 of its 2 rows with no 1"):
        load_input_file(path, SIG, 1, SPEC)


def test_clients_infer_sends_negative_codes_with_the_warning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_build) -> None:
    import clients.infer

    repo = fake_build(SPEC, VARIANT)
    variant, config = VARIANT.name, CONFIG
    sent: list[dict[str, np.ndarray]] = []

    class Worker:  # one request thread of run_requests: what it was given to send, an answer
        def __init__(self, url: str, protocol: str, sig: Any, inputs: dict[str, np.ndarray], *rest: Any) -> None:
            sent.append(inputs)
            self.rows = len(inputs["codes"])

        def __enter__(self) -> Worker:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def infer(self) -> dict[str, np.ndarray]:
            return {"y": np.zeros((self.rows, 1), np.float32)}

    monkeypatch.setattr(clients.infer, "make_client", lambda url, protocol: type("C", (), {"close": lambda self: None})())
    monkeypatch.setattr(clients.infer, "_connect", lambda *a: None)
    monkeypatch.setattr(clients.infer, "model_io", lambda *a: config)
    monkeypatch.setattr(clients.infer, "_Worker", Worker)
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    neg = _file(tmp_path, "neg.npz", np.full((4, 3), -1, np.int64))
    res = CliRunner().invoke(cli, ["infer", variant, "--url", "h:1", "-r", str(repo), "--input-data", str(neg)])
    assert res.exit_code == 0, res.output
    assert sent and int(sent[0]["codes"].min()) == -1
    assert "input 'codes' from" in res.output and "holds -1..-1, outside the build's verified range 0..3" in res.output


def test_perf_input_data_follows_the_same_rule(tmp_path: Path, caplog) -> None:
    entries = [{"codes": {"content": [-2, 0, 1], "shape": [3]}, "pad": [1, 1, 0, 0, 0], "num": [0.0, 1.0]}]
    data = tmp_path / "pa.json"
    data.write_text(json.dumps({"data": entries}))
    with caplog.at_level(logging.WARNING):
        check_user_data("tab_onnx", CONFIG, SPEC, data)
    (said,) = _warnings(caplog)
    assert said.startswith(
        f"input 'codes' from tab_onnx's --input-data {data} holds -2..1, outside the build's verified range 0..3"
    )
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        check_user_data("tab_onnx", CONFIG, SPEC, Path("random"))
    (said,) = _warnings(caplog)
    assert "perf_analyzer sends its own random values for 'codes', not drawn from the build's verified range 0..3" in said
    with pytest.raises(PerfError, match=r"input 'pad' has 1 of its 1 rows with no 1"):
        check_user_data("tab_onnx", CONFIG, SPEC, Path("zero"))  # zeros break the mask: refused, as clients infer refuses them
    entries[0]["pad"] = [0, 0, 0, 0, 0]
    data.write_text(json.dumps({"data": entries}))
    with pytest.raises(PerfError, match=r"tab_onnx's --input-data .*pa.json: input 'pad' has 1 of its 1 rows with no 1"):
        check_user_data("tab_onnx", CONFIG, SPEC, data)


def test_a_sweep_checks_its_input_data_before_anything_starts(tmp_path: Path, fake_build, caplog) -> None:
    repo = fake_build(SPEC, VARIANT)
    write_variant_config(repo, SPEC, VARIANT)
    data = tmp_path / "pa.json"
    data.write_text(json.dumps({"data": [{"codes": [7, 0, 1], "pad": [0, 0, 0, 0, 0], "num": [0.0, 1.0]}]}))
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"), concurrency=(1,), results_dir=tmp_path / "results", run_id="r", input_data=data
    )
    with pytest.raises(PerfError, match=r"input 'pad' has 1 of its 1 rows with no 1"):
        Sweep(opts)
    assert not (tmp_path / "results" / "r").exists()
    data.write_text(json.dumps({"data": [{"codes": [7, 0, 1], "pad": [1, 0, 0, 0, 0], "num": [0.0, 1.0]}]}))
    with caplog.at_level(logging.WARNING):
        Sweep(opts)
    assert any(
        "input 'codes' from" in w and "holds 0..7, outside the build's verified range 0..3" in w for w in _warnings(caplog)
    )
