"""The ``config.pbtxt`` of a variant for a test without a real build: builders' own
:func:`builders.config.pbtxt.make_config` of a spec and a variant, so that a test's config and its
spec cannot disagree (a hand-written config dict or pbtxt said each tensor's dtype and dims again).

- :func:`variant_config`: the config in the JSON form perf and clients take it in (proto field names,
  as :func:`perf.search.plan.plan_variant` holds it and a server's model-config endpoint gives it);
- :func:`write_variant_config`: the config written as ``<repository>/<variant>/config.pbtxt``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.protobuf import json_format

from builders.config.pbtxt import make_config, write_config
from builders.config.variants import Variant
from builders.model.spec import ModelSpec


def variant_config(spec: ModelSpec, variant: Variant) -> dict[str, Any]:
    """``variant``'s config for ``spec`` (python serving), as a dict; its ``name`` is the variant's."""
    return json_format.MessageToDict(make_config(variant, spec), preserving_proto_field_name=True)


def write_variant_config(repository: Path, spec: ModelSpec, variant: Variant) -> Path:
    """Write ``variant``'s config for ``spec`` into its model folder of ``repository``; returns the file."""
    path = repository / variant.name / "config.pbtxt"
    write_config(make_config(variant, spec), path)
    return path
