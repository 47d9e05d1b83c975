"""Flags of `builders validate` and `builders inspect` accepted and ignored (issue 26, K1), refused, exit 2, before
anything is read: `validate --no-artifacts --load-artifacts` opened no model file, its output naming only
--no-artifacts; `inspect FILE --load-artifacts` read the file as it does without the flag."""

from __future__ import annotations

from click.testing import CliRunner

from builders.cli.main import cli


def test_load_artifacts_with_no_artifacts_is_refused(tmp_path) -> None:
    res = CliRunner().invoke(cli, ["validate", str(tmp_path), "--no-artifacts", "--load-artifacts"], terminal_width=400)
    assert res.exit_code == 2, res.output
    assert "--load-artifacts would be ignored: --no-artifacts opens no model file" in res.output
    alone = CliRunner().invoke(cli, ["validate", str(tmp_path), "--load-artifacts"], terminal_width=400)
    assert "would be ignored" not in alone.output


def test_inspect_load_artifacts_for_a_file_is_refused(tmp_path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"")
    res = CliRunner().invoke(cli, ["inspect", str(path), "--load-artifacts"], terminal_width=400)
    assert res.exit_code == 2, res.output
    assert "--load-artifacts would be ignored: model.onnx is a file, read whole either way" in res.output
    folder = CliRunner().invoke(cli, ["inspect", str(tmp_path), "--load-artifacts"], terminal_width=400)
    assert "would be ignored" not in folder.output
