"""Issue 11, item 1: inputs too tame to expose a wrong trace.

Verification runs several input draws (both signs, scaled, zeros, the user's sample) at
every batch size; tracer warnings are captured on every tracing path (torch.jit.trace, the
TorchScript-based ONNX exporter), recorded in the manifest, shown once, and turn a mismatch
into an error naming frozen data-dependent control flow, never a looser --rtol.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import verification_models as vm

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.export.torchscript import export_torchscript
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.verify.input_draws import DRAWS, draw_inputs, load_sample
from builders.verify.verification import verify_artifact
from core.errors import ModelSpecError, VerificationError

X4 = ModelSpec.from_flags(["x:float32:4"])


def _opts(tmp_path, model, mbs, fmt, **kw):
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(mbs,))
    return BuildOptions(
        model,
        formats=(fmt,),
        grid=grid,
        spec=kw.pop("spec", X4),
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        **kw,
    )


def _failed(tmp_path, name):
    """What a build that failed as a whole tried (it writes no manifest.json: issue 25, item 5)."""
    assert not (tmp_path / "builds" / name / "manifest.json").exists()
    return json.loads((tmp_path / "builds" / name / "manifest.failed.json").read_text())


@pytest.mark.slow  # real export (torch.jit.script)
@pytest.mark.parametrize("mbs", [1, 2, 4])
def test_the_issues_branch_is_scripted_and_verified_on_every_draw(tmp_path, mbs):
    result = build(_opts(tmp_path, "verification_models:branch", mbs, "torchscript"))
    e = result.manifest["exports"][0]
    assert e["strategy"] == "script" and e["status"] == "ok" and not e.get("tracer_warnings")
    assert {p["draw"] for p in e["verification"]} == set(DRAWS)


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
@pytest.mark.parametrize("mbs", [1, 2, 4])
def test_the_issues_branch_traced_fails_saying_the_trace_froze_control_flow(tmp_path, mbs):
    progress: list[str] = []
    with pytest.raises(VerificationError) as e:
        build(_opts(tmp_path, "verification_models:branch_noscript", mbs, "torchscript"), progress.append)
    assert "the trace froze data-dependent control flow" in e.value.message
    assert "Converting a tensor to a Python boolean" in e.value.message
    assert "scriptable" in e.value.hint and "torch.jit.script" in e.value.hint
    assert "--rtol" not in e.value.message and "would pass" not in e.value.message
    assert "a looser --rtol would only hide a wrong result" in e.value.hint
    failed = _failed(tmp_path, "branch_noscript")["exports"][0]
    assert failed["failed"] == "verify"
    script, trace = failed["attempts"]
    assert (script["strategy"], script["stage"], trace["strategy"], trace["stage"]) == ("script", "export", "trace", "verify")
    assert any(w.startswith("Converting a tensor to a Python boolean") for w in trace["tracer_warnings"])
    # shown once, not once per warning or per point
    assert sum("torch.jit traced" in line and "warning" in line for line in progress) == 1


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_the_issues_branch_as_onnx_fails_the_same_way_on_the_torchscript_based_exporter(tmp_path):
    with pytest.raises(VerificationError, match="the trace froze data-dependent control flow") as e:
        build(_opts(tmp_path, "verification_models:branch", 4, "onnx"))
    assert "TorchScript-based ONNX exporter" in e.value.message and "--rtol" not in e.value.message
    attempts = _failed(tmp_path, "branch")["exports"][0]["attempts"]
    assert [(a["strategy"], a["stage"]) for a in attempts] == [("dynamo", "export"), ("torchscript", "verify")]
    assert attempts[1]["tracer_warnings"]


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_a_branch_only_large_inputs_take_is_caught_by_the_scaled_draw(tmp_path):
    model = vm.normalise_large()
    spec = infer_outputs(model, X4)
    result = export_torchscript(model, spec, tmp_path)
    assert result.strategy == "trace" and result.tracer_warnings
    with pytest.raises(VerificationError, match="draw 'scaled'.*froze data-dependent control flow"):
        verify_artifact(result, model, spec, 4, {})
    # the random draw alone (what verification ran before) agrees: it never takes the branch
    x = draw_inputs(spec, 4, {}, "random", seed=4)["x"]
    assert np.abs(x).max() < 10


def test_draws_cover_both_signs_scale_and_zeros_for_every_dtype():
    spec = ModelSpec.from_flags(["x:float32:3", "ids:int64:5:0..9", "m:bool:2"])
    got = {d: draw_inputs(spec, 64, {}, d, seed=1) for d in DRAWS}
    assert (got["positive"]["x"] >= 0).all() and (got["negative"]["x"] <= 0).all()
    assert np.abs(got["scaled"]["x"]).max() > 5 and not got["zeros"]["x"].any()
    assert got["positive"]["ids"].min() >= 4 and got["negative"]["ids"].max() <= 4
    assert set(np.unique(got["scaled"]["ids"])) == {0, 9} and not got["zeros"]["ids"].any()
    assert got["positive"]["m"].all() and not got["negative"]["m"].any()
    for d in DRAWS:
        assert {k: (v.dtype, v.shape) for k, v in got[d].items()} == {
            "x": (np.float32, (64, 3)),
            "ids": (np.int64, (64, 5)),
            "m": (np.bool_, (64, 2)),
        }


@pytest.mark.slow  # real export (torch.jit.script)
def test_a_draw_where_eager_itself_is_not_finite_is_skipped_and_recorded(tmp_path):
    from torch import nn

    class Divide(nn.Module):
        def forward(self, x):
            return 1.0 / x

    model = Divide().eval()
    spec = infer_outputs(model, X4)
    result = export_torchscript(model, spec, tmp_path)
    points = verify_artifact(result, model, spec, 2, {})
    zeros = [p for p in points if p["draw"] == "zeros"]
    assert zeros and all(p["skipped"] and not p["outputs"] for p in zeros)
    assert all(p["outputs"] for p in points if p["draw"] != "zeros")


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_the_users_sample_is_verified_at_its_own_shape(tmp_path):
    np.savez(tmp_path / "sample.npz", x=-np.ones((3, 4), np.float32))
    spec = X4
    sample = load_sample(tmp_path / "sample.npz", spec)
    model = vm.branch_noscript()
    spec = infer_outputs(model, spec)
    result = export_torchscript(model, spec, tmp_path / "ts")
    with pytest.raises(VerificationError, match="draw 'sample'|draw 'negative'"):
        verify_artifact(result, model, spec, 1, {}, sample=sample)
    # 3 rows: a build of max_batch_size >= 3 (clients refuse more rows than it serves, and so does the build's --sample)
    ok = build(_opts(tmp_path, "verification_models:branch", 4, "torchscript", sample_path=tmp_path / "sample.npz"))
    points = ok.manifest["exports"][0]["verification"]
    assert [(p["batch"], p["draw"]) for p in points if p["draw"] == "sample"] == [(3, "sample")]


def test_a_sample_that_does_not_fit_the_spec_is_refused_naming_the_input(tmp_path):
    np.savez(tmp_path / "bad.npz", x=np.ones((3, 5), np.float32))
    with pytest.raises(ModelSpecError, match=r"input sample 'x'.*float32\[3, 5\]"):
        load_sample(tmp_path / "bad.npz", X4)
    np.savez(tmp_path / "none.npz", y=np.ones((3, 4), np.float32))
    with pytest.raises(ModelSpecError, match=r"no array for inputs x \(it has "):
        load_sample(tmp_path / "none.npz", X4)


def test_a_missing_sample_is_said_to_be_missing_not_told_how_to_write_one(tmp_path):
    """A missing --sample got "cannot read the input sample ...: [Errno 2] ..." with the hint to write it
    with numpy.savez (the kind of trial 12, F10): it is said missing, with the .npz files beside it."""
    np.savez(tmp_path / "samples.npz", x=np.ones((3, 4), np.float32))
    with pytest.raises(ModelSpecError, match=rf"--sample {tmp_path}/sample.npz does not exist \(in {tmp_path}: samples.npz\)"):
        load_sample(tmp_path / "sample.npz", X4)
    with pytest.raises(ModelSpecError, match="is a folder, not a file"):
        load_sample(tmp_path, X4)
