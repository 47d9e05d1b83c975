"""The GPU check: build -> serve on CUDA -> check -> concurrency sweep -> compact table, in one call.

Run by ``scripts/gpu_check.sh`` on a GPU host, inside the private environment that script
makes from the offline bundle (``scripts/prepare_gpu_bundle.sh``). Sub-commands:

- ``run``: the whole pipeline within a time budget (default 480 s, counted from
  ``--started-at``, so the shell's install time is included), ending with two models' variants
  sharing the GPU (``triton-perf colocate``: each one's GPU memory, the GPU's utilisation per
  round; ``--colocate-s``, 100 s of the budget by default; ``gpu_check_colocate.py``). Results land in
  ``results/gpu-check-<time>/``: ``summary.txt`` (the compact table), ``check.json``,
  ``plan.json``, ``environment.json``, build logs, and the sweep's run folder
  ``sweep/`` (``results.json``, ``flat.csv``, raw perf_analyzer CSVs, ``commands.txt``,
  server log). Model artifacts stay in ``builds/gpu-check/`` and are not part of it.
- ``table RUN_DIR``: print the compact table of a finished (or cut) sweep again.
- ``slim-wheel``: rewrite a wheel without some files and with LZMA compression (used by
  ``scripts/prepare_gpu_bundle.sh`` to fit the bundle into 64 MiB).

Only the standard library is imported at module level, so ``slim-wheel`` runs anywhere and
the tests can import this file without torch or tritonclient.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, Path(__file__).resolve().parent):  # builders/clients/perf, and this script's parts
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from gpu_check_colocate import DEFAULT_COLOCATE_S, colocate_within, colocation_variants  # noqa: E402
from gpu_check_plan import SweepPlan, plan_sweep  # noqa: E402
from gpu_check_table import compact_table  # noqa: E402
from slim_wheel import slim_wheel  # noqa: E402

DEFAULT_CONCURRENCY = (1, 2, 4, 8, 16, 32, 64)
DEFAULT_BUDGET_S = 480.0
DEFAULT_P99_BUDGET_MS = 10.0
DEFAULT_STABILITY_PCT = 20.0
#: ``run`` flags only the sequential design reads (the rounds design has its own windows, three a
#: visit, and its own time budget): given with ``--design rounds`` they are refused, never ignored.
SEQUENTIAL_ONLY = {"interval_ms": "--interval-ms", "stability_pct": "--stability-pct", "sweep_all": "--sweep-all"}
#: Seconds kept free at the end of the budget for the table and the report.
RESERVE_S = 15.0


# --------------------------------------------------------------------------------------
# the pipeline
# --------------------------------------------------------------------------------------
def _say(msg: str) -> None:
    print(f"[gpu_check {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _csv(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def environment_info(kind: str) -> dict[str, Any]:
    """GPUs, torch/CUDA, onnxruntime providers, tensorrt: what decides what can be served."""
    import importlib.util

    from core.gpu import gpu_names

    info: dict[str, Any] = {
        "gpus": list(gpu_names()),
        "kind": kind,
        "python": sys.version.split()[0],
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_cuda"] = torch.version.cuda
        info["cuda_available"] = bool(torch.cuda.is_available())
        info["cuda_device"] = torch.cuda.get_device_name(0) if info["cuda_available"] else None
    except Exception as e:  # noqa: BLE001 - reported, decided on below
        info["torch_error"] = f"{type(e).__name__}: {e}"
    try:
        import onnxruntime as ort

        info["onnxruntime"] = ort.__version__
        info["ort_providers"] = list(ort.get_available_providers())
    except Exception as e:  # noqa: BLE001
        info["onnxruntime_error"] = f"{type(e).__name__}: {e}"
    info["tensorrt"] = importlib.util.find_spec("tensorrt") is not None
    return info


def check_served(repository: Path, groups: dict[str, list[str]], runtime: str, out_dir: Path, load_threads: int = 8) -> list[Any]:
    """Check served outputs against PyTorch for every variant, one server per group with the
    group's variants loaded in parallel at start (``--model-load-thread-count``): much
    faster than loading them one by one, which a sweep does anyway.

    Returns:
        :class:`clients.check.CheckResult` per variant and protocol (HTTP and gRPC).
    """
    from clients.check import CheckResult, check_running
    from clients.server import ServerOptions, TritonServer
    from core.errors import ServerError

    results: list[Any] = []
    for key, names in groups.items():
        t0 = time.monotonic()
        opts = ServerOptions(
            repository,
            runtime=runtime,
            model_control="explicit",
            load_models=tuple(names),
            log_file=out_dir / f"check-{key}.log",
            start_timeout_s=300,
            extra_args=(f"--model-load-thread-count={load_threads}", "--exit-on-error=false"),
        )
        try:
            with TritonServer(opts) as srv:
                _say(f"check {key}: {len(names)} variants loaded in {time.monotonic() - t0:.1f} s")
                for name in names:
                    try:
                        results += check_running(repository, {"http": srv.http_url, "grpc": srv.grpc_url}, [name])
                    except Exception as e:  # noqa: BLE001 - e.g. an empty served tensor that cannot be reshaped
                        results += [CheckResult(name, p, False, [], f"{type(e).__name__}: {e}") for p in ("http", "grpc")]
        except ServerError as e:
            results += [
                CheckResult(n, p, False, [], f"server failed: {str(e).splitlines()[0]}") for n in names for p in ("http", "grpc")
            ]
        _say(f"check {key}: done in {time.monotonic() - t0:.1f} s")
    return results


def _environment(kind: str, run_dir: Path) -> dict[str, Any] | None:
    """Record the host (``environment.json``) and say what it has; ``None`` (after a message on
    stderr) when a GPU run finds no GPU PyTorch can use."""
    if kind == "cpu":
        _say("CPU DRY RUN: KIND_CPU variants on the CPU; these numbers are not GPU results")
    env = environment_info(kind)
    (run_dir / "environment.json").write_text(json.dumps(env, indent=2) + "\n")
    if kind == "gpu" and not env.get("cuda_available"):
        why = env.get("torch_error") or f"torch {env.get('torch')} (CUDA {env.get('torch_cuda')}) sees no CUDA device"
        print(
            f"gpu_check: no usable GPU for PyTorch: {why.rstrip('.')}.\n  -> install a CUDA build of torch on this host "
            "(nvidia-smi must list a GPU and torch.cuda.is_available() must be True)",
            file=sys.stderr,
        )
        return None
    _say(
        f"GPU: {env.get('cuda_device') or ', '.join(env['gpus']) or 'none'}; torch {env.get('torch')} "
        f"(CUDA {env.get('torch_cuda')}); onnxruntime {env.get('onnxruntime')} {env.get('ort_providers')}; "
        f"tensorrt {'yes' if env['tensorrt'] else 'no'}"
    )
    return env


def _build_models(args: argparse.Namespace, formats: list[str], serving: str, build_root: Path, run_dir: Path) -> bool:
    """Build every ``--models`` model into ``build_root/model_repository`` (the Python API:
    :func:`builders.build.build`), each logged to ``run_dir/build-<model>.log``; ``False``
    (after a message on stderr) when one fails."""
    kind = args.kind
    repo = build_root / "model_repository"
    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid, parse_queue_delays
    from core.cli import int_list
    from core.errors import ToolkitError

    grid = VariantGrid(
        kinds=(kind,),
        counts=int_list(args.counts, "--counts"),
        queue_delays_us=parse_queue_delays(args.batching),
        max_batch_sizes=(args.max_batch_size,),
        server_gpu=kind == "gpu",
    )
    for model in _csv(args.models):
        _say(f"build {model}: {' '.join(formats)} x {args.precisions}")
        log_path = run_dir / f"build-{model}.log"
        with open(log_path, "w") as log_file:

            def progress(msg: str, log_file: Any = log_file) -> None:
                log_file.write(msg + "\n")
                log_file.flush()
                _say(f"  {msg}")

            try:
                build(
                    BuildOptions(
                        model,
                        formats=tuple(formats),
                        precisions=tuple(_csv(args.precisions)),
                        grid=grid,
                        serving=serving,
                        repository=repo,
                        build_dir=build_root,
                    ),
                    progress,
                )
            except ToolkitError as e:
                log_file.write(f"error ({e.stage}): {e}\n")
                print(f"gpu_check: building {model} failed: {e}\n  (log: {log_path})", file=sys.stderr)
                return False
    return True


def _served_variants(repo: Path, kind: str, serving: str, env: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The built variants of ``kind`` this host can serve, by name (their index parameters);
    a note in ``notes`` when ONNX variants cannot be served on the GPU here."""
    from builders.repository.view import Repository

    built = {v.name: v.params for v in Repository(repo).variants() if v.params is not None}
    served: dict[str, Any] = {}
    for name, params in sorted(built.items()):
        if params.kind != kind:
            continue
        if (
            params.format == "onnx"
            and kind == "gpu"
            and serving == "python"
            and "CUDAExecutionProvider" not in env.get("ort_providers", [])
        ):
            continue
        served[name] = params
    if len(served) < sum(1 for p in built.values() if p.kind == kind):
        notes.append(
            "ONNX variants built and verified but not served: onnxruntime here has no CUDAExecutionProvider "
            "(install onnxruntime-gpu to serve them on the GPU with the bundled server)"
        )
        _say(notes[-1])
    return served


