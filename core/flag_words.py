"""How a message names an options field: by the flag the user types, with the value as typed
(trial 9, F19: a resume after ``--round-window 200`` warned "round_window_ms 200 ignored"). The
spelling comes from the field's :class:`core.options.Flag`, the one source of the flag."""

from __future__ import annotations

from typing import Any

from core.options import fields


def flag_name(owner: Any, name: str) -> str:
    """The flag a user types for field ``name`` of ``owner``: ``"--round-window"`` for
    ``round_window_ms`` (its first long spelling), ``"--no-baseline"`` for ``baseline``. A message
    names the flag, never the field (trial 9, F19: "round_window_ms 200 ignored" after
    ``--round-window 200``)."""
    f = next(x for x in fields(owner) if x.name == name)
    return next((d for d in f.flag.decls if d.startswith("--")), f"--{name.replace('_', '-')}")


def flag_words(owner: Any, name: str, value: Any) -> str:
    """Field ``name`` of ``owner`` set to ``value``, as it is typed: ``"--round-window 200"``,
    ``"--concurrency 1,4"``, ``"--shapes time=16,512"``, ``"--max-upload-mb 64"`` (a scaled field
    divided back), ``"--no-baseline"`` (a flag that turns a field off, given), ``"--tag none"`` (unset)."""
    f = next(x for x in fields(owner) if x.name == name)
    flag = flag_name(owner, name)

    def text(v: Any) -> str:
        if isinstance(v, (list, tuple)):
            return ",".join(text(x) for x in v)
        if f.flag.scale and isinstance(v, (int, float)):
            v = v / f.flag.scale
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return "none" if v is None else str(v)

    if isinstance(value, bool):  # the flag alone turns it to the non-default
        return flag if value != bool(f.default) else f"without {flag}"
    if isinstance(value, dict):
        return " ".join(f"{flag} {k}{f.flag.key_sep}{text(v)}" for k, v in value.items()) or f"{flag} none"
    return f"{flag} {text(value)}"
