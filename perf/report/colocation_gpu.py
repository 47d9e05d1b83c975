"""The GPU part of a co-location run's report (:mod:`perf.report.colocation`): with KIND_GPU variants, the
server's GPUs, each variant's device ids and GPU memory (:mod:`perf.colocate.gpu` says what the numbers
are), and the GPUs' use in the pick's final rounds."""

from __future__ import annotations

from perf.colocate import judge
from perf.markdown import Align, table
from perf.records.colocation import ColocationRecord

RIGHT: Align = "right"


def _mib(value: float | None) -> str:
    return "—" if value is None else f"{value / 2**20:,.0f}"


def gpu_section(record: ColocationRecord) -> list[str]:
    """With KIND_GPU variants: the devices, each variant's device ids and GPU memory (module
    :mod:`perf.colocate.gpu` says what the numbers are), and the GPUs' use in the pick's rounds."""
    if record.kind != "KIND_GPU":
        return []
    from perf.colocate.gpu import shared_devices

    sources = sorted({g.source for g in record.gpu_memory})
    rows = [
        [
            g.model,
            g.variant,
            ", ".join(map(str, g.device_ids)) or "every GPU",
            _mib(g.delta_bytes),
            _mib(g.reported_bytes) if g.reported_bytes is not None else "not reported",
            ", ".join(g.loaded_with) or "nothing",
        ]
        for g in record.gpu_memory
    ]
    lines = [
        "## GPU",
        "",
        f"GPUs of the server: {', '.join(record.gpu_devices) or 'none reported'}. A KIND_GPU variant runs on the device ids "
        "its instance groups list (every GPU the server sees when they list none).",
        "",
        "GPU memory of each variant, at its first load: the device memory used just after its load minus just before it, "
        "the variants loaded beside it staying loaded (Triton reports memory per GPU, not per model); 'reported' is what "
        f"its backend reports in the statistics' memory_usage. Source: {'; '.join(sources) or 'no reading'}.",
        "",
        *table(
            ["model", "variant", "device ids", "GPU memory at load MiB", "reported MiB", "loaded beside it"],
            rows,
            ["left", "left", "left", RIGHT, RIGHT, "left"],
        ),
        "",
    ]
    final = next((s for s in reversed(record.steps) if s.kind == "final"), None)
    if record.pick is None or final is None or not final.rounds:
        return lines
    ids = {m.name: (tuple(m.gpus[v]) if v in m.gpus else None) for m in record.models if (v := record.pick.get(m.name))}

    def util(combo: dict[str, str]) -> str:
        value = judge.median(judge.visit_series(record.visits, final.index, combo, final.rounds, "gpu_utilization_pct"))
        return "—" if value is None else f"{value:.0f} %"

    alone = ", ".join(f"{m} {util({m: v})}" for m, v in record.pick.items())
    peak = judge.median(judge.visit_series(record.visits, final.index, record.pick, final.rounds, "gpu_memory_used_bytes"))
    return [
        *lines,
        f"The pick on the GPU: {shared_devices(ids)}. GPU utilisation (medians over the final rounds, every round recorded "
        f"in colocation.json): {util(record.pick)} together; alone: {alone}; peak GPU memory together {_mib(peak)} MiB.",
        "",
    ]
