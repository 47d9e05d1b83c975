"""A stand-in for tritonserver whose python-backend "stub" outlives it, for tests of what a stop
or a killed launcher leaves running (no real Triton started).

The real case (core/processes.py): a ``triton_python_backend_stub`` whose server died while the
stub waited for it deadlocks in its own exit, sleeps for ever and ignores SIGINT and SIGTERM.
:func:`write_fake_tritonserver` writes an executable that starts such a child (in its own
process group, as tritonserver's stubs are), writes the child's pid to a file, answers the few
HTTP requests :class:`clients.server.TritonServer` makes at start (ready, statistics,
repository index: nothing loaded) on ``--http-port``, and exits on SIGINT leaving the child as
it is.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

_SCRIPT = """#!{python}
import http.server, json, os, signal, subprocess, sys

port = int(next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--http-port=")))
stub = subprocess.Popen([sys.executable, "-c", {stub!r}])
with open({pid_file!r}, "w") as f:
    f.write(str(stub.pid))

ANSWERS = {{"/v2/health/ready": "", "/v2/health/live": "", "/v2/models/stats": '{{"model_stats": []}}',
           "/v2/repository/index": "[]"}}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = ANSWERS.get(self.path.split("?")[0])
        data = (body or "").encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer

    def log_message(self, *args):
        pass


def on_sigint(signum, frame):
    print("SIGINT received: exiting, the stub left running", flush=True)
    os._exit(0)


signal.signal(signal.SIGINT, on_sigint)
print("fake tritonserver on port", port, "stub pid", stub.pid, flush=True)
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""

#: The stub: deaf to SIGINT and SIGTERM, never looking at its parent.
_STUB = (
    "import signal, time\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "while True:\n"
    "    time.sleep(1)\n"
)


def write_fake_tritonserver(path: Path, pid_file: Path) -> Path:
    """Write the executable at ``path`` (its stub's pid goes to ``pid_file``); returns ``path``."""
    path.write_text(_SCRIPT.format(python=sys.executable, stub=_STUB, pid_file=str(pid_file)))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path
