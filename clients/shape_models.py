"""The models a ``--shape`` refusal of ``triton-perf sweep`` and ``coldstart`` is answered from
(:func:`clients.shapes.refuse_shape_flags`, :mod:`clients.shape_refusals`), read from a model repository."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from clients.shape_flags import ShapeModel


def repository_models(repository: Path, variants: Sequence[str]) -> Iterator[ShapeModel]:
    """The models of ``variants`` (names or patterns, as ``--variants`` takes them; every variant where empty) in
    ``repository``, from their config.pbtxt and build manifest, read as they are needed: what a ``--shape`` refusal of
    ``triton-perf sweep`` and ``coldstart`` is answered from (:func:`clients.shapes.refuse_shape_flags`).

    Raises:
        ToolkitError: no such repository or variant, or a config that does not read.
    """
    from google.protobuf import json_format

    from builders.config.pbtxt import read_config
    from builders.repository.view import Repository

    repo = Repository(repository)
    for name in repo.names(variants, indexed=False):
        cfg = json_format.MessageToDict(read_config(repo.path / name / "config.pbtxt"), preserving_proto_field_name=True)
        dims = [(i["name"], [int(d) for d in i.get("dims", [])]) for i in cfg.get("input", [])]
        yield name, dims, int(cfg.get("max_batch_size", 0) or 0), repo.variant(name).served_spec
