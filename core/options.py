"""Command-line flags generated from typed options objects: one source per flag.

An options object (a pydantic dataclass or model, or a plain dataclass) is the single source
of its flags: the field ``latency_budget_ms`` is the flag ``--latency-budget-ms``, its help is
the field's ``description``, its default the field's default, its click type the field's type
with its constraints (``int`` with ``ge=1`` -> ``IntRange(1)``, ``Path`` -> ``click.Path``,
``tuple[int, ...]`` -> a comma list that may also be repeated). What a type cannot say (a short
alias, a metavar, the help panel, a unit) is a :class:`Flag` in the field's ``Annotated``
metadata. A command gets its flags with :func:`options` (all fields, grouped into titled help
panels with click-option-group) or :func:`option` (one field, e.g. a flag shared by commands),
builds the object back from click's parameters with :func:`build`, and asks which flags were
given on the command line (click's ``ParameterSource``) with :func:`given`.

Example:
    >>> @dataclass
    ... class Opts:
    ...     port: Annotated[int, Flag(short="-p")] = Field(0, ge=0, description="Port (0 = a free one).")
    >>> @click.command()
    ... @options(Opts)
    ... def serve(**params): print(build(Opts, params))
"""

from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from core.cli import CommaList, OptionSpec, panel
from core.flag_refusals import parse_flag
from core.naming import PATTERNS_METAVAR, variant_patterns
from core.units import Duration

#: click ``ParameterSource`` values that mean "not given by the user".
_NOT_GIVEN = (click.core.ParameterSource.DEFAULT, None)
#: :func:`_callback` without a field default to return as is (list flags parse theirs).
_NO_DEFAULT = object()


@dataclasses.dataclass(frozen=True)
class Flag:
    """How a field is offered on the command line, beyond what its type and default say.

    Attributes:
        decls: The flag's spellings when not ``--field-name`` (the Python API and saved
            records keep the field name): ``("--server-arg",)``.
        short: A one-letter alias, ``"-r"``.
        metavar: What ``-h`` shows for the value.
        panel: Title of the ``-h`` panel the flag is listed in.
        item: The converter of one item of a list flag (a click type or ``str -> value``
            raising ``ValueError``); the flag takes ``a,b`` and repeats alike.
        repeat: A flag given once per value, no comma splitting (``--server-arg`` values
            hold commas).
        type: The click type, where the field's type does not say it.
        path: ``click.Path`` arguments (``{"file_okay": False}``) for a path field.
        choices: The allowed values, or ``"module:NAME"`` of a tuple of them (imported when
            the flag is made, for a registry that itself imports the options).
        scale: Field value = flag value x ``scale`` (``--max-upload-mb`` -> bytes: ``2**20``).
        parse: Turns the flag's value into the field's (``("auto",)`` -> ``"auto"``); raises
            ``ValueError`` (shown as a usage error) or a toolkit error.
        default_text: What ``-h`` shows as the default, where the field's own default is not
            what the user reads (``None`` standing for "computed").
        show_default: ``False`` hides the default (the help says it).
        nested: The field is an options object whose own fields are flags too.
        skip: Not a flag (set by the API or by the command itself).
        key_sep: A mapping field's separator between key and value as typed
            (``--shape NAME:DIMS``: ``":"``; default ``"="``, ``--shapes AXIS=SIZES``), for
            :func:`core.flag_words.flag_words`.
    """

    decls: tuple[str, ...] = ()
    short: str | None = None
    metavar: str | None = None
    panel: str | None = None
    item: Any = None
    repeat: bool = False
    type: Any = None
    path: Mapping[str, Any] | None = None
    choices: Sequence[Any] | str | None = None
    scale: int | None = None
    parse: Callable[[Any], Any] | None = None
    default_text: str | None = None
    show_default: bool = True
    nested: bool = False
    skip: bool = False
    key_sep: str = "="


#: A field that is not a flag.
NOT_A_FLAG = Flag(skip=True)
#: The flag of every ``repository`` field (a model repository folder): ``-r/--repository``.
REPOSITORY = Flag(short="-r", path={"file_okay": False})
#: The flag of every field of variant names or patterns (``--variants``, ``--load-model``): one parser,
#: :func:`core.naming.variant_patterns` (``dataclasses.replace`` it for the panel or the spelling).
VARIANT_PATTERNS = Flag(item=variant_patterns, metavar=PATTERNS_METAVAR)


