"""After a ``builders build --replace`` rebuild, the refusal of a run's variant prints the build that restores what
the run measured (trial 30, F6; README: "prints the build (with ``--serving`` as measured and ``--replace``) that
restores it"): export-deployment and ``sweep --resume`` (both :func:`perf.records.measured_files.refuse_changed`)
said only "rebuild the model the run measured", while after ``make clean`` the same run printed its recorded command."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import level_result, run_result, served_model, variant_result

from clients.runtimes.identity import found_artifact
from core.errors import PerfError
from perf.records.measured_files import SERVED, SHIPPED, refuse_changed

NAME = "net_onnx_cpu1_nodb_mbs8"
COMMAND = "builders build --model net.py:make --spec spec.json --format onnx"


def _measured_then_replaced(tmp_path: Path, params: dict) -> tuple[object, Path]:
    repo = tmp_path / "repo"
    (repo / NAME / "1").mkdir(parents=True)
    (repo / NAME / "config.pbtxt").write_text(f'name: "{NAME}"\nbackend: "onnxruntime"\n')
    model = repo / NAME / "1" / "model.onnx"
    model.write_bytes(b"weights the run measured")
    v = variant_result(NAME, [level_result(1, 100.0, 2.0)], params=params)
    v.served = [served_model(NAME, max_batch_size=8, artifact=found_artifact(repo / NAME))]
    run = run_result([v], run_id="m", settings={"repository": str(repo)}, finished="x")
    model.unlink()
    model.write_bytes(b"the --replace build's other weights")
    return run, repo


@pytest.mark.parametrize(("files", "doing"), [(SHIPPED, "bundle"), (SERVED, "resumed measurement")])
def test_the_refusal_prints_the_recorded_build_with_serving_and_replace(tmp_path: Path, files, doing) -> None:
    run, repo = _measured_then_replaced(tmp_path, {"model": "net", "serving": "native", "build_command": COMMAND})
    with pytest.raises(PerfError) as e:
        refuse_changed(run, [NAME], repo, doing, files)
    hint = e.value.hint or ""
    assert f"restore it as the run measured it with `{COMMAND} --serving native --replace`, then run this command again" in hint
    assert "measure the rebuilt variants in a new run (another --run-id)" in hint


def test_a_command_that_gave_its_serving_and_replace_is_printed_as_it_is(tmp_path: Path) -> None:
    typed = COMMAND + " --serving=python --replace"
    run, repo = _measured_then_replaced(tmp_path, {"model": "net", "serving": "python", "build_command": typed})
    with pytest.raises(PerfError) as e:
        refuse_changed(run, [NAME], repo, "bundle", SHIPPED, "--allow-changed-model")
    assert f"with `{typed}`, then" in (e.value.hint or "") and "--allow-changed-model uses the files" in (e.value.hint or "")


def test_without_a_recorded_command_the_advice_is_as_before(tmp_path: Path) -> None:
    run, repo = _measured_then_replaced(tmp_path, {"model": "net"})
    with pytest.raises(PerfError) as e:
        refuse_changed(run, [NAME], repo, "bundle", SHIPPED)
    assert (e.value.hint or "").startswith("a rebuild replaced them: measure the rebuilt variants in a new run")
    assert "rebuild the model the run measured" in (e.value.hint or "")


def test_a_recorded_build_that_built_the_files_there_now_is_not_printed_as_the_restore(tmp_path: Path) -> None:
    """Trial 31, F12: the weights file at the path the factory loads was retrained and the same command rebuilt with
    --replace; the printed restore (that command) rebuilt the new weights, said nothing, and the refusal printed it
    again. The index records that command as the build of the files there now: the refusal says the files it reads
    are not the run's, names the hashes its build read, and restores only with them put back."""
    from builders.config.variants import Variant
    from builders.model.spec import ModelSpec
    from builders.repository.records import MANIFEST_FILE, MANIFEST_KIND, BuildManifest, IndexEntry, ModelSpecRecord
    from builders.repository.writer import update_index
    from core.records import write_record

    build = tmp_path / "builds" / "net"
    params = {"model": "net", "serving": "python", "build": str(build), "build_command": COMMAND}
    run, repo = _measured_then_replaced(tmp_path, params)
    build.mkdir(parents=True)
    spec = ModelSpecRecord.from_spec(ModelSpec.from_flags(["x:float32:4"]))
    manifest = BuildManifest(
        model="net", source="net.py:make", created="2026-12-05T14:40:00", spec=spec, max_batch_size=8,
        weights_sha256_16="a624df7f21c5aaaa", source_sha256_16="5eed5eed5eed5eed",
    )  # fmt: skip
    write_record(build / MANIFEST_FILE, MANIFEST_KIND, manifest)
    variant = Variant("net", "onnx", max_batch_size=8)
    assert variant.name == NAME
    update_index(repo, [IndexEntry.of(variant, "python", str(build), COMMAND + " --serving python --replace")])
    with pytest.raises(PerfError) as e:
        refuse_changed(run, [NAME], repo, "bundle", SHIPPED)
    hint = " ".join((e.value.hint or "").split())
    assert "restore it as the run measured it with" not in hint, hint
    assert (
        f"{NAME}'s files now were built by the command the run recorded, `{COMMAND}` (its build, 2026-12-05T14:40:00: "
        f"weights_sha256_16 a624df7f21c5aaaa, model source_sha256_16 5eed5eed5eed5eed, in {build / MANIFEST_FILE}): the "
        "model files it reads (the weights, the model source) are not the ones the run measured"
    ) in hint, hint
    assert "put back the model files the run measured and run it with --replace, then run this command again" in hint

    update_index(repo, [IndexEntry.of(variant, "python", str(build), COMMAND + " --opset 18 --replace")])
    with pytest.raises(PerfError) as e:  # another command built the files now: the recorded one restores
        refuse_changed(run, [NAME], repo, "bundle", SHIPPED)
    assert f"restore it as the run measured it with `{COMMAND} --serving python --replace`" in (e.value.hint or "")
