"""The flags of ``builders build``, by help panel (:data:`BUILD_FLAGS`), and the parser of ``--rtol``: the
command's declarations, apart from its body (:mod:`builders.cli.build`). The flags that are
:class:`builders.build.BuildOptions` fields take their type and default from it."""

from __future__ import annotations

import math

import click

from builders.build import BuildOptions
from builders.cli.flags import EXPORT_PANEL, FORMAT_FLAGS, GRID_FLAGS, SERVING_FLAGS
from builders.config.warmup import DEFAULT_WARMUP_COUNT
from builders.triton.releases import DEFAULT_RELEASE
from core.cli import flag
from core.options import REPOSITORY, option

MODEL_PANEL = "Model"
TRT_PANEL = "TensorRT"
OUT_PANEL = "Where it goes"


def parse_rtols(items: tuple[str, ...]) -> dict[str, float]:
    """``--rtol OUTPUT=VALUE`` flags -> ``{output: rtol}``.

    Raises:
        click.BadParameter: not ``OUTPUT=VALUE``, or a value that is not a finite number >= 0
            (NaN would make every comparison pass, a negative one every comparison fail).
    """
    out: dict[str, float] = {}
    for item in items:
        output, sep, text = item.partition("=")
        try:
            value = float(text)
        except ValueError:
            sep = ""
        if not sep or not output:
            raise click.BadParameter(f"--rtol expects OUTPUT=VALUE such as OUTPUT__0=1e-3, got {item!r}")
        if not math.isfinite(value) or value < 0:
            raise click.BadParameter(f"--rtol {item!r}: the tolerance must be a finite number >= 0, such as 1e-3")
        out[output] = value
    return out