@dataclasses.dataclass(frozen=True)
class FieldInfo:
    """One field of an options object, read from pydantic or from ``dataclasses``."""

    name: str
    annotation: Any
    default: Any
    description: str | None
    flag: Flag
    constraints: dict[str, Any]


def fields(owner: Any) -> list[FieldInfo]:
    """The fields of an options class (pydantic dataclass or model, or plain dataclass), in order."""
    pyd = getattr(owner, "__pydantic_fields__", None)
    if pyd is None:
        pyd = getattr(owner, "model_fields", None)
    if pyd is not None:
        return [_pydantic_field(name, info) for name, info in pyd.items()]
    hints = typing.get_type_hints(owner, include_extras=True)
    out = []
    for f in dataclasses.fields(owner):
        ann, meta = _split_annotated(hints[f.name])
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        flag = next((m for m in meta if isinstance(m, Flag)), Flag())
        out.append(FieldInfo(f.name, ann, default, None, flag, {}))
    return out


def _pydantic_field(name: str, info: Any) -> FieldInfo:
    ann, meta = _split_annotated(info.annotation)
    meta = [*meta, *info.metadata]
    constraints = {k: getattr(m, k) for m in meta for k in ("ge", "gt", "le", "lt") if getattr(m, k, None) is not None}
    flag = next((m for m in meta if isinstance(m, Flag)), Flag())
    default = info.get_default(call_default_factory=True) if not info.is_required() else None
    return FieldInfo(name, ann, default, info.description, flag, constraints)


def _split_annotated(ann: Any) -> tuple[Any, list[Any]]:
    if typing.get_origin(ann) is typing.Annotated:
        base, *meta = typing.get_args(ann)
        return base, list(meta)
    return ann, []


def _without_none(ann: Any) -> Any:
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        return args[0] if len(args) == 1 else ann
    return ann


def _is_list(ann: Any) -> bool:
    origin = typing.get_origin(_without_none(ann))
    return origin in (tuple, list, Sequence, typing.Sequence) or (
        origin in (typing.Union, types.UnionType) and any(_is_list(a) for a in typing.get_args(ann) if a is not str)
    )


def _item_type(ann: Any) -> Any:
    ann = _without_none(ann)
    if typing.get_origin(ann) in (typing.Union, types.UnionType):  # ``Sequence[int] | str``: the sequence's item
        ann = next(a for a in typing.get_args(ann) if _is_list(a))
    args = [a for a in typing.get_args(ann) if a is not Ellipsis]
    return args[0] if args else str


def _choices(spec: Sequence[Any] | str) -> tuple[Any, ...]:
    if isinstance(spec, str):
        module, _, name = spec.partition(":")
        return tuple(getattr(importlib.import_module(module), name))
    return tuple(spec)


def click_type(ann: Any, flag: Flag = Flag(), constraints: Mapping[str, Any] | None = None) -> Any:
    """The click type of a (non-list) field: ``flag.type``, else from the annotation and its
    ``ge``/``gt``/``le``/``lt`` constraints."""
    if isinstance(flag.type, Duration):  # the field's ge/le, checked as the value is read
        return flag.type.bounded(dict(constraints or {}))
    if flag.type is not None:
        return flag.type
    if flag.choices is not None:
        return click.Choice([str(c) for c in _choices(flag.choices)])
    ann, c = _without_none(ann), dict(constraints or {})
    if typing.get_origin(ann) is typing.Literal:
        return click.Choice([str(v) for v in typing.get_args(ann)])
    if ann is Path:
        return click.Path(path_type=Path, **dict(flag.path or {}))
    if ann in (int, float):
        if not c:
            return click.INT if ann is int else click.FLOAT
        rng = click.IntRange if ann is int else click.FloatRange
        return rng(
            min=c.get("ge", c.get("gt")),
            max=c.get("le", c.get("lt")),
            min_open="gt" in c,
            max_open="lt" in c,
        )
    return click.STRING


