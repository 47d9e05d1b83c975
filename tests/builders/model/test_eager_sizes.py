"""Trial 12, F1: a dynamic axis' ``min`` (or ``max``) the model cannot run at.

An audio model's first conv of kernel 400 cannot run on 100 samples. The build ran the model
only at the export sizes and ``max`` before exporting, so a ``min`` below the receptive field
surfaced inside verification as a 92-line traceback. Every size the build runs the model at
is now probed before export, and every eager run (probe, reference, verification, the user's
sample) fails with one message naming the point, the axis' end, the model's line and what to do.
"""

from __future__ import annotations

import numpy as np
import pytest
import verification_models as vm

from builders.cli.main import cli
from builders.model.eager import run_eager
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from core.cli import EXIT_ERROR, run_cli
from core.errors import ModelSpecError

SEQ = ModelSpec.from_flags(["x:float32:seq"], axes=["seq=4,32,64"])  # Framer's kernel is 8: seq 4 cannot run


def test_a_min_below_the_models_receptive_field_is_refused_before_export_naming_the_axis():
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(vm.framer(), SEQ)
    lo, _opt, _hi = SEQ.dynamic_axes["seq"]
    assert f"seq={lo} (the min of dynamic axis 'seq', range {list(SEQ.dynamic_axes['seq'])})" in e.value.message
    assert "Kernel size can't be greater than actual input size" in e.value.message
    assert "raised at " in e.value.message and "verification_models.py:" in e.value.message
    assert "raise the min of 'seq'" in e.value.hint and "--dynamic-axis seq=MIN,OPT,MAX" in e.value.hint


def test_a_max_past_the_models_table_says_to_lower_the_max():
    spec = ModelSpec.from_flags(["x:float32:seq"], axes=["seq=2,4,16"])  # Positional has 8 positions
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(vm.positional(), spec)
    assert "seq=16 (the max of dynamic axis 'seq'" in e.value.message
    assert "lower the max of 'seq'" in e.value.hint and "raise the min" not in e.value.hint


def test_every_eager_run_fails_with_one_message_not_the_models_exception():
    """Reference data, verification points and --sample all run through run_eager: a failure
    at a point that is no end of a range (a batch, a user's sample) gets the same message."""
    spec = infer_outputs(vm.positional(), ModelSpec.from_flags(["x:float32:seq"], axes=["seq=2,4,8"]))
    sample = {"x": np.zeros((3, 9), np.float32)}  # the user's own sample, past the table
    with pytest.raises(ModelSpecError) as e:
        run_eager(vm.positional(), spec, sample)
    assert "at batch 3, seq=9 (range [2, 4, 8])" in e.value.message
    assert "check the input names' order" in e.value.hint


def test_the_build_command_says_one_message_and_no_traceback(tmp_path, monkeypatch, capsys):
    argv = ["builders", "build", "--model", "verification_models:framer", "--input", "x:float32:seq"]
    argv += ["--dynamic-axis", "seq=4,32,64", "--format", "torchscript", "--build-dir", str(tmp_path / "b")]
    monkeypatch.setattr("sys.argv", [*argv, "-r", str(tmp_path / "r")])
    with pytest.raises(SystemExit) as exit_:
        run_cli(cli)
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error (")]
    assert exit_.value.code == EXIT_ERROR and len(errors) == 1, err
    assert "the min of dynamic axis 'seq'" in errors[0] and "Traceback" not in err
    assert not (tmp_path / "r").exists()
