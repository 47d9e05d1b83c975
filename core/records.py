"""Typed, versioned JSON records: the base of every file the toolkit writes and reads back
(build manifest, repository index, ``results.json``), and the one loader that checks them.

Every such file carries ``"schema": N`` (an int). :func:`load_record` reads a file, checks
the version against what the record type reads (older versions are migrated by the
record's ``migrate`` function, newer ones are refused), validates every field with pydantic
and turns any problem into one :class:`~core.errors.RecordError` naming the file, the
field (``exports[0].sha256``), what was expected and what was found, and what to do.
:func:`write_record` writes atomically (temp file + rename), so a reader never sees half a file.

The JSON Schemas of the records are published under ``docs/schemas/`` (``scripts/write_schemas.py``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from core.errors import RecordError
from core.names import read_text

T = TypeVar("T")
#: The key holding a file's schema version.
SCHEMA_KEY = "schema"
#: How many field problems one error message lists.
MAX_PROBLEMS = 5


class Record(BaseModel):
    """Base of the toolkit's records: unknown keys are ignored on load (a reader of version
    N reads a version-N file written by a newer toolkit that added optional fields), field
    names are the JSON keys."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


@dataclasses.dataclass(frozen=True)
class RecordKind(Generic[T]):
    """How one kind of file is read: its type, versions and advice.

    Attributes:
        what: What the file is, for messages (``"build manifest"``).
        type: The record type (a pydantic model or dataclass) validated against.
        version: The schema version this toolkit writes (and reads).
        oldest: The oldest version still read (migrated up by ``migrate``).
        hint: What to do when a file cannot be read (``"rebuild with `builders build`"``).
        migrate: ``(data, found_version) -> data`` bringing an older file to ``version``;
            ``None`` when every readable version has the same shape.
        default_version: The version of a file without a ``schema`` key (written before
            files carried one); ``None``: such a file is refused.
    """

    what: str
    type: Any
    version: int
    hint: str
    oldest: int = 1
    migrate: Callable[[dict[str, Any], int], dict[str, Any]] | None = None
    default_version: int | None = 1

    @property
    def adapter(self) -> TypeAdapter[T]:
        """The pydantic ``TypeAdapter`` of the record type (built once per type)."""
        return _adapter(self.type)

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the file (pydantic's, serialization mode), with its version."""
        schema = self.adapter.json_schema(mode="serialization")
        schema.setdefault("title", self.what)
        schema["$comment"] = f"{self.what}, schema version {self.version}"
        return schema

    def parse(self, data: Any, source: str) -> T:
        """Check the version of ``data`` (a decoded JSON document), migrate and validate it.

        Args:
            data: The decoded JSON.
            source: Where it came from, for messages (a file path).

        Raises:
            RecordError: not an object, unknown or unsupported version, or a field that
                does not validate (every message names ``source``).
        """
        if not isinstance(data, dict):
            raise RecordError(f"{source}: expected a JSON object ({self.what}), found {type(data).__name__}", hint=self.hint)
        found = data.get(SCHEMA_KEY, self.default_version)
        if found is None:
            raise RecordError(f"{source}: field {SCHEMA_KEY!r} is missing (the {self.what}'s schema version)", hint=self.hint)
        if isinstance(found, bool) or not isinstance(found, int):
            raise RecordError(
                f"{source}: field {SCHEMA_KEY!r}: expected an integer schema version, found {found!r}", hint=self.hint
            )
        if found > self.version:
            raise RecordError(
                f"{source}: {self.what} schema version {found} is newer than this toolkit reads (up to {self.version})",
                hint="upgrade the toolkit, or " + self.hint,
            )
        if found < self.oldest:
            raise RecordError(
                f"{source}: {self.what} schema version {found} is no longer read (oldest read: {self.oldest})",
                hint=self.hint,
            )
        if found != self.version and self.migrate is not None:
            data = self.migrate(dict(data), found)
        try:
            return self.adapter.validate_python({**data, SCHEMA_KEY: self.version})
        except ValidationError as e:
            raise RecordError(f"{source} is not a valid {self.what} (schema {found}):\n" + describe(e), hint=self.hint) from None

    def dump(self, record: T) -> dict[str, Any]:
        """``record`` as a JSON-ready dict, ``schema`` set to :attr:`version`."""
        out = self.adapter.dump_python(record, mode="json", by_alias=True)
        return {SCHEMA_KEY: self.version, **{k: v for k, v in out.items() if k != SCHEMA_KEY}}


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(tp: Any) -> TypeAdapter[Any]:
    if tp not in _ADAPTERS:
        _ADAPTERS[tp] = TypeAdapter(tp)
    return _ADAPTERS[tp]


def describe(error: ValidationError) -> str:
    """One line per field problem: ``  field.path: expected ..., found ...`` (at most
    :data:`MAX_PROBLEMS`, then a count)."""
    found = problems(error)
    lines = [f"  {p}" for p in found[:MAX_PROBLEMS]]
    if len(found) > MAX_PROBLEMS:
        lines.append(f"  ... and {len(found) - MAX_PROBLEMS} more")
    return "\n".join(lines)


def problems(error: ValidationError) -> list[str]:
    """``field.path: expected ..., found ...`` for each problem of ``error``. A check that
    looks at a whole object (a validator's ``ValueError``) names what it expected only. The
    members of a union that all refused one value are one line, ``expected a valid integer or a
    valid string, found 1.5`` (a spec's shape dim said it twice, once per member)."""
    out: list[list[Any]] = []  # [field path, expectations, found or None]
    for err in error.errors(include_url=False):
        loc = field_path(err["loc"])
        if err["type"] == "missing":
            out.append([loc, ["required field is missing"], None])
        elif err["type"] in ("value_error", "assertion_error"):
            out.append([loc, [f"expected {_expected(err['msg'])}"], None])
        else:
            found, want = repr(err.get("input"))[:80], _expected(err["msg"])
            same = next((p for p in out if p[0] == loc and p[2] == found), None)
            if same is not None:
                same[1].append(want)
            else:
                out.append([loc, [f"expected {want}"], found])
    # a union member that refused the value's type beside one that read into it (``outputs[0]: expected a valid
    # string`` beside ``outputs[0].dtype: required field is missing``) is not what is wrong: said once, deeper
    out = [p for p in out if p[2] is None or not any(q[0].startswith((f"{p[0]}.", f"{p[0]}[")) for q in out)]
    return [f"{loc}: {' or '.join(said)}" + (f", found {found}" if found is not None else "") for loc, said, found in out]


def field_path(loc: tuple[Any, ...]) -> str:
    """``("exports", 0, "sha256")`` -> ``"exports[0].sha256"`` (union branch names dropped)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and (part[:1].isupper() or "[" in part or part in _TYPE_TAGS):
            continue  # a union member's type name (e.g. 'ExportRecord', 'list[...]'), not a field
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


_TYPE_TAGS = {
    "int",
    "str",
    "float",
    "bool",
    "list",
    "dict",
    "tuple",
    "none",
    "function-after",
    "function-before",
    "function-wrap",
    "function-plain",
    "lax-or-strict",
    "json-or-python",
}


def _expected(msg: str) -> str:
    """Pydantic's message as what was expected, in the file's words: ``"a valid dictionary or instance of
    TensorSpecRecord"`` (a class name the file never shows) is ``"an object"``."""
    msg = re.sub(r"a valid dictionary or instance of \w+", "an object", msg)
    for prefix in ("Input should be ", "Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg[:1].lower() + msg[1:]


def dropped_keys(data: Any, kept: Any, where: str = "") -> list[str]:
    """Keys of ``data`` (nested dicts and lists) missing from ``kept``: what validating and
    dumping a record lost. A writer checks this so a field added to the data but not to the
    record fails loudly instead of vanishing from the file."""
    if isinstance(data, dict) and isinstance(kept, dict):
        out = [f"{where}.{k}".lstrip(".") for k in data if k not in kept]
        for k in data:
            if k in kept:
                out += dropped_keys(data[k], kept[k], f"{where}.{k}")
        return out
    if isinstance(data, list) and isinstance(kept, list):
        return [x for i, (a, b) in enumerate(zip(data, kept)) for x in dropped_keys(a, b, f"{where}[{i}]")]
    return []


def read_json(path: Path, what: str, hint: str) -> Any:
    """Decode ``path`` as JSON.

    Raises:
        RecordError: the file does not exist, is a folder, cannot be read, is not UTF-8 text
            (:func:`core.names.read_text`), or is not valid JSON (with line and column).
    """
    text = read_text(Path(path), what, "JSON", RecordError, hint, "*.json")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{what} {path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})", hint=hint) from None


def load_record(path: Path, kind: RecordKind[T]) -> T:
    """Read, version-check, migrate and validate the file at ``path``.

    Raises:
        RecordError: see :func:`read_json` and :meth:`RecordKind.parse`.
    """
    return kind.parse(read_json(path, kind.what, kind.hint), str(path))


def write_record(path: Path, kind: RecordKind[T], record: T) -> Path:
    """Write ``record`` to ``path`` as indented JSON, atomically (a temp file of this writer's own,
    ``<name>.<random>.tmp`` beside it, then a rename); returns ``path``.

    Two processes writing one record at once each rename a whole file of their own: the last
    rename wins, neither fails (one shared temp name let the first rename take the other's file,
    whose own rename then raised FileNotFoundError). A read-modify-write of a shared record also
    needs a lock around it (:func:`builders.repository.writer.update_index` holds one).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    name = path.with_name(f"{path.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as to any file written
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(kind.dump(record), indent=2) + "\n")
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return path


#: How the temp file of a record being written ends (:func:`write_record`).
TEMP_SUFFIX = ".tmp"


def is_temp_of(name: str, record: str) -> bool:
    """Whether file name ``name`` is a temp file :func:`write_record` makes for record file ``record``
    (``results.json.k3j2_x.tmp`` for ``results.json``): a save cut short leaves one."""
    return name.startswith(record + ".") and name.endswith(TEMP_SUFFIX)
