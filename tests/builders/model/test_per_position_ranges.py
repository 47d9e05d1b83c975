"""One value range per position of an integer input's last axis (trial 11, F1, F17, F4).

A tabular model's ``categories`` (each column an index into its own table) could be given one
range only: the smallest table's (every draw then verified only the first rows of the larger
tables), or a wider one the small tables refused. ``example_inputs`` drawn per column were widened
to one range and refused, with advice naming ``--input`` in a Python session. Now a range may be
one ``[low, high]`` per position (``--input cats:int64:2:0..2,0..49``), every generator stays within
each column's own range, ``from_example`` keeps each column's range, and the diagnosis of a table
indexed past its rows proposes the per-position range to paste.

The model here is this file's own: two category columns with tables of 3 and 50 rows, and token
ids into a table of 20 rows.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from click.testing import CliRunner
from tritonclient.grpc import model_config_pb2 as mc

from builders.config.warmup import warmup_values
from builders.model.eager import run_eager
from builders.model.models import load_model
from builders.model.outputs import infer_outputs
from builders.model.spec import EXAMPLE_INPUTS, ModelSpec, ModelSpecRecord
from builders.model.spec_flags import input_flag
from builders.model.tensor import TensorSpec
from builders.verify.input_draws import DRAWS, describe_draws, draw_inputs
from core.errors import ModelSpecError

ROWS = (3, 50)  # the two category tables
TOKENS = 20  # the token table
CATS = f"cats:int64:2:0..{ROWS[0] - 1},0..{ROWS[1] - 1}"
IDS = f"ids:int64:4:0..{TOKENS - 1}"
PAIRS = tuple((0, r - 1) for r in ROWS)
#: Rows per generated batch: enough that every value of a 50-row column turns up.
MANY = 2000

SOURCE = f"""\
import torch


