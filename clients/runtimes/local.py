"""The ``local`` runtime: a ``tritonserver`` binary already on this machine (inside NVIDIA's
image, or a build of one): ``--tritonserver PATH``, else ``$TRITONSERVER``, else PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from builders.serving.torch_env import server_env
from clients.runtimes.base import Ports, Runtime
from clients.runtimes.bundled import SITE_ENV, site_packages
from clients.runtimes.options import LOCAL_ENV, ServerOptions
from core.errors import ServerError
from core.names import file_problem


def local_binary(binary: Path | None = None) -> str | None:
    """The local tritonserver: ``binary`` if given, else ``$TRITONSERVER``, else ``tritonserver`` on
    PATH, as an absolute path (the command ``--print-cmd`` prints runs pasted in another folder, as its repository
    does: s19, ``--tritonserver bin/tritonserver`` printed a path relative to the folder it was typed in; a bare
    name is the file in this folder that was checked, not one Popen would look up on PATH); ``None`` when there is none.

    Raises:
        ServerError: ``binary`` (``--tritonserver``, a usage error) or ``$TRITONSERVER`` names no
            executable file: a binary the user named is never passed over for another runtime.
    """
    if binary:
        _named_binary(str(binary), "--tritonserver", "--tritonserver")
        return os.path.abspath(binary)
    env = os.environ.get(LOCAL_ENV)
    if env:
        _named_binary(env, f"${LOCAL_ENV}", None)
        return os.path.abspath(env)
    found = shutil.which("tritonserver")
    return os.path.abspath(found) if found else None


def _named_binary(path: str, source: str, flag: str | None) -> None:
    """Refuse a tritonserver binary the user named that is not an executable file (trial 21: ``--tritonserver
    /missing`` started the bundled server instead, the flag ignored): missing, a folder or unreadable as every
    file argument says it (:func:`core.names.file_problem`), else not executable."""
    what = f"the tritonserver binary {source} names:"
    problem = file_problem(Path(path), what)
    if problem is None and not os.access(path, os.X_OK):
        problem = (f"{what} {path} is not executable", "chmod +x it")
    if problem:
        fix = f"point it at the tritonserver binary, or unset {LOCAL_ENV}" if flag is None else problem[1]
        raise ServerError(problem[0], hint=f"{fix} (or --runtime bundled for the toolkit's own CPU server)", flag=flag)


class LocalRuntime(Runtime):
    """A tritonserver on this machine, run as is (its own backends: native ones where present)."""

    name = "local"

    @classmethod
    def detect(cls, opts: ServerOptions) -> str | None:
        """Why ``auto`` picks the local runtime: a tritonserver binary was named (``--tritonserver``,
        ``$TRITONSERVER``) or found on PATH.

        Raises:
            ServerError: a named binary is not an executable file (:func:`local_binary`).
        """
        found = local_binary(opts.binary)
        if found and opts.binary:
            return f"--tritonserver names {found}"
        return f"a tritonserver binary was found at {found}" if found else None

    def check(self) -> None:
        """Raises:
        ServerError: no binary at ``--tritonserver``, ``$TRITONSERVER`` or on PATH."""
        self.binary()

    def binary(self) -> str:
        """The binary this runtime runs.

        Raises:
            ServerError: there is none (with where it was looked for).
        """
        found = local_binary(self.opts.binary)
        if not found:
            raise ServerError(
                "no local tritonserver found",
                hint=f"put tritonserver on PATH, set ${LOCAL_ENV}, or use --runtime bundled",
            )
        return found

    def command(self, ports: Ports) -> list[str]:
        """The local binary on ``ports`` and the resolved repository.

        Raises:
            ServerError: no local binary (:meth:`binary`).
        """
        return [self.binary(), *self.args(ports, str(Path(self.opts.repository).resolve()))]

    def environment(self) -> dict[str, str]:
        """The toolkit's site-packages for python-backend variants, unless already set, and torch's OpenMP wait
        policy (:func:`builders.serving.torch_env.server_env`: LibTorch's threads sleep while they wait)."""
        # python-backend variants (--serving python) read this; native ones ignore it
        site = {SITE_ENV: site_packages()} if SITE_ENV not in os.environ else {}
        return {**site, **server_env()}
