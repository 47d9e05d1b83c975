"""Export + verification time per format and model, as a table and as JSON.

Usage::

    .venv/bin/python benchmarks/bench_export.py                      # all built-ins, CPU formats, fp32
    .venv/bin/python benchmarks/bench_export.py --models cnn,encoder --formats torchscript,onnx,trt \
        --precisions fp32,fp16 --max-batch-size 16 --out results/bench_export_gpu.json

Every (model, precision) is a fresh ``builders build`` (``force``) in a temporary folder;
the numbers are the ones its manifest records: ``export_s`` (wall time of the successful
export strategy, s) and ``verify_s`` (running the artifact and eager PyTorch at every
verification point and comparing, s). TensorRT rows are skipped with the reason where
this machine cannot build plans. Timings are measurements of this machine at this moment,
not asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="tiny,mlp,cnn,encoder", help="comma-separated built-in models")
    p.add_argument("--formats", default="torchscript,onnx,trt", help="comma-separated formats")
    p.add_argument("--precisions", default="fp32", help="comma-separated precisions")
    p.add_argument("--max-batch-size", type=int, default=8, help="largest verified batch (default 8)")
    p.add_argument("--out", type=Path, default=Path("results/bench_export.json"), help="JSON output file")
    args = p.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from builders.serving.tensorrt_env import missing_requirements
    from core.cli import print_table
    from core.errors import ToolkitError

    console = Console()
    formats = tuple(args.formats.split(","))
    trt_missing = missing_requirements() if "trt" in formats else []
    rows: list[dict] = []
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(args.max_batch_size,))
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            for precision in args.precisions.split(","):
                fmts = tuple(f for f in formats if f != "trt" or not trt_missing)
                opts = BuildOptions(
                    model,
                    formats=fmts,
                    precisions=(precision,),
                    grid=grid,
                    force=True,
                    repository=Path(tmp) / "repo",
                    build_dir=Path(tmp) / "builds",
                )
                t0 = time.perf_counter()
                try:
                    with console.status(f"{model} {precision}: building {', '.join(fmts)}") as status:
                        result = build(opts, lambda msg, model=model: status.update(f"{model}: {msg}"))
                except ToolkitError as e:
                    rows.append({"model": model, "precision": precision, "error": str(e).splitlines()[0]})
                    continue
                total = time.perf_counter() - t0
                for e in result.manifest["exports"]:
                    errs = e.get("errors", {})
                    rows.append(
                        {
                            "model": model,
                            "format": e["format"],
                            "precision": e["precision"],
                            "strategy": e["strategy"],
                            "export_s": e["export_s"],
                            "verify_s": e["verify_s"],
                            "size_bytes": e["size_bytes"],
                            "max_abs_err": max((o["max_abs_err"] for o in errs.values()), default=0.0),
                            "max_rel_err": max((o["max_rel_err"] for o in errs.values()), default=0.0),
                            "verification_points": len(e["verification"]),
                            "build_total_s": round(total, 3),
                        }
                    )
                if trt_missing:
                    rows.append(
                        {"model": model, "format": "trt", "precision": precision, "skipped": "needs " + " and ".join(trt_missing)}
                    )

    table = Table(title=f"export + verification, max batch {args.max_batch_size} ({platform.node()})")
    for col in ("model", "format", "precision", "strategy", "export s", "verify s", "size MB", "max abs err", "max rel err"):
        table.add_column(col, justify="right" if col.endswith(("s", "MB", "err")) else "left")
    for r in rows:
        if "export_s" in r:
            table.add_row(
                r["model"],
                r["format"],
                r["precision"],
                r["strategy"],
                f"{r['export_s']:.2f}",
                f"{r['verify_s']:.2f}",
                f"{r['size_bytes'] / 1e6:.2f}",
                f"{r['max_abs_err']:.2e}",
                f"{r['max_rel_err']:.2e}",
            )
        elif "error" in r:
            table.add_row(r["model"], "-", r["precision"], "failed", "-", "-", "-", "-", "-")
    print_table(table, console)
    for r in rows:
        if "error" in r:
            console.print(f"{r['model']} {r['precision']} failed: {r['error']}", markup=False)
    if trt_missing:
        console.print("trt skipped: needs " + " and ".join(trt_missing))
    from builders.repository.manifest import library_versions

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "machine": {"node": platform.node(), "processor": platform.processor(), "python": platform.python_version()},
                "versions": library_versions(),
                "max_batch_size": args.max_batch_size,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    console.print(f"wrote {args.out}", markup=False)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
