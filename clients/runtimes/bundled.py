"""The ``bundled`` runtime: the ``tritonserver`` carried by the ``nvidia-pytriton`` wheel (CPU,
python backend only).

Facts used here (../shared/RUNTIME.md): the binary is ``pytriton/tritonserver/bin/tritonserver``,
its python backend in ``pytriton/tritonserver/backends/python``; the stub for the running
Python (``python_backend_stubs/<X.Y>/triton_python_backend_stub``) must be copied into
that backend folder; the shared libraries are in ``nvidia_pytriton.libs`` (on
``LD_LIBRARY_PATH``); the stub's interpreter ignores PYTHONPATH, so the toolkit's
site-packages travel in ``TRITON_TOOLKIT_SITE_PACKAGES``.

``python -m clients.runtimes.bundled --prepare`` (run by ``scripts/setup.sh``) puts the stub in
place and prints the binary's path.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from builders.serving.torch_env import server_env
from clients.runtimes.base import Ports, Runtime
from clients.runtimes.options import ServerOptions
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
        raise ServerError(
            f"the bundled server has no python-backend stub for Python {ver}", hint=f"use one of Python {', '.join(have)}"
        )
    if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
        shutil.copy2(src, dst)


class BundledRuntime(Runtime):
    """The nvidia-pytriton wheel's server: ``--backend-directory`` at its python backend,
    its libraries on ``LD_LIBRARY_PATH``, the toolkit's site-packages for the python models.
    It serves repositories built with ``--serving python`` only."""

    name = "bundled"
    backends = ("python",)

    def __init__(self, opts: ServerOptions) -> None:
        super().__init__(opts)
        self._server: BundledServer | None = None

    @classmethod
    def detect(cls, opts: ServerOptions) -> str:
        """Always usable as the last choice of ``auto`` (a missing wheel fails in :meth:`check`)."""
        return "no local tritonserver and no Docker engine with a GPU: using the bundled CPU server (python backend)"

    def check(self) -> None:
        """Locate the server and put the python-backend stub in place.

        Raises:
            ServerError: nvidia-pytriton is not installed, or has no stub for this Python.
        """
        self._server = find_bundled(prepare=True)

    def _found(self) -> BundledServer:
        if self._server is None:
            self.check()
        assert self._server is not None
        return self._server

    def command(self, ports: Ports) -> list[str]:
        """The bundled binary with its backend directory, on ``ports`` and the resolved repository.

        Raises:
            ServerError: the bundled server is not installed (:meth:`check`).
        """
        b = self._found()
        return [
            str(b.binary),
            f"--backend-directory={b.backend_dir}",
            *self.args(ports, str(Path(self.opts.repository).resolve())),
        ]

    def environment(self) -> dict[str, str]:
        """``LD_LIBRARY_PATH`` and the python backend's site-packages for the bundled binary, and torch's OpenMP
        wait policy (:func:`builders.serving.torch_env.server_env`: the stubs' torch threads sleep while they
        wait, an empty ``OMP_WAIT_POLICY=`` read as unset, as every runtime reads it)."""
        return {**self._found().env(), **server_env()}


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
        f'exec {shlex.quote(str(b.binary))} --backend-directory={shlex.quote(str(b.backend_dir))} "$@"\n'
    )
    path.chmod(0o755)
    return path


if __name__ == "__main__":  # used by scripts/setup.sh and scripts/gpu_check.sh
    if "--prepare" in sys.argv:
        print(find_bundled(prepare=True).binary)
