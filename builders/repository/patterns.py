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

from builders.repository.records import IndexEntry
from builders.repository.remove import entries_rebuild_words
from core.errors import RepositoryError
from core.names import close_names
from core.naming import parse_variant_name, underscored
from core.wording import count

#: Up to this many known variants the hint lists them; above, it lists them by model.
LISTED = 12
_WILD = re.compile(r"[*?\[]")


def meant(pattern: str, known: Sequence[str]) -> str | None:
    """The pattern or name the user likely meant by ``pattern``, which matches none of ``known``: a
    close variant name for a name; a name that begins several of ``known``, that prefix as a pattern
    (trial 24, T24-19: ``--variants segnet_onnx`` got the list, no hint that a pattern takes ``*``:
    ``'segnet_onnx*'``); for a shell pattern, the pattern with its separators ``-``, ``.`` or spaces made ``_``
    (:func:`core.naming.underscored`) and then as typed (a model name may hold them), each: itself, its model part (what comes before the first ``_``)
    replaced by the closest model name, or each ``_``-separated part no known name has replaced by the
    closest part one has (s22z, Z-6: ``'twoin_onxx_*'`` got none), the first that matches something.
    ``None`` when nothing is close. The one did-you-mean rule of every flag that takes variant patterns."""
    if not _WILD.search(pattern) and len([k for k in known if k.startswith(pattern)]) > 1:
        return f"{pattern}*"
    if not _WILD.search(pattern):
        close = close_names(pattern, known, n=1)
        return close[0] if close else None
    # underscored first ('tinyvit-onnx*': no "_" to part the model at, trial 27, T27-16), then as typed: a model name
    # may hold '-' and '.' ('my-nett_onnx*' -> 'my-net_onnx*'; s23r m5: only the underscored form was tried, none)
    candidates = [c for form in dict.fromkeys((underscored(pattern), pattern)) for c in _candidates(form, known)]
    return next((c for c in candidates if fnmatch.filter(known, c)), None)


def _candidates(pattern: str, known: Sequence[str]) -> list[str]:
    """What :func:`meant` tries of ``pattern``: itself, its model part replaced by a close model name, each mistyped part."""
    head, sep, rest = pattern.partition("_")
    return [
        pattern,
        *(f"{model}{sep}{rest}" for model in close_names(head, _models(known), n=3)),
        _parts_meant(pattern, known),
    ]


def _parts_meant(pattern: str, known: Sequence[str]) -> str:
    """``pattern`` with each ``_``-separated part whose literal start (what comes before a wildcard) no name of
    ``known`` has as a part replaced by the closest part one has (``twoin_onxx_*``, ``twoin_onxx*`` -> ``twoin_onnx``...);
    a part with none close is kept."""
    parts = {p for k in known for p in k.split("_")}
    out = []
    for part in pattern.split("_"):
        literal = re.match(r"[^*?\[]*", part).group()  # type: ignore[union-attr]  # always matches
        close = close_names(literal, parts, n=1) if literal and literal not in parts else []
        out.append(close[0] + part[len(literal) :] if close else part)
    return "_".join(out)


def unmatched_error(
    where: str, missing: Sequence[str], known: Sequence[str], flag: str | None = None, gone: Sequence[str] = ()
) -> RepositoryError:
    """The error for ``missing`` patterns that match no variant of ``known`` (in ``where``): each with
    its :func:`meant` pattern, the known variants listed (by model when there are more than
    :data:`LISTED`); ``flag``: the flag that gave them (a usage error, exit 2: :mod:`core.cli`), if one did.
    A pattern that matches a name of ``gone`` (index entries whose folder is gone, :func:`gone_words` says them)
    gets no did-you-mean: it named what the user meant, since removed (s22z, Z-5: ``'twoin_onnx*'`` was told
    "did you mean 'twoin_v2_onnx*'", another model)."""

    def hint(p: str) -> str:
        m = None if fnmatch.filter(gone, p) else meant(p, known)
        return f" (did you mean {m!r}?)" if m else ""

    named = ", ".join(f"{p!r}{hint(p)}" for p in missing)
    if len(known) <= LISTED:
        listed = ", ".join(known)
    else:
        by_model: dict[str, int] = {}
        for name in known:
            by_model[_model(name)] = by_model.get(_model(name), 0) + 1
        listed = ", ".join(f"{m}_* ({count(n, 'variant')})" for m, n in by_model.items())
        listed += "; `builders variants` prints a grid's names"
    return RepositoryError(f"no variant in {where} matches {named}", hint=f"known: {listed}", flag=flag)


def gone_names(repo: Path, patterns: Sequence[str], entries: Mapping[str, Any]) -> list[str]:
    """The names of ``entries`` (repository ``repo``'s index entries) whose folder is gone that ``patterns`` match."""
    return [n for n in entries if not (repo / n).is_dir() and any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def gone_words(error: RepositoryError, repo: Path, patterns: Sequence[str], entries: Mapping[str, IndexEntry]) -> RepositoryError:
    """``error`` (:func:`unmatched_error`), its hint naming the variants of ``patterns`` that repository ``repo``'s index
    still lists although their folders are gone (``entries``: its index entries; trial 26, T26-9), and what to do: the
    commands that built them as the index recorded them (s22z, Z-5), ``builders prune``, ``builders remove``."""
    gone = gone_names(repo, patterns, entries)
    if not gone:
        return error
    listed = ", ".join(gone) if len(gone) <= LISTED else f"{gone[0]} and {count(len(gone) - 1, 'other')}"
    models = sorted({entries[n].variant.model for n in gone})
    remove = " and ".join(f"`builders remove {m} -r {repo}`" for m in models)
    error.hint = (
        f"{error.hint}; {repo}/index.json still lists {listed}, whose "
        f"{'folder is' if len(gone) == 1 else 'folders are'} gone: {entries_rebuild_words(repo, [entries[n] for n in gone])}"
        f", or drop {'it' if len(gone) == 1 else 'them'} from the index with `builders prune -r {repo}` "
        f"(to remove the {'model' if len(models) == 1 else 'models'}: {remove})"
    )
    return error


def _model(name: str) -> str:
    parts = parse_variant_name(name)
    return parts.model if parts is not None else name.partition("_")[0]


def _models(known: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(_model(n) for n in known))
