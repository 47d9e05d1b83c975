"""Every output states an input's shape one way (trial 26, T26-3): per request, the batch axis first, the
per-sample dims beside it. The sweep said "inputs sent per request: waveform [1, 8000]" (per-sample dims) where
``clients infer`` said "waveform [1, 1, 8000]", and still "[1, 8000]" at ``--batch-sizes 4``. No server."""

from __future__ import annotations

from pathlib import Path

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.inputs import ModelSignature, plan_inputs
from clients.request_shapes import per_sample_shape, request_shape
from clients.runtimes.options import ServerOptions
from perf.measure.inputs import describe_dynamic
from perf.search.plan import VariantPlan
from perf.sweep.opening import input_lines
from perf.sweep.options import SweepOptions

#: A sonar model of one channel and a dynamic span: per-sample dims [1, span], the batch axis apart.
SPEC = ModelSpec((TensorSpec("pulse", "float32", (1, "span")),), (), {"span": (400, 2000, 4000)})
CONFIG = {
    "name": "sonar",
    "max_batch_size": 8,
    "input": [{"name": "pulse", "data_type": "TYPE_FP32", "dims": [1, -1]}],
    "output": [{"name": "echo", "data_type": "TYPE_FP32", "dims": [6]}],
}
LEVELS = [(1, 4, 0, None, None)]


def _opening(batch_sizes: tuple[int, ...], config: dict = CONFIG, spec: ModelSpec | None = SPEC) -> str:
    opts = SweepOptions(ServerOptions(Path("model_repository")), batch_sizes=batch_sizes)
    plan = VariantPlan("sonar_onnx_cpu1", LEVELS, config=config, batch_sizes=list(batch_sizes))
    (line,) = input_lines({"sonar_onnx_cpu1": plan}, {"sonar_onnx_cpu1": spec}, opts)
    return line


def test_the_words_of_one_shape():
    assert request_shape([1, 2000], 4) == "[4, 1, 2000] (batch 4 × [1, 2000] per sample)"
    assert request_shape([1, "span"], [1, 4, 4]) == "[b, 1, span] (batch b × [1, span] per sample, b ∈ {1, 4})"
    assert request_shape([3, 2000], None) == "[3, 2000] (max_batch_size 0: the whole request)"
    assert per_sample_shape([1, 2000]) == "[1, 2000] per sample"


def test_the_sweep_and_clients_infer_say_one_request_in_the_same_words():
    infer = plan_inputs(ModelSignature.from_config(CONFIG), 4, SPEC)[0].describe()
    said = "[4, 1, 2000] (batch 4 × [1, 2000] per sample)"
    assert infer.startswith(f"pulse {said} float32")
    sweep = _opening((4,))
    assert sweep.startswith(f"inputs sent per request (sonar_onnx_cpu1): pulse {said} float32")  # was "pulse [1, 2000]"
    assert _opening((1,)).startswith("inputs sent per request (sonar_onnx_cpu1): pulse [1, 1, 2000] (batch 1 × [1, 2000]")
    # the sizes of b said apart from the dims (s22z, Z-8: "batch b = 1, 4 × [1, 2000]" read as "1, and 4 × [...]")
    assert "pulse [b, 1, 2000] (batch b × [1, 2000] per sample, b ∈ {1, 4})" in _opening((1, 4))


def test_a_model_that_does_not_batch_and_a_typed_shape_say_what_their_dims_are():
    fixed = {**CONFIG, "max_batch_size": 0, "input": [{"name": "pulse", "data_type": "TYPE_FP32", "dims": [3, 2000]}]}
    assert _opening((1,), fixed, None).endswith("pulse [3, 2000] (max_batch_size 0: the whole request) float32")
    flat = {**CONFIG, "max_batch_size": 0, "input": [{"name": "pulse", "data_type": "TYPE_FP32", "dims": [3, -1]}]}
    (choice,) = plan_inputs(ModelSignature.from_config(flat), 1, None, {"pulse": (3, 900)})
    assert choice.describe().startswith("pulse [3, 900] (max_batch_size 0: the whole request) float32")
    said = describe_dynamic(CONFIG, SPEC, {"pulse": (1, 900)})  # what report.md and coldstart print of a --shape
    assert said == "pulse [1, 900] per sample (--shape)"  # was "pulse [1, 900] (--shape)", read as batch 1 × 900
