"""What each variant's ``instance_group`` asks of the server: its instances in all, their kind and,
for KIND_GPU groups, the device ids (Triton docs, "Model Configuration: Instance Groups").

- ``KIND_CPU`` (and ``KIND_AUTO`` where the server has no GPU): ``count`` instances.
- ``KIND_GPU``: ``count`` instances on each GPU listed in ``gpus``, or on every GPU the server
  sees when none is listed (``count`` x that number; the number is the caller's, 1 when unknown).
- ``KIND_MODEL``: ``count`` instances; the model chooses its devices.

A group without ``count`` has Triton's default of 1.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from builders.config.pbtxt import read_config


@dataclasses.dataclass(frozen=True)
class Groups:
    """One variant's instance groups, summed.

    Attributes:
        variant: The variant (model folder).
        instances: Instances in all (module docstring).
        gpu: It has a KIND_GPU group.
        gpu_ids: The device ids its KIND_GPU groups list, sorted; empty: every GPU the server sees
            (or no KIND_GPU group).
        readable: Its ``config.pbtxt`` could be read (otherwise: 1 instance, KIND_CPU assumed; the
            load fails with the server's reason).
    """

    variant: str
    instances: int
    gpu: bool
    gpu_ids: tuple[int, ...]
    readable: bool = True


def groups_of(repository: Path, variant: str, visible_gpus: int = 1) -> Groups:
    """The instance groups of ``repository/variant/config.pbtxt`` (module docstring).

    Args:
        repository: The model repository.
        variant: The variant's folder name.
        visible_gpus: GPUs the server sees, for a KIND_GPU group that lists none (at least 1).
    """
    import tritonclient.grpc.model_config_pb2 as mc

    try:
        cfg = read_config(Path(repository) / variant / "config.pbtxt")
    except Exception:  # noqa: BLE001 - an unreadable config fails at its load, with the server's reason
        return Groups(variant, 1, False, (), readable=False)
    total, gpu, ids = 0, False, set()
    for g in cfg.instance_group:
        count = g.count or 1
        if g.kind == mc.ModelInstanceGroup.KIND_GPU:
            gpu = True
            ids.update(g.gpus)
            total += count * (len(g.gpus) if g.gpus else max(1, visible_gpus))
        else:
            total += count
    return Groups(variant, total or 1, gpu, tuple(sorted(ids)))
