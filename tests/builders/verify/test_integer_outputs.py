"""Integer and bool outputs (an argmax label, a threshold) are compared by the fraction of their
elements that differ (trial 18, T18-2): a label flipped at a near-tie of the float scores it is
computed from passes within the bound and is said in counts; a label output that is really wrong
fails as a different result; a tighter ``--rtol`` names the near-ties and the fraction that passes."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from builders.build_verify import verdict_line
from builders.export.torchscript import export_torchscript
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec, output_placeholder
from builders.verify.compare import compare_outputs
from builders.verify.verification import error_summary, verify_artifact
from core.errors import VerificationError

SIDE = 128  # 16,384 pixels an image: one flipped pixel is 6.1e-5 of them, under the fp32 bound 1e-4
SPEC = ModelSpec((TensorSpec("image", "float32", (3, SIDE, SIDE)),), (output_placeholder("scores"), output_placeholder("mask")))


class Seg(nn.Module):
    """A segmentation head whose classes 0 and 1 nearly tie at the ``tie`` pixels: class 0 is lifted
    to 100 there and class 1 is class 0 + ``eps``, so the argmax there is 0 or 1 by the sign of a
    difference far under fp32's tolerance on the scores (2e-4 on 100: 2e-6 relative)."""

    def __init__(self, eps: float, tie: torch.Tensor) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 5, 1)
        self.eps = eps
        self.register_buffer("tie", tie.float())

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s = self.conv(image) * 0.1
        top = s[:, 0] + self.tie * 100.0
        second = s[:, 1] * (1 - self.tie) + self.tie * (top + self.eps)
        scores = torch.cat([top.unsqueeze(1), second.unsqueeze(1), s[:, 2:]], dim=1)
        return scores, scores.argmax(1)


def _tie(pixels: int) -> torch.Tensor:
    t = torch.zeros(SIDE * SIDE)
    t[:pixels] = 1
    return t.reshape(SIDE, SIDE)


def _exported(tmp_path, tie: torch.Tensor):
    """A real TorchScript export of the head with ``eps`` +1e-4, and the eager head with -1e-4: the
    export's label at each tie pixel is 1, eager PyTorch's 0 (a near-tie tipped the other way)."""
    model = Seg(1e-4, tie).eval()
    spec = infer_outputs(model, SPEC)
    return spec, export_torchscript(model, spec, tmp_path, "fp32"), Seg(-1e-4, tie).eval()


@pytest.mark.slow  # real export (torch.jit.script)
def test_a_label_flipped_at_a_near_tie_passes_and_is_said_in_counts(tmp_path):
    spec, result, eager = _exported(tmp_path, _tie(1))
    records = verify_artifact(result, eager, spec, 2, {})
    mask = [o for r in records for o in r["outputs"] if o["name"] == "mask"]
    assert all(o["passed"] for r in records for o in r["outputs"])
    assert {o["differing"] for o in mask} == {1, 2}  # one pixel an image, at batch 1 and 2
    errors = error_summary(records)
    assert errors["mask"]["max_rel_err"] == pytest.approx(1 / SIDE**2)
    assert errors["scores"]["max_rel_err"] < 1e-5
    line = verdict_line({"status": "ok", "precision": "fp32", "strategy": "script", "errors": errors, "verdicts": []})
    assert "2 of 32,768 'mask' elements differ (6.1e-05), within the integer/bool-output bound 0.0001" in line


@pytest.mark.slow  # real export (torch.jit.script)
def test_a_tighter_bound_fails_naming_the_near_ties_and_the_fraction_that_passes(tmp_path):
    spec, result, eager = _exported(tmp_path, _tie(1))
    with pytest.raises(VerificationError) as e:
        verify_artifact(result, eager, spec, 2, {"mask": 1e-5})
    msg = e.value.message
    assert "1 of 16,384 'mask' elements differ (6.1e-05), over the integer/bool-output bound 1e-05" in msg
    assert "the float outputs 'scores' agree within their tolerance" in msg and "nearly tie" in msg
    assert "not rounding" not in msg and "max rel err" not in msg
    assert "--rtol mask=0.0001 (for an integer output: the fraction of elements allowed to differ)" in e.value.hint


@pytest.mark.slow  # real export (torch.jit.script)
def test_a_really_wrong_label_output_fails_as_a_different_result(tmp_path):
    spec, result, eager = _exported(tmp_path, _tie(SIDE * SIDE // 2))  # half the pixels flip
    with pytest.raises(VerificationError, match="a different result, not labels flipped at near-ties") as e:
        verify_artifact(result, eager, spec, 2, {})
    assert "8,192 of 16,384 'mask' elements differ (0.5), over the integer/bool-output bound 0.0001" in e.value.message
    assert "--rtol" not in (e.value.hint or "")


def test_a_small_integer_output_must_agree_exactly():
    # 64 labels: the fp32 bound 1e-4 allows none to differ
    exp = np.arange(64, dtype=np.int64) % 5
    act = exp.copy()
    act[3] += 1
    c = compare_outputs({"label": act}, {"label": exp}, 1e-4)[0]
    assert not c.passed and (c.differing, c.elements) == (1, 64)
    assert c.problem == "1 of 64 'label' elements differ (0.016), over the integer/bool-output bound 0.0001"


def test_a_bool_output_is_compared_by_the_fraction_differing():
    exp = np.zeros(20_000, dtype=bool)
    act = exp.copy()
    act[0] = True
    c = compare_outputs({"on": act}, {"on": exp}, 1e-4)[0]
    assert c.passed and c.max_rel_err == pytest.approx(5e-5) and c.differing == 1
    f = compare_outputs({"y": np.ones(3, np.float32)}, {"y": np.ones(3, np.float32)}, 1e-4)[0]
    assert f.differing is None and f.elements is None


def test_a_bound_that_lets_every_label_differ_is_refused_before_any_export() -> None:
    """Re-check of trial 18: `--rtol mask=1` (trial 18's own flag under the float rule) was accepted and passed a mask
    whatever its labels; as a fraction of elements, 1 or more checks nothing."""
    from builders.verify.compare import refuse_open_bounds
    from core.errors import ModelSpecError

    dtypes = {"scores": "float32", "mask": "int64", "valid": "bool", "half": "bfloat16"}
    refuse_open_bounds(dtypes, {"scores": 2.0, "mask": 0.5, "half": 3.0})  # a float's rtol, a fraction below 1: kept
    with pytest.raises(ModelSpecError) as e:
        refuse_open_bounds(dtypes, {"mask": 1.0, "valid": 2.0, "scores": 1.0})
    assert e.value.flag == "--rtol"
    assert e.value.message.startswith("--rtol mask=1 (int64), valid=2 (bool): an integer or bool output is compared by")
    assert "below 1 (such as 1e-3), or 0 for an exact match" in (e.value.hint or "")
