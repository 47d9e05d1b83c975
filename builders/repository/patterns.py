"""What a ``--variants``/``--variant``/``--load-model`` pattern that matches nothing is told: the
pattern the user likely meant, and the repository's variants by model when there are many
(trial 11, F15: ``--variants 'tabnett_*'`` was answered with all 35 variant names on one line,
while ``clients infer`` said "did you mean" for a mistyped name)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from core.errors import RepositoryError
from core.names import close_names
from core.naming import parse_variant_name
from core.wording import count

#: Up to this many known variants the hint lists them; above, it lists them by model.
LISTED = 12
_WILD = re.compile(r"[*?\[]")


def meant(pattern: str, known: Sequence[str]) -> str | None:
    """The pattern or name the user likely meant by ``pattern``, which matches none of ``known``: a
    close variant name for a name; a name that begins several of ``known``, that prefix as a pattern
    (trial 24, T24-19: ``--variants segnet_onnx`` got the list, no hint that a pattern takes ``*``:
    ``'segnet_onnx*'``); for a shell pattern, the pattern with its model part (what comes
    before the first ``_``) replaced by the closest model name, when that matches something; a pattern whose
    separators are ``-``, ``.`` or spaces, with ``_`` instead, when that matches something.
    ``None`` when nothing is close."""
    if not _WILD.search(pattern) and len([k for k in known if k.startswith(pattern)]) > 1:
        return f"{pattern}*"
    if not _WILD.search(pattern):
        close = close_names(pattern, known, n=1)
        return close[0] if close else None
    underscored = re.sub(r"[-. ]", "_", pattern)  # 'tinyvit-onnx*': no "_" to part the model at (trial 27, T27-16)
    if underscored != pattern and fnmatch.filter(known, underscored):
        return underscored
    head, sep, rest = pattern.partition("_")
    for model in close_names(head, _models(known), n=3):
        candidate = f"{model}{sep}{rest}"
        if fnmatch.filter(known, candidate):
            return candidate
    return None


def unmatched_error(where: str, missing: Sequence[str], known: Sequence[str], flag: str | None = None) -> RepositoryError:
    """The error for ``missing`` patterns that match no variant of ``known`` (in ``where``): each with
    its :func:`meant` pattern, the known variants listed (by model when there are more than
    :data:`LISTED`); ``flag``: the flag that gave them (a usage error, exit 2: :mod:`core.cli`), if one did."""
    named = ", ".join(f"{p!r}" + (f" (did you mean {m!r}?)" if (m := meant(p, known)) else "") for p in missing)
    if len(known) <= LISTED:
        listed = ", ".join(known)
    else:
        by_model: dict[str, int] = {}
        for name in known:
            by_model[_model(name)] = by_model.get(_model(name), 0) + 1
        listed = ", ".join(f"{m}_* ({count(n, 'variant')})" for m, n in by_model.items())
        listed += "; `builders variants` prints a grid's names"
    return RepositoryError(f"no variant in {where} matches {named}", hint=f"known: {listed}", flag=flag)


def gone_words(error: RepositoryError, repo: Path, patterns: Sequence[str], entries: Mapping[str, Any]) -> RepositoryError:
    """``error`` (:func:`unmatched_error`), its hint naming the variants of ``patterns`` that repository ``repo``'s index
    still lists although their folders are gone (``entries``: its index entries; trial 26, T26-9), and what to do."""
    gone = [n for n in entries if not (repo / n).is_dir() and any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    if not gone:
        return error
    listed = ", ".join(gone) if len(gone) <= LISTED else f"{gone[0]} and {count(len(gone) - 1, 'other')}"
    error.hint = (
        f"{error.hint}; {repo}/index.json still lists {listed}, whose "
        f"{'folder is' if len(gone) == 1 else 'folders are'} gone: rebuild with `builders build`, or drop "
        f"{'it' if len(gone) == 1 else 'them'} from the index with `builders prune -r {repo}`"
    )
    return error


def _model(name: str) -> str:
    parts = parse_variant_name(name)
    return parts.model if parts is not None else name.partition("_")[0]


def _models(known: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(_model(n) for n in known))