class Tab(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.cols = torch.nn.ModuleList([torch.nn.Embedding(r, 3) for r in {ROWS!r}])
        self.tok = torch.nn.Embedding({TOKENS}, 3)
        self.out = torch.nn.Linear(3 * {len(ROWS) + 1}, 2)

    def forward(self, cats, ids):
        cols = [e(cats[:, i]) for i, e in enumerate(self.cols)]
        return self.out(torch.cat([*cols, self.tok(ids).mean(1)], dim=1))


def make():
    return Tab().eval()
"""


@pytest.fixture
def tab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The model's module (``make()`` builds it), importable as ``tab.py:make`` from ``tmp_path``."""
    (tmp_path / "tab.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tab", raising=False)
    import tab as module

    yield module
    sys.modules.pop("tab", None)


def _spec() -> ModelSpec:
    return ModelSpec.from_flags([CATS, IDS], ["y"])


def _columns(values: np.ndarray) -> list[tuple[int, int]]:
    cols = values.reshape(-1, values.shape[-1])
    return [(int(lo), int(hi)) for lo, hi in zip(cols.min(axis=0), cols.max(axis=0))]


# --- the grammar and the record ---------------------------------------------------------------


def test_the_flag_the_json_and_the_record_give_one_range_per_position():
    spec = _spec()
    assert spec.inputs[0].value_range == PAIRS and spec.inputs[1].value_range == (0, TOKENS - 1)
    assert input_flag(spec.inputs[0]) == CATS and input_flag(spec.inputs[1]) == IDS
    record = spec.to_json()
    assert record["inputs"][0]["value_range"] == [list(p) for p in PAIRS]
    assert record["inputs"][1]["value_range"] == [0, TOKENS - 1]  # one range: the old form, unchanged
    assert ModelSpec.from_json(json.loads(json.dumps(record))) == spec
    lo, hi = spec.inputs[0].bounds()
    assert lo.tolist() == [0, 0] and hi.tolist() == [r - 1 for r in ROWS]


def test_an_old_manifest_spec_reads_and_writes_back_unchanged():
    old = {
        "inputs": [{"name": "ids", "dtype": "int64", "shape": ["seq"], "value_range": [0, 999], "key": None}],
        "outputs": [{"name": "y", "dtype": "float32", "shape": [2], "key": [], "batch_axis": 0}],
        "dynamic_axes": {"seq": [1, 8, 16]},
    }
    spec = ModelSpecRecord.model_validate(old).to_spec()
    assert spec.inputs[0].value_range == (0, 999)
    assert spec.to_json()["inputs"] == [{**old["inputs"][0], "batch_axis": 0}]


def test_a_spec_file_takes_a_per_position_range(tmp_path: Path):
    path = tmp_path / "spec.json"
    path.write_text(
        json.dumps(
            {
                "inputs": [
                    {"name": "cats", "dtype": "int64", "shape": [2], "value_range": [list(p) for p in PAIRS]},
                    {"name": "ids", "dtype": "int64", "shape": [4], "value_range": [0, TOKENS - 1]},
                ],
                "outputs": ["y"],
            }
        )
    )
    assert ModelSpec.from_file(path) == _spec()


@pytest.mark.parametrize(
    ("make", "said", "fix"),
    [
        (
            lambda: ModelSpec.from_flags(["c:int64:3:0..2,0..49"]),
            "gives 2 ranges, one per position of the last axis, but the input has 3 positions on its last axis",
            "give 3 ranges",
        ),
        (
            lambda: ModelSpec.from_flags(["c:int64:seq:0..2,0..49"], axes=["seq=1,2,4"]),
            "has a dynamic last axis 'seq'",
            "need a fixed last axis",
        ),
        (lambda: ModelSpec.from_flags(["c:int64::0..2,0..49"]), "has no per-sample axis", "one [low, high]"),
        (
            lambda: ModelSpec.from_flags(["c:int64:2:0..2,49..0"]),
            "value_range at position 1 of the last axis [49, 0]: low 49 > high 0",
            "give the smaller bound first: [0, 49] (0..49 on the command line)",
        ),
        (
            lambda: ModelSpec.from_flags(["c:float32:2:0..2,0..49"]),
            "value_range is for integer inputs, but dtype is float32",
            "drop value_range",
        ),
        (
            lambda: TensorSpec("c", "int64", (2,), [[0, 2], [0, 1, 2]]),
            "value_range at position 1 of the last axis is [0, 1, 2], not [low, high] of two integers",
            "[low, high]",
        ),
        (
            lambda: ModelSpec.from_flags(["c:int64:2:0..2,0..4x"]),
            "'0..2,0..4x' is neither a value range nor a domain",
            "one LOW..HIGH per position",
        ),
        (  # a name is a dynamic axis's size (value_ranges.at_sizes): one the spec lacks is named
            lambda: ModelSpec.from_flags(["c:int64:2:0..2,0..x"]),
            "names 'x' as a bound, but the spec declares no dynamic axis",
            "a bound may name a dynamic axis",
        ),
    ],
)
def test_a_wrong_per_position_range_is_one_clear_error(make, said, fix):
    with pytest.raises(ModelSpecError) as e:
        make()
    assert said in e.value.message and fix in (e.value.hint or "")


def test_the_readme_s_tabular_spec_is_the_flag_it_shows():
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    block = next(b.split("```", 1)[0] for b in readme.split("```json")[1:] if '"categories"' in b)
    flag = re.search(r"`--input (categories:\S+)`", readme)
    assert flag is not None
    spec = ModelSpec.from_json(json.loads(block))
    assert spec.inputs[0] == ModelSpec.from_flags([flag.group(1)]).inputs[0]
    assert spec.inputs[0].value_range == ((0, 4), (0, 11), (0, 6), (0, 29), (0, 2), (0, 8))


# --- every generator within each column's own range --------------------------------------------


def test_every_verification_draw_keeps_each_column_within_its_own_range():
    spec = _spec()
    for draw in DRAWS:
        got = _columns(draw_inputs(spec, MANY, {}, draw)["cats"])
        assert all(lo <= g_lo <= g_hi <= hi for (g_lo, g_hi), (lo, hi) in zip(got, PAIRS)), (draw, got)
    assert _columns(spec.example_inputs(MANY)["cats"]) == list(PAIRS)  # random: each column's whole range
    assert _columns(draw_inputs(spec, MANY, {}, "scaled")["cats"]) == list(PAIRS)  # the ends, per column
    words = describe_draws(spec)["random"]["cats"]
    assert "each position of the last axis uniform in its range (0..2, 0..49)" in words


def test_warmup_data_keeps_each_column_within_its_own_range():
    t = TensorSpec("cats", "int64", (2,), ((1, 2), (-5, 49)))
    assert warmup_values(t, "zero", [2], mc.TYPE_INT64).tolist() == [1, 0]  # zero clipped into each column's range
    rows = np.stack([t.draw((1, 2), np.random.default_rng(s))[0] for s in range(MANY)])
    assert _columns(rows) == [(1, 2), (-5, 49)]
    assert warmup_values(t, "random", [2], mc.TYPE_INT64).tolist() == t.draw((1, 2), np.random.default_rng(0))[0].tolist()


# --- from_example and the Python API (F17) ----------------------------------------------------


def _example(rows: int = 64) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    cats = torch.stack([torch.randint(0, r, (rows,), generator=g) for r in ROWS], 1)
    return {"cats": cats, "ids": torch.randint(0, TOKENS, (rows, 4), generator=g)}


def test_example_inputs_keep_each_column_s_range_and_the_model_builds_on_them(tab):
    example = _example()
    loaded = load_model(tab.make(), None, example)
    cats = loaded.spec.inputs[0]
    assert cats.value_range == tuple(_columns(example["cats"].numpy()))
    assert max(hi for _lo, hi in cats.value_range) > ROWS[0] - 1  # not one range: the 50-row column kept its own
    assert loaded.spec.origin == EXAMPLE_INPUTS
    spec = infer_outputs(loaded.module, loaded.spec)  # the eager model runs on the draws (refused before)
    for draw in DRAWS:
        run_eager(loaded.module, spec, draw_inputs(spec, 8, {}, draw))
    same = ModelSpec.from_example({"ids": np.array([[0, 9], [9, 0]])})  # columns alike: one range, as before
    assert same.inputs[0].value_range == (0, 9)


def test_a_range_from_example_inputs_is_named_so_with_a_python_fix(tab):
    example = _example()
    example["cats"][0, 0] = ROWS[0]  # one row past the 3-row table: the example itself is out of range
    loaded = load_model(tab.make(), None, example)
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(loaded.module, loaded.spec)
    said, hint = e.value.message, e.value.hint or ""
    assert "the range of your example_inputs" in said and "--input NAME" not in said
    assert "--input" not in hint
    assert "pass example_inputs whose 'cats' hold values the model accepts" in hint
    fixed = f'"cats:int64:2:0..{ROWS[0] - 1},0..{ROWS[1] - 1}", "ids:int64:4:'
    assert f"build(BuildOptions(model, spec=ModelSpec.from_flags([{fixed}" in hint


# --- the diagnosis of a table indexed past its rows (F4) ---------------------------------------


def test_a_too_wide_range_gets_the_per_position_range_that_fits_every_table(tab):
    spec = ModelSpec.from_flags([f"cats:int64:2:0..{ROWS[1] - 1}", IDS], ["y"])
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(tab.make(), spec)
    hint = e.value.hint or ""
    assert f'--input {CATS} (or "value_range": {json.dumps([list(p) for p in PAIRS])} in the spec file)' in hint
    assert f"'cats' per position of its last axis, 0: 0..{ROWS[0] - 1} ('cols.0', {ROWS[0]} rows)" in e.value.message
    infer_outputs(tab.make(), ModelSpec.from_flags([CATS, IDS]))  # what the hint says builds


# --- the real CLI ------------------------------------------------------------------------------


@pytest.mark.slow  # real export (ONNX)
def test_the_cli_builds_a_tabular_model_with_per_position_ranges(tab, tmp_path: Path):
    from builders.cli.main import cli

    res = CliRunner().invoke(
        cli,
        ["build", "--model", "tab.py:make", "--input", CATS, "--input", IDS, "--output", "y", "--format", "onnx"]
        + ["--instance-counts", "1", "--dynamic-batching", "off", "--warmup", "random", "--name", "tab"]
        + ["--build-dir", str(tmp_path / "b"), "-r", str(tmp_path / "r")],
    )
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "b" / "tab" / "manifest.json").read_text())
    assert manifest["spec"]["inputs"][0]["value_range"] == [list(p) for p in PAIRS]
    with np.load(tmp_path / "b" / "tab" / "reference.npz") as ref:
        cats = ref["input:cats"]
    got = _columns(cats)
    assert all(lo <= g_lo <= g_hi <= hi for (g_lo, g_hi), (lo, hi) in zip(got, PAIRS))
    assert got[1][1] > ROWS[0] - 1  # the 50-row column is verified past the 3-row table's size
    (warm,) = (tmp_path / "r").glob("tab_*/warmup/cats.random.*.bin")  # one request's row, within each column's range
    assert all(lo <= v <= hi for v, (lo, hi) in zip(np.frombuffer(warm.read_bytes(), np.int64), PAIRS))
    printed = CliRunner().invoke(cli, ["spec", "--build", str(tmp_path / "b" / "tab")])
    assert json.loads(printed.output)["inputs"][0]["value_range"] == [list(p) for p in PAIRS]
