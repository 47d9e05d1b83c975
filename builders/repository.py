"""Writing variants into a Triton model repository, and its index file.

Layout (Triton docs, "Model Repository"):
``<repo>/<variant>/config.pbtxt`` and ``<repo>/<variant>/1/<model file>``; for the bundled
runtime also ``1/model.py`` (the python-backend model). The exported file is hard-linked
from the build folder where the filesystem allows (shared, not copied), else copied.
``<repo>/index.json`` lists every variant, its parameters and the build it came from.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from builders.artifacts import FORMAT_FILES
from builders.config import make_config, write_config
from builders.spec import ModelSpec
from builders.variants import Variant

log = logging.getLogger(__name__)

INDEX_FILE = "index.json"
VERSION = "1"
PYTHON_MODEL_TEMPLATE = Path(__file__).parent / "templates" / "triton_python_model.py"


def write_variant(repo: Path, variant: Variant, artifact: Path, spec: ModelSpec, runtime: str) -> Path:
    """Write one variant folder; returns it. Existing content of that folder is replaced.

    Raises:
        ConfigError: the variant breaks a Triton rule for this runtime (from ``make_config``).
    """
    cfg = make_config(variant, spec, runtime)  # validate before touching the disk
    vdir = repo / variant.name
    if vdir.exists():
        shutil.rmtree(vdir)
    (vdir / VERSION).mkdir(parents=True)
    write_config(cfg, vdir / "config.pbtxt")
    _link_or_copy(artifact, vdir / VERSION / FORMAT_FILES[variant.format])
    if runtime == "bundled":
        shutil.copyfile(PYTHON_MODEL_TEMPLATE, vdir / VERSION / "model.py")
    return vdir


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def update_index(repo: Path, entries: list[dict[str, Any]]) -> Path:
    """Merge ``entries`` (each with a ``"name"``) into ``<repo>/index.json``; returns its path."""
    path = repo / INDEX_FILE
    index = read_index(repo)
    for e in entries:
        index[e["name"]] = e
    # drop entries whose folder is gone
    index = {k: v for k, v in sorted(index.items()) if (repo / k).is_dir()}
    path.write_text(json.dumps({"variants": list(index.values())}, indent=2) + "\n")
    return path


def read_index(repo: Path) -> dict[str, dict[str, Any]]:
    """Variant name -> index entry (empty when the repository has no index)."""
    path = repo / INDEX_FILE
    if not path.is_file():
        return {}
    return {e["name"]: e for e in json.loads(path.read_text()).get("variants", [])}
