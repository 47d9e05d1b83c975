"""A message names a flag with its value as typed, never a Python list (break-it F3: `builders build --instance-kind
cpu --gpus 0` said "--gpus [0] apply to KIND_GPU instance groups")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from builders.config.variants import VariantGrid
from core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("grid", "said"),
    [
        ({"kinds": ("cpu",), "gpus": (0,)}, "--gpus 0 apply to KIND_GPU instance groups"),
        ({"kinds": ("cpu",), "gpus": (0, 2)}, "--gpus 0,2 apply to KIND_GPU instance groups"),
        ({"queue_delays_us": (None,), "preferred_batch_sizes": (4, 8)}, "--preferred-batch-sizes 4,8 apply to dynamic"),
        ({"kinds": ("tpu",)}, "--instance-kind tpu: not one of cpu, gpu, auto"),
    ],
)
def test_a_grid_flag_is_said_as_typed(grid: dict[str, object], said: str) -> None:
    with pytest.raises(ConfigError) as e:
        VariantGrid(**grid)  # type: ignore[arg-type]
    assert said in str(e.value) and "[" not in str(e.value).split(" (")[0]


def test_no_message_writes_a_flags_value_as_a_python_list() -> None:
    """The kind, in the sources: a flag followed by a list(), sorted() or tuple() of its values prints ``[0]``."""
    pattern = re.compile(r"--[a-z][a-z0-9-]+[ =]\{(list|sorted|tuple|set)\(")
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for top in ("builders", "clients", "perf", "core", "scripts")
        for p in sorted((ROOT / top).rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == [], "write the values as typed (core.flag_words.flag_words, or ','.join): " + ", ".join(hits)


def test_a_configs_problems_name_tensors_as_a_list_not_a_python_list() -> None:
    """F3's kind in `builders validate`'s problems: "use one of ['a', 'b']" / "no data for inputs ['b']"."""
    from google.protobuf import text_format
    from tritonclient.grpc import model_config_pb2 as mc

    from builders.config.checks import config_problems

    cfg = text_format.Parse(
        'name: "m" backend: "python" max_batch_size: 4 '
        'input [ { name: "a" data_type: TYPE_FP32 dims: [ 2 ] }, { name: "b" data_type: TYPE_FP32 dims: [ 2 ] } ] '
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] } ] '
        'model_warmup [ { name: "w" batch_size: 1 inputs { key: "z" value: { data_type: TYPE_FP32 dims: [ 2 ] zero_data: true } } } ]',
        mc.ModelConfig(),
    )
    said = [(p.problem, p.fix) for p in config_problems(cfg)]
    assert ("no data for inputs a, b", "give every model input a warmup entry") in said, said
    assert ("is not a model input", "use one of a, b") in said, said
