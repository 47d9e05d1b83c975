"""Issue 11, item 6: an output whose batch axis is not first.

The batch axis of every output is found from two runs that differ only in the batch size;
with max_batch_size > 0 an output whose batch axis is not first is refused naming the
output and axis, with max_batch_size 0 it is served as it is; and every verified batch
size checks that the eager model still has it (``squeeze()`` drops it at batch 1)."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest
import verification_models as vm

from builders.build import BuildOptions, build
from builders.config.pbtxt import read_config
from builders.config.variants import VariantGrid
from builders.model.outputs import batch_axis, infer_outputs, require_batch_first
from builders.model.spec import ModelSpec
from core.errors import ModelSpecError, VerificationError

X16 = ModelSpec.from_flags(["x:float32:16"])


def _opts(tmp_path, model, mbs, spec=X16, formats=("torchscript", "onnx")):
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=mbs)
    return BuildOptions(model, formats=formats, grid=grid, spec=spec, repository=tmp_path / "repo", build_dir=tmp_path / "builds")


def test_the_issues_transpose_has_its_batch_axis_found_at_position_1():
    spec = infer_outputs(vm.transposed(), X16)
    (out,) = spec.outputs
    assert (out.batch_axis, out.shape, out.full_shape()) == (1, (4,), (4, "batch"))


def test_the_issues_transpose_is_refused_with_batching_naming_output_and_axis(tmp_path):
    with pytest.raises(ModelSpecError) as e:
        build(_opts(tmp_path, "verification_models:transposed", (4,)))
    assert "output 'OUTPUT__0': its batch axis is axis 1 of shape [4, 'batch']" in e.value.message
    assert "--max-batch-sizes 0" in e.value.hint
    # a grid mixing 0 and 4 is refused for the 4
    with pytest.raises(ModelSpecError, match=r"max_batch_size \[4\]"):
        build(_opts(tmp_path, "verification_models:transposed", (0, 4)))


@pytest.mark.slow  # real export (torch.jit.script, torch.onnx.export, torch.export)
def test_the_issues_transpose_builds_with_max_batch_size_0_and_configs_put_the_batch_second(tmp_path):
    result = build(_opts(tmp_path, "verification_models:transposed", (0,)))
    assert {e["status"] for e in result.manifest["exports"]} == {"ok"}
    assert result.manifest["spec"]["outputs"][0]["batch_axis"] == 1
    for d in result.variant_dirs:
        cfg = read_config(d / "config.pbtxt")
        # the batch axis at the one row it was verified at (trial 30, F5: -1 advertised rows never verified)
        assert cfg.max_batch_size == 0 and list(cfg.output[0].dims) == [4, 1], d.name
        assert list(cfg.input[0].dims) == [1, 16]


def test_a_dynamic_axis_of_the_batchs_sizes_does_not_hide_a_moved_batch(tmp_path):
    """Own example: ``[B, seq] -> [seq, B]`` with seq exported at 2 and max 3, the sizes
    of the two batch runs: the old check (axis 0 has the batch's size) passed."""
    spec = ModelSpec.from_flags(["x:float32:seq"], [], ["seq=1,1,3"])
    inferred = infer_outputs(vm.transposed_seq(), spec)
    assert inferred.outputs[0].batch_axis == 1 and inferred.outputs[0].shape == ("seq",)
    with pytest.raises(ModelSpecError, match="batch axis is axis 1 of shape \\['seq', 'batch'\\]"):
        require_batch_first(inferred, (8,))
    require_batch_first(inferred, (0,))  # accepted without batching


def test_an_output_without_batch_axis_is_refused_only_with_batching():
    import torch

    class Total(torch.nn.Module):
        def forward(self, x):
            return x.sum()

    spec = infer_outputs(Total(), X16)
    assert spec.outputs[0].batch_axis is None and spec.outputs[0].shape == ()
    with pytest.raises(ModelSpecError, match="it has no batch axis"):
        require_batch_first(spec, (4,))
    require_batch_first(spec, (0,))


def test_axes_that_change_with_the_batch_in_other_ways_are_named():
    assert batch_axis("y", (2, 4), (3, 4), 2, 3) == 0 and batch_axis("y", (4, 2), (4, 3), 2, 3) == 1
    assert batch_axis("y", (4,), (4,), 2, 3) is None
    with pytest.raises(ModelSpecError, match=r"axes \[0, 1\] change with the batch"):
        batch_axis("y", (2, 2), (3, 3), 2, 3)  # x @ x.T mixes the samples of a batch
    with pytest.raises(ModelSpecError, match="rank changes"):
        batch_axis("y", (2, 4), (3, 4, 1), 2, 3)


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_squeeze_that_drops_the_batch_at_batch_1_fails_verification(tmp_path):
    """Own example: ``lin(x).squeeze()`` is ``[B]`` at B > 1 and ``[]`` at B = 1; the export
    does the same, so comparing it with eager PyTorch alone passed."""
    with pytest.raises(VerificationError) as e:
        build(_opts(tmp_path, "verification_models:squeezed", (4,), formats=("torchscript",)))
    assert "has shape []: its batch axis 0 (size 1 at this batch) is not there" in e.value.message
    assert "batch 1" in e.value.message and "squeeze" in e.value.hint


@pytest.mark.integration
def test_a_transposed_output_is_served_with_max_batch_size_0(tmp_path, bundled_server):
    """The mbs-0 variants of the transpose load on the real bundled server (config dims ``[1, 16]`` for an export
    whose batch dim is dynamic) and answer ``[4, 1]`` equal to eager PyTorch; a request of 3 rows, never verified, is
    refused by the server itself (trial 30, F5: the config's ``-1`` took it)."""
    import torch
    from google.protobuf import json_format

    from clients.infer import infer, make_client

    result = build(_opts(tmp_path, "verification_models:transposed", (0,)))
    x = np.random.default_rng(0).standard_normal((1, 16)).astype(np.float32)
    with torch.no_grad():
        expected = vm.transposed()(torch.from_numpy(x)).numpy()
    for d in result.variant_dirs:
        cfg = read_config(d / "config.pbtxt")
        files = {f"file:1/{f.name}": f.read_bytes() for f in (d / "1").iterdir()}
        with contextlib.closing(make_client(bundled_server.grpc_url, "grpc")) as c:
            c.load_model(d.name, config=json_format.MessageToJson(cfg), files=files)
        try:
            out = infer(bundled_server.grpc_url, "grpc", d.name, {"x": x})
            assert out["OUTPUT__0"].shape == (4, 1), d.name
            np.testing.assert_allclose(out["OUTPUT__0"], expected, rtol=1e-4, atol=1e-5)
            with pytest.raises(Exception, match=r"(?i)shape|dims"):
                infer(bundled_server.grpc_url, "grpc", d.name, {"x": np.repeat(x, 3, axis=0)})
        finally:
            bundled_server.unload(d.name)
    assert json.loads((result.manifest_path).read_text())["spec"]["outputs"][0]["batch_axis"] == 1
