"""The content digest of an export (break-it F10): two saves of the same TorchScript module whose bytes differ
(an unused pickle memo entry, the debug pickles, the serialization id, the archive's top folder) have one
content digest; other weights another; any other file is digested by its bytes."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from archives import archive_bytes, resave, write_archive

from builders.export.artifacts import file_sha256
from builders.export.content import content_sha256, content_sha256_of, same_content


def test_two_saves_of_the_same_module_have_one_content_digest_and_other_bytes(tmp_path: Path):
    first = write_archive(tmp_path / "a" / "model.pt")
    again = write_archive(tmp_path / "b" / "model.pt", resaved=True)
    assert file_sha256(first) != file_sha256(again)  # what the build compared before: "another content"
    assert content_sha256(first) == content_sha256(again)
    assert same_content(first, again)
    renamed = write_archive(tmp_path / "c" / "other.pt")  # torch names the top folder after the file's stem
    assert content_sha256(renamed) == content_sha256(first)


def test_other_weights_are_another_content(tmp_path: Path):
    first = write_archive(tmp_path / "a" / "model.pt")
    other = write_archive(tmp_path / "b" / "model.pt", b"\x00\x02" * 32, resaved=True)
    assert content_sha256(first) != content_sha256(other)
    assert not same_content(first, other)


def test_the_digest_of_bytes_in_memory_is_the_files(tmp_path: Path):
    path = write_archive(tmp_path / "model.pt")
    assert content_sha256_of(path.read_bytes()) == content_sha256(path)
    assert content_sha256_of(archive_bytes(resaved=True)) == content_sha256(path)


def test_a_file_that_is_no_archive_is_digested_by_its_bytes(tmp_path: Path):
    onnx = tmp_path / "model.onnx"
    onnx.write_bytes(b"\x08\x07onnx graph")
    assert content_sha256(onnx) == hashlib.sha256(onnx.read_bytes()).hexdigest() == file_sha256(onnx)
    assert content_sha256(onnx, "given") == "given"  # a known sha256 is not read again
    other = tmp_path / "other.onnx"
    other.write_bytes(b"\x08\x07onnx graph, longer")
    assert not same_content(onnx, other)
    assert not same_content(onnx, tmp_path / "gone.onnx")


def test_a_pickle_entry_that_does_not_parse_is_taken_as_bytes(tmp_path: Path):
    import zipfile

    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("model/data.pkl", b"not a pickle")
    other = tmp_path / "other.pt"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("model/data.pkl", b"not a pickle either")
    assert content_sha256(path) != content_sha256(other)


@pytest.mark.slow  # a real TorchScript export
def test_a_torchscript_archive_saved_again_loads_the_same_and_has_its_content_digest(tmp_path: Path):
    import torch

    from builders.export.torchscript import save_archive

    torch.manual_seed(0)
    module = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval())
    first = tmp_path / "a" / "model.pt"
    first.parent.mkdir()
    save_archive(module, first)
    again = tmp_path / "b" / "model.pt"
    again.parent.mkdir()
    shutil.copy(first, again)
    resave(again)  # data.pkl without its unused memo entries, as another process's torch.jit.save can write it
    assert file_sha256(first) != file_sha256(again)
    x = torch.randn(2, 4)
    assert torch.equal(torch.jit.load(str(first))(x), torch.jit.load(str(again))(x))
    assert content_sha256(first) == content_sha256(again)
    torch.manual_seed(1)
    other = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval())
    save_archive(other, tmp_path / "model.pt")
    assert content_sha256(tmp_path / "model.pt") != content_sha256(first)
