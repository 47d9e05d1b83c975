"""System shared-memory regions for requests (Triton docs, "Shared-Memory Extension").

A request's tensors can travel through POSIX shared memory instead of the request body when
the client and the server share a host: each region is made with
``tritonclient.utils.shared_memory``, registered on the server, and unregistered and
destroyed when done (:class:`Regions`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from pathlib import Path
from typing import Any

import tenacity

from core.errors import ClientError

log = logging.getLogger(__name__)


def shared_memory_module() -> Any:
    """``tritonclient.utils.shared_memory``, importable without ``pkg_resources``.

    tritonclient 2.51 finds its ``libcshm.so`` with ``pkg_resources.resource_filename``;
    setuptools 81+ no longer ships ``pkg_resources``. When it is missing, a minimal stand-in
    offering only ``resource_filename`` (via importlib) is registered before the import. Where it is
    there (setuptools 67-80), importing it warns that it is deprecated: that one warning is not the
    user's to act on and is filtered around this import only (trial 12, F16).
    """
    import importlib.util
    import sys
    import types
    import warnings

    if "pkg_resources" not in sys.modules and importlib.util.find_spec("pkg_resources") is None:

        def resource_filename(package: str, resource: str) -> str:
            spec = importlib.util.find_spec(package)
            assert spec is not None and spec.submodule_search_locations
            return str(Path(list(spec.submodule_search_locations)[0]) / resource)

        shim = types.ModuleType("pkg_resources")
        shim.resource_filename = resource_filename  # type: ignore[attr-defined]
        sys.modules["pkg_resources"] = shim
        log.debug("pkg_resources is not installed; using a resource_filename stand-in for tritonclient's shared memory")
    with warnings.catch_warnings():
        # tritonclient/utils/shared_memory/__init__.py:34 (tritonclient 2.51) runs `import pkg_resources`, and
        # setuptools' pkg_resources/__init__.py warns on import (UserWarning "pkg_resources is deprecated as an
        # API ... pin to Setuptools<81"): printed with its source line between clients infer's lines
        warnings.filterwarnings("ignore", message="pkg_resources is deprecated as an API", category=UserWarning)
        import tritonclient.utils.shared_memory as shm

    return shm


class Regions:
    """The system shared-memory regions one client registered; :meth:`close` releases them all.

    Args:
        client: A tritonclient ``InferenceServerClient``.
        url: Its server's address, for messages.
        index: The worker's number, part of each region's name.
    """

    def __init__(self, client: Any, url: str, index: int):
        self.client, self.url, self.index = client, url, index
        self.handles: list[Any] = []
        self.names: list[str] = []

    def create(self, tensor: str, nbytes: int) -> tuple[str, Any]:
        """A region of ``nbytes`` for ``tensor``, registered on the server: ``(name, handle)``.

        Raises:
            ClientError: the server refused it (it is not on this host, or a container
                without ``--ipc=host``).
        """
        from tritonclient.utils import InferenceServerException

        shm = shared_memory_module()
        region = f"tmk_{os.getpid()}_{self.index}_{uuid.uuid4().hex[:8]}_{tensor}"
        key = "/" + region
        handle = shm.create_shared_memory_region(region, key, max(nbytes, 1))
        self.handles.append(handle)
        try:
            self.client.register_system_shared_memory(region, key, max(nbytes, 1))
        except InferenceServerException as e:
            raise ClientError(
                f"the server refused the shared-memory region for {tensor!r}: {e.message()}",
                hint="system shared memory works only with a server on the same host (for a container: --ipc=host); drop --shared-memory",
            ) from e
        self.names.append(region)
        return region, handle

    def close(self) -> None:
        """Unregister every region (two more tries on a transient error; one left registered is
        logged) and destroy them."""
        for region in self.names:
            try:
                tenacity.Retrying(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_fixed(0.2), reraise=True)(
                    self.client.unregister_system_shared_memory, region
                )
            except Exception as e:
                log.warning("shared-memory region %s could not be unregistered from %s: %s", region, self.url, e)
        if self.handles:
            shm = shared_memory_module()
            for handle in self.handles:
                with contextlib.suppress(Exception):
                    shm.destroy_shared_memory_region(handle)
        self.names, self.handles = [], []
