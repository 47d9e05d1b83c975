"""One check for every flag that names a model's inputs, outputs or axes.

``builders build --dynamic-axis`` / ``--rtol``, ``clients infer --shape``, ``triton-perf sweep
--shape`` / ``--shapes`` and ``triton-perf coldstart --shape`` name things the model has; a name
it does not have (a typo) is one error that names it, the closest valid name ("did you mean"),
and every valid one, never a message about something else or a silently ignored flag.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path

from core.errors import FlagError, ToolkitError
from core.wording import plural, some_of

#: A shape typed with ``x`` between the dims (``3x64x64``, ``3 x 64``, ``3×64``, ``3*64``): never an axis name.
_X_SHAPE = re.compile(r"\d+(?:\s*[xX×*]\s*\d+)+")


def x_separated_dims(text: str) -> str | None:
    """The comma-separated dims meant by a shape typed with ``x`` (``"3x64x64"`` -> ``"3,64,64"``), or
    ``None`` when ``text`` is not one: the one rule for every flag and spec field that reads dims, so
    ``3x64x64`` is refused as a typo, never taken as the name of a dynamic axis or an unparsable size."""
    text = text.strip()
    if not _X_SHAPE.fullmatch(text):
        return None
    return ",".join(re.findall(r"\d+", text))


def x_separated_list(text: str) -> str | None:
    """The comma-separated dims meant by a list of dims some of which are typed with ``x``
    (``"3x64,64"`` -> ``"3,64,64"``, ``"3x64x64"`` -> ``"3,64,64"``), or ``None`` when no part is one:
    every flag that reads a comma-separated list of dims or sizes goes through it, so a shape typed
    with ``x`` in any of its parts gets the "did you mean" with every dim, never a generic error."""
    parts = text.split(",")
    if not any(x_separated_dims(p) for p in parts):
        return None
    return ",".join(x_separated_dims(p) or p.strip() for p in parts)


#: Brackets or parentheses around a shape's dims (``[1,H,W]``, ``(1, 48, 40)``): a Python or JSON list typed into a flag.
_BRACKETS = re.compile(r"[\[\]()]")


def bracketed_dims(text: str) -> str | None:
    """The comma-separated dims meant by dims typed in brackets or parentheses (``"[1,H,W]"`` -> ``"1,H,W"``,
    ``"(1, 48, 40)"`` -> ``"1,48,40"``), or ``None`` when ``text`` has none: the one rule for every flag that reads
    dims or sizes (builders ``--input`` / ``--dynamic-axis``, clients ``--shape``, triton-perf ``--shape`` /
    ``--shapes``), so a bracketed shape is told to be written without brackets, never read as an axis ``W]`` or a
    dim ``'[1'`` (trial 30, F9 and F17)."""
    if not _BRACKETS.search(text):
        return None
    return ",".join(p.strip() for p in _BRACKETS.sub("", text).split(","))


def close_names(name: str, valid: Iterable[str], n: int = 1) -> list[str]:
    """The ``n`` names of ``valid`` closest to ``name``, the closest first: the "did you mean" rule of every
    name the toolkit matches against names it knows (axes, inputs, outputs, variants, models, functions).
    A name that differs only in case comes first (issue 26: ``--workload TIME=...`` got no "did you mean
    'time'?" while ``tme`` did: :func:`difflib.get_close_matches` compares case-sensitively, so ``TIME``
    shared no letter with ``time``), then the names :func:`difflib.get_close_matches` finds close with
    case ignored (``Tme`` -> ``time``); ``[]`` when none is."""
    valid = list(dict.fromkeys(valid))
    folded = name.casefold()
    same = [v for v in valid if v.casefold() == folded]
    by_fold: dict[str, str] = {}
    for v in valid:
        by_fold.setdefault(v.casefold(), v)
    near = [by_fold[m] for m in difflib.get_close_matches(folded, list(by_fold), n=n + len(same))]
    return list(dict.fromkeys([*same, *near]))[:n]


def misnamed(keys: Iterable[str], valid: Iterable[str]) -> dict[str, str]:
    """The names a user's file gives (an ``.npz``'s arrays, a JSON entry's keys) that name nothing of ``valid`` but
    are close to a name of ``valid`` no key gives (:func:`close_names`): key -> the name it likely meant, for the
    "did you mean" a flag's typo gets (trial 23, T23-13: an ``.npz`` array ``imgae`` got none). ``{}``: none.
    """
    keys, valid = list(dict.fromkeys(keys)), list(dict.fromkeys(valid))
    free = [v for v in valid if v not in keys]
    return {k: near[0] for k in keys if k not in valid and (near := close_names(k, free))}


def unknown_names_error(
    flag: str,
    given: Iterable[str],
    valid: Iterable[str],
    *,
    kind: str,
    owner: str,
    error: type[ToolkitError] = FlagError,
    hint: str | None = None,
) -> ToolkitError | None:
    """The error for the names given with ``flag`` that are not among ``valid``, or ``None``.

    Args:
        flag: The flag as typed, e.g. ``"--dynamic-axis"``.
        given: The names the flag gave, in order.
        valid: The names the model has, in its order.
        kind: What a name is, singular: ``"input"``, ``"dynamic axis"``, ``"output"``.
        owner: Whose names they are, for the message: ``"the model's inputs"``, ``"mlp_onnx_cpu1_nodb_mbs64"``.
        error: The exception class (a :class:`~core.errors.FlagError` gets ``flag``).
        hint: What to do [default: name one of the valid ones with the flag].

    Returns:
        ``error("--dynamic-axis 'sq' (did you mean 'seq'?) names no dynamic axis of the model's
        inputs; the dynamic axes of the model's inputs: seq")``, or ``None`` when every name is valid.
    """
    valid = list(dict.fromkeys(valid))
    unknown = [n for n in dict.fromkeys(given) if n not in valid]
    if not unknown:
        return None
    close = {n: close_names(n, valid) for n in unknown}
    named = ", ".join(f"{n!r}" + (f" (did you mean {close[n][0]!r}?)" if close[n] else "") for n in unknown)
    kinds = plural(kind)
    one = len(unknown) == 1
    message = (
        f"{flag} {named} {'names' if one else 'name'} no {kind if one else kinds} of {owner}; "
        f"the {kinds} of {owner}: {', '.join(valid) if valid else 'none'}"
    )
    hint = hint or (f"name one of those {kinds} with {flag}" if valid else f"drop {flag}: {owner} has no {kinds}")
    if issubclass(error, FlagError):  # shown as click's "Invalid value for --shapes: ...": the flag once
        return FlagError(message.removeprefix(f"{flag} "), flag=flag, hint=hint)
    return error(message, hint=hint, flag=flag)  # a name the user typed that is not there: a usage error (exit 2)


def require_known(
    flag: str,
    given: Iterable[str],
    valid: Iterable[str],
    *,
    kind: str,
    owner: str,
    error: type[ToolkitError] = FlagError,
    hint: str | None = None,
) -> None:
    """Raise :func:`unknown_names_error` when ``flag`` names something ``owner`` does not have.

    Raises:
        ToolkitError: of class ``error``, naming each unknown name, the closest valid one and
            every valid one.
    """
    problem = unknown_names_error(flag, given, valid, kind=kind, owner=owner, error=error, hint=hint)
    if problem is not None:
        raise problem


def closest_files(path: Path, pattern: str) -> str:
    """The files matching ``pattern`` in ``path``'s folder named like ``path`` (their stems close by
    :func:`difflib.get_close_matches`, the did-you-mean rule of every name, or holding its stem), the
    closest first, as a "does not exist" message lists them: ``"spec_v2.json, kwspot_spec.json"``
    (:func:`core.wording.some_of`); ``""`` for none, and for a folder that is none. A file of the folder
    named unlike ``path`` is not listed (break test B10: ``/missing`` was answered "(in /:
    container_info.json)")."""
    if not path.parent.is_dir():
        return ""
    stems: dict[str, list[str]] = {}
    for name in sorted(x.name for x in path.parent.glob(pattern)):
        stems.setdefault(Path(name).stem, []).append(name)
    want = path.stem.lower()
    close = close_names(path.stem, list(stems), n=len(stems)) if stems else []
    close += [s for s in stems if s not in close and want and want in s.lower()]
    return some_of([name for s in close for name in stems[s]])


