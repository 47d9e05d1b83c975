"""The ``local`` runtime: a ``tritonserver`` binary already on this machine (inside NVIDIA's
image, or a build of one): ``--tritonserver PATH``, else ``$TRITONSERVER``, else PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from clients.runtimes.base import Ports, Runtime
from clients.runtimes.bundled import SITE_ENV, site_packages
from clients.runtimes.options import LOCAL_ENV, ServerOptions
from core.errors import ServerError


def local_binary(binary: Path | None = None) -> str | None:
    """The local tritonserver: ``binary`` if given (``None`` when it is not a file), else
    ``$TRITONSERVER`` (same), else ``tritonserver`` on PATH; ``None`` when there is none."""
    if binary:
        return str(binary) if Path(binary).is_file() else None
    env = os.environ.get(LOCAL_ENV)
    if env:
        return env if Path(env).is_file() else None
    return shutil.which("tritonserver")


class LocalRuntime(Runtime):
    """A tritonserver on this machine, run as is (its own backends: native ones where present)."""

    name = "local"

    @classmethod
    def detect(cls, opts: ServerOptions) -> str | None:
        """Why ``auto`` may pick the local runtime: a tritonserver binary was found."""
        found = local_binary(opts.binary)
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
        """The toolkit's site-packages for python-backend variants, unless already set."""
        # python-backend variants (--serving python) read this; native ones ignore it
        return {SITE_ENV: site_packages()} if SITE_ENV not in os.environ else {}
