"""Names and ranges the user gave that match nothing are errors naming the item and the valid
ones, never silently ignored (issue 11, item 5): --dynamic-axis, --rtol, --output, a dynamic
axis range that contradicts an exported graph, --preferred-batch-sizes, --gpus."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.model.models import load_model
from builders.model.spec import ModelSpec
from core.errors import ConfigError, ModelSpecError


def test_dynamic_axis_no_input_uses_is_refused():
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_flags(["x:float32:seq,16"], axes=["seq=1,8,16", "foo=1,8,16"])
    assert "--dynamic-axis 'foo' names no dynamic axis of the model's inputs" in e.value.message
    assert e.value.message.endswith("the dynamic axes of the model's inputs: seq")
    # the example names the model's own input, with the axis in its shape (s22z, Z-7: it said --input input_ids:int64:seq)
    assert "name the axis in an input's shape (--input x:float32:foo,16)" in (e.value.hint or "")
    with pytest.raises(ModelSpecError) as fixed:
        ModelSpec.from_flags(["x:float32:16"], axes=["foo=1,8,16"])
    assert "(--input NAME:DTYPE:foo)" in (fixed.value.hint or "") and "input_ids" not in (fixed.value.hint or "")
    with pytest.raises(ModelSpecError, match="inputs: none"):  # the flags of the issue: no input names an axis
        ModelSpec.from_flags(["x:float32:16"], axes=["foo=1,8,16"])
    with pytest.raises(ModelSpecError, match="'batch'"):  # the spec file form too
        ModelSpec.from_json({"inputs": [{"name": "x", "dtype": "float32", "shape": [4]}], "dynamic_axes": {"batch": [1, 2, 3]}})


def test_a_spec_files_dynamic_axes_naming_no_input_axis_names_the_files_field_not_a_flag(tmp_path):
    """Issue 26: a spec file whose dynamic_axes said "seq" while the shape names "frames" was
    reported as "--dynamic-axis 'seq' ...", a flag never passed."""
    spec = tmp_path / "spec_badaxis.json"
    spec.write_text(
        '{"inputs": [{"name": "mels", "dtype": "float32", "shape": ["frames", 40]}], "outputs": ["logits"], '
        '"dynamic_axes": {"seq": [1, 49, 98]}}'
    )
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_file(spec)
    assert e.value.message == (
        f"spec file {spec}: dynamic_axes 'seq' names no dynamic axis of the model's inputs; "
        "the dynamic axes of the model's inputs: frames"
    )
    assert "--dynamic-axis" not in str(e.value) and '"dynamic_axes": {"frames": [1, 64, 128]}' in (e.value.hint or "")


def test_dynamic_axis_flag_is_an_error_on_the_cli(tmp_path):
    r = CliRunner().invoke(
        cli,
        [
            "build",
            "--model",
            "tiny",
            "--input",
            "INPUT__0:float32:16",
            "--dynamic-axis",
            "foo=1,8,16",
            "--build-dir",
            str(tmp_path / "b"),
            "--repository",
            str(tmp_path / "r"),
        ],
    )
    assert r.exit_code == 2 and "foo" in r.output  # a name typed that is not there: a usage error (T17-15)


def test_spec_flags_without_input_name_only_the_flags_given(tmp_path):
    """Trial 13, T13-17: ``--spec FILE --dynamic-axis h=...`` was told "--output and --dynamic-axis
    describe a spec given with --input flags" (no --output given) and not where to widen the axis."""
    spec = tmp_path / "spec.json"
    spec.write_text('{"inputs": [{"name": "x", "dtype": "float32", "shape": [3, "H"]}], "dynamic_axes": {"H": [8, 16, 32]}}')
    where = ["--build-dir", str(tmp_path / "b"), "--repository", str(tmp_path / "r")]
    r = CliRunner().invoke(cli, ["build", "--model", "tiny", "--spec", str(spec), "--dynamic-axis", "h=8,16,64", *where])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "--output" not in said, said
    assert (
        f"Invalid value for --dynamic-axis: it describes a spec given with --input flags and cannot change the spec file {spec}"
        in said
    )
    assert '"dynamic_axes": {"H": [8, 16, 64]}): change it in' in said  # the file's axis, widened as the flag asked
    r = CliRunner().invoke(cli, ["build", "--model", "tiny", "--spec", str(spec), "--dynamic-axis", "h=8,16,64/8", *where])
    said = " ".join(r.output.split())  # a step given: the file's "multiple_of" beside its range (T24-7)
    assert r.exit_code == 2 and '"dynamic_axes": {"H": [8, 16, 64]}, "multiple_of": {"H": 8}): change it in' in said, said
    r = CliRunner().invoke(cli, ["build", "--model", "tiny", "--output", "y", *where])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "--dynamic-axis" not in said and "no --input was given" in said, said
    assert 'a spec file names its outputs in its "outputs"' in said


