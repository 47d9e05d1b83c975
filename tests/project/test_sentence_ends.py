"""A sentence that ends with a text made elsewhere gets one full stop, never two
(``core.wording.sentence``'s rule).

``f"... {caveat}."`` reads "...a longer `--time-budget` measures them.." when the caveat already
ends with its full stop (trial 9, F28, a bundle README). The library closes such a sentence with
``sentence(caveat)`` instead. This scans the library's source (core, builders, clients, perf) for an
f-string that puts a full stop right after a placeholder holding a text by its name (a reason, a
why, a caveat, a rule, a ``describe()``/``words()``/``text()`` call: words made elsewhere that may
end with their own full stop), and for ``text + "."`` (a text built in steps, closed at the end).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from core.wording import sentence

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("builders", "clients", "perf", "core")
#: The last name of a placeholder that holds words made elsewhere (``rec.pick_reason``,
#: ``d.words()``, ``outside[1:]``, ``RULE``).
TEXT_NAME = re.compile(
    r"(reason|why|caveat|note|unfinished|banner|mechanism|stopped|headroom|unreached|describe|words|text|"
    r"outside|rule|meaning|method|cost|clause|head|explain|hint|message|error|problem|differs)$",
    re.IGNORECASE,
)


def _last_name(node: ast.expr) -> str:
    """The name a placeholder ends with: ``rec.pick_reason`` -> ``pick_reason``, ``d.words()`` ->
    ``words``, ``outside[1:]`` -> ``outside``, ``flagged_note(rec, p)`` -> ``flagged_note``."""
    while isinstance(node, (ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _scan(text: str) -> list[tuple[int, str]]:
    """The line and the placeholder of each text followed by a full stop in the Python source ``text``."""
    hits = []
    for node in ast.walk(ast.parse(text)):
        if (  # text + "." (a text built in steps, closed at the end)
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Add)
            and isinstance(node.right, ast.Constant)
            and isinstance(node.right.value, str)
            and re.match(r"\.(\s|$)", node.right.value)
            and isinstance(node.left, (ast.Name, ast.Call, ast.Attribute, ast.Subscript))
            and (TEXT_NAME.search(_last_name(node.left)) or _last_name(node.left) in ("once", "bound"))
        ):
            hits.append((node.lineno, ast.unparse(node.left) + ' + "."'))
        if not isinstance(node, ast.JoinedStr):
            continue
        for before, after in zip(node.values, node.values[1:]):
            if (
                isinstance(before, ast.FormattedValue)
                and before.format_spec is None
                and isinstance(after, ast.Constant)
                and isinstance(after.value, str)
                and re.match(r"\.(\s|$|\*)", after.value)
                and TEXT_NAME.search(_last_name(before.value))
            ):
                hits.append((before.lineno, "{" + ast.unparse(before.value) + "}."))
    return hits


def _sources() -> list[Path]:
    return sorted(
        p
        for f in FOLDERS
        for p in (ROOT / f).rglob("*.py")
        if "__pycache__" not in p.parts and p != ROOT / "core" / "wording.py"  # the rule's own home
    )


def test_the_scan_finds_a_text_closed_by_a_full_stop_of_its_own() -> None:
    src = (
        'a = f"- **Note:** {caveat}."\n'
        'b = f"Why: {rec.pick_reason}."\n'
        'c = f"`{d.variant}`: {d.words()}. Next"\n'
        'd = f" {outside[:1].upper()}{outside[1:]}."\n'
        'ok1 = f"- **Note:** {sentence(caveat)}"\n'
        "ok2 = f\"in {count(n, 'variant')}.\"\n"
        'ok3 = f"{ms:.1f} ms."\n'
        'ok4 = f"{cls.__module__}.{name}"\n'
        'e = parts.append(text + ".")\n'
        'f = once(allp) + "."\n'
        'ok5 = "a" + "."\n'
    )
    assert sorted(line for line, _ in _scan(src)) == [1, 2, 3, 4, 9, 10]


def test_sentence_closes_with_one_full_stop() -> None:
    assert sentence("a longer `--time-budget` measures them") == "a longer `--time-budget` measures them."
    assert sentence("a longer `--time-budget` measures them.") == "a longer `--time-budget` measures them."
    assert sentence("is it? ") == "is it?" and sentence("see (x)") == "see (x)."
    assert sentence("the pick is the best of 2", capital=True) == "The pick is the best of 2."


def test_no_text_made_elsewhere_gets_a_second_full_stop() -> None:
    sources = _sources()
    assert len(sources) > 50 and (ROOT / "perf" / "deploy" / "readme.py") in sources
    found = [f"{p.relative_to(ROOT)}:{line}: {what}" for p in sources for line, what in _scan(p.read_text())]
    assert not found, (
        "a text made elsewhere closed by a full stop of its own: close it with core.wording.sentence(text) "
        "(one full stop, whether or not the text ends with one):\n" + "\n".join(found)
    )
