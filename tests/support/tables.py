"""Reading a rich table back from a command's output: tables wrap their text cells to
``COLUMNS`` or 120 characters off a terminal (:func:`core.cli.print_table`), so a phrase of
a long cell may span lines; :func:`column_text` joins each column's lines again."""

from __future__ import annotations

BARS = "│┃"


def column_text(output: str, header: str) -> str:
    """The text of column ``header`` of the (first) rich table in ``output``, every line of it
    joined by one space (a wrapped cell reads as one phrase again)."""
    lines = output.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("┃") and header in line)
    bars = [j for j, ch in enumerate(lines[head]) if ch in BARS]
    col = next(k for k in range(len(bars) - 1) if header in lines[head][bars[k] : bars[k + 1]])
    left, right = bars[col] + 1, bars[col + 1]
    parts = []
    for line in lines[head + 1 :]:
        if not line or line[0] not in BARS + "┡├└":
            if line and line[0] not in " ":
                break
            continue
        if line[0] in BARS:
            parts.append(line[left:right].strip())
    return " ".join(p for p in parts if p)


def table_rows(output: str) -> dict[str, list[str]]:
    """Each row of the (first) rich table in ``output``: its first cell's text -> the texts of the
    other cells, a row's lines joined by one space. A line whose first cell is empty or starts
    with ``[`` (a workload's label, put under the variant's name: trial 18, T18-12) continues the
    row above it, so a series reads as ``name [label]`` however its row wrapped."""
    rows: dict[str, list[list[str]]] = {}
    key = None
    for line in output.splitlines():
        if not line or line[0] != "│":  # the header (┃) and anything outside the table
            continue
        cells = [c.strip() for c in line.strip()[1:-1].split("│")]
        if key is None or cells[0] and not cells[0].startswith("["):
            key = cells[0]
            rows[key] = [[c] for c in cells]
            continue
        parts = rows.pop(key)
        for k, c in enumerate(cells):
            parts[k].append(c)
        key = " ".join(p for p in parts[0] if p)
        rows[key] = parts
    return {k: [" ".join(p for p in col if p) for col in parts[1:]] for k, parts in rows.items()}


def bullet_block(text: str, start: str | tuple[str, ...], has: str = "") -> str:
    """The markdown bullet of ``text`` whose line starts with ``start`` (and holds ``has``), with the bullets nested
    under it, joined by one space: report.md says a pick's remarks and its tie set as bullets under the pick
    (trial 19, T19-17), read here as one passage."""
    lines = text.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith(start) and has in ln)
    depth = len(lines[i]) - len(lines[i].lstrip())
    paragraph = not lines[i].lstrip().startswith("- ")  # a paragraph's list starts right under it, unindented
    block = [lines[i]]
    for ln in lines[i + 1 :]:
        indent = len(ln) - len(ln.lstrip())
        if not ln.strip() or indent < depth or (indent == depth and not (paragraph and ln.lstrip().startswith("- "))):
            break
        block.append(ln.strip())
    return " ".join(block)


def summary_row(run: object, name: str = "v") -> str:
    """The console summary table's row of variant ``name`` of ``run`` (``perf.cli.summary.summary_table``, no
    budget), its lines joined by a space."""
    from rich.console import Console

    from perf.cli.summary import summary_table

    console = Console(record=True, width=400)
    console.print(summary_table(run, None))  # type: ignore[arg-type]
    return " ".join(line for line in console.export_text().splitlines() if f"│ {name} " in line)