def run(args: argparse.Namespace) -> int:
    """The whole pipeline within the time budget: environment, build, check, sweep, table.

    Returns:
        The exit status: 0 when every step passed, 1 when a build, check or variant failed
        (or nothing could be swept), 3 when a GPU run finds no usable GPU.
    """
    started = args.started_at or time.time()
    deadline = started + args.budget_s
    run_dir = Path(args.results_dir) / time.strftime("gpu-check-%Y%m%d-%H%M%S")
    run_dir.mkdir(parents=True, exist_ok=True)
    kind = args.kind
    env = _environment(kind, run_dir)
    if env is None:
        return 3
    runtime = args.runtime
    serving = "native" if runtime in ("container", "local") else "python"  # the bundled server has the python backend only
    formats = _csv(args.formats)
    if env["tensorrt"] and kind == "gpu" and "trt" not in formats and not args.no_trt:
        formats.append("trt")
    notes: list[str] = []
    build_root = ROOT / "builds" / "gpu-check"
    repo = build_root / "model_repository"
    if repo.exists():
        import shutil

        shutil.rmtree(repo)
    if not _build_models(args, formats, serving, build_root, run_dir):
        return 1
    served = _served_variants(repo, kind, serving, env, notes)
    if "trt" in formats and serving == "python":
        notes.append("TensorRT plans built and verified, not served: the bundled server has no tensorrt_plan backend")
    from clients.check import check_summary
    from core.formats import FORMAT_NAMES
    from core.wording import of

    order = {f: i for i, f in enumerate(FORMAT_NAMES)}
    prec = {p: i for i, p in enumerate(_csv(args.precisions))}
    mods = {m: i for i, m in enumerate(_csv(args.models))}
    by_group: dict[tuple[int, int, int], list[str]] = {}
    for name, p in served.items():
        by_group.setdefault((order.get(p.format, 9), prec.get(p.precision, 9), mods.get(p.model, 9)), []).append(name)
    # 3. check served outputs (one server per model and format)
    check_groups: dict[str, list[str]] = {}
    for name, p in served.items():
        check_groups.setdefault(f"{p.model}-{p.format}", []).append(name)
    results = check_served(repo, check_groups, runtime, run_dir)
    (run_dir / "check.json").write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=2) + "\n")
    failed_checks = sorted({r.variant for r in results if not r.passed})
    for r in results:
        if not r.passed:
            worst = "; ".join(f"{o['name']}: {o.get('problem') or 'failed'}" for o in r.outputs if not o["passed"])
            _say(f"check FAILED {r.variant} ({r.protocol}): {r.error or worst}")
    _say(
        f"check: {check_summary(results)} ({of(len(served) - len(failed_checks), len(served), 'variant')} passed on "
        "every protocol)"
    )
    # 4. plan and sweep
    levels = [int(c) for c in _csv(args.concurrency)]
    groups = [[(n, served[n].count) for n in sorted(names) if n not in failed_checks] for _, names in sorted(by_group.items())]
    groups = [g for g in groups if g]
    rc = 1 if failed_checks else 0
    if not groups:
        print("gpu_check: no variant passed its check; nothing to sweep", file=sys.stderr)
        return 1
    picks = colocation_variants(
        served, failed_checks, _csv(args.models), [f for f in FORMAT_NAMES if f in formats], _csv(args.precisions)
    )
    colocate_s = args.colocate_s if picks else 0.0
    if args.colocate_s and not picks:
        notes.append("co-location step skipped: it needs two models with two checked variants each (--models a,b)")
    sweep_budget = deadline - time.time() - RESERVE_S - colocate_s
    plan = plan_sweep(
        groups, len(levels), sweep_budget, interval_ms=args.interval_ms, keep_all=args.sweep_all or args.design == "rounds"
    )
    (run_dir / "plan.json").write_text(json.dumps(plan.to_json(), indent=2) + "\n")
    _say(_plan_words(plan, args, len(levels), sweep_budget))
    if plan.dropped:
        notes.append(f"not swept to stay within {args.budget_s:.0f} s (built and checked): {', '.join(plan.dropped)}")
    sweep_rc = sweep_within(
        repo, runtime, plan, levels, args, run_dir, timeout_s=max(30.0, deadline - time.time() - RESERVE_S - colocate_s)
    )
    if sweep_rc not in (0, 130):
        rc = 1
    # 5. the table
    sweep_dir = run_dir / "sweep"
    if not (sweep_dir / "results.json").is_file():
        print(f"gpu_check: the sweep wrote no results (exit {sweep_rc}); see {run_dir / 'sweep.log'}", file=sys.stderr)
        return 1
    from perf.records import results as perf_results

    sweep_run = perf_results.load(sweep_dir)
    if sweep_rc == 130:
        notes.append("the sweep was cut at the time budget; the levels measured so far are shown")
    if picks:  # 6. two models sharing the GPU (triton-perf colocate's GPU path), in the time kept for it
        left = deadline - time.time() - RESERVE_S
        _say(f"co-location: {picks} within {left:.0f} s")
        notes += colocate_within(repo, runtime, picks, run_dir, left) if left > 30 else ["co-location: not run, no time left"]
    text = summary_text(sweep_run, args.p99_budget_ms, env, notes, failed_checks, time.time() - started)
    (run_dir / "summary.txt").write_text(text + "\n")
    print("\n" + text)
    _maybe_report(sweep_dir, args.p99_budget_ms, deadline)
    print(f"\nresults: {run_dir} ({_size_mib(run_dir):.1f} MiB)")
    if any(v.status == "failed" for v in sweep_run.variants):
        rc = 1
    return rc


