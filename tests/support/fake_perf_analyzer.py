"""A stand-in for perf_analyzer, for outputs the real one cannot be made to print on demand.

perf_analyzer 2.51 exits 99 when a request fails in the ordinary modes, but runs that print
request errors and still exit 0 are seen in the field (issue 12, kind 2), and a run whose
windows complete no inference prints 0 infer/s. :func:`write_fake` writes an executable
that answers ``--version`` like perf_analyzer, prints a recorded console output, writes a
one-row CSV (``-f``) with the given throughput and exits with the given status.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

_SCRIPT = """#!{python}
import sys
args = sys.argv[1:]
if "--version" in args:
    print("perf_analyzer 2.51.0")
    sys.exit(0)
csv = args[args.index("-f") + 1]
load = "Request Rate" if "--request-rate-range" in args else "Concurrency"
with open(csv, "w") as f:
    f.write(load + ",Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,"
            "Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency,"
            "Avg latency\\n")
    f.write("1,{throughput},2,700,100,10,300,50,1,1000,2000,3000,4000,1500\\n")
sys.stdout.write(open({output!r}).read())
sys.exit({exit_code})
"""


def write_fake(folder: Path, output: Path, throughput: float, exit_code: int = 0) -> Path:
    """An executable ``perf_analyzer`` in ``folder`` that prints ``output`` (a recorded console
    output), writes a CSV with ``throughput`` infer/s and exits with ``exit_code``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "perf_analyzer"
    path.write_text(_SCRIPT.format(python=sys.executable, output=str(output), throughput=throughput, exit_code=exit_code))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path