def _callback(parse: Callable[[Any], Any] | None, scale: int | None, many: str | None = None, default: Any = _NO_DEFAULT) -> Any:
    """The click callback of a flag: a list flag's values as one tuple (``many="comma"``: every
    occurrence's items in order, repeats dropped; ``"repeat"``: as given), scaled, parsed. A
    single-valued flag not given (click's ``ParameterSource``) is ``default``, the field's own
    value, never parsed as if typed: ``--time-budget``'s 360 s default read back as the text
    ``'360.0'`` was warned about as a number without a unit (issue 26)."""
    if parse is None and scale is None and many is None:
        return None

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if default is not _NO_DEFAULT and param.name and ctx.get_parameter_source(param.name) in _NOT_GIVEN:
            return default
        if many == "comma":
            value = tuple(dict.fromkeys(x for part in value for x in (part if isinstance(part, (tuple, list)) else (part,))))
        elif many == "repeat":
            value = tuple(value)
        if scale is not None and value is not None:
            value = int(value * scale)
        if parse is not None:  # the parser's own message and hint: a usage error (exit 2), not a failure
            value = parse_flag(parse, value, ctx, param)
        return value

    return callback


def option_spec(owner: Any, name: str, prefix: str = "", flag: Flag | None = None, **override: Any) -> OptionSpec:
    """The option of field ``name`` of ``owner``; ``flag`` replaces the field's :class:`Flag`,
    ``override`` replaces some of its attributes and ``help`` / ``default`` (a command that uses
    the field with its own words)."""
    f = next(x for x in fields(owner) if x.name == name)
    help_text = override.pop("help", f.description)
    default = override.pop("default", f.default)
    return _spec(f, dataclasses.replace(flag or f.flag, **override), prefix, help_text, default)


def _spec(f: FieldInfo, flag: Flag, prefix: str, help_text: str | None, default: Any) -> OptionSpec:
    decls = [*(flag.decls or (f"--{f.name.replace('_', '-')}",))]
    if flag.short:
        decls.insert(0, flag.short)
    decls.append(prefix + f.name)
    attrs: dict[str, Any] = {"help": help_text}
    if flag.metavar:
        attrs["metavar"] = flag.metavar
    if flag.default_text is not None:
        attrs["show_default"] = flag.default_text
    elif not flag.show_default:
        attrs["show_default"] = False
    base = _without_none(f.annotation)
    if base is bool and flag.type is None:
        attrs.update(is_flag=True, default=bool(default))
        if default:  # a field that is on unless a --no-... flag turns it off
            attrs.update(flag_value=False, show_default=False)
        return OptionSpec(decls, attrs, flag.panel)
    field_default = default
    if flag.scale is not None and default is not None:
        default = default / flag.scale
        default = int(default) if float(default).is_integer() else default
    if flag.repeat or flag.item is not None or (_is_list(f.annotation) and flag.type is None):
        item = flag.item if flag.item is not None else click_type(_item_type(f.annotation), flag, f.constraints)
        attrs.update(
            multiple=True,
            default=(default,) if isinstance(default, str) else tuple(default or ()),
            type=item if flag.repeat else CommaList(item, flag.metavar),
            callback=_callback(flag.parse, None, "repeat" if flag.repeat else "comma"),
        )
        return OptionSpec(decls, attrs, flag.panel)
    # a flag with its own parser gets the text as typed (``--time-budget 6m``), never the field's type first
    text_in = flag.parse is not None and flag.type is None and flag.choices is None
    attrs.update(type=click.STRING if text_in else click_type(f.annotation, flag, f.constraints), default=default)
    if isinstance(default, (int, float)) and not isinstance(default, bool) and isinstance(attrs["type"], click.Choice):
        attrs["default"] = str(default)
    callback = _callback(_choice_back(attrs["type"], flag, f.annotation), flag.scale, default=field_default)
    if callback is not None:
        attrs["callback"] = callback
    return OptionSpec(decls, attrs, flag.panel)


def _choice_back(ctype: Any, flag: Flag, ann: Any) -> Callable[[Any], Any] | None:
    """``flag.parse``, with a choice of numbers turned back into a number (click gives strings)."""
    number = _without_none(ann) if _without_none(ann) in (int, float) else None
    if not isinstance(ctype, click.Choice) or number is None:
        return flag.parse
    back = flag.parse or (lambda v: v)
    return lambda v: back(None if v is None else number(v))