def sweep_within(
    repo: Path, runtime: str, plan: SweepPlan, levels: Sequence[int], args: argparse.Namespace, run_dir: Path, timeout_s: float
) -> int:
    """Sweep ``plan`` with :func:`perf.sweep.run.run_sweep` into ``run_dir/sweep``, cut at
    ``timeout_s`` (the alarm raises KeyboardInterrupt, which the sweep answers by saving
    what it measured, as on Ctrl-C). Every level is logged to ``run_dir/sweep.log``.

    Returns:
        0 when no variant failed (a variant the rounds' time budget cut is said, not failed), 1 when one failed
        or nothing could run, 130 when the time budget cut the sweep.
    """
    from clients.server import ServerOptions
    from core.errors import ToolkitError
    from perf.records.settings import MeasureSettings
    from perf.sweep.run import SweepOptions, run_sweep

    server = ServerOptions(repo, runtime=runtime, metrics_interval_ms=200)  # the sweep keeps its server logs in its run folder
    batch_sizes = tuple(int(b) for b in _csv(args.batch_sizes))
    if args.design == "rounds":
        # the product's default design: every planned variant loaded together, measured in interleaved, shuffled
        # rounds until the sweep's share of the budget is spent (its own budget stops it, the alarm is a backstop),
        # then the in-process baseline
        opts = SweepOptions(
            server=server,
            variants=tuple(plan.variants),
            concurrency=tuple(levels),
            search="brute",
            batch_sizes=batch_sizes,
            design="rounds",
            time_budget_s=max(30.0, timeout_s - 10.0),
            results_dir=run_dir,
            run_id="sweep",
            latency_budget_ms=args.p99_budget_ms,
        )
    else:
        opts = SweepOptions(
            server=server,
            variants=tuple(plan.variants),
            concurrency=tuple(levels),
            search="brute",  # the table shows every variant at every level (its time budget plans them all)
            batch_sizes=batch_sizes,
            # the planner (gpu_check_plan.plan_sweep) times sequential levels of fitted windows, max 4 windows each: the
            # design that reads those settings (the rounds default ignored them, and now refuses them: design_flags)
            design="sequential",
            results_dir=run_dir,
            run_id="sweep",
            measure=MeasureSettings(
                measurement_interval_ms=plan.interval_ms,
                max_trials=4,
                unstable_retries=0,
                stability_pct=args.stability_pct or DEFAULT_STABILITY_PCT,
            ),
            latency_budget_ms=args.p99_budget_ms,
        )

    def on_alarm(*_: Any) -> None:
        _say("time budget reached: interrupting the sweep (measurements so far are kept)")
        raise KeyboardInterrupt

    with open(run_dir / "sweep.log", "w") as log_file:

        def on_event(e: dict[str, Any]) -> None:
            if e.get("event") == "level_done":
                lv = e["level"]
                line = f"{e['variant']} c={lv.concurrency} b={lv.batch_size}: " + (
                    f"{lv.throughput_infer_per_s:.0f} infer/s, p99 {lv.latency_p99_ms:.2f} ms" if lv.ok else f"error: {lv.error}"
                )
            elif e.get("event") == "variant_failed":
                line = f"{e['variant']} failed: {e['error']}"
            else:
                return
            log_file.write(line + "\n")
            log_file.flush()
            _say(f"  {line}")

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            run, _ = run_sweep(opts, on_event)
        except KeyboardInterrupt:
            return 130
        except ToolkitError as e:
            log_file.write(f"error ({e.stage}): {e}\n")
            print(f"gpu_check: the sweep failed: {e}", file=sys.stderr)
            return 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    # a variant the time budget cut (skipped: said in the table and the notes) is no failure; one that failed is
    return 1 if any(v.status == "failed" for v in run.variants) else 0


