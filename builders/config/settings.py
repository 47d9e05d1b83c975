"""The settings a Triton config states, compared field by field (:class:`ServedSettings`,
:func:`differences`), and the one rule of what a variant's name says about its config
(:func:`name_differences`): the sweep and ``clients check`` refuse a served model by it
(:mod:`clients.runtimes.served`), and ``builders validate`` reports a ``config.pbtxt`` by it, so
that a hand-edited config is found before anything is started ("measure exactly what is named",
issue 26).

The tensor names two configs serve (:func:`tensor_name_differences`) are compared apart: a
deployment bundle's native config may rename what the measured config served (the PyTorch
backend's ``<name>__<index>``), and a client asks for tensors by name.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from builders.triton.rules import Problem

if TYPE_CHECKING:  # tritonclient is imported where it is used: a CLI's --help stays fast
    from tritonclient.grpc import model_config_pb2 as mc

_CONFIG = ConfigDict(extra="ignore")

#: The config parameter an uploaded variant carries its one-time token in
#: (:mod:`clients.runtimes.identity`); not a setting, so never a difference.
UPLOAD_PARAMETER = "triton_toolkit_upload"


@dataclass(config=_CONFIG)
class ServedSettings:
    """The settings a variant stands for, as one config states them (local or served).

    Attributes:
        backend: Triton's backend (``python``, ``onnxruntime``, ``pytorch``, ``tensorrt``); a
            ``platform`` is read as the backend it implies.
        max_batch_size: ``max_batch_size`` (0: no batch axis).
        instance_groups: ``"KIND_CPU x2"`` (``" on GPUs [0, 1]"`` added when listed), one per group.
        dynamic_batching: ``None`` when off, else ``"max_queue_delay 500 µs"`` plus the
            preferred batch sizes when set.
        parameters: ``parameters`` as text (the upload token left out).
        warmup: Names of the ``model_warmup`` samples.
        accelerators: Execution accelerators, ``"gpu:tensorrt(precision_mode=FP16, ...)"``.
    """

    backend: str
    max_batch_size: int
    instance_groups: list[str]
    dynamic_batching: str | None
    parameters: dict[str, str]
    warmup: list[str] = dataclasses.field(default_factory=list)
    accelerators: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, cfg: mc.ModelConfig) -> ServedSettings:
        """The settings ``cfg`` states (Triton's defaults filled in: a ``count`` of 0 is 1)."""
        from tritonclient.grpc import model_config_pb2 as mc

        from builders.backends import model_backend

        groups = []
        for g in cfg.instance_group:
            text = f"{mc.ModelInstanceGroup.Kind.Name(g.kind)} x{g.count or 1}"
            groups.append(text + (f" on GPUs {sorted(g.gpus)}" if g.gpus else ""))
        db = None
        if cfg.HasField("dynamic_batching"):
            d = cfg.dynamic_batching
            db = f"max_queue_delay {d.max_queue_delay_microseconds} µs"
            # Triton serves "no preferred size" as [max_batch_size] (seen on the bundled 2.51): the same batches
            if d.preferred_batch_size and sorted(d.preferred_batch_size) != [cfg.max_batch_size]:
                db += f", preferred sizes {sorted(d.preferred_batch_size)}"
        acc = cfg.optimization.execution_accelerators
        accelerators = [
            f"{where}:{a.name}({', '.join(f'{k}={v}' for k, v in sorted(a.parameters.items()))})"
            for where, group in (("gpu", acc.gpu_execution_accelerator), ("cpu", acc.cpu_execution_accelerator))
            for a in group
        ]
        return cls(
            backend=model_backend(cfg),
            max_batch_size=cfg.max_batch_size,
            instance_groups=groups,
            dynamic_batching=db,
            parameters={k: v.string_value for k, v in sorted(cfg.parameters.items()) if k != UPLOAD_PARAMETER},
            warmup=[w.name for w in cfg.model_warmup],
            accelerators=accelerators,
        )


def _groups_differ(want: list[str], have: list[str]) -> bool:
    """Whether served groups ``have`` differ from the asked ``want``: none asked means the
    server chose; ``KIND_AUTO`` is resolved by the server to CPU or GPU; GPUs not listed are
    the server's choice."""
    if not want:
        return False
    if len(want) != len(have):
        return True
    for w, h in zip(sorted(want), sorted(have)):
        wk, _, wrest = w.partition(" ")
        hk, _, hrest = h.partition(" ")
        if wk != hk and not (wk == "KIND_AUTO" and hk in ("KIND_CPU", "KIND_GPU")):
            return True
        if wrest.split(" on ")[0] != hrest.split(" on ")[0] or (" on " in wrest and wrest != hrest):
            return True
    return False


def differences(want: ServedSettings, have: ServedSettings, what: str = "variant", have_what: str = "served") -> list[str]:
    """How the served settings ``have`` differ from the asked ``want``, field by field, as
    ``"instance_group: variant [KIND_CPU x1], served [KIND_CPU x2]"``; empty when they agree.

    Triton's own choices are not differences: instance groups when none were asked
    (:func:`_groups_differ`).

    Args:
        want: The variant's settings (its local ``config.pbtxt``).
        have: What the server runs.
        what: How ``want`` is named in the text.
        have_what: How ``have`` is named in the text.
    """
    out = []

    def diff(field: str, a: object, b: object) -> None:
        out.append(f"{field}: {what} {a}, {have_what} {b}")

    if want.backend != have.backend:
        diff("backend", want.backend or "(none)", have.backend or "(none)")
    if want.max_batch_size != have.max_batch_size:
        diff("max_batch_size", want.max_batch_size, have.max_batch_size)
    if _groups_differ(want.instance_groups, have.instance_groups):
        diff("instance_group", want.instance_groups, have.instance_groups)
    if want.dynamic_batching != have.dynamic_batching:
        diff("dynamic_batching", want.dynamic_batching or "off", have.dynamic_batching or "off")
    for key in sorted(set(want.parameters) | set(have.parameters)):
        a, b = want.parameters.get(key), have.parameters.get(key)
        if a != b:
            diff(f"parameters[{key}]", "(none)" if a is None else repr(a), "(none)" if b is None else repr(b))
    if want.warmup != have.warmup:
        diff("model_warmup", want.warmup or "none", have.warmup or "none")
    if want.accelerators != have.accelerators:
        diff("execution_accelerators", want.accelerators or "none", have.accelerators or "none")
    return out


def name_differences(name: str, have: ServedSettings, have_what: str = "served") -> list[str]:
    """How the settings ``have`` (served, or a ``config.pbtxt``'s) differ from what the variant's
    name says (:func:`core.naming.parse_variant_name`: instance kind and count, GPUs,
    max_batch_size, dynamic batching and its queue delay, preferred sizes); empty for a name
    that is not a variant name.

    Args:
        name: The variant (model folder) name.
        have: The settings to compare.
        have_what: How ``have`` is named in the text (``"served"``, ``"its config.pbtxt"``).
    """
    from core.naming import parse_variant_name

    p = parse_variant_name(name)
    if p is None:
        return []
    group = f"KIND_{p.kind.upper()} x{p.count}" + (f" on GPUs {sorted(p.gpus)}" if p.gpus else "")
    db = None
    if p.dynamic_batching:
        db = f"max_queue_delay {p.max_queue_delay_us} µs"
        if p.preferred_batch_sizes and sorted(p.preferred_batch_sizes) != [p.max_batch_size]:
            db += f", preferred sizes {sorted(p.preferred_batch_sizes)}"
    want = dataclasses.replace(have, max_batch_size=p.max_batch_size, instance_groups=[group], dynamic_batching=db)
    return differences(want, have, what="its name says", have_what=have_what)


def name_problems(name: str, cfg: mc.ModelConfig) -> list[Problem]:
    """Where the config ``cfg`` of model folder ``name`` states other settings than its variant
    name says (:func:`name_differences`; ``builders validate``), one problem per field."""
    return [
        Problem(
            "",
            field,
            text,
            "a variant's name says what it runs (the sweep and clients check refuse it otherwise): restore the config "
            "(builders build writes it) or give the folder a name that says what the config states",
        )
        for field, _, text in (d.partition(": ") for d in name_differences(name, ServedSettings.of(cfg), "its config.pbtxt"))
    ]


def tensor_name_differences(
    want: mc.ModelConfig, have: mc.ModelConfig, what: str = "variant", have_what: str = "served"
) -> list[str]:
    """How the input and output names of config ``have`` differ from ``want``'s, one line per
    tensor, inputs first, as ``"output probs: measured 'probs', bundle 'probs__1' (...)"``; empty
    when they agree.

    A client asks for tensors by name: a name ``want`` serves that ``have`` does not is one that
    client's requests fail on (Triton: "unexpected inference output"). Both configs are written
    from one spec in its order (:func:`builders.config.pbtxt.make_config`; a native PyTorch
    config only renames, :func:`builders.backends.pytorch_libtorch.triton_names`), so the
    tensors are paired by position; a different count is said as the two lists.

    Args:
        want: The config clients were written against (what was measured).
        have: The other config (a deployment bundle's).
        what: How ``want`` is named in the text.
        have_what: How ``have`` is named in the text.
    """
    out = []
    for kind, a, b in (("input", want.input, have.input), ("output", want.output, have.output)):
        wanted, had = [t.name for t in a], [t.name for t in b]
        if len(wanted) != len(had):
            out.append(f"{kind} names: {what} {wanted}, {have_what} {had}")
            continue
        for w, h in zip(wanted, had):
            if w != h:
                fails = (
                    f"a client asking for {w!r} gets an error: ask for {h!r}"
                    if w not in had
                    else f"a client asking for {w!r} gets another {kind}'s tensor"
                )
                out.append(f"{kind} {w}: {what} {w!r}, {have_what} {h!r} ({fails})")
    return out
