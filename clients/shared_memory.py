"""System shared-memory regions for requests (Triton docs, "Shared-Memory Extension").

A request's tensors can travel through POSIX shared memory instead of the request body when
the client and the server share a host: each region is made with
``tritonclient.utils.shared_memory``, registered on the server, and unregistered and
destroyed when done (:class:`Regions`). An output's region is sized before the request is sent: from its
config's dims, or, where they hold ``-1``, from the build's record of the output in terms of the inputs' axes
(:func:`output_shapes`); an output whose size neither gives comes back in the response body, said by
:func:`placement_words` (trial 30, F20: ``reconstruction [1, -1, -1]`` came back over the wire, and nothing said so).
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tenacity

from clients.request_shapes import dims_text
from core.errors import ClientError

if TYPE_CHECKING:
    from builders.model.spec import ModelSpec

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


def output_shapes(
    outputs: Sequence[tuple[str, Sequence[int], str]],
    batching: bool,
    spec: ModelSpec | None,
    sent: Mapping[str, Sequence[int]],
) -> dict[str, tuple[int, ...] | str]:
    """The whole shape each output will have in a request whose inputs have the shapes ``sent``, or why it is not
    known before the request (the output then comes back in the response body).

    An output's config dims give its size where they hold no ``-1``. Else the build's record of the output
    (``spec``: its dims named after the inputs' axes, ``reconstruction [1, H, W]``) gives it, each named axis at its
    size in this request's inputs, the batch axis at the request's rows; a dim the build found to follow no
    single input axis (``<output>_dim<N>``), or a ``BYTES`` output (its size is its values'), is not known.

    Args:
        outputs: Each output's served name, config dims (no batch axis for a batching model) and numpy dtype name.
        batching: Whether the model batches (``max_batch_size > 0``: the batch axis is the inputs' first).
        spec: The build's spec under the served names (:func:`clients.inputs.spec_for`); ``None``: no build record.
        sent: Each input's whole shape as sent.

    Returns:
        Output name -> its whole shape, or why its size is not known before the request, in words.
    """
    from builders.model.tensor import BATCH_AXIS

    rows = next(iter(sent.values()))[0] if batching and sent else None
    sizes: dict[str, int] = {} if rows is None else {BATCH_AXIS: int(rows)}
    for t in spec.inputs if spec else ():
        full, shape = t.full_shape(), list(sent.get(t.name, ()))
        if len(shape) == len(full):
            for d, n in zip(full, shape):
                if isinstance(d, str):
                    sizes.setdefault(d, int(n))
    out: dict[str, tuple[int, ...] | str] = {}
    for name, dims, dtype in outputs:
        config = [-1 if rows is None else int(rows), *dims] if batching else list(dims)
        built = next((o for o in spec.outputs if o.name == name), None) if spec else None
        if dtype == "object":
            out[name] = "a BYTES output's size is that of its values"
        elif -1 not in config:
            out[name] = tuple(config)
        elif built is None:
            why = "the build's record does not name it" if spec else "no build record of the variant gives it (-r)"
            out[name] = f"its config leaves {dims_text(config)} open and {why}"
        elif open_ := [d for d in built.full_shape() if isinstance(d, str) and d not in sizes]:
            out[name] = (
                f"its dims {dims_text(built.full_shape())} name {', '.join(open_)}: no single input axis (the build's record)"
            )
        else:
            whole = tuple(d if isinstance(d, int) else sizes[d] for d in built.full_shape())
            fits = len(whole) == len(config) and all(c in (-1, s) for c, s in zip(config, whole))
            out[name] = (
                whole if fits else f"the build's record {dims_text(built.full_shape())} is not its config's {dims_text(config)}"
            )
    for name, said in out.items():  # -v: each output's region, or why it comes back in the response body
        log.info(
            "output %s %s",
            name,
            f"through shared memory, {list(said)}" if isinstance(said, tuple) else f"over the wire: {said}",
        )
    return out


def placement_words(inputs: Sequence[str], outputs: Mapping[str, tuple[int, ...] | str]) -> str:
    """One line of what went through shared memory and what came back over the wire (``outputs``:
    :func:`output_shapes`' answer for the outputs asked for)."""
    shared = [*inputs, *(n for n, s in outputs.items() if not isinstance(s, str))]
    wire = [f"{n} ({s})" for n, s in outputs.items() if isinstance(s, str)]
    line = f"shared memory: {', '.join(shared) or 'nothing'}"
    return line + (f"; over the wire, its size not known before the request: {'; '.join(wire)}" if wire else "")