def summary_text(
    run: Any, budget_ms: float, env: dict[str, Any], notes: Iterable[str], failed_checks: Sequence[str], elapsed_s: float
) -> str:
    """The printed summary: a header (GPU, versions, settings), the compact table, notes."""
    head = [
        f"GPU check: {env.get('cuda_device') or ', '.join(env.get('gpus', [])) or 'no GPU'}"
        + (" -- CPU DRY RUN, not GPU results" if env.get("kind") == "cpu" else ""),
        f"torch {env.get('torch')} (CUDA {env.get('torch_cuda')}), onnxruntime {env.get('onnxruntime')}, python {env.get('python')}; "
        f"server: {run.environment.get('server', {}).get('runtime', '?')} {run.environment.get('server', {}).get('version') or ''}".rstrip(),
        _design_words(run) + f"; p99 budget {budget_ms:g} ms; total time {elapsed_s:.0f} s",
        "GPU% srv: server metrics (nv_gpu_utilization); GPU% nvml: local NVML sampling; GPU MiB: peak nv_gpu_memory_used_bytes",
        "",
    ]
    tail = [f"check failed (not swept): {n}" for n in failed_checks] + [f"note: {n}" for n in notes]
    return "\n".join(head) + compact_table(run, budget_ms) + ("\n" + "\n".join(tail) if tail else "")


