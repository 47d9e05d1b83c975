"""Typed description of a model's inputs and outputs (its I/O signature) and its JSON form.

Shapes are *per sample*: the batch axis is implicit and always first, as in Triton's
``dims`` when ``max_batch_size > 0`` (Triton docs, "Model Configuration: Inputs and
Outputs"). A dimension is either a fixed ``int`` or the *name* of a dynamic axis
(``"seq"``), whose range is given in :attr:`ModelSpec.dynamic_axes`. One tensor is a
:class:`builders.model.tensor.TensorSpec`; the command-line form is parsed by
:mod:`builders.model.spec_flags`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BeforeValidator, Field, StrictStr

from builders.model.axis_steps import off_size
from builders.model.example_spec import example_tensors
from builders.model.spec_checks import UnknownAxisError, require_consistent
from builders.model.spec_flags import axis_range_form, parse_axis_flag, parse_input_flag, parse_output_flag
from builders.model.tensor import TensorSpec, TensorSpecRecord, output_placeholder, request_axis_sizes, validate_json
from builders.model.value_ranges import require_axis_bounds
from core.errors import ModelSpecError
from core.names import close_names, read_text, require_known
from core.records import Record

#: Batch size of the example inputs used to trace/export (not 1: torch.export specialises
#: dimensions of size 1, and a trace taken at batch 1 cannot show a frozen batch).
EXAMPLE_BATCH = 2
#: :attr:`ModelSpec.origin` of a spec made from the Python API's example inputs.
EXAMPLE_INPUTS = "example_inputs"
#: Schema version of an input spec file (``"schema"``; a file without it is version 1).
SPEC_SCHEMA = 1


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """The I/O signature of a model.

    Attributes:
        inputs: Input tensors, in the order the model's ``forward`` takes them.
        outputs: Output tensors, in the order ``forward`` returns them (tuple/dict outputs
            flattened). Output shapes may be left as ``()`` before export; the export fills
            them in from the traced model.
        dynamic_axes: Range of each named dynamic axis: ``{"seq": (min, opt, max)}``.
            The batch axis is not listed here: it is always ``(1, opt, max_batch_size)``.
        multiple_of: The step of an axis that takes only multiples of one (``{"H": 32}``; an axis not listed
            takes any size in its range): :mod:`builders.model.axis_steps`.
        origin: Where the inputs' ranges came from, for messages: ``"example_inputs"`` for a
            spec made by :meth:`from_example` (the Python API), ``None`` for flags or a spec
            file. Not part of the JSON form, nor of equality.
    """

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    dynamic_axes: dict[str, tuple[int, int, int]] = dataclasses.field(default_factory=dict)
    multiple_of: dict[str, int] = dataclasses.field(default_factory=dict)
    origin: str | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self) -> None:
        require_consistent(self.inputs, self.outputs, self.dynamic_axes, self.multiple_of)  # names, axes, batch axis
        # a step of 1 is no step: the spec (its JSON, the build's reuse keys and identity) is the one without it
        object.__setattr__(self, "multiple_of", {a: s for a, s in self.multiple_of.items() if s != 1})
        for t in self.inputs:
            require_axis_bounds(t.name, t.dtype, t.value_range, self.dynamic_axes)

    def sizes_of(self, shapes: Mapping[str, Sequence[int]]) -> dict[str, int]:
        """The dynamic-axis sizes of one request whose inputs have ``shapes`` (:func:`builders.model.tensor.request_axis_sizes`)."""
        return request_axis_sizes(self.inputs, shapes)

    def step(self, axis: str) -> int:
        """The step of ``axis``: its sizes are multiples of it (1: any size; :attr:`multiple_of`)."""
        return self.multiple_of.get(axis, 1)

    def axis_sizes(self, which: str = "opt") -> dict[str, int]:
        """Each dynamic axis at its ``"min"``, ``"opt"`` or ``"max"`` size."""
        i = {"min": 0, "opt": 1, "max": 2}[which]
        return {axis: rng[i] for axis, rng in self.dynamic_axes.items()}

    def export_axis_sizes(self) -> dict[str, int]:
        """Sizes of the dynamic axes used for export examples: ``opt``, or 2 when ``opt``
        is 1 and the range allows it (a size-1 example is specialised by ``torch.export``)."""
        return {a: (opt if opt != 1 else min(2, hi)) for a, (lo, opt, hi) in self.dynamic_axes.items()}

    def off_axis_sizes(self) -> dict[str, int]:
        """A size off every multiple a model may round to, per dynamic axis whose range holds one besides its min, opt
        and max (:func:`builders.model.axis_steps.off_size`): the output probes and the verification run there, so an
        output that follows an axis at its min, opt and max only (``8 * ceil(H / 8)`` at H 16, 32, 64) is not said to
        follow it (trial 30, F1)."""
        exp = self.export_axis_sizes()
        found = {a: off_size(lo, hi, self.step(a), (lo, opt, hi, exp[a])) for a, (lo, opt, hi) in self.dynamic_axes.items()}
        return {a: n for a, n in found.items() if n is not None}

    def export_inputs(self) -> dict[str, np.ndarray]:
        """The example inputs every exporter traces with: batch :data:`EXAMPLE_BATCH`,
        :meth:`export_axis_sizes`."""
        return self.example_inputs(EXAMPLE_BATCH, self.export_axis_sizes())

    def example_inputs(self, batch: int, axis_sizes: dict[str, int] | None = None, seed: int = 0) -> dict[str, np.ndarray]:
        """Random inputs of shape ``[batch, *per_sample_shape]``.

        Each input's values follow :meth:`builders.model.tensor.TensorSpec.draw` (N(0, 1) floats,
        integers within ``value_range``, its domain respected), drawn in input order from one
        generator seeded with ``seed``.
        """
        sizes = axis_sizes if axis_sizes is not None else self.axis_sizes("opt")
        rng = np.random.default_rng(seed)
        out: dict[str, np.ndarray] = {}
        for t in self.inputs:
            out[t.name] = t.draw((batch, *t.concrete_shape(sizes)), rng, sizes)
        return out

    def require_outputs(self, names: Iterable[str], flag: str) -> None:
        """Check that every name given with ``flag`` (``--rtol``...) is an output of this spec.

        Raises:
            ModelSpecError: names that match no output; the message lists the outputs.
        """
        require_known(flag, names, [t.name for t in self.outputs], kind="output", owner="the model", error=ModelSpecError)

    def with_outputs(self, outputs: tuple[TensorSpec, ...]) -> ModelSpec:
        """This spec with ``outputs`` in place of its outputs (inputs and dynamic axes kept)."""
        return dataclasses.replace(self, outputs=outputs)

    def renamed(self, names: dict[str, dict[str, str]] | None) -> ModelSpec:
        """This spec with tensors renamed: ``{"inputs": {name: new}, "outputs": {...}}``
        (unlisted tensors keep their names; ``None`` = unchanged). Order, dtypes and shapes
        are kept: a served spec differs from the built one by names only."""
        if not names:
            return self
        ins, outs = names.get("inputs", {}), names.get("outputs", {})
        return dataclasses.replace(
            self,
            inputs=tuple(dataclasses.replace(t, name=ins.get(t.name, t.name)) for t in self.inputs),
            outputs=tuple(dataclasses.replace(t, name=outs.get(t.name, t.name)) for t in self.outputs),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form (:class:`ModelSpecRecord`, without a ``schema`` key: the manifest
        embeds it; spec files may carry one). A tensor without a domain has no ``domain``
        key, so a spec written before domains has the same JSON (and exports the same reuse
        keys)."""
        d = ModelSpecRecord.from_spec(self).model_dump(mode="json", exclude={"schema_version"})
        if not d["multiple_of"]:  # a spec without steps has the JSON (and reuse keys) it had before steps
            del d["multiple_of"]
        for t in (*d["inputs"], *(o for o in d["outputs"] if isinstance(o, dict))):  # a bare name: an output placeholder
            if t.get("domain") is None:
                t.pop("domain", None)
        return d

    @classmethod
    def from_json(cls, d: Any, source: str = "input spec") -> ModelSpec:
        """Inverse of :meth:`to_json`. Outputs may be given as bare names (``["logits"]``):
        their dtype and shape are filled in from the eager model by ``infer_outputs``.

        Args:
            d: The decoded JSON (:class:`ModelSpecRecord`).
            source: Where it came from, for messages (a file path).

        Raises:
            ModelSpecError: missing keys, wrong types (the message names the field, what was
                expected and what was found), an unsupported ``schema`` version, or an
                inconsistent spec.
        """
        record = validate_json(ModelSpecRecord, d, source)
        try:
            return record.to_spec()
        except UnknownAxisError as e:  # the axis came from the spec's field, not from a flag
            raise ModelSpecError(
                f"{source}: dynamic_axes {e.message.removeprefix('--dynamic-axis ')}",
                hint=f"key each range in the dynamic_axes of {source} by an axis an input's shape names, e.g. "
                f'"dynamic_axes": {{"{e.example}": [1, 64, 128]}}, or name the axis in an input\'s shape',
                flag="--spec",
            ) from None

    @classmethod
    def from_file(cls, path: str | Path) -> ModelSpec:
        """Load a spec from a JSON file (the format of :meth:`to_json`, see
        ``docs/schemas/input_spec.json``): the user's ``--spec``, so each refusal is a usage error of
        that flag (exit 2; trial 30, F8), whatever part of the spec raised it.

        Raises:
            ModelSpecError: the file is missing, a folder or unreadable, or not UTF-8 text (:func:`core.names.read_text`,
                the rule of every file argument), not JSON, or not a valid spec.
        """
        try:
            return cls._from_file(Path(path))
        except ModelSpecError as e:
            e.flag = "--spec"  # the file's, whichever part of a spec raised it (an --input's own words)
            raise

    @classmethod
    def _from_file(cls, p: Path) -> ModelSpec:
        text = read_text(
            p, "spec file", "a JSON spec", ModelSpecError, "`builders spec --example` prints a spec to start from", "*.json"
        )
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ModelSpecError(
                f"spec file {p} is not valid JSON: {e}",
                hint="fix it at that line and column; `builders spec --example` prints a valid spec to start from",
            ) from e
        unknown = unknown_spec_keys(data)
        if unknown:
            where, key, valid = unknown[0]
            close = close_names(key, valid, n=1)
            raise ModelSpecError(
                f"spec file {p}: unknown key {key!r} in {where}"
                + (f" (did you mean {close[0]!r}?)" if close else "")
                + (f"; {len(unknown) - 1} more unknown: {', '.join(k for _, k, _ in unknown[1:])}" if len(unknown) > 1 else ""),
                hint=f"the keys of {where} are {', '.join(sorted(valid))} (docs/schemas/input_spec.json)",
            )
        return cls.from_json(data, f"spec file {p}")

    @classmethod
    def from_example(cls, example: Any, names: Sequence[str] = ()) -> ModelSpec:
        """A spec from example inputs (the Python API's ``example_inputs``), as Model
        Navigator takes a sample batch: every axis after the first (batch) axis is static at
        the example's size; integer inputs take the example's ``[min, max]`` as value range, per
        position of the last axis when its positions' ranges differ (a tabular input's columns,
        :func:`builders.model.value_ranges.example_range`); an integer or bool input named ``...mask`` holding only 0s and 1s with a 1 in every row gets
        the ``mask`` domain (:func:`builders.model.domains.looks_like_mask`).

        Args:
            example: One batch: a tensor/array (a single input), a tuple/list in ``forward()``
                order, or a dict input name -> tensor/array; each ``[batch, *per-sample dims]``.
            names: ``forward()``'s parameter names, used for a tensor or a tuple (default
                ``INPUT__<i>``); a dict is ordered by them where they match.

        Raises:
            ModelSpecError: an example has no batch axis, or a dtype Triton cannot take.
        """
        return cls(example_tensors(example, names), (), origin=EXAMPLE_INPUTS)

    @classmethod
    def from_flags(cls, inputs: Sequence[str], outputs: Sequence[str] = (), axes: Sequence[str] = ()) -> ModelSpec:
        """Build a spec from command-line flags.

        Args:
            inputs: One ``NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN]`` per input, in ``forward`` order.
                ``SHAPE`` is the per-sample shape, comma-separated, ints or axis names
                (``3,224,224`` or ``seq``; empty for a scalar per sample);
                ``LOW..HIGH`` is an inclusive value range for integer inputs; ``DOMAIN`` one of
                :data:`builders.model.domains.DOMAINS`.
                Examples: ``input_ids:int64:seq:0..30521``, ``attention_mask:int64:seq:mask``.
            outputs: Output names, in the order ``forward`` returns them (flattened).
            axes: One ``AXIS=MIN,OPT,MAX[/STEP]`` per dynamic axis, e.g. ``seq=1,64,128`` or ``H=64,128,256/32``
                (H takes multiples of 32 only).

        Raises:
            ModelSpecError: a flag does not parse (the message shows the expected form), or one
                axis is given twice (the first would be silently replaced).
        """
        sizes: dict[str, tuple[int, int, int]] = {}
        steps: dict[str, int] = {}
        for text in axes:
            name, bounds, step = parse_axis_flag(text)
            if name in sizes:
                raise ModelSpecError(
                    f"--dynamic-axis {name} given twice ({','.join(map(str, sizes[name]))} and {','.join(map(str, bounds))})",
                    hint=f"give each axis once: --dynamic-axis {name}=MIN,OPT,MAX",
                    flag="--dynamic-axis",
                )
            sizes[name] = bounds
            if step is not None:
                steps[name] = step
        return cls(
            tuple(parse_input_flag(f) for f in inputs),
            tuple(output_placeholder(parse_output_flag(n)) for n in outputs),
            sizes,
            steps,
        )


