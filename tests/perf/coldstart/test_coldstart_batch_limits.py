"""Trial 27, T27-8: ``coldstart --batch-sizes 128`` above every variant's max_batch_size started a server,
measured batch 1 only and exited 0, where the sweep refused the same mistake (exit 2, nothing started). Both now
read one rule (:func:`perf.measure.batch_limits.refuse_unsendable`): sizes no variant takes are refused before
anything starts, naming the sizes, each variant's max_batch_size and what to give."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import clients.server
from core.errors import FlagError
from perf.cli.main import cli as perf_cli
from perf.coldstart import measure as coldstart
from perf.measure.batch_limits import fits, refuse_unsendable
from perf.records.coldstart import ColdStart, FirstRequests


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """Two variants (max_batch_size 8 and 0), no server (one started fails loudly), the variants measured."""
    for name, mbs in (("v_mbs8", 8), ("v_nobatch", 0)):
        (tmp_path / "repo" / name).mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(f'name: "{name}"\nbackend: "python"\nmax_batch_size: {mbs}\n')
    measured: list[str] = []

    def measure(srv: Any, variant: Any, *a: Any, **k: Any) -> ColdStart:
        measured.append(variant.name)
        return ColdStart(variant.name, load_s=2.0, first=[FirstRequests(1, latencies_ms=[9.0, 0.7, 0.6, 0.6])], others_loaded=[])

    monkeypatch.setattr(coldstart, "measure", measure)
    return tmp_path / "repo", measured


def _invoke(args: list[str]) -> Any:
    with contextlib.suppress(SystemExit):
        return CliRunner().invoke(perf_cli, ["coldstart", *args], terminal_width=400)


def test_sizes_above_every_variants_limit_are_refused_before_any_server(repo, monkeypatch) -> None:
    path, measured = repo
    monkeypatch.setattr(clients.server, "TritonServer", None)  # a server started would fail loudly
    r = _invoke(["-r", str(path), "--batch-sizes", "64,128"])
    assert r.exit_code == 2 and not measured, r.output
    out = " ".join(r.output.split())
    assert (
        "Invalid value for --batch-sizes: batch sizes 64, 128 are above the max_batch_size of every variant of this cold start (v_mbs8 8, v_nobatch 0 (batch 1 only)): nothing was started or measured"
        in out
    )
    assert "-> give --batch-sizes 8 or less" in out


def test_a_size_one_variant_takes_is_measured_as_before(repo, monkeypatch) -> None:
    path, measured = repo
    monkeypatch.setattr(clients.server, "TritonServer", _NoServer)
    r = _invoke(["-r", str(path), "--batch-sizes", "4,128"])
    assert r.exit_code == 0, r.output
    assert sorted(measured) == ["v_mbs8", "v_nobatch"]


def test_the_rule() -> None:
    assert fits(1, 0) and not fits(2, 0) and fits(8, 8) and not fits(9, 8)
    refuse_unsendable({"a": 8}, (), "x", "y")  # no sizes: nothing to refuse
    refuse_unsendable({}, (128,), "x", "y")  # no limit read: each variant fails when measured
    with pytest.raises(FlagError, match="batch size 9 is above the max_batch_size of every variant of x"):
        refuse_unsendable({"a": 8}, (9,), "x", "y")


class _NoServer:
    runtime, runtime_reason, command_line = "bundled", "given", "tritonserver ..."

    def __init__(self, opts: Any) -> None:
        import types

        self.runtime_impl = types.SimpleNamespace(launches=True, wait_policy=lambda: "PASSIVE")

    def refuse_unservable(self, models: Any, nothing: str) -> dict[str, str]:
        return {}

    def __enter__(self) -> _NoServer:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


@pytest.mark.slow  # a real build (torch.jit.script)
def test_baseline_refuses_sizes_no_variant_takes_before_measuring(tmp_path: Path, monkeypatch) -> None:
    """The same rule for ``triton-perf baseline --batch-sizes`` (extra in-process sizes, "within max_batch_size"): 128
    above the only variant's max_batch_size 4 was left out silently."""
    from source_builds import POOLED_VARIANT, pooled_repo

    import perf.profile.baseline as api

    repo = pooled_repo(tmp_path)
    monkeypatch.setattr(api, "run_baseline", None)  # a baseline measured would fail loudly
    with contextlib.suppress(SystemExit):
        r = CliRunner().invoke(perf_cli, ["baseline", str(repo), "--batch-sizes", "128"], terminal_width=400)
    assert r.exit_code == 2, r.output
    out = " ".join(r.output.split())
    assert f"batch size 128 is above the max_batch_size of every variant of this baseline ({POOLED_VARIANT} 4)" in out
    assert "nothing was measured" in out and "give --batch-sizes 4 or less" in out