def _plan_words(plan: SweepPlan, args: argparse.Namespace, levels: int, sweep_budget: float) -> str:
    """The line that says what the sweep will measure, in the words of its design."""
    if args.design == "rounds":
        return (
            f"sweep: {len(plan.variants)} variants x {levels} levels x batch {args.batch_sizes}, loaded together and "
            f"measured in interleaved rounds for the {sweep_budget:.0f} s left, the in-process baseline included"
        )
    return (
        f"sweep plan: {len(plan.variants)} variants x {levels} levels, {plan.interval_ms} ms windows, "
        f"~{plan.estimate_s:.0f} s of {sweep_budget:.0f} s left"
        + (f"; not swept (time): {len(plan.dropped)} variants" if plan.dropped else "")
    )


def _design_words(run: Any) -> str:
    """How the sweep measured: the rounds design's rounds and window, or the sequential windows."""
    s = run.settings
    if s.get("design") == "rounds":
        from perf.records.rounds import RoundRules

        window = s.get("round_window_ms") or RoundRules().window_ms
        rounds = max((lv.trial + 1 for v in run.variants for lv in v.levels), default=0)
        return f"interleaved rounds: {rounds} round{'s' if rounds != 1 else ''} of {window} ms windows (n: rounds a level has)"
    return (
        f"windows {s.get('measurement_interval_ms')} ms, stability {s.get('stability_pct')} %, "
        f"max {s.get('max_trials')} windows per level"
    )