def test_spec_flag_with_a_typo_axis_gets_did_you_mean_not_the_typo_added_to_the_spec(tmp_path):
    """Trial 22, F-tim-axis: ``--spec FILE --dynamic-axis tim=...`` was advised to add a "tim" axis (no input uses
    it) to the file's "dynamic_axes", with no "did you mean 'time'?"."""
    spec = tmp_path / "spec.json"
    spec.write_text('{"inputs": [{"name": "a", "dtype": "float32", "shape": [1, "time"]}], "dynamic_axes": {"time": [4, 8, 16]}}')
    where = ["--build-dir", str(tmp_path / "b"), "--repository", str(tmp_path / "r")]
    r = CliRunner().invoke(cli, ["build", "--model", "tiny", "--spec", str(spec), "--dynamic-axis", "tim=4,8,32", *where])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "--dynamic-axis 'tim' (did you mean 'time'?) names no axis of its time" in said, said
    assert '"tim"' not in said and '"dynamic_axes": {"time": [4, 8, 16]}' in said  # the file's axes as they are


def _opts(tmp_path, **kw) -> BuildOptions:
    return BuildOptions(
        "tiny",
        formats=("onnx",),
        repository=tmp_path / "r",
        build_dir=tmp_path / "b",
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(2,)),
        **kw,
    )


def test_rtol_for_an_output_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(ModelSpecError) as e:
        build(_opts(tmp_path, rtol={"nosuch": 1e-3}))
    assert "--rtol 'nosuch' names no output of the model; the outputs of the model: OUTPUT__0" in e.value.message
    assert not (tmp_path / "r").exists()  # refused before anything was exported or written


def test_rtol_for_a_renamed_output_is_refused(tmp_path):
    """Another instance: the output is named by the spec, the --rtol uses the default name."""
    spec = ModelSpec.from_flags(["INPUT__0:float32:16"], ["scores"])
    with pytest.raises(ModelSpecError, match=r"--rtol 'OUTPUT__0' names no output.*: scores"):
        build(_opts(tmp_path, spec=spec, rtol={"OUTPUT__0": 1e-3}))


