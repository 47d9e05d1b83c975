"""Per-execute overhead of the toolkit's python-backend model on the bundled server, before and after.

Usage::

    .venv/bin/python benchmarks/bench_python_overhead.py                 # mlp, TorchScript + ONNX
    .venv/bin/python benchmarks/bench_python_overhead.py --model tiny --formats onnx --trials 1

One server, one build; per format three copies of the same variant (same config, same
artifact), differing only in their ``model.py``:

- ``noop``: reads the inputs and answers zeros of the declared output shapes: what the python
  backend itself costs per ``execute()`` (stub IPC, shared memory, request/response objects);
- ``before``: the generated model as it was at ``--before`` (a git revision; default the
  commit before issue 13's copy removal), read with ``git show``;
- ``after``: the generated model of this tree (``builders/templates/triton_python_model.py``).

Loads (perf_analyzer through :func:`perf.measure.level.measure_level`): client batch 1 and
``--batch`` at concurrency 1 (one request per ``execute()``), and client batch 1 at
``--concurrency`` with dynamic batching (several requests per ``execute()``: the merge /
split path). Each load is measured ``--trials`` times, the three models in rotating order;
the median is kept. Printed per format and load: the server's compute-infer time per request
(µs; Triton's statistics, the whole execution a request was part of), the batch the server
formed, the in-process runner time at that batch (µs), and the shim's overhead = served
compute infer - noop compute infer - runner time. Then the merge / split / check steps timed
in-process (µs). The timings are this (shared, noisy) machine at this moment: compare the
columns of one run, never against fixed numbers. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = "builders/templates/triton_python_model.py"
#: The generated model before issue 13 removed its per-request checks and conversions.
BEFORE_REF = "4f5e117"

NOOP_MODEL = '''"""No-op python model: reads its inputs, answers zeros of the declared output shapes."""
import json
import os
import site

for _p in os.environ.get("TRITON_TOOLKIT_SITE_PACKAGES", "").split(os.pathsep):
    if _p:
        site.addsitedir(_p)

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.inputs = [i["name"] for i in config["input"]]
        self.outputs = [
            (o["name"], pb_utils.triton_string_to_numpy(o["data_type"]), [max(1, int(d)) for d in o["dims"]])
            for o in config["output"]
        ]
        self.batched = int(config.get("max_batch_size", 0)) > 0
        self.zeros = {}

    def execute(self, requests):
        responses = []
        for r in requests:
            arrays = [pb_utils.get_input_tensor_by_name(r, n).as_numpy() for n in self.inputs]
            batch = arrays[0].shape[0] if self.batched else None
            tensors = []
            for name, dtype, dims in self.outputs:
                key = (name, batch)
                if key not in self.zeros:
                    self.zeros[key] = np.zeros(([batch] if self.batched else []) + dims, dtype)
                tensors.append(pb_utils.Tensor(name, self.zeros[key]))
            responses.append(pb_utils.InferenceResponse(tensors))
        return responses
'''


def _median_us(fn: Any, number: int = 200, repeat: int = 5, timer: Any = time.perf_counter) -> float:
    """Median over ``repeat`` runs of the mean time of ``fn()`` (µs), by ``timer``."""
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat, timer=timer)) / number * 1e6


def _stub_cpu_s(server_pid: int | None, model: str) -> float | None:
    """CPU seconds (user + system) used so far by the python-backend stub process(es) of
    ``model``: the server's children whose command line names the model's folder."""
    import psutil

    if server_pid is None:
        return None
    total, found = 0.0, False
    for proc in psutil.Process(server_pid).children(recursive=True):
        try:
            if any(f"/{model}/" in a or a.endswith(f"/{model}") for a in proc.cmdline()):
                t = proc.cpu_times()
                total += t.user + t.system + getattr(t, "children_user", 0.0) + getattr(t, "children_system", 0.0)
                found = True
        except psutil.Error:
            continue
    return total if found else None


def _shims(before: str) -> dict[str, str]:
    old = subprocess.run(["git", "-C", str(ROOT), "show", f"{before}:{TEMPLATE}"], check=True, capture_output=True, text=True)
    return {"noop": NOOP_MODEL, "before": old.stdout, "after": (ROOT / TEMPLATE).read_text()}


def _copy_variant(repo: Path, name: str, new: str, model_py: str) -> None:
    from builders.config.pbtxt import read_config, write_config

    shutil.copytree(repo / name, repo / new)
    cfg = read_config(repo / new / "config.pbtxt")
    cfg.name = new
    write_config(cfg, repo / new / "config.pbtxt")
    (repo / new / "1" / "model.py").write_text(model_py)


def _in_process(repo: Path, name: str, batches: set[int], threads: int) -> dict[int, tuple[float, float]]:
    """The runner alone (the artifact served by ``name``) at each batch: (wall µs, CPU µs of
    the whole process, intra-op threads included) per call."""
    from builders.config.pbtxt import read_config
    from builders.repository.view import Repository
    from builders.serving.runners import load_runner

    v = Repository(repo).variant(name)
    cfg = read_config(repo / name / "config.pbtxt")
    spec = v.served_spec
    assert spec is not None
    fmt = cfg.parameters["artifact_format"].string_value
    path = repo / name / "1" / cfg.parameters["artifact_file"].string_value
    outputs = json.loads(cfg.parameters["artifact_outputs"].string_value)
    run = load_runner(fmt, path, [t.name for t in spec.inputs], outputs, threads)
    times = {}
    for b in sorted(batches):
        x = spec.example_inputs(b)
        run(x)
        times[b] = (_median_us(lambda x=x: run(x), number=50), _median_us(lambda x=x: run(x), number=50, timer=time.process_time))
    return times


def _steps(repo: Path, name: str, batch: int, requests: int) -> dict[str, float]:
    """The shim's own steps on ``requests`` requests of ``batch`` samples each (µs per execute)."""
    import numpy as np
    from tritonclient.grpc import model_config_pb2 as mc

    from builders.config.pbtxt import read_config
    from builders.repository.view import Repository
    from builders.serving import served_batch
    from builders.serving.runners import declared_outputs, load_runner, output_mismatches
    from core.dtypes import from_triton

    v = Repository(repo).variant(name)
    spec = v.served_spec
    assert spec is not None
    cfg = read_config(repo / name / "config.pbtxt")
    names = [t.name for t in spec.inputs]
    outs = json.loads(cfg.parameters["artifact_outputs"].string_value)
    declared = declared_outputs(
        [{"name": o.name, "data_type": mc.DataType.Name(o.data_type), "dims": list(o.dims)} for o in cfg.output],
        lambda t: from_triton(t).to_numpy(),
    )
    arrays = [spec.example_inputs(batch, seed=i) for i in range(requests)]
    run = load_runner(
        cfg.parameters["artifact_format"].string_value,
        repo / name / "1" / cfg.parameters["artifact_file"].string_value,
        names,
        outs,
        1,
    )
    merged, sizes = served_batch.merge(arrays, names)
    result = run(merged)
    dtypes = {n: d for n, (d, _) in declared.items()}
    bounds = np.cumsum(sizes)[:-1]

    def old_split_convert() -> None:
        parts = [dict(zip(outs, p)) for p in zip(*(np.split(result[n], bounds) for n in outs))]
        for p in parts:
            output_mismatches(p, declared, True)
            [np.ascontiguousarray(p[n], dtype=dtypes[n]) for n in outs]

    def new_split() -> None:
        output_mismatches(result, declared, True)
        parts = served_batch.split(result, sizes, outs)
        [p[n] for p in parts for n in outs]

    cpu = time.thread_time  # CPU time of this thread: waiting for a busy core is not counted
    return {
        "mergeable_us": _median_us(lambda: served_batch.mergeable(arrays, names), timer=cpu),
        "concatenate_us": _median_us(lambda: served_batch.merge(arrays, names), timer=cpu),
        "split_check_convert_before_us": _median_us(old_split_convert, timer=cpu),
        "split_check_after_us": _median_us(new_split, timer=cpu),
        "check_one_us": _median_us(lambda: output_mismatches(result, declared, True), timer=cpu),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mlp", help="built-in model (default mlp)")
    p.add_argument("--formats", default="torchscript,onnx", help="formats (default torchscript,onnx)")
    p.add_argument("--batch", type=int, default=8, help="the larger client batch (default 8)")
    p.add_argument("--concurrency", type=int, default=8, help="concurrency of the merged-requests load (default 8)")
    p.add_argument("--interval-ms", type=int, default=1000, help="perf_analyzer window (ms, default 1000)")
    p.add_argument("--trials", type=int, default=3, help="measurements per load and model (median kept; default 3)")
    p.add_argument("--before", default=BEFORE_REF, help=f"git revision of the 'before' model.py (default {BEFORE_REF})")
    p.add_argument("--out", type=Path, default=Path("results/bench_python_overhead.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from builders.repository.view import Repository
    from clients.infer import make_client, model_io
    from clients.server import ServerOptions, TritonServer
    from core.cli import print_table
    from perf.measure import analyzer
    from perf.measure.inputs import input_args
    from perf.measure.level import HostCheck, Load, measure_level
    from perf.measure.metrics import batch_stats
    from perf.records.settings import MeasureSettings

    load_before = os.getloadavg()
    shims = _shims(args.before)
    formats = tuple(args.formats.split(","))
    mbs = max(args.batch, args.concurrency)
    loads = [(1, 1), (1, args.batch), (args.concurrency, 1)]  # (concurrency, client batch)
    settings = MeasureSettings(measurement_interval_ms=args.interval_ms, max_trials=5, unstable_retries=0, collect_metrics=False)
    pa = analyzer.find_perf_analyzer()
    rows: list[dict[str, Any]] = []
    steps: dict[str, Any] = {}
    commands: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_overhead_") as tmp:
        root = Path(tmp)
        repo = root / "repo"
        res = build(
            BuildOptions(
                args.model,
                formats=formats,
                repository=repo,
                build_dir=root / "builds",
                grid=VariantGrid(counts=(1,), queue_delays_us=(500,), max_batch_sizes=(mbs,)),
            )
        )
        variants = {Repository(repo).variant(n).params.format: n for n in res.manifest["variants"]}  # type: ignore[union-attr]
        for name in variants.values():
            for shim, text in shims.items():
                _copy_variant(repo, name, f"{name}__{shim}", text)
        run_dir = root / "run"
        (run_dir / "raw").mkdir(parents=True)
        with TritonServer(ServerOptions(repo, runtime="bundled", log_file=root / "server.log", start_timeout_s=120)) as srv:
            for fmt, name in variants.items():
                served = Repository(repo).variant(name).served_spec
                copies = [f"{name}__{s}" for s in shims]
                for c in copies:
                    srv.load(c)
                with contextlib.closing(make_client(srv.http_url, "http")) as client:
                    config = model_io(client, copies[0], "http")
                in_args = input_args(config, served, run_dir)
                measured: dict[tuple[str, int, int], list[Any]] = {}
                for trial in range(args.trials):
                    for conc, batch in loads:
                        order = copies[trial % 3 :] + copies[: trial % 3]
                        for c in order:
                            cpu0, stats0 = _stub_cpu_s(srv.pid, c), batch_stats(srv.http_url, c)
                            lv = measure_level(
                                pa,
                                srv,
                                Load(c, conc, batch, trial),
                                in_args,
                                settings,
                                run_dir,
                                lambda _what, cmd: commands.append(cmd),
                                HostCheck(threshold_pct=float("inf")),
                            )
                            cpu1, stats1 = _stub_cpu_s(srv.pid, c), batch_stats(srv.http_url, c)
                            execs = stats1[1] - stats0[1] if stats0 and stats1 else 0
                            cpu_us = (cpu1 - cpu0) / execs * 1e6 if cpu0 is not None and cpu1 is not None and execs else None
                            measured.setdefault((c.rsplit("__", 1)[1], conc, batch), []).append((lv, cpu_us))
                for c in copies:
                    srv.unload(c)
                formed: dict[tuple[int, int], int] = {}
                for (shim, conc, batch), pairs in measured.items():
                    lvs = [lv for lv, _ in pairs]
                    cpus = [u for lv, u in pairs if lv.ok and u is not None]
                    ok = [lv for lv in lvs if lv.ok and lv.server_compute_infer_us is not None]
                    row = {
                        "format": fmt,
                        "model": shim,
                        "concurrency": conc,
                        "client_batch": batch,
                        "trials_ok": len(ok),
                        "throughput_infer_per_s": statistics.median([lv.throughput_infer_per_s for lv in ok]) if ok else None,
                        "compute_infer_us": statistics.median([lv.server_compute_infer_us for lv in ok]) if ok else None,
                        "compute_input_us": statistics.median([lv.server_compute_input_us or 0 for lv in ok]) if ok else None,
                        "compute_output_us": statistics.median([lv.server_compute_output_us or 0 for lv in ok]) if ok else None,
                        "server_batch": statistics.median([lv.avg_server_batch_size or batch for lv in ok]) if ok else None,
                        "stub_cpu_us_per_execute": round(statistics.median(cpus), 1) if cpus else None,
                        "host_busy_pct": max((lv.host_busy_pct or 0 for lv in ok), default=None),
                        "errors": [lv.error for lv in lvs if lv.error],
                    }
                    if shim == "after" and row["server_batch"]:
                        formed[(conc, batch)] = max(1, round(row["server_batch"]))
                    rows.append(row)
                runner = _in_process(repo, name, set(formed.values()) | {1, args.batch}, threads=2)
                noop = {(r["concurrency"], r["client_batch"]): r for r in rows if r["format"] == fmt and r["model"] == "noop"}
                for row in rows:
                    if row["format"] != fmt:
                        continue
                    b = formed.get((row["concurrency"], row["client_batch"]), row["client_batch"])
                    wall, cpu = runner.get(b, (None, None))
                    row.update(runner_batch=b, runner_wall_us=wall, runner_cpu_us=cpu)
                    base = noop.get((row["concurrency"], row["client_batch"]), {}).get("stub_cpu_us_per_execute")
                    mine = row["stub_cpu_us_per_execute"]
                    # the stub's CPU per execute beyond the no-op model's and the runner's own: the shim
                    row["shim_cpu_us_per_execute"] = (
                        None if row["model"] == "noop" or None in (base, mine, cpu) else round(mine - base - cpu, 1)
                    )
                steps[fmt] = _steps(repo, name, 1, args.concurrency)

    report = {
        "benchmark": "bench_python_overhead",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {
            "machine": platform.machine(),
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "loadavg_1_5_15_before": load_before,
            "loadavg_1_5_15_after": os.getloadavg(),
        },
        "settings": {
            "model": args.model,
            "formats": list(formats),
            "loads": [{"concurrency": c, "client_batch": b} for c, b in loads],
            "max_batch_size": mbs,
            "max_queue_delay_us": 500,
            "measurement_interval_ms": args.interval_ms,
            "trials": args.trials,
            "before": args.before,
        },
        "levels": rows,
        "steps_us": steps,
        "commands": commands,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    title = f"python-backend model per execute ({args.model}; median of {args.trials}; load average {load_before[0]:.1f})"
    table = Table(title=title)
    columns = ("format", "c", "b", "server batch", "model", "infer/s", "compute infer µs", "stub CPU µs/exec")
    for col in (*columns, "runner µs (wall/CPU)", "shim CPU µs/exec"):
        table.add_column(col)
    order = ["noop", "before", "after"]
    for r in sorted(rows, key=lambda r: (r["format"], r["concurrency"], r["client_batch"], order.index(r["model"]))):
        f = lambda v, d=0: "-" if v is None else f"{v:,.{d}f}"  # noqa: E731
        real = r["model"] != "noop"
        table.add_row(
            r["format"],
            str(r["concurrency"]),
            str(r["client_batch"]),
            f(r["server_batch"], 1),
            r["model"],
            f(r["throughput_infer_per_s"]),
            f(r["compute_infer_us"]),
            f(r["stub_cpu_us_per_execute"]),
            f"{f(r.get('runner_wall_us'))} / {f(r.get('runner_cpu_us'))}" if real else "",
            f(r.get("shim_cpu_us_per_execute")) if real else "",
        )
    print_table(table)
    st = Table(title=f"the shim's steps in-process, {args.concurrency} requests of batch 1 (CPU µs per execute)")
    st.add_column("format")
    for k in next(iter(steps.values()), {}):
        st.add_column(k.removesuffix("_us"))
    for fmt, s in steps.items():
        st.add_row(fmt, *(f"{v:.1f}" for v in s.values()))
    print_table(st)
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
