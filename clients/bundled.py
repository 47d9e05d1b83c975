"""The bundled CPU server: the ``tritonserver`` carried by the ``nvidia-pytriton`` wheel.

Facts used here (../shared/RUNTIME.md): the binary is ``pytriton/tritonserver/bin/tritonserver``,
its python backend in ``pytriton/tritonserver/backends/python``; the stub for the running
Python (``python_backend_stubs/<X.Y>/triton_python_backend_stub``) must be copied into
that backend folder; the shared libraries are in ``nvidia_pytriton.libs`` (on
``LD_LIBRARY_PATH``); the stub's interpreter ignores PYTHONPATH, so the toolkit's
site-packages travel in ``TRITON_TOOLKIT_SITE_PACKAGES``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from core.errors import ServerError

SITE_ENV = "TRITON_TOOLKIT_SITE_PACKAGES"
STUB = "triton_python_backend_stub"


@dataclasses.dataclass(frozen=True)
class BundledServer:
    """Paths of the bundled server inside the installed wheel."""

    binary: Path
    backend_dir: Path
    lib_dir: Path

    def env(self) -> dict[str, str]:
        """Environment additions the server process needs."""
        ld = os.pathsep.join(p for p in (str(self.lib_dir), os.environ.get("LD_LIBRARY_PATH", "")) if p)
        return {"LD_LIBRARY_PATH": ld, SITE_ENV: site_packages()}


def site_packages() -> str:
    """This interpreter's site-packages folders (purelib, platlib), ``os.pathsep``-joined."""
    paths = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    return os.pathsep.join(paths)


def find_bundled(prepare: bool = True) -> BundledServer:
    """Locate the bundled server and (by default) put the python-backend stub in place.

    Raises:
        ServerError: ``nvidia-pytriton`` is not installed, or has no stub for this Python.
    """
    spec = importlib.util.find_spec("pytriton")
    if spec is None or not spec.submodule_search_locations:
        raise ServerError(
            "the bundled tritonserver (package nvidia-pytriton) is not installed",
            hint="run `make setup` (or pip install nvidia-pytriton==0.7.0)",
        )
    root = Path(list(spec.submodule_search_locations)[0]) / "tritonserver"
    server = BundledServer(root / "bin" / "tritonserver", root / "backends", root.parent.parent / "nvidia_pytriton.libs")
    if not server.binary.is_file():
        raise ServerError(f"nvidia-pytriton is installed but {server.binary} is missing", hint="reinstall nvidia-pytriton==0.7.0")
    if prepare:
        _install_stub(root)
    return server


def _install_stub(root: Path) -> None:
    ver = f"{sys.version_info.major}.{sys.version_info.minor}"
    src = root / "python_backend_stubs" / ver / STUB
    dst = root / "backends" / "python" / STUB
    if not src.is_file():
        have = sorted(p.name for p in (root / "python_backend_stubs").iterdir())
        raise ServerError(f"the bundled server has no python-backend stub for Python {ver}", hint=f"use one of Python {', '.join(have)}")
    if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
        shutil.copy2(src, dst)


def write_local_wrapper(path: Path) -> Path:
    """Write an executable shell script that runs the bundled server like a local install.

    The script sets ``LD_LIBRARY_PATH`` and ``--backend-directory`` and ``exec``s the binary
    (same pid, so ``PR_SET_PDEATHSIG`` and signals reach the server itself). Point
    ``$TRITONSERVER`` at it to exercise the ``local`` runtime without a separate install.

    Returns:
        ``path``.
    """
    import shlex

    b = find_bundled(prepare=True)
    path.write_text(
        "#!/bin/sh\n"
        "# tritonserver from the nvidia-pytriton wheel, wrapped to behave like a local install\n"
        f"export LD_LIBRARY_PATH={shlex.quote(str(b.lib_dir))}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n"
        f"exec {shlex.quote(str(b.binary))} --backend-directory={shlex.quote(str(b.backend_dir))} \"$@\"\n"
    )
    path.chmod(0o755)
    return path


if __name__ == "__main__":  # used by scripts/setup.sh
    if "--prepare" in sys.argv:
        print(find_bundled(prepare=True).binary)
