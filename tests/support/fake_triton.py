"""An in-memory stand-in for a tritonclient HTTP client of Triton's model-repository API, for
unit tests of what the toolkit loads, reads back and leaves on a server (no server started).

It follows what the bundled Triton 2.51 was seen to do (tests/clients/runtimes/test_tenancy_integration.py
checks the same on the real server): a load request whose config equals the loaded model's is
answered with success and changes nothing (the files are not read); a load that fails keeps
the loaded copy; an uploaded model is loaded and listed by the statistics endpoint but not by
the repository index, which lists only the server's own repository.
"""

from __future__ import annotations

import json
from typing import Any

from tritonclient.utils import InferenceServerException

#: A file content that makes a load fail (a corrupt artifact).
CORRUPT = b"corrupt"


class FakeTriton:
    """A server's models: ``repository`` (its own, name -> config as JSON) and ``loaded``.

    Attributes:
        calls: Every load/unload request, as ``("load"|"unload", name)``.
    """

    def __init__(self, repository: dict[str, dict] | None = None, loaded: dict[str, dict] | None = None):
        self.repository = dict(repository or {})
        self.loaded = dict(loaded or {})
        self.calls: list[tuple[str, str]] = []

    # -- what the toolkit asks -----------------------------------------------------------
    def load_model(
        self, name: str, headers: Any = None, query_params: Any = None, config: str | None = None, files: dict | None = None
    ) -> None:
        self.calls.append(("load", name))
        if config is None:
            if name not in self.repository:
                raise InferenceServerException(f"failed to load '{name}', failed to poll from model repository")
            new = self.repository[name]
        else:
            new = {**json.loads(config), "name": name}
        if self.loaded.get(name) == new:
            return  # Triton 2.51: the same config is "loaded" at once, the files are not read
        if files and any(v == CORRUPT for v in files.values()):
            raise InferenceServerException(f"load failed for model '{name}': Protobuf parsing failed")
        self.loaded[name] = new

    def unload_model(self, name: str, headers: Any = None, query_params: Any = None, unload_dependents: bool = False) -> None:
        self.calls.append(("unload", name))
        self.loaded.pop(name, None)

    def is_model_ready(self, name: str, model_version: str = "", headers: Any = None, query_params: Any = None) -> bool:
        return name in self.loaded

    def get_model_config(self, name: str, model_version: str = "", headers: Any = None, query_params: Any = None) -> dict:
        if name not in self.loaded:
            raise InferenceServerException(f"Request for unknown model: '{name}' is not found")
        cfg = json.loads(json.dumps(self.loaded[name]))
        for i, g in enumerate(cfg.get("instance_group") or [{"kind": "KIND_CPU", "count": 1}]):
            g.setdefault("name", f"{name}_{i}")
            g.setdefault("count", 1)
            g.setdefault("gpus", [])
        cfg.setdefault("instance_group", [{"name": f"{name}_0", "kind": "KIND_CPU", "count": 1, "gpus": []}])
        return cfg

    def get_inference_statistics(self, model_name: str = "", headers: Any = None, query_params: Any = None) -> dict:
        return {"model_stats": [{"name": n, "version": "1"} for n in sorted(self.loaded)]}

    def get_model_repository_index(self, headers: Any = None, query_params: Any = None) -> list[dict]:
        return [{"name": n, **({"version": "1", "state": "READY"} if n in self.loaded else {})} for n in sorted(self.repository)]

    def is_server_live(self, headers: Any = None, query_params: Any = None) -> bool:
        return True

    def close(self) -> None:
        pass