class ModelSpecRecord(Record):
    """JSON form of a :class:`ModelSpec`: an input spec file (``--spec``), and the ``spec``
    of a build manifest. Outputs may be bare names (filled in from the eager model)."""

    schema_version: int = Field(SPEC_SCHEMA, alias="schema", description="input spec schema version")
    inputs: list[TensorSpecRecord]
    outputs: list[TensorSpecRecord | StrictStr] = []
    dynamic_axes: dict[str, Annotated[tuple[int, int, int], BeforeValidator(axis_range_form)]] = Field(
        {}, description="axis -> (min, opt, max)"
    )
    multiple_of: dict[str, int] = Field(
        {}, description="axis -> step: the axis takes only multiples of it (an axis not listed: any size in its range)"
    )

    @classmethod
    def from_spec(cls, spec: ModelSpec) -> ModelSpecRecord:
        """The record of ``spec`` (every output with its dtype and shape; an output known only
        by name, :func:`builders.model.tensor.output_placeholder`, as its bare name)."""
        return cls(
            inputs=[TensorSpecRecord.from_spec(t) for t in spec.inputs],
            outputs=[TensorSpecRecord.from_spec(t) if t.declared else t.name for t in spec.outputs],
            dynamic_axes=dict(spec.dynamic_axes),
            multiple_of=dict(spec.multiple_of),
        )

    def to_spec(self) -> ModelSpec:
        """The :class:`ModelSpec` this record describes; outputs given as bare names get a
        placeholder dtype and shape (filled in from the eager model).

        Raises:
            ModelSpecError: an unsupported ``schema`` version, or an inconsistent spec.
        """
        if self.schema_version != SPEC_SCHEMA:
            raise ModelSpecError(
                f"input spec schema version {self.schema_version} is not read by this toolkit (it reads {SPEC_SCHEMA})",
                hint="write the spec in the documented form (docs/schemas/input_spec.json)",
            )
        return ModelSpec(
            tuple(t.to_spec() for t in self.inputs),
            tuple(output_placeholder(t) if isinstance(t, str) else t.to_spec(output=True) for t in self.outputs),
            dict(self.dynamic_axes),
            dict(self.multiple_of),
        )


def _keys(model: type[Record]) -> list[str]:
    """The JSON keys ``model`` reads (aliases where a field has one), sorted."""
    return sorted({f.alias or n for n, f in model.model_fields.items()})


def unknown_spec_keys(data: Any) -> list[tuple[str, str, list[str]]]:
    """Keys of a user's spec file that no field reads (a misspelt ``dynamic_axis`` would
    otherwise be dropped silently, and the spec built without it).

    Returns:
        ``(where, key, valid keys there)`` per unknown key, in file order; ``where`` is
        ``"the spec"`` or ``"inputs[0]"`` / ``"outputs[1]"``. Top-level keys starting with
        ``$`` (``$schema``, ``$comment``) are JSON Schema's own and allowed.
    """
    if not isinstance(data, dict):
        return []
    found = [("the spec", k, _keys(ModelSpecRecord)) for k in data if k not in _keys(ModelSpecRecord) and not k.startswith("$")]
    for part in ("inputs", "outputs"):
        items = data.get(part)
        for i, t in enumerate(items if isinstance(items, list) else []):
            if isinstance(t, dict):
                found += [(f"{part}[{i}]", k, _keys(TensorSpecRecord)) for k in t if k not in _keys(TensorSpecRecord)]
    return found
