"""The identity of a variant's files (:mod:`clients.runtimes.identity`): a file found in a repository
is recorded by its content (SHA-256), and :func:`compare_files` tells the files now from the ones
recorded — content for a hashed record, size and mtime for an older one, which is then "not
verified here", never a match (issue 26: what is deployed must be what was measured)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from clients.runtimes.identity import ArtifactFile, ArtifactIdentity, compare_files, found_artifact


def _rewrite(path: Path, data: bytes) -> None:
    """Write ``data`` and move the mtime on a second (the clock files are stamped with is coarse)."""
    st = path.stat()
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def _variant(tmp_path: Path, weights: bytes) -> Path:
    folder = tmp_path / "v"
    (folder / "1").mkdir(parents=True, exist_ok=True)
    (folder / "1" / "model.onnx").write_bytes(weights)
    (folder / "config.pbtxt").write_text('name: "v"')  # not a version file: not part of the artifact
    return folder


def test_a_found_file_is_recorded_by_its_content(tmp_path: Path):
    folder = _variant(tmp_path, b"weights-A")
    (f,) = found_artifact(folder).files
    assert (f.path, f.size_bytes, f.sha256) == ("1/model.onnx", 9, hashlib.sha256(b"weights-A").hexdigest())
    assert f.mtime_ns is not None


def test_other_weights_of_the_same_size_are_a_change_named_measured_vs_now(tmp_path: Path):
    folder = _variant(tmp_path, b"weights-A")
    measured = found_artifact(folder)
    assert compare_files(measured, found_artifact(folder)).changed == ()
    _rewrite(folder / "1" / "model.onnx", b"weights-B")  # a rebuild: same size, other content
    (line,) = compare_files(measured, found_artifact(folder)).changed
    a, b = hashlib.sha256(b"weights-A").hexdigest()[:12], hashlib.sha256(b"weights-B").hexdigest()[:12]
    assert line == f"1/model.onnx: measured 9 bytes (sha256 {a}), now 9 bytes (sha256 {b})"
    (folder / "1" / "extra.bin").write_bytes(b"x")
    assert any("1/extra.bin: not there when measured" in x for x in compare_files(measured, found_artifact(folder)).changed)
    assert compare_files(measured, None).changed  # the folder is gone


def test_an_old_record_without_a_hash_is_not_verified_when_it_looks_the_same_and_changed_when_not(tmp_path: Path):
    folder = _variant(tmp_path, b"weights-A")
    st = (folder / "1" / "model.onnx").stat()
    old = ArtifactIdentity("found", str(folder), [ArtifactFile("1/model.onnx", st.st_size, mtime_ns=st.st_mtime_ns)])
    same = compare_files(old, found_artifact(folder))
    assert same.changed == () and same.unverified == ("1/model.onnx",)  # not claimed to match
    _rewrite(folder / "1" / "model.onnx", b"weights-B")
    (line,) = compare_files(old, found_artifact(folder)).changed
    assert "rewritten since it was measured" in line
    _rewrite(folder / "1" / "model.onnx", b"weights-BB")
    assert compare_files(old, found_artifact(folder)).changed == ("1/model.onnx: measured 9 bytes, now 10 bytes",)


def test_a_torchscript_archive_saved_again_with_the_same_weights_is_the_same_content(tmp_path: Path):
    """Break-it F10: two exports of the same weights whose ``model.pt`` bytes differ (an unused pickle memo entry)
    were a change, and a run that measured one refused the other; other weights still are a change, and a record
    made before content digests compares bytes, as it did."""
    from archives import archive_bytes

    folder = _variant(tmp_path, b"")
    (folder / "1" / "model.onnx").unlink()
    pt = folder / "1" / "model.pt"
    pt.write_bytes(archive_bytes())
    measured = found_artifact(folder)
    assert measured.files[0].content_sha256 is not None
    _rewrite(pt, archive_bytes(resaved=True))
    now = found_artifact(folder)
    assert now.files[0].sha256 != measured.files[0].sha256  # other bytes
    assert compare_files(measured, now).changed == ()
    before = ArtifactIdentity("found", str(folder), [ArtifactFile(f.path, f.size_bytes, f.sha256) for f in measured.files])
    assert compare_files(before, now).changed  # a run saved before content digests: by bytes
    _rewrite(pt, archive_bytes(b"\x00\x02" * 32, resaved=True))
    (line,) = compare_files(measured, found_artifact(folder)).changed
    assert line.startswith("1/model.pt: measured ")


def test_an_uploaded_archive_is_recorded_by_its_content_too(tmp_path: Path):
    from archives import archive_bytes

    from clients.runtimes.identity import uploaded_artifact

    sent = uploaded_artifact(tmp_path, {"file:1/model.pt": archive_bytes()})
    again = uploaded_artifact(tmp_path, {"file:1/model.pt": archive_bytes(resaved=True)})
    assert sent.files[0].sha256 != again.files[0].sha256
    assert compare_files(sent, again).changed == ()