@pytest.fixture(scope="module")
def static128(tmp_path_factory):
    """A torch.export graph that only takes seq == 128 (a positional table of 128 rows)."""
    import torch

    class Pos(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pos = torch.nn.Parameter(torch.randn(128, 16))

        def forward(self, x):
            return x + self.pos

    path = tmp_path_factory.mktemp("pt2") / "static128.pt2"
    ep = torch.export.export(
        Pos().eval(), (torch.randn(2, 128, 16),), dynamic_shapes=({0: torch.export.Dim("batch", min=1, max=64)},)
    )
    torch.export.save(ep, str(path))
    return path


@pytest.mark.slow  # real export (torch.export)
def test_axis_range_contradicting_a_static_graph_is_refused(static128):
    with pytest.raises(ModelSpecError) as e:
        load_model(str(static128), ModelSpec.from_flags(["x:float32:seq,16"], axes=["seq=256,256,256"]))
    assert "seq=256,256,256" in e.value.message and "static size 128" in e.value.message
    with pytest.raises(ModelSpecError, match="size 64 contradicts the static size 128"):
        load_model(str(static128), ModelSpec.from_flags(["x:float32:64,16"]))
    assert (
        load_model(str(static128), ModelSpec.from_flags(["x:float32:seq,16"], axes=["seq=128,128,128"])).kind
        == "exported_program"
    )


@pytest.mark.slow  # real export (torch.export)
def test_axis_range_outside_a_symbolic_graph_range_is_refused(tmp_path):
    import torch

    class Mean(torch.nn.Module):
        def forward(self, x):
            return x.mean(dim=1)

    seq = torch.export.Dim("seq", min=2, max=64)
    ep = torch.export.export(Mean(), (torch.randn(2, 8, 4),), dynamic_shapes=({1: seq},))
    path = tmp_path / "mean.pt2"
    torch.export.save(ep, str(path))
    with pytest.raises(ModelSpecError, match=r"seq=2,32,128 is outside the graph's range \[2, 64\]"):
        load_model(str(path), ModelSpec.from_flags(["x:float32:seq,4"], axes=["seq=2,32,128"]))
    load_model(str(path), ModelSpec.from_flags(["x:float32:seq,4"], axes=["seq=2,32,64"]))


def test_a_model_that_fails_at_the_declared_sizes_names_them():
    import torch

    class Only128(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pos = torch.nn.Parameter(torch.randn(128, 16))

        def forward(self, x):
            return x + self.pos[: x.shape[1]].expand(x.shape[1], 16) if x.shape[1] <= 128 else x @ torch.ones(3)

    from builders.model.outputs import infer_outputs

    with pytest.raises(ModelSpecError, match=r"seq=256 \(range \[256, 256, 256\]\)"):
        infer_outputs(Only128(), ModelSpec.from_flags(["x:float32:seq,16"], axes=["seq=256,256,256"]))


def test_preferred_batch_sizes_without_dynamic_batching_are_refused():
    with pytest.raises(ConfigError, match=r"--preferred-batch-sizes 8 apply.*--dynamic-batching off"):
        VariantGrid(queue_delays_us=(None,), preferred_batch_sizes=(8,))
    with pytest.raises(ConfigError, match="preferred_batch_size"):  # above every max_batch_size (kept)
        VariantGrid(queue_delays_us=(None, 100), preferred_batch_sizes=(128,), max_batch_sizes=(8,))


def test_gpus_without_a_gpu_instance_kind_are_refused():
    with pytest.raises(ConfigError, match=r"--gpus 1 apply to KIND_GPU .*cpu"):
        VariantGrid(kinds=("cpu",), gpus=(1,))


def test_gpu_ids_this_host_does_not_have_are_refused(monkeypatch):
    from builders.config import variants
    from core.gpu import GpuInfo

    monkeypatch.setattr(variants, "detect_gpus", lambda: (GpuInfo(0, "GPU", "1", None),))
    monkeypatch.setattr(variants, "gpu_available", lambda: True)
    with pytest.raises(ConfigError, match=r"--gpus 3: no such GPU on this host \(its GPUs: 0\)"):
        VariantGrid(kinds=("gpu",), gpus=(0, 3)).plan("m", ("onnx",))
    # served elsewhere (--server-gpu): this host's GPUs say nothing
    assert VariantGrid(kinds=("gpu",), gpus=(3,), server_gpu=True).plan("m", ("onnx",)).variants


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "x"])
def test_rtol_values_that_cannot_judge_anything_are_refused(value):
    import click

    from builders.cli.build_flags import parse_rtols

    with pytest.raises(click.BadParameter, match="--rtol"):
        parse_rtols((f"OUTPUT__0={value}",))
    assert parse_rtols(("OUTPUT__0=1e-3", "b=0")) == {"OUTPUT__0": 1e-3, "b": 0.0}


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_rtol_does_not_rename_the_model(tmp_path):
    """Regression: the --rtol loop once overwrote --name, naming the build after the output."""
    from click.testing import CliRunner

    from builders.cli.main import cli

    res = CliRunner().invoke(
        cli,
        [
            "build",
            "--model",
            "tiny",
            "--format",
            "onnx",
            "--instance-counts",
            "1",
            "--dynamic-batching",
            "off",
            "--name",
            "myname",
            "--rtol",
            "OUTPUT__0=1e-3",
            "--repository",
            str(tmp_path / "repo"),
            "--build-dir",
            str(tmp_path / "b"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "b" / "myname" / "manifest.json").is_file()
    assert (tmp_path / "repo" / "myname_onnx_cpu1_nodb_mbs64").is_dir()
    assert not (tmp_path / "b" / "OUTPUT__0").exists()