#: The flags of ``builders build``, by help panel.
BUILD_FLAGS = (
    flag(
        "--model",
        "model",
        default="mlp",
        panel=MODEL_PANEL,
        help="Built-in model (mlp, cnn, encoder, tiny), path/to/file.py:factory or package.module:factory (a "
        "function returning the nn.Module), or a model file: .pt (TorchScript) or .pt2 (torch.export). User models "
        "need --spec or --input. The current directory is importable (as with python -m): --model mymodel:make and "
        "--model mymodel.py:make both call make() in ./mymodel.py.",
    ),
    option(
        BuildOptions,
        "name",
        show_default=False,
        panel=MODEL_PANEL,
        help="Model name: the build folder BUILD_DIR/NAME and the first part of every variant name "
        "[default: the built-in's name, the factory's function name, or the model file's stem].",
    ),
    option(
        BuildOptions,
        "spec_path",
        decls=("--spec",),
        path={"dir_okay": False},
        panel=MODEL_PANEL,
        help="JSON input spec: input names, per-sample shapes with named dynamic axes, dtypes, value ranges "
        "(`builders spec --example` prints one).",
    ),
    flag(
        "--input",
        "inputs",
        multiple=True,
        metavar="NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN]",
        panel=MODEL_PANEL,
        help="One model input, in forward() order (repeat), e.g. input_ids:int64:seq:0..30521, "
        "lengths:int64:1:1..time (a bound may name a dynamic axis: at most its size in the same request), "
        "categories:int64:3:0..4,0..11,0..29 (one range per position of the last axis: a tabular input's columns), "
        "attention_mask:int64:seq:mask (a domain) or pixels:float32:3,224,224.",
    ),
    flag(
        "--output",
        "outputs",
        multiple=True,
        metavar="NAME",
        panel=MODEL_PANEL,
        help="Output names in the order forward() returns them, tuple/dict outputs flattened (repeat).",
    ),
    flag(
        "--dynamic-axis",
        "axes",
        multiple=True,
        metavar="AXIS=MIN,OPT,MAX[/STEP]",
        panel=MODEL_PANEL,
        help="Range of a named dynamic axis used in --input shapes, e.g. seq=1,64,128 (repeat); any size in the "
        "range unless /STEP is given: H=64,128,256/32 takes multiples of 32 only.",
    ),
    *FORMAT_FLAGS,
    option(BuildOptions, "opset", panel=EXPORT_PANEL, help="ONNX opset version."),
    option(
        BuildOptions,
        "rtol",
        decls=("--rtol",),
        repeat=True,
        metavar="OUTPUT=VALUE",
        parse=parse_rtols,
        panel=EXPORT_PANEL,
        help="Relative tolerance of one output, e.g. logits=1e-3 (repeat); for an integer or bool output (argmax labels), "
        "the fraction of its elements allowed to differ [default: by precision: fp32 1e-4, fp16/bf16 1e-2].",
    ),
    option(
        BuildOptions,
        "sample_path",
        decls=("--sample",),
        path={"dir_okay": False, "exists": True},
        panel=EXPORT_PANEL,
        help="Your own inputs (.npz, one array per input name, batch axis first), verified beside the generated draws.",
    ),
    option(
        BuildOptions,
        "force",
        panel=EXPORT_PANEL,
        help="Re-export even when an identical build exists, and replace a build of the same name made from another source.",
    ),
    option(
        BuildOptions,
        "replace",
        panel=EXPORT_PANEL,
        help="Write over variants of the same name that differ (another --serving, grid parameters or build folder); "
        "without it such a build is refused before any export, naming them and the runs in results/ that measured them.",
    ),
    *GRID_FLAGS,
    *SERVING_FLAGS,
    option(
        BuildOptions,
        "warmup_count",
        type=click.IntRange(1),
        panel=GRID_FLAGS[0].panel,
        help="Runs of each model_warmup sample of the --warmup variants: the count `triton-perf coldstart` (or a sweep) "
        f"measured and printed [default: {DEFAULT_WARMUP_COUNT}, recorded as a default, not measured].",
    ),
    option(
        BuildOptions,
        "warmup_count_reason",
        metavar="TEXT",
        panel=GRID_FLAGS[0].panel,
        help="Why --warmup-count is that number (the measurement triton-perf coldstart printed); kept in the build manifest.",
    ),
    option(
        BuildOptions,
        "workspace_bytes",
        decls=("--workspace-mib",),
        scale=2**20,
        type=click.INT,
        panel=TRT_PANEL,
        help="TensorRT builder workspace limit (MiB).",
    ),
    option(
        BuildOptions,
        "timing_cache",
        path={"dir_okay": False},
        panel=TRT_PANEL,
        help="TensorRT timing cache file, reused across builds [default: BUILD_DIR/<model>/trt_timing.cache].",
    ),
    flag(
        "--print-trtexec",
        is_flag=True,
        panel=TRT_PANEL,
        help="Print, per --precision, the whole `docker run` (NVIDIA's TensorRT image of the --target-triton release, the "
        "build folder mounted, paths as seen inside) that builds the TensorRT plan from the build folder's verified fp32 "
        "ONNX export of the model, and the `--plan` command that takes the plans back; nothing is built and the repository "
        "is left as it is. Without such an export it is built first (a build: its variants are written), said before.",
    ),
    flag(
        "--target-triton",
        metavar="RELEASE",
        default=DEFAULT_RELEASE,
        panel=TRT_PANEL,
        help="Triton release (yy.mm) the plans are for: the TensorRT image tag --print-trtexec uses.",
    ),
    flag(
        "--plan",
        "plans",
        multiple=True,
        metavar="[PRECISION=]PATH",
        panel=TRT_PANEL,
        help="A TensorRT plan built elsewhere (by the --print-trtexec command) for the trt export of PRECISION "
        "[default: the one --precision]; verified where TensorRT and a GPU are, else marked not verified here (repeat).",
    ),
    option(
        BuildOptions,
        "repository",
        flag=REPOSITORY,
        panel=OUT_PANEL,
        help="Model repository the variants are written to (one folder per variant, plus index.json).",
    ),
    option(
        BuildOptions,
        "build_dir",
        path={"file_okay": False},
        panel=OUT_PANEL,
        help="Artifacts, manifest.json and reference.npz go to BUILD_DIR/<model>.",
    ),
)
