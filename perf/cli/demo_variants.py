"""The variants ``make demo`` checks and sweeps: those its own build made, or ``DEMO_VARIANTS`` (trial 13,
T13-11: the demo took every ``<model>_*`` variant of the repository, 12 fp16/bf16 variants of an earlier
build among its 20, and its unbudgeted check took 4 min 16 s, without a word why 20).

The build's manifest names its variants (:attr:`builders.repository.records.BuildManifest.made_variants`: those
this build wrote, not those of exports kept from an earlier one); ``DEMO_VARIANTS`` (names or patterns, as
``--variants`` takes them) picks from the repository instead. ``scripts/demo.sh`` runs it after step 1::

    python -m perf.cli.demo_variants detr

It prints the comma list on stdout (passed to ``clients check --variants`` and the sweep's ``--variants``)
and one line on stderr saying how many, which and why, naming the variants it leaves out; a
``DEMO_VARIANTS`` that matches no variant of the repository is refused (exit 2), naming the variable.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Sequence

import click

from builders.build_options import BuildOptions
from builders.repository.records import MANIFEST_FILE, MANIFEST_KIND, IndexEntry
from builders.repository.view import served_entries
from core.errors import RecordError
from core.naming import variant_patterns
from core.records import load_record
from core.wording import count

#: The variable that names the variants instead.
VARIABLE = "DEMO_VARIANTS"


def _groups(names: Sequence[str], entries: dict[str, IndexEntry]) -> str:
    """``detr onnx fp16 ×4, detr torchscript bf16 ×4``: ``names`` counted by model, format and precision."""
    kinds: dict[str, int] = {}
    for name in names:
        v = entries[name].variant
        kinds[f"{v.model} {v.format} {v.precision}"] = kinds.get(f"{v.model} {v.format} {v.precision}", 0) + 1
    return ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items()))


def chosen(name: str, given: str | None) -> tuple[list[str], str]:
    """The variants to check and sweep and the line that says which and why.

    Args:
        name: The model's name (its build folder under ``builds/``, the first part of its variant names).
        given: ``DEMO_VARIANTS``'s value, when set.

    Returns:
        The variant names, and the line (naming the variants of ``name`` in the repository it leaves out).

    Raises:
        click.UsageError: ``given`` matches no variant of the repository, or the build left no manifest.
    """
    defaults = BuildOptions(model=name)
    repository = defaults.repository
    try:
        entries = served_entries(repository)  # a variant folder removed by hand is not the repository's (T26-9)
        manifest = load_record(defaults.build_dir / name / MANIFEST_FILE, MANIFEST_KIND)
    except (RecordError, OSError) as e:
        raise click.UsageError(f"the build of {name} left no manifest or index to read the variants from: {e}") from e
    made = manifest.made_variants
    if given:
        patterns = variant_patterns(given)
        names = [n for n in entries if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
        empty = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in entries)]
        if empty:
            raise click.UsageError(
                f"{VARIABLE}={given}: {', '.join(repr(p) + _meant(p, list(entries)) for p in empty)} matches no variant in "
                f"{repository}\n"
                f"  -> set {VARIABLE} to names or patterns of its variants; this build's: {','.join(made)}"
            )
        return names, f"   checked and swept: {count(len(names), 'variant')}, the ones {VARIABLE}={given} names"
    line = f"   checked and swept: the {count(len(made), 'variant')} this build made"
    others = [n for n in entries if n.startswith(f"{name}_") and n not in made]
    if others:
        line += (
            f"; {repository} also holds {count(len(others), 'other variant')} of {name}, from an earlier build "
            f"({_groups(others, entries)}), left out ({VARIABLE}='{name}_*' takes them too)"
        )
    return made, line + f" ({VARIABLE}=NAME|PATTERN[,...] names fewer)"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the comma list of the variants (stdout) and why (stderr); exit 2 on a refusal."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        names, line = chosen(args[0], os.environ.get(VARIABLE) or None)
    except (click.UsageError, ValueError) as e:
        click.echo(f"make demo: {getattr(e, 'message', e)}", err=True)
        return 2
    click.echo(line, err=True)
    click.echo(",".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())


def _meant(pattern: str, known: list[str]) -> str:
    """``" (did you mean 'mlp_onnx*'?)"`` for a pattern that matches none of ``known``: the one did-you-mean rule of
    variant patterns (:func:`builders.repository.patterns.meant`; s22z, Z-6); ``""`` when nothing is close."""
    from builders.repository.patterns import meant

    m = meant(pattern, known)
    return f" (did you mean {m!r}?)" if m else ""