def file_problem(path: Path, what: str, pattern: str = "*") -> tuple[str, str] | None:
    """Why ``path`` cannot be read as a file, as every command says it, or ``None`` when it can:
    missing (with the files matching ``pattern`` in its folder named like it), a folder, or unreadable. The
    one rule for a file argument, so a missing file is never answered with advice about the file's
    format (trial 12, F10: the sweep's missing ``--input-data`` got "give a .npy or .npz written by
    numpy"). Returns ``(message, hint)``; the caller raises its own error class.

    Args:
        path: The file as given.
        what: What it is, leading the message (``"--input-data"``, ``"spec file"``).
        pattern: The files of its kind, listed when it is missing (``"*.json"``).
    """
    if not path.exists():
        if not path.parent.is_dir():  # said, rather than a folder that is none searched for names like it
            where = f" (nor does its folder {path.parent})"
        else:
            near = closest_files(path, pattern)
            where = f" (in {path.parent}: {near})" if near else ""
        return (
            f"{what} {path} does not exist{where}",
            f"check the path (a relative one is from the current directory, {Path.cwd()})",
        )
    if path.is_dir():
        return f"{what} {path} is a folder, not a file", "give a file in it"
    try:
        with path.open("rb"):
            pass
    except OSError as e:
        return f"{what} {path} cannot be read ({e.strerror or e})", "make it readable (chmod u+r), or give a copy you can read"
    return None


def read_text(path: Path, what: str, form: str, error: type[ToolkitError], hint: str = "", pattern: str = "*") -> str:
    """The text of a user's file ``path`` (UTF-8), or ``error`` with the message every command says: the file
    cannot be read as one (:func:`file_problem`: missing, a folder, unreadable), or it is not UTF-8 text, with
    the byte and its offset (issue 26: a binary or UTF-16 ``config.pbtxt``, or a Kubernetes manifest, ended in a
    ``UnicodeDecodeError`` traceback). The one reader of a user's text file, so that message is said once.

    Args:
        path: The file as given.
        what: What it is, leading the message (``"spec file"``, ``"config"``).
        form: What its text is, in ``"so not {form}"`` (``"a JSON spec"``, ``"a config.pbtxt"``).
        error: The caller's error class (a :class:`~core.errors.ToolkitError`).
        hint: What to do, after each problem's own advice.
        pattern: The files of its kind, listed when it is missing (:func:`file_problem`).

    Raises:
        ToolkitError: ``error``, one message and a hint.
    """
    path = Path(path)
    problem = file_problem(path, what, pattern)
    if problem is not None:
        raise error(problem[0], hint="; ".join(h for h in (problem[1], hint) if h))
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:  # a binary file or another encoding (UTF-16, Latin-1)
        raise error(
            f"{what} {path} is not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start}), so not {form}",
            hint="; ".join(h for h in ("save it as UTF-8 text", hint) if h),
        ) from None
    except OSError as e:  # became unreadable after the check, or a special file
        raise error(f"{what} {path} cannot be read ({e.strerror or e})", hint=hint or "give a readable file") from None
