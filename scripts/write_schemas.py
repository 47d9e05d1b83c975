"""Write (or check) the JSON Schemas of the toolkit's records under ``docs/schemas/``.

    python scripts/write_schemas.py          # write docs/schemas/*.json
    python scripts/write_schemas.py --check  # exit 1 when a committed schema differs

The schemas are generated from the pydantic records (one source of truth): the build
manifest and repository index (:mod:`builders.repository.records`), the input spec
(:class:`builders.model.spec.ModelSpecRecord`) the sweep results (:mod:`perf.records.results`) a repository's in-process baseline (:mod:`perf.profile.baseline`) and a co-location run
(:mod:`perf.records.colocation`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builders.model.spec import SPEC_SCHEMA, ModelSpecRecord  # noqa: E402
from builders.repository.records import INDEX_KIND, MANIFEST_KIND  # noqa: E402
from core.records import RecordKind  # noqa: E402
from perf.profile.baseline import BASELINE_KIND  # noqa: E402
from perf.records.colocation import COLOCATION_KIND  # noqa: E402
from perf.records.results import RESULTS_KIND  # noqa: E402

SCHEMA_DIR = ROOT / "docs" / "schemas"
SPEC_KIND: RecordKind[ModelSpecRecord] = RecordKind("input spec", ModelSpecRecord, SPEC_SCHEMA, hint="see README")
#: File name -> record kind.
KINDS: dict[str, RecordKind[Any]] = {
    "build_manifest.json": MANIFEST_KIND,
    "repository_index.json": INDEX_KIND,
    "results.json": RESULTS_KIND,
    "input_spec.json": SPEC_KIND,
    "baseline.json": BASELINE_KIND,
    "colocation.json": COLOCATION_KIND,
}


def schemas() -> dict[str, str]:
    """File name -> the schema's text, as written."""
    return {name: json.dumps(kind.json_schema(), indent=2, sort_keys=True) + "\n" for name, kind in KINDS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    stale = []
    for name, text in schemas().items():
        path = SCHEMA_DIR / name
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(name)
        else:
            SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python scripts/write_schemas.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
