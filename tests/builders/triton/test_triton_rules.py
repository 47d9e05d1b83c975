"""Each Triton rule is enforced identically by Variant, the grid planner and `builders validate`.

One row per rule: the variant that breaks it (a ConfigError naming the field, or a problem
for the serving backend / a GPU-less server), the grid point that breaks it (skipped with the
rule as reason, refused with the rule's error, or dropped because the axis does not apply),
and a hand-written config.pbtxt that breaks it (a Problem naming the field). The rule's text
(`builders.triton.rules`) is the same in all three.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest

from builders.config.variants import Variant, VariantGrid
from builders.repository.validate import validate_repository
from builders.triton import rules
from core.errors import ConfigError, GpuRequiredError

IO = 'input { name: "x" data_type: TYPE_FP32 dims: [4] }\noutput { name: "y" data_type: TYPE_FP32 dims: [2] }\n'
ONNX = 'platform: "onnxruntime_onnx"\n'
TORCHSCRIPT = 'platform: "pytorch_libtorch"\n'
PYTHON = (
    'backend: "python"\nparameters { key: "artifact_format" value { string_value: "onnx" } }\n'
    'parameters { key: "artifact_file" value { string_value: "model.onnx" } }\n'
    'parameters { key: "artifact_outputs" value { string_value: "[\\"y\\"]" } }\n'
)
FILES = {ONNX: ("model.onnx",), TORCHSCRIPT: ("model.pt",), PYTHON: ("model.py", "model.onnx")}
ORT_TRT = 'optimization { execution_accelerators { gpu_execution_accelerator { name: "tensorrt" } } }\n'


def pbtxt(backend: str = ONNX, mbs: int = 8, group: str = "kind: KIND_CPU count: 1", extra: str = "") -> str:
    return f'name: "m"\n{backend}max_batch_size: {mbs}\n{IO}instance_group {{ {group} }}\n{extra}'


@dataclasses.dataclass(frozen=True)
class Case:
    """One rule seen by the three callers.

    Attributes:
        variant: Variant fields that break the rule.
        variant_problems: ``None``: construction raises; else the arguments of
            ``Variant.problems`` (the backend or server the variant alone does not know).
        grid: VariantGrid fields, and ``plan`` keyword arguments, of a grid point breaking it.
        planner: ``("skip", what)``, ``("error", exception type)`` or ``("dropped", check)``
            where ``check(variants)`` is true when no variant breaks the rule.
        config: A hand-written config.pbtxt that breaks it, its backend, server_gpu for validate.
        field: The config field every caller names.
    """

    variant: dict[str, Any]
    variant_problems: dict[str, Any] | None
    grid: dict[str, Any]
    plan: dict[str, Any]
    planner: tuple[str, Any]
    config: str
    backend: str
    field: str
    server_gpu: bool | None = None


CASES = {
    "dynamic batching with max_batch_size 0": Case(
        {"max_batch_size": 0, "dynamic_batching": True},
        None,
        {"max_batch_sizes": (0, 8), "queue_delays_us": (100,)},
        {},
        ("skip", "max_batch_size 0 with dynamic batching"),
        pbtxt(mbs=0, extra="dynamic_batching { }\n").replace("dims: [4]", "dims: [-1, 4]").replace("dims: [2]", "dims: [-1, 2]"),
        ONNX,
        "dynamic_batching",
    ),
    "preferred batch size above max_batch_size": Case(
        {"max_batch_size": 8, "dynamic_batching": True, "preferred_batch_sizes": (16,)},
        None,
        {"max_batch_sizes": (8,), "queue_delays_us": (100,), "preferred_batch_sizes": (16,)},
        {},
        ("error", ConfigError),
        pbtxt(extra="dynamic_batching { preferred_batch_size: 16 }\n"),
        ONNX,
        "dynamic_batching.preferred_batch_size",
    ),
    "negative max_batch_size": Case(
        {"max_batch_size": -1},
        None,
        {"max_batch_sizes": (-1,)},
        {},
        ("error", ConfigError),
        pbtxt(mbs=-1),
        ONNX,
        "max_batch_size",
    ),
    "instance count below 1": Case(
        {"count": -1},
        None,
        {"counts": (-1,)},
        {},
        ("error", ConfigError),
        pbtxt(group="kind: KIND_CPU count: -1"),
        ONNX,
        "instance_group[0].count",
    ),
    "gpus on KIND_CPU": Case(
        # with KIND_CPU only, --gpus matches no variant and is refused (VariantGrid, issue 11 item 5);
        # beside KIND_GPU it applies to the GPU variants and is dropped from the CPU ones
        {"gpus": (0,)},
        None,
        {"gpus": (0,), "kinds": ("cpu", "gpu")},
        {"server_gpu": True},
        ("dropped", lambda vs: any(v.kind == "cpu" for v in vs) and all(v.gpus == (() if v.kind == "cpu" else (0,)) for v in vs)),
        pbtxt(group="kind: KIND_CPU count: 1 gpus: [0]"),
        ONNX,
        "instance_group[0].gpus",
    ),
    "KIND_GPU on a server without a GPU": Case(
        {"kind": "gpu"},
        {"server_gpu": False},
        {"kinds": ("cpu", "gpu")},
        {"server_gpu": False},
        ("skip", "instance kind gpu"),
        pbtxt(group="kind: KIND_GPU count: 1"),
        ONNX,
        "instance_group[0].kind",
        server_gpu=False,
    ),
    "ORT-TRT on a torchscript variant": Case(
        {"format": "torchscript", "kind": "gpu", "trt_accelerator": "fp16"},
        None,
        {"kinds": ("gpu",), "trt_accelerators": (None, "fp16")},
        {"formats": ("torchscript",), "server_gpu": True},
        ("skip", "TensorRT accelerator fp16"),  # said, not dropped without a word (trial 21)
        pbtxt(TORCHSCRIPT, group="kind: KIND_GPU count: 1", extra=ORT_TRT),
        TORCHSCRIPT,
        "optimization.execution_accelerators.gpu_execution_accelerator[0].name",
    ),
    "ORT-TRT on a KIND_CPU variant": Case(
        {"trt_accelerator": "fp16"},
        None,
        {"kinds": ("cpu",), "trt_accelerators": (None, "fp16")},
        {},
        ("error", ConfigError),  # a CPU-only grid cannot take it: refused, as --gpus is (trial 21)
        pbtxt(extra=ORT_TRT),
        ONNX,
        "optimization.execution_accelerators.gpu_execution_accelerator[0]",
    ),
    "ORT-TRT on the python backend": Case(
        {"kind": "gpu", "trt_accelerator": "fp16"},
        {"backend": "python"},
        {"kinds": ("gpu",), "trt_accelerators": (None, "fp16")},
        {"serving": "python", "server_gpu": True},
        ("skip", "TensorRT accelerator fp16"),
        pbtxt(PYTHON, group="kind: KIND_GPU count: 1", extra=ORT_TRT),
        PYTHON,
        "optimization.execution_accelerators.gpu_execution_accelerator[0].name",
    ),
}


def _stem(field: str) -> str:
    """The field without group indices (``instance_group[0].gpus`` -> ``instance_group.gpus``)."""
    return field.replace("[0]", "")


def _validate(case: Case, tmp_path: Path):
    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    for f in FILES[case.backend]:
        (model / "1" / f).write_bytes(b"")
    (model / "config.pbtxt").write_text(case.config)
    return validate_repository(model, server_gpu=case.server_gpu, check_artifacts=False)


def test_the_hand_written_base_config_is_valid(tmp_path):
    for i, backend in enumerate(FILES):
        base = dataclasses.replace(next(iter(CASES.values())), config=pbtxt(backend), backend=backend)
        assert _validate(base, tmp_path / str(i)) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_is_enforced_identically_by_variant_planner_and_validate(name, tmp_path):
    case = CASES[name]
    # validate: a Problem naming the field, with the rule's text
    problems = _validate(case, tmp_path)
    assert [p.field for p in problems] == [case.field], problems
    text = problems[0].problem
    # Variant: a ConfigError naming the field, or the same problem for its backend/server
    fields = {"model": "m", "format": "onnx", **case.variant}
    if case.variant_problems is None:
        with pytest.raises(ConfigError) as e:
            Variant(**fields)
        said = str(e.value)
    else:
        found = Variant(**fields).problems(**case.variant_problems)
        assert len(found) == 1
        said = found[0].reason()
    assert _stem(case.field) in said and text in said
    # planner: skipped with the rule as reason, refused with its error, or the axis not applied
    grid = {"counts": (1,), "queue_delays_us": (None,), **case.grid}
    plan_kwargs = {"formats": ("onnx",), **case.plan}
    how, what = case.planner
    if how == "error":
        with pytest.raises(what) as e:
            VariantGrid(**grid).plan("m", **plan_kwargs)
        assert _stem(case.field) in str(e.value) and text in str(e.value)
    else:
        plan = VariantGrid(**grid).plan("m", **plan_kwargs)
        if how == "skip":
            reasons = [s.reason for s in plan.skipped if s.what == what]
            assert len(reasons) == 1 and _stem(case.field) in reasons[0] and text in reasons[0]
        else:
            assert what(plan.variants) and not plan.skipped


def test_gpu_only_grid_on_a_gpu_less_server_is_an_error_not_a_skip():
    with pytest.raises(GpuRequiredError, match="KIND_GPU"):
        VariantGrid(kinds=("gpu",)).plan("m", ("onnx",), server_gpu=False)


def test_every_rule_cites_its_triton_source():
    found = [
        f
        for name, f in vars(rules).items()
        if inspect.isfunction(f) and f.__module__ == rules.__name__ and not name.startswith("_") and name != "raise_problems"
    ]
    assert len(found) >= 9
    for rule in found:
        assert rule.__doc__ and "Triton docs" in rule.__doc__, rule.__name__
