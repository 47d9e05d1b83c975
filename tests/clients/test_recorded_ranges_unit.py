"""Clients and the sweep read the value range the build recorded (the manifest's ``value_ranges``), not
the range this toolkit would pick now: the range-else-default rule was decided in five places, and
``clients infer``, its value checks and the sweep's generated ``--input-data`` took the spec's
``value_range`` else today's default, so a build verified on another default was sent and checked
against values it never ran (one rule now: :func:`builders.model.range_source.input_range`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from served_configs import variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.value_ranges import DEFAULT_INT_RANGE
from builders.repository.view import Repository
from builders.verify.value_sources import DEFAULT_SOURCE, InputRange
from clients.input_values import check_values
from clients.inputs import ModelSignature, generate_inputs, plan_inputs
from perf.measure.inputs import input_args

#: Token ids and a small code without ranges, a padding mask, and a range of the user's.
SPEC = ModelSpec.from_flags(
    ["ids:int64:seq", "mask:int64:seq:mask", "code:uint8:2", "level:int16:1:0..300"], ["y"], axes=["seq=1,8,16"]
)
VARIANT = Variant("emb", "onnx", max_batch_size=4)
CONFIG = variant_config(SPEC, VARIANT)
LOW, HIGH = DEFAULT_INT_RANGE
#: What a build whose default was narrower than today's recorded: the range it verified ids and code with.
RECORDED = (LOW, LOW + (HIGH - LOW) // 4)


@pytest.fixture
def served(fake_build) -> ModelSpec:
    ranges = {n: InputRange(value_range=RECORDED, source=DEFAULT_SOURCE) for n in ("ids", "code")}
    ranges["level"] = InputRange(value_range=(0, 300), source="the --input flags")
    repo = fake_build(SPEC, VARIANT, value_ranges=ranges)
    spec = Repository(repo).variant(VARIANT.name).served_spec
    assert spec is not None
    return spec


def test_clients_infer_draws_the_recorded_range_and_says_where_it_came_from(served: ModelSpec) -> None:
    choices = {c.name: c for c in plan_inputs(ModelSignature.from_config(CONFIG), 2, served)}
    for name in ("ids", "code"):
        assert choices[name].value_range == RECORDED
        assert choices[name].values.startswith(
            f"integers uniform in [{RECORDED[0]}, {RECORDED[1]}] (no value range recorded: the default"
        )
    assert choices["level"].values == "integers uniform in [0, 300] (the build's value_range)"
    x = generate_inputs(ModelSignature.from_config(CONFIG), 4, served, seed=1)
    assert x["ids"].max() <= RECORDED[1] and x["code"].max() <= RECORDED[1]


def test_a_user_value_outside_the_recorded_range_is_warned_about(served: ModelSpec, caplog) -> None:
    above = RECORDED[1] + 1  # within today's default, outside what the build verified
    assert above <= HIGH
    ids = np.full((1, 8), above, np.int64)
    with caplog.at_level(logging.WARNING):
        (found,) = check_values("in.npz", served, {"ids": [ids], "mask": [np.ones((1, 8), np.int64)]})
    assert found.name == "ids" and found.verified.text == f"{RECORDED[0]}..{RECORDED[1]}"
    assert found.verified.source == "the default range: its spec gives none"


def test_the_sweep_s_generated_data_draws_the_recorded_range(served: ModelSpec, tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        args = input_args(CONFIG, served, tmp_path)
    data = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
    for name in ("ids", "code"):
        values = [v for entry in data for v in entry[name]["content"]]
        assert min(values) >= RECORDED[0] and max(values) <= RECORDED[1], name
    said = [r.getMessage() for r in caplog.records if "no value range" in r.getMessage()]
    assert sorted(s.split()[1] for s in said) == ["code:", "ids:"]
    assert all(f"generated values are in {list(RECORDED)}" in s for s in said)


def test_a_mixed_size_workload_s_entries_draw_the_recorded_range_at_their_own_sizes(served: ModelSpec, tmp_path: Path) -> None:
    """Each entry of ``--shapes seq=1..16`` is valued by the same function as clients infer's requests."""
    lo, _, hi = SPEC.dynamic_axes["seq"]
    args = input_args(CONFIG, served, tmp_path, mixed={"seq": (lo, hi)})
    data = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
    assert len({tuple(entry["ids"]["shape"]) for entry in data}) > 1  # sizes differ between entries
    for entry in data:
        assert max(entry["ids"]["content"]) <= RECORDED[1] and max(entry["level"]["content"]) <= 300


def test_the_table_lookup_words_are_said_only_for_an_input_that_indexes_a_table(fake_build, caplog) -> None:
    """The out-of-range warning said "if the model indexes a table with them ... ONNX Runtime's Gather
    reads it from the table's end" for every integer input, a level or a count too."""
    ranges = {
        "ids": InputRange(value_range=(0, 49), source="the --input flags", tables=["emb"]),
        "code": InputRange(value_range=RECORDED, source=DEFAULT_SOURCE, tables=[]),
        "level": InputRange(value_range=(0, 300), source="the --input flags"),  # a build before tables were recorded
    }
    served = Repository(fake_build(SPEC, VARIANT, value_ranges=ranges)).variant(VARIANT.name).served_spec
    values = {"ids": [np.full((1, 8), -1, np.int64)], "code": [np.full((1, 2), RECORDED[1] + 1, np.uint8)]}
    values["level"] = [np.full((1, 1), 301, np.int16)]
    with caplog.at_level(logging.WARNING):
        said = {o.name: o.line("in.npz") for o in check_values("in.npz", served, values)}
    assert "(the model indexes 'emb' with them: a value below 0 is no row" in said["ids"]
    assert "Gather" not in said["code"] and "table" not in said["code"]
    assert "(if the model indexes a table with them, a value below 0 is no row" in said["level"]  # not known: said as a condition