def _maybe_report(sweep_dir: Path, budget_ms: float, deadline: float) -> None:
    """report.md and plots when matplotlib is there and time is left (perf.report.write needs it)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        _say("report.md skipped: matplotlib is not installed here (the table above and results.json hold the numbers)")
        return
    if time.time() > deadline - 5:
        _say("report.md skipped: no time left in the budget (triton-perf report RUN_DIR writes it later)")
        return
    try:
        from perf.report.write import write_report

        _say(f"report: {write_report(sweep_dir, budget_ms)}")
    except Exception as e:  # noqa: BLE001 - the table is the result; the report is extra
        _say(f"report.md not written: {type(e).__name__}: {e}")


def _size_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def table(args: argparse.Namespace) -> int:
    from perf.records import results as perf_results

    run_dir = Path(args.run_dir)
    if not (run_dir / "results.json").is_file() and (run_dir / "sweep" / "results.json").is_file():
        run_dir = run_dir / "sweep"
    print(compact_table(perf_results.load(run_dir), args.p99_budget_ms))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="gpu_check.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="build -> check -> sweep -> table within a time budget")
    if os.environ.get("GPU_CHECK_SCRIPT"):  # scripts/gpu_check.sh: its usage errors name the script typed
        r.prog = os.environ["GPU_CHECK_SCRIPT"]
    r.add_argument("--models", default="mlp,cnn")
    r.add_argument("--formats", default="torchscript,onnx", help="trt is added when tensorrt is importable")
    r.add_argument("--no-trt", action="store_true", help="do not add trt even when tensorrt is importable")
    r.add_argument("--precisions", default="fp32,fp16")
    r.add_argument("--counts", default="1,2,4")
    r.add_argument("--batching", default="off,500", help="dynamic batching: off and/or max_queue_delay_us values")
    r.add_argument("--max-batch-size", type=int, default=64)
    r.add_argument("--concurrency", default=",".join(map(str, DEFAULT_CONCURRENCY)))
    r.add_argument(
        "--batch-sizes",
        default="1",
        help="client batch sizes (perf_analyzer -b); a GPU is only loaded at a batch of 8 or more (default 1)",
    )
    r.add_argument(
        "--design",
        choices=["sequential", "rounds"],
        default="sequential",
        help="sequential: each variant's levels one after another in fitted windows (the planned default); rounds: the "
        "variants loaded together and measured in interleaved, shuffled rounds within the sweep's share of the budget, "
        "with the in-process baseline (triton-perf sweep's default design)",
    )
    r.add_argument("--kind", choices=["gpu", "cpu"], default="gpu", help="cpu: a dry run of the pipeline on a host without a GPU")
    r.add_argument("--runtime", choices=["bundled", "container", "local"], default="bundled")
    r.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S, help="whole run, from --started-at (s)")
    r.add_argument("--started-at", type=float, default=None, help="epoch seconds the run started (the shell's install counts)")
    r.add_argument("--p99-budget-ms", type=float, default=DEFAULT_P99_BUDGET_MS)
    r.add_argument("--interval-ms", type=int, default=None, help="fixed perf_analyzer window (default: fitted to the budget)")
    r.add_argument("--stability-pct", type=float, default=None, help="sequential design: perf_analyzer's -s (default 20)")
    r.add_argument("--sweep-all", action="store_true", help="sweep every checked variant even past the time budget")
    r.add_argument(
        "--colocate-s",
        type=float,
        default=DEFAULT_COLOCATE_S,
        help="seconds of the budget kept for co-locating two models on the GPU (0: skip)",
    )
    r.add_argument("--results-dir", default=str(ROOT / "results"))
    t = sub.add_parser("table", help="print the compact table of a sweep run folder")
    t.add_argument("run_dir")
    t.add_argument("--p99-budget-ms", type=float, default=None)
    s = sub.add_parser("slim-wheel", help="copy a wheel without some files, LZMA-compressed")
    s.add_argument("wheel", type=Path)
    s.add_argument("--out-dir", type=Path, required=True)
    s.add_argument("--drop", action="append", default=[], help="shell pattern of member names to leave out (repeat)")
    s.add_argument("--build-tag", default=None)
    s.add_argument("--deflate", action="store_true", help="keep deflate compression (e.g. for pip's own wheel)")
    a, rest = p.parse_known_args(argv)
    if rest:  # said by the subcommand's parser: its usage line (named for the script typed, GPU_CHECK_SCRIPT)
        {"run": r, "table": t, "slim-wheel": s}.get(a.cmd, p).error(f"unrecognized arguments: {' '.join(rest)}")
    if a.cmd == "run":
        unread = [flag for field, flag in SEQUENTIAL_ONLY.items() if getattr(a, field) not in (None, False)]
        if a.design == "rounds" and unread:
            r.error(
                f"{', '.join(unread)} {'is' if len(unread) == 1 else 'are'} read by --design sequential only: a rounds "
                "sweep measures each visit in 3 windows of its own and keeps every planned variant within its time budget; "
                "leave them out, or use --design sequential"
            )
        return run(a)
    if a.cmd == "table":
        return table(a)
    out = slim_wheel(a.wheel, a.out_dir, a.drop, a.build_tag, lzma=not a.deflate)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