def specs(owner: Any, *, omit: Sequence[str] = (), prefix: str = "", panel: str | None = None) -> list[OptionSpec]:
    """The options of every flag field of ``owner`` in field order, nested options objects
    flattened (their parameters named ``<field>_<name>``); ``omit`` names fields left out
    (``"server.log_file"`` for a nested one); ``panel`` is the title of fields that name none."""
    out: list[OptionSpec] = []
    for f in fields(owner):
        if f.flag.skip or f.name in omit:
            continue
        if f.flag.nested:
            inner = [o.split(".", 1)[1] for o in omit if o.startswith(f.name + ".")]
            out += specs(_without_none(f.annotation), omit=inner, prefix=f"{prefix}{f.name}_", panel=f.flag.panel or panel)
            continue
        spec = _spec(f, f.flag, prefix, f.description, f.default)
        spec.panel = spec.panel or panel
        out.append(spec)
    return out


def options(owner: Any, *, omit: Sequence[str] = (), prefix: str = "", title: str | None = None) -> Callable[[Any], Any]:
    """A decorator adding a flag for every flag field of ``owner`` (:func:`specs`), in help panels."""
    return panel(*specs(owner, omit=omit, prefix=prefix), title=title)


def option(owner: Any, name: str, flag: Flag | None = None, **override: Any) -> OptionSpec:
    """The flag of one field, for a command that shares it (:func:`option_spec`)."""
    return option_spec(owner, name, flag=flag, **override)


def build(owner: Any, params: dict[str, Any], *, prefix: str = "", omit: Sequence[str] = (), **values: Any) -> Any:
    """The options object from a command's parameters: every flag field's parameter is taken
    out of ``params`` (so what is left is the command's own); ``omit`` fields keep their
    defaults, ``values`` set fields directly.

    Raises:
        click.UsageError: the object refuses the values (pydantic's message).
    """
    kwargs: dict[str, Any] = {}
    for f in fields(owner):
        if f.name in values:
            params.pop(prefix + f.name, None)
            continue
        if f.flag.skip:
            continue
        if f.flag.nested:
            inner = [o.split(".", 1)[1] for o in omit if o.startswith(f.name + ".")]
            kwargs[f.name] = build(_without_none(f.annotation), params, prefix=f"{prefix}{f.name}_", omit=inner)
        elif f.name not in omit and prefix + f.name in params:
            kwargs[f.name] = params.pop(prefix + f.name)
    from pydantic import ValidationError

    try:
        return owner(**kwargs, **values)
    except ValidationError as e:
        raise click.UsageError(str(e)) from None


def given(ctx: click.Context) -> set[str]:
    """The parameters of ``ctx`` the user set (command line or environment), by click's
    ``ParameterSource``; defaults are not given."""
    return {p for p in ctx.params if ctx.get_parameter_source(p) not in _NOT_GIVEN}


def given_fields(owner: Any, ctx: click.Context, prefix: str = "") -> frozenset[str]:
    """The fields of ``owner`` whose flags the user set (:func:`given`): a nested object's
    field is named both ``"<field>"`` and by its own name (``"server"`` and ``"runtime"``);
    ``prefix``: ``owner`` is nested itself, its parameters named ``"<prefix><field>"`` (``"server_"``)."""
    names = {n.removeprefix(prefix) for n in given(ctx) if n.startswith(prefix)}
    out: set[str] = set()
    for f in fields(owner):
        if f.flag.nested:
            inner = {x.name for x in fields(_without_none(f.annotation))} & {
                n.removeprefix(f.name + "_") for n in names if n.startswith(f.name + "_")
            }
            if inner:
                out |= {f.name, *inner}
        elif f.name in names:
            out.add(f.name)
    return frozenset(out)


def panel_fields(owner: Any, title: str) -> tuple[str, ...]:
    """The names of ``owner``'s fields listed in the help panel ``title``."""
    return tuple(f.name for f in fields(owner) if f.flag.panel == title)


__all__ = [
    "NOT_A_FLAG",
    "REPOSITORY",
    "Flag",
    "OptionSpec",
    "build",
    "click_type",
    "fields",
    "given",
    "given_fields",
    "option",
    "options",
    "panel",
    "panel_fields",
    "specs",
]
