"""The table ``builders build`` prints: one row per export and device it was verified on,
why any verdict is not ``ok``, and the graph health of each export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from builders.build_stop import BuildInterrupted
from builders.graph.facts import build_summary_lines
from builders.model.forward_args import binding_line
from builders.repository.records import BuildManifest, ExportRecord, FailedExport
from builders.repository.view import served_entries
from builders.verify.compare import differing_words
from builders.verify.explain import rejection_line
from builders.verify.value_sources import bool_lines, range_lines
from builders.verify.verdicts import describe
from core.cli import console as make_console
from core.cli import print_table
from core.console import interrupted_words
from core.errors import RecordError
from core.wording import count

SUMMARY_COLUMNS = ("format", "precision", "strategy", "verified on", "worst error per output", "status", "this build")

#: The words of the "this build" column for a record carried over from an earlier build.
KEPT_WORDS = "kept from an earlier build"
WHY_KEPT = {False: "not asked for", True: "this build's attempt failed"}


def made_words(e: ExportRecord | FailedExport, manifest: BuildManifest) -> str:
    """What the latest build did with an export record (the table's "this build" column):
    ``"made now"``; ``"reused (unchanged)"`` (asked for, and taken back with its recorded
    verification, :func:`builders.build_exports.export_each_format`); ``"kept from an earlier
    build (not asked for)"`` (a record of a format or precision this build did not try, a
    failure too: not this build's result, so not its exit code); ``"kept from an earlier build
    (this build's attempt failed)"`` (its failure is the row beside it); ``"tried now (failed)"`` for this
    build's own failure (trial 14, T14-10: "made now" beside "failed (export)" read as an artifact written)."""
    if not e.kept:
        if isinstance(e, FailedExport):
            return "tried now (failed)"
        return "reused (unchanged)" if e.reused else "made now"
    pair = (e.format, e.precision)
    tried = any(isinstance(o, FailedExport) and not o.kept and (o.format, o.precision) == pair for o in manifest.exports)
    other = " of another model" if isinstance(e, ExportRecord) and e.other_model else ""  # its earlier weights (T24-16)
    return f"{KEPT_WORDS}{other} ({WHY_KEPT[tried]})"


def _kept_prefix(e: ExportRecord | FailedExport) -> str:
    """``"kept from an earlier build: "`` before a line about a record this build did not make."""
    return f"{KEPT_WORDS}: " if e.kept else ""


def summary_rows(manifest: BuildManifest) -> list[list[str]]:
    """One row per export and device it was verified on (:data:`SUMMARY_COLUMNS`, the last
    :func:`made_words`); a failed export gets one row with each strategy's failed stage."""
    return [[*row, made_words(e, manifest)] for e in manifest.exports for row in _export_rows(e)]


def _export_rows(e: ExportRecord | FailedExport) -> list[list[str]]:
    """An export's rows, but for the "this build" column."""
    rows = []
    if isinstance(e, FailedExport):
        tried = (
            "; ".join(
                f"{a.strategy}: {'verification' if a.stage == 'verify' else 'export'} failed" for a in e.attempts if not a.ok
            )
            or "-"
        )
        return [[e.format, e.precision, tried, "-", "-", f"failed ({e.failed})"]]
    verdicts = e.verdicts or []
    if not verdicts:  # a manifest from before verdicts
        rows.append([e.format, e.precision, e.strategy, "-", _errors(e.errors), "unknown (older build)"])
    for v in verdicts:
        on = f"{v.verified_on.runner} ({v.verified_on.device}, computes in {v.verified_on.computes_in})"
        if v.status == "not_verified_device":  # nothing ran: name what would have, not a place it ran
            on = f"nothing (would be {v.verified_on.runner} on {v.verified_on.device})"
        rows.append(
            [
                e.format,
                e.precision,
                e.strategy,
                on,
                _errors(v.errors) if v.errors else "-",
                describe(v.status, e.precision, v.verified_on.device),
            ]
        )
    return rows


def _errors(errors: dict[str, Any]) -> str:
    return "\n".join(
        f"{name}: "
        + (
            f"abs {o.max_abs_err:.2e}, rel {o.max_rel_err:.2e} (rtol {o.rtol:g})"
            if o.differing is None or o.elements is None
            else differing_words("", o.differing, o.elements, o.rtol)
        )
        for name, o in errors.items()
    )


def rejected_strategies(manifest: BuildManifest) -> list[str]:
    """One line per rejected export strategy of every export in the manifest, saying why
    (:func:`builders.verify.explain.rejection_line`) and, where the exporter printed something
    (a "Torch IR graph at exception" dump), that it is kept in the attempt's record; a record
    this build did not make starts with :data:`KEPT_WORDS`."""
    spec = manifest.spec.to_spec()
    return [
        _kept_prefix(e)
        + rejection_line(e.format, e.precision, a.strategy, a.stage, a.error, manifest.draws, spec)
        + (
            f" (what the exporter printed, {count(a.output.count(chr(10)) + 1, 'line')}: the attempt's output in the manifest)"
            if a.output
            else ""
        )
        for e in manifest.exports
        for a in e.attempts
        if not a.ok
    ]


#: Why Triton's PyTorch backend serves a TorchScript tensor under another name than the spec's, by kind
#: (:mod:`builders.backends.pytorch_libtorch`; pytorch_backend README, "Naming convention").
WHY_RENAMED = {
    "inputs": "the backend finds an input by its forward() argument name, and these are not the spec's names, "
    "so by <name>__<index>, its position in forward()",
    "outputs": "a TorchScript module's outputs have no names, so the backend finds each by <name>__<index>, "
    "its position in the returned tuple",
}


def served_names_lines(manifest: BuildManifest, serving: str | None) -> list[str]:
    """One line per set of exports whose served tensor names differ from the spec's: the names
    the build wrote into their configs, from the same record
    (:meth:`builders.repository.records.ExportRecord.served_names`, the map
    :func:`builders.build` renames the spec by before writing each config), why the backend
    needs each kind renamed (:data:`WHY_RENAMED`; the inputs' with which ``forward()``
    argument each is passed as, from ``manifest.input_binding``) and which exports serve the
    spec's names: ``"served names (torchscript fp32, torchscript fp16; --serving native): output
    logits as logits__0 (Triton's PyTorch backend: outputs: a TorchScript module's outputs have no
    names, ...; onnx fp32 serves the spec's names; clients send and ask for the served names)"``.
    Every precision and strategy of one format serves one set of names (the exports keep the
    model's ``forward()`` argument names: :func:`builders.export.precision.argument_names`), so a
    build has one such line per format at most. Only the exports this build made or reused: a
    record kept from an earlier build is served as that build wrote it, perhaps with another
    serving (trial 16, T16-16). Empty when every name is the spec's or ``serving`` is unknown."""
    if serving is None:
        return []
    found: dict[tuple[tuple[str, str, str], ...], list[str]] = {}
    kept: list[str] = []
    for e in manifest.exports:
        if isinstance(e, FailedExport) or e.kept:
            continue
        names = e.served_names(serving) or {}
        renamed = tuple((kind, a, b) for kind in ("inputs", "outputs") for a, b in names.get(kind, {}).items() if a != b)
        (found.setdefault(renamed, []) if renamed else kept).append(f"{e.format} {e.precision}")
    lines = []
    for renamed, exports in found.items():
        pairs = ", ".join(f"{kind[:-1]} {a} as {b}" for kind, a, b in renamed)
        why = []
        for kind in dict.fromkeys(k for k, _, _ in renamed):
            binding = manifest.input_binding if kind == "inputs" else {}
            passed = ", ".join(f"{a} -> {binding[a]}" for _, a, _ in renamed if a in binding)
            why.append(f"{kind}: {WHY_RENAMED[kind]}" + (f" (passed as: {passed})" if passed else ""))
        if kept:
            why.append(f"{', '.join(kept)} {'serves' if len(kept) == 1 else 'serve'} the spec's names")
        lines.append(
            f"served names ({', '.join(exports)}; --serving {serving}): {pairs} (Triton's PyTorch backend: "
            f"{'; '.join(why)}; clients send and ask for the served names)"
        )
    return lines


def print_build_summary(manifest: BuildManifest, serving: str | None = None) -> None:
    """Print the build's one-table summary to stdout (:func:`core.cli.print_table`: fitted to
    the terminal, else to ``COLUMNS`` or 120 characters); then why any verdict is not ``ok``
    (the reasons recorded in the manifest; those of a record kept from an earlier build say so,
    as its row does: :func:`made_words`) and one graph-health line per export
    (:func:`builders.graph.facts.build_summary_lines`), each line whole; then, when the spec's
    input names are not ``forward()``'s, which input is passed as which argument
    (:func:`builders.model.forward_args.binding_line`), each integer input's verified range and
    where it came from (:func:`builders.verify.value_sources.range_lines`), each bool input without a domain's
    values and how to declare a mask (:func:`builders.verify.value_sources.bool_lines`), and, when the server
    serves other names than the spec's (``serving``: the build's ``--serving``), which
    (:func:`served_names_lines`)."""
    from rich.markup import escape
    from rich.table import Table

    rows = summary_rows(manifest)
    reasons = dict.fromkeys(
        f"{_kept_prefix(e)}{e.format} {e.precision}: {describe(v.status, e.precision, v.verified_on.device)}: {v.reason}"
        for e in manifest.exports
        if not isinstance(e, FailedExport)
        for v in e.verdicts
        if v.reason
    )
    reasons.update(dict.fromkeys(rejected_strategies(manifest)))
    reasons.update(dict.fromkeys(build_summary_lines(manifest)))
    console = make_console(stderr=False)
    table = Table(title=f"build of {escape(manifest.model)}")
    for col in SUMMARY_COLUMNS:
        table.add_column(col, overflow="fold", no_wrap=col in ("format", "precision"))
    for row in rows:
        table.add_row(*(escape(c) for c in row))
    print_table(table, console)
    for r in reasons:
        console.print(escape(r), highlight=False, soft_wrap=not console.is_terminal)
    for line in [*range_lines(manifest.value_ranges, manifest.spec.to_spec()), *bool_lines(manifest.spec.to_spec())]:
        click.echo(line)
    served = served_names_lines(manifest, serving)
    if manifest.input_binding:
        click.echo(binding_line(manifest.input_binding, renamed=bool(served)))
    for line in served:
        click.echo(line)
    if manifest.warmup_count is not None:
        w = manifest.warmup_count
        click.echo(f"model_warmup: each sample runs {w.count}x ({w.reason})")


def repository_line(repository: Path, written: list[Path]) -> str:
    """``repository: PATH (this build wrote 2 variants; its index lists 6: the 2 written now and
    4 kept from before: make torchscript fp32 ×4)``: the variants of this build and of the whole
    repository, each counted by name (:mod:`core.wording`), the ones it did not write grouped
    by model, format and precision, so the words match what the repository holds after it."""
    line = f"repository: {repository} (this build wrote {count(len(written), 'variant')}"
    try:
        index = served_entries(repository)
    except RecordError:
        return line + ")"
    names = {p.name for p in written}
    kept: dict[str, int] = {}
    for name, entry in index.items():
        if name not in names:
            v = entry.variant
            key = f"{v.model} {v.format} {v.precision}"
            kept[key] = kept.get(key, 0) + 1
    if not kept:
        return line + ")"
    groups = ", ".join(f"{k} ×{n}" for k, n in sorted(kept.items()))
    return (
        line
        + f"; its index lists {len(index)}: the {len(names)} written now and {sum(kept.values())} kept from before: {groups})"
    )


def say_interrupted(stop: BuildInterrupted, status: Any) -> None:
    """Say what a build Ctrl-C stopped left written and what builds the rest, its ``status`` line
    (rich's) stopped first; exit 130 (a further Ctrl-C ignored)."""
    from core.cli import EXIT_INTERRUPTED
    from core.console import ignore_further_interrupts

    ignore_further_interrupts()
    status.stop()
    click.secho(f"{interrupted_words()}: {stop.text}", fg="yellow", err=True)
    raise SystemExit(EXIT_INTERRUPTED) from None
