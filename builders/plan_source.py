"""Where ``builders build --print-trtexec`` takes the ONNX a TensorRT plan is built from.

The flag asks for the commands that build the plans on another host. When the build folder
already holds this model's verified fp32 ONNX export, those commands are printed from it and
nothing is built: a build would rewrite the repository's variants of the model (with the
default grid, other ones than a sweep measured; issue 26, K1). Only when there is no such
export, or ``--force`` asks to export again, is one built, and the command says so before it starts.
"""

from __future__ import annotations

import dataclasses
import json

from builders.build_options import BuildOptions, BuildResult
from builders.model.models import load_model
from builders.model.spec import ModelSpec
from builders.repository.build_folder import same_source
from builders.repository.manifest import MANIFEST, read_manifest, weights_hash
from builders.repository.records import ExportRecord
from core.errors import FlagError


@dataclasses.dataclass(frozen=True)
class OnnxSource:
    """The verified fp32 ONNX export the plans are built from, or why there is none.

    Attributes:
        recorded: The build folder's manifest, its path and no variant folders, when it
            records this model's verified fp32 ONNX export (its file present); ``None``: a
            build must make it.
        reason: Why there is none (``""`` when ``recorded`` is set), e.g. ``"builds/tiny
            holds no build"``.
    """

    recorded: BuildResult | None
    reason: str


def recorded_onnx(opts: BuildOptions, max_batch_size: int | None = None, opset: int | None = None) -> OnnxSource:
    """The build folder's verified fp32 ONNX export of the model ``opts`` names, if it holds one and ``opts.force``
    (``--force``: export again even where an identical build exists) is off.

    The model is loaded (not exported) to compare it with the build folder's manifest: the same
    source, weights and source hash, and the same inputs (names, dtypes, dims, dynamic axes
    ranges) as the spec given now. The recorded export must have passed its verification
    (status ``ok``) and its file must still be in the folder.

    Args:
        opts: The build's options (model, spec, name and build folder are read).
        max_batch_size: The largest ``--max-batch-sizes`` value where the user typed the flag (``None``: the
            recorded export's stands).
        opset: ``--opset`` where the user typed it (``None``: the recorded export's stands).

    Returns:
        The manifest of the export to build the plans from, or why there is none.

    Raises:
        ModelSpecError: the model cannot be loaded or its spec is malformed.
        FlagError: ``max_batch_size`` (or ``opset``) is not the recorded export's: printing commands never builds in
            its place (a build would rewrite the model's variants: re-check 19, NEW-3) nor prints plans of a batch size
            (or from an opset) the flag did not ask for.
    """
    if opts.force:  # asked to export again: the build makes the ONNX the plans are built from
        return OnnxSource(None, "--force exports the model again")
    spec_in = opts.spec if opts.spec is not None else ModelSpec.from_file(opts.spec_path) if opts.spec_path else None
    loaded = load_model(opts.model, spec_in, opts.example_inputs)
    out = opts.build_dir / (opts.name or loaded.name)
    old = read_manifest(out)
    if old is None:
        return OnnxSource(None, f"{out} holds no build")
    inputs = old.spec.to_spec().to_json()["inputs"]
    differs = [
        what
        for what, same in (
            ("the model's source", same_source(old.source, loaded.source)),
            ("the weights", old.weights_sha256_16 == weights_hash(loaded.module)),
            ("the model's code", old.source_sha256_16 == loaded.fingerprint),
            ("the inputs", inputs == loaded.spec.to_json()["inputs"]),
        )
        if not same
    ]
    if differs:
        return OnnxSource(None, f"the build in {out} differs from this model in {', '.join(differs)}")
    onnx = [e for e in old.exports if isinstance(e, ExportRecord) and e.format == "onnx" and e.precision == "fp32"]
    if not onnx or onnx[0].status != "ok" or not (out / onnx[0].file).is_file():
        why = "records no fp32 ONNX export" if not onnx else "records no verified fp32 ONNX export with its file present"
        return OnnxSource(None, f"the build in {out} {why}")
    path = out / MANIFEST
    manifest = json.loads(path.read_text())
    if max_batch_size is not None and manifest.get("max_batch_size") != max_batch_size:
        had = manifest.get("max_batch_size")  # never a build in its place: that rewrote the model's variants (re-check 19)
        raise FlagError(
            f"--max-batch-sizes asks for plans of max batch size {max_batch_size}, but the verified fp32 ONNX export {path} "
            f"records, the one the plans are built from, was exported and verified for max batch size {had}: nothing was "
            "built or printed",
            flag="--max-batch-sizes",
            hint=f"drop --max-batch-sizes (the plans then take batches up to {had}), or build the ONNX export for it first "
            f"(`builders build --format onnx --max-batch-sizes {max_batch_size} ...`, which rewrites that model's variants) "
            "and run this again",
        )
    had_opset = onnx[0].extra.get("opset")
    if opset is not None and had_opset != opset:  # the plans would come from another opset's graph than asked (s19)
        raise FlagError(
            f"--opset {opset} asks for plans built from an ONNX export of opset {opset}, but the verified fp32 ONNX "
            f"export {path} records, the one the plans are built from, is opset {had_opset}: nothing was built or printed",
            flag="--opset",
            hint=f"drop --opset (the plans are then built from the opset {had_opset} export), or pass --force to export "
            f"and verify it at opset {opset} first (which rewrites that model's variants)",
        )
    return OnnxSource(BuildResult(manifest, path, []), "")
