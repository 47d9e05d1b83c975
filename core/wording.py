"""How a command's output words a count: one rule for every command.

A count printed under a table counts what the table shows one row of, in that noun
("32 of 32 outputs within tolerance" under one row per output); where it counts something
else, it names that unit ("16 of 16 variant × protocol checks passed") beside the count of
rows. Nouns agree with their number ("1 variant", "0 variants", "2 variants"), never "(s)".
"""

from __future__ import annotations


def plural(noun: str) -> str:
    """The plural of an English noun of this toolkit's vocabulary (``variant`` -> ``variants``,
    ``batch`` -> ``batches``, ``check`` -> ``checks``); the last word of a phrase is the one
    made plural (``variant × protocol check`` -> ``variant × protocol checks``; ``dynamic axis``
    -> ``dynamic axes``)."""
    if noun.endswith("axis"):
        return noun[:-4] + "axes"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def count(n: float, noun: str, plural_form: str | None = None) -> str:
    """``n`` and the noun in agreement: ``count(1, "variant")`` is ``"1 variant"``,
    ``count(0, "variant")`` ``"0 variants"``; a float is written as ``:g`` writes it
    (``count(1.6, "CPU core")`` is ``"1.6 CPU cores"``, ``count(1.0, "CPU core")`` ``"1 CPU core"``).

    Args:
        n: How many.
        noun: The singular noun (or phrase; its last word agrees).
        plural_form: The plural where :func:`plural` would get it wrong.
    """
    number = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{number} {noun if n == 1 else plural_form or plural(noun)}"


def agree(n: float, one: str, many: str) -> str:
    """The word that agrees with ``n``: ``one`` for 1, ``many`` otherwise (``agree(2, "has", "have")``
    is ``"have"``), for the verb or pronoun after a :func:`count`."""
    return one if n == 1 else many


def of(k: int, n: int, noun: str, plural_form: str | None = None) -> str:
    """``"k of n nouns"``, the noun agreeing with ``n``: ``of(1, 1, "check")`` is
    ``"1 of 1 check"``, ``of(15, 16, "check")`` ``"15 of 16 checks"``."""
    return f"{k} of {count(n, noun, plural_form)}"


def of_the(k: int, n: int, noun: str, plural_form: str | None = None) -> str:
    """``"k of the n nouns"``, or the whole said as such: ``of_the(1, 3, "other pair")`` is ``"1 of
    the 3 other pairs"``, ``of_the(1, 1, "other pair")`` ``"the other pair"`` (trial 10: "not 1 of the
    other 1 pair"), ``of_the(2, 2, "other pair")`` ``"the 2 other pairs"``."""
    if k == n:
        return f"the {noun}" if n == 1 else f"the {count(n, noun, plural_form)}"
    return f"{k} of the {count(n, noun, plural_form)}"


def _tail(part: str) -> str:
    """The parenthetical ``part`` ends with (``"(measured: 1 s a visit)"``), ``""`` when none."""
    if not part.endswith(")"):
        return ""
    depth = 0
    for i in range(len(part) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(part[i], 0)
        if depth == 0:
            return part[i:] if i > 0 and part[i - 1] == " " else ""
    return ""


def join_once(parts: list[str], sep: str = "; ") -> str:
    """``parts`` joined, a closing parenthetical several neighbouring parts share said once: after
    the last of them, as ``(all 3: ...)`` (trial 7: a plan line repeated the same 200 characters after
    each of its 3 cut variants)."""
    tails = [_tail(p) for p in parts]
    out = []
    for i, (p, t) in enumerate(zip(parts, tails)):
        sharing = [j for j, u in enumerate(tails) if u and u == t]
        # said once only for neighbours: "b; c (y); d (all 3: x)" would read as b, c and d
        if len(sharing) > 1 and sharing == list(range(sharing[0], sharing[-1] + 1)):
            p = p[: -len(t)].rstrip()
            if i == sharing[-1]:
                p += f" (all {len(sharing)}: {t[1:-1]})"
        out.append(p)
    return sep.join(out)


#: What ends a sentence already: :func:`sentence` adds no full stop after it.
SENTENCE_ENDS = (".", "!", "?")


def sentence(text: str, capital: bool = False) -> str:
    """``text`` ended by one full stop, to close a sentence with a text made elsewhere (a reason,
    a caveat, a rule) that may end with its own: ``sentence("a longer budget measures them")`` and
    ``sentence("a longer budget measures them.")`` both give ``"a longer budget measures them."``
    (trial 9, F28: a bundle README said "...measures them..").

    Args:
        text: The sentence, with or without its full stop (trailing blanks are dropped).
        capital: Upper-case its first letter (a text written to follow a colon that starts a line).
    """
    text = text.rstrip()
    if capital:
        text = text[:1].upper() + text[1:]
    return text if text.endswith(SENTENCE_ENDS) else text + "."


def some_of(names: list[str], shown: int = 5) -> str:
    """``names`` joined, the first ``shown`` of them and how many more: ``"a, b, c and 6 more"``
    (trial 11, F15: a list cut at 5 of 11 said nothing of the 6 left out)."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


#: The longest console line a sweep prints (characters), tables aside: a longer one is folded at its clauses
#: (:func:`fold_clauses`; trial 23, T23-13 and trial 24: lines of 1,300-2,500 characters).
CONSOLE_WIDTH = 300
#: How a folded line's continuation lines start.
FOLD_INDENT = "  "


def top_clauses(text: str, sep: str = "; ", any_depth: bool = False) -> list[str]:
    """``text`` split at each ``sep`` outside parentheses, brackets and backticks: its clauses (``sep`` dropped);
    ``any_depth``: inside parentheses too (backticks still hold a name whole)."""
    out, depth, quoted, start, i = [], 0, False, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "`":
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth = max(0, depth - 1)
        elif not quoted and (depth == 0 or any_depth) and text.startswith(sep, i):
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    return [*out, text[start:]]


def fold_clauses(text: str, width: int = CONSOLE_WIDTH) -> str:
    """``text`` as console lines of at most ``width`` characters where its clauses allow: a longer line is cut at its
    top-level ``"; "`` (:func:`top_clauses`), each further line indented (:data:`FOLD_INDENT`) and holding as many
    whole clauses as fit, the ``;`` kept at the end of the line before; a part still too long, at its top-level
    ``", "``, then at ``"; "`` and ``", "`` within parentheses. A shorter line, or one without such a place to cut,
    is left as it is. Every word is kept, in order."""
    seps = (("; ", False), (", ", False), ("; ", True), (", ", True))
    return "\n".join(x for line in text.split("\n") for x in _fold(line, width, seps))


def _fold(line: str, width: int, seps: tuple[tuple[str, bool], ...]) -> list[str]:
    if len(line) <= width or not seps:
        return [line]
    parts = top_clauses(line, *seps[0])
    if len(parts) == 1:
        return _fold(line, width, seps[1:])
    joiner, lines, cur = seps[0][0].rstrip(), [], parts[0]
    for p in parts[1:]:
        if len(cur) + len(joiner) + 1 + len(p) <= width:
            cur += f"{joiner} {p}"
        else:
            lines.append(cur + joiner)
            cur = FOLD_INDENT + p
    lines.append(cur)
    return [x for ln in lines for x in (_fold(ln, width, seps[1:]) if len(ln) > width else [ln])]
