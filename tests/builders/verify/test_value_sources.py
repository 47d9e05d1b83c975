"""Trial 12, F17: an integer input without a range was verified (and later sent) with values
0..100 and the build never said so. Every integer input's range and where it came from is now
in the manifest (``value_ranges``) and the build's summary, with advice where it is the default."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from builders.build_options import BuildOptions
from builders.cli.summary import print_build_summary
from builders.model.models import load_model
from builders.model.spec import ModelSpec
from builders.model.value_ranges import DEFAULT_INT_RANGE
from builders.repository.records import BuildManifest
from builders.verify.value_sources import DEFAULT_SOURCE, input_ranges, range_lines

FLAGS = ["waveform:float32:time", "lengths:int64:1", "ids:int64:4:0..999", "mask:int64:4:mask"]
SPEC = ModelSpec.from_flags(FLAGS, axes=["time=1000,8000,16000"])


def test_each_integer_input_gets_its_range_and_where_it_came_from():
    ranges = input_ranges(SPEC, BuildOptions("x", spec=SPEC).spec_source("factory"))
    assert set(ranges) == {"lengths", "ids"}  # floats have no range; a mask's values are its domain's
    assert (tuple(ranges["lengths"].value_range), ranges["lengths"].source) == (DEFAULT_INT_RANGE, DEFAULT_SOURCE)
    assert (tuple(ranges["ids"].value_range), ranges["ids"].source) == ((0, 999), "BuildOptions(spec=...)")
    typed = BuildOptions("x", spec=SPEC, command="builders build --input ids:int64:4:0..999 ...")
    assert typed.spec_source("factory") == "the --input flags"  # a command line names no Python field (trial 30, F18)


def test_the_source_names_the_spec_file_the_example_or_the_built_in(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC.to_json()))
    assert BuildOptions("x", spec_path=path).spec_source("factory") == f"the spec file {path}"
    assert BuildOptions("mlp").spec_source("builtin") == "the built-in model's spec"
    ids = np.array([[3], [42]])
    model = torch.nn.Identity()
    example = BuildOptions(model, example_inputs=(torch.from_numpy(ids),))
    loaded = load_model(model, None, example.example_inputs)
    (r,) = input_ranges(loaded.spec, example.spec_source(loaded.kind)).values()
    assert tuple(r.value_range) == (int(ids.min()), int(ids.max())) and r.source.startswith("example_inputs")


def test_the_summary_says_every_range_and_advises_a_real_one_for_the_default(capsys: pytest.CaptureFixture[str]):
    manifest = BuildManifest.model_validate(
        {
            "model": "kws",
            "source": "kws.py:kws",
            "created": "2026-12-03T07:00:00+0000",
            "spec": SPEC.to_json(),
            "max_batch_size": 4,
            "value_ranges": {n: r.model_dump(mode="json") for n, r in input_ranges(SPEC, "the spec file spec.json").items()},
        }
    )
    print_build_summary(manifest)
    out = capsys.readouterr().out
    lo, hi = DEFAULT_INT_RANGE
    assert f"integer input 'lengths': no value_range given: verified with values {lo}..{hi} (the default range for int64" in out
    assert "--input lengths:int64:1:LOW..HIGH" in out and '"value_range": [LOW, HIGH]' in out
    assert "integer input 'ids': verified with values 0..999 (value_range from the spec file spec.json)" in out
    assert "'mask'" not in out and "'waveform'" not in out


class _Tagger(torch.nn.Module):
    """Token ids into a table, a padding mask, and a level that is a number, not an index."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 4)

    def forward(self, ids, mask, level):
        return (self.emb(ids) * mask.unsqueeze(-1)).sum(1) + level.float()


def test_the_record_says_which_inputs_index_a_table():
    """A warning about values outside an input's range explained embedding lookups (Gather reading -1
    from the table's end) for every integer input; the build now records which inputs index a table."""
    spec = ModelSpec.from_flags(["ids:int64:seq:0..49", "mask:int64:seq:mask", "level:int16:1:0..300"], axes=["seq=1,8,16"])
    ranges = input_ranges(spec, "the --input flags", _Tagger().eval())
    assert (ranges["ids"].tables, ranges["level"].tables) == (["emb"], [])
    assert "mask" not in ranges  # its values are its domain's
    assert input_ranges(spec, "the --input flags")["ids"].tables is None  # no model given: not known


@pytest.mark.slow  # a real TorchScript export
def test_a_scripted_model_s_tables_are_not_known():
    spec = ModelSpec.from_flags(["ids:int64:seq:0..49", "mask:int64:seq:mask", "level:int16:1:0..300"], axes=["seq=1,8,16"])
    scripted = torch.jit.script(_Tagger().eval())
    assert input_ranges(spec, "the --input flags", scripted)["ids"].tables is None  # no hooks on a scripted model


def test_a_bool_input_without_a_domain_is_said_with_its_draws_and_how_to_declare_a_mask(capsys: pytest.CaptureFixture[str]):
    """Trial 20, T20-12: a bool padding mask given in a spec file without ``"domain": "mask"`` was verified on
    all-True and all-False rows and its reference data was all True (``clients check`` sent no padded step): the
    build said nothing. The summary says once what is drawn and sent, and how to declare a mask; a declared mask
    and every other dtype get no such line."""
    spec = ModelSpec.from_flags(["values:float32:seq,4", "mask:bool:seq", "pad:bool:seq:mask"], axes=["seq=8,48,96"])
    manifest = BuildManifest.model_validate(
        {"model": "ts", "source": "ts.py:ts", "created": "2026-12-04T10:00:00+0000", "spec": spec.to_json(), "max_batch_size": 4}
    )
    print_build_summary(manifest)
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if x.startswith("bool input")]
    assert lines == [
        "bool input 'mask': no domain given: verified with all True (random, positive); all False (negative, zeros); "
        "True or False at random (scaled); the reference data (what clients check sends) and the inputs clients and "
        "triton-perf generate are all True, so no False is ever checked on the server -> if it is a padding mask (a "
        'True in every row), give "domain": "mask" for it in the spec file, or --input mask:bool:seq:mask'
    ], out


def test_a_default_range_of_an_input_that_indexes_a_table_is_told_the_table_s_rows():
    """Trial 23, T23-13: the build knew 'emb' has 1000 rows, yet advised LOW..HIGH for ids verified on the default."""

    class Bag(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.EmbeddingBag(1000, 4)

        def forward(self, ids):
            return self.emb(ids)

    spec = ModelSpec.from_flags(["ids:int64:8"])
    lines = range_lines(input_ranges(spec, "the --input flags", Bag().eval()), spec)
    assert "give the values it really takes (it indexes 'emb', of 1000 rows): --input ids:int64:8:0..999" in lines[0]
    assert '"value_range": [0, 999] for it in the spec file' in lines[0]
