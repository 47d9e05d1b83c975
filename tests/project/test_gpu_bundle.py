"""The GPU check's offline bundle and private environment (scripts/prepare_gpu_bundle.sh,
scripts/gpu_check.sh, scripts/gpu_check_pth.py): what the bundle carries covers what the toolkit
needs, and the python-backend stub sees every package pip saw as installed.

Both were found on the first GPU run (an H200, 2026-12-04): the bundle lacked pydantic, tenacity and
click-option-group (the CPU dry run had borrowed them from the repository's .venv), and over a host
Python that is itself a virtual environment the stub did not see the base interpreter's packages."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import gpu_check_pth as pth  # noqa: E402

#: pyproject dependencies the bundle does not carry, and why (each must stay true).
NOT_CARRIED = {
    "torch": "the host's CUDA build (gpu_check.sh checks it)",
    "onnx": "the host's (gpu_check.sh checks it)",
    "onnxruntime": "the host's (gpu_check.sh checks it)",
    "scipy": "the host's (gpu_check.sh checks it; too big for the 64 MiB bundle)",
    "tritonclient": "carried as its own slimmed wheel",
    "nvidia-pytriton": "carried as its own slimmed wheel",
    "onnxscript": "carried as an optional wheel (the TorchScript-based ONNX exporter runs without it)",
    "nvidia-cuda-runtime-cu12": "perf_analyzer gets libcudart from the bundled server's libraries",
    "matplotlib": "optional: without it report.md and plots are skipped (too big for the bundle)",
    "plotly": "report --html only",
    "kubernetes": "export-deployment only",
    "pyyaml": "export-deployment only",
    "setuptools": "tritonclient's CUDA shared memory only",
}


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _host_reqs() -> set[str]:
    text = (ROOT / "scripts" / "prepare_gpu_bundle.sh").read_text()
    block = re.search(r"^HOST_REQS=\((.*?)^\)", text, re.S | re.M)
    assert block, "HOST_REQS=( ... ) not found in prepare_gpu_bundle.sh"
    return {_name(r) for r in re.findall(r'"([^"]+)"', block.group(1))}


def _checked_on_host() -> set[str]:
    text = (ROOT / "scripts" / "gpu_check.sh").read_text()
    found = re.search(r"for m in \(([^)]*)\) if u\.find_spec", text)
    assert found, "gpu_check.sh's host package check not found"
    return {m.strip(' "') for m in found.group(1).split(",") if m.strip(' "')}


def test_every_dependency_of_the_toolkit_is_carried_checked_on_the_host_or_named_as_not_needed() -> None:
    import tomllib  # Python 3.11+ (the toolkit runs on 3.10 too; the tests run on the project's 3.11)

    deps = {_name(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    carried = _host_reqs()
    missing = sorted(deps - carried - set(NOT_CARRIED))
    assert not missing, f"pyproject dependencies neither in the bundle's HOST_REQS nor in NOT_CARRIED: {missing}"
    # the host-provided ones are checked on the host before anything is installed
    for dep in ("torch", "onnx", "onnxruntime", "scipy"):
        assert dep in _checked_on_host(), dep
    stale = sorted(set(NOT_CARRIED) - deps)
    assert not stale, f"NOT_CARRIED names what pyproject no longer lists: {stale}"


def test_the_pth_puts_the_environment_first_then_repository_torch_host_and_base_folders(tmp_path: Path) -> None:
    site, root, torch_dir, host, base = (tmp_path / n for n in ("venv-site", "repo", "torch-site", "host-site-packages", "base"))
    base_site = base / "dist-packages"
    for d in (site, root, torch_dir, host, base_site):
        d.mkdir(parents=True)
    lines = pth.pth_lines(
        str(root), str(site), str(torch_dir), [str(host), "/usr/lib/python312.zip", str(site)], [str(base_site), str(host)]
    )
    assert lines[0].startswith("import sys;") and repr(str(site)) in lines[0]
    assert lines[1:] == [str(root), str(torch_dir), str(host), str(base_site)]  # each once, the env's own never again


def test_the_pth_leaves_out_folders_that_do_not_exist(tmp_path: Path) -> None:
    lines = pth.pth_lines(str(tmp_path), str(tmp_path / "site"), None, [str(tmp_path / "gone-site-packages")], ["/nowhere"])
    assert lines[1:] == [str(tmp_path)]


def test_a_stub_like_interpreter_sees_what_the_pth_lists(tmp_path: Path) -> None:
    """site.addsitedir on the environment's site-packages (what the stub does) puts the base's folder on sys.path."""
    site, base = tmp_path / "site", tmp_path / "base-site-packages"
    site.mkdir()
    (base / "only_in_base").mkdir(parents=True)
    (base / "only_in_base" / "__init__.py").write_text("X = 1\n")
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gpu_check_pth.py"), str(tmp_path), str(site), str(base)],
        capture_output=True,
        text=True,
        check=True,
    )
    (site / "triton_toolkit_gpu_check.pth").write_text(out.stdout)
    probe = f"import site; site.addsitedir({str(site)!r}); import only_in_base; print(only_in_base.X)"
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "1", done.stderr
    assert importlib.util.find_spec("only_in_base") is None  # this interpreter never had it: the .pth gave it
