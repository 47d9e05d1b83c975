"""Hand-made python-backend models for tests that need a server-side behaviour no export has:

- :func:`write_python_model`: a model folder (FP32 ``x`` -> ``y``, max_batch_size 8, KIND_CPU
  instances, one unless told, no dynamic batching) with the given ``model.py`` source;
- :data:`SERIAL_MODEL`: a ``model.py`` whose ``execute`` sleeps ``%(sleep_ms)s`` ms per call and
  echoes ``x``: one instance serves one request at a time, so its throughput is capped at
  ``1000 / sleep_ms`` infer/s whatever the concurrency (saturated from concurrency 1 or 2, on
  any host with a free core for the server), ``N`` instances at ``N * 1000 / sleep_ms``: a bound
  no host can beat, and which needs almost no CPU to reach (tests of verdicts that must not
  depend on the host's speed or load);
- :data:`EASY_RATE_PER_S`: a request rate any python-backend model of the tests (the tiny build's
  variants too) serves with one instance, on a busy host as well;
- :func:`write_measured_models`: python-backend configs of the same shape with a ``model.bin`` artifact and no
  ``model.py``, never served: the repository a hand-made sweep record names (its artifacts' stamps);
- :data:`ONE_SAMPLE_SERIAL_MODEL`: a ``model.py`` that holds each execute ``%(sleep_ms)s`` ms too, but
  serves requests of one sample one at a time across all its instances (a lock file beside the model),
  while requests of several samples run in parallel on every instance: with N instances its throughput
  at client batch size 1 is capped at ``1000 / sleep_ms`` infer/s from concurrency 1 or 2, and at batch
  size B rises with concurrency up to N (``B * N * 1000 / sleep_ms``). Two client workloads with
  different caps, for the search's per-workload ladders.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

#: Requests/s (of batch 1 or 2) that one instance of the tiny build's python-served variants keeps up with on
#: any host the tests run on: on a 2-core host at a load average of 8 (the tests at nice 19) tiny_onnx served
#: 64-320 infer/s at concurrency 1, so 100/s (and 50/s of batch 2) was not achieved there; 20/s leaves 3x.
EASY_RATE_PER_S = 20

#: The lines a hand-made ``model.py`` starts with: the toolkit's site-packages (numpy for ``as_numpy()``), which the
#: launcher passes in ``TRITON_TOOLKIT_SITE_PACKAGES``, added before any other import, as the toolkit's own python
#: models do (builders/templates/triton_python_model.py); ``os`` is imported.
SITE_PACKAGES = """import os, site
for p in os.environ.get("TRITON_TOOLKIT_SITE_PACKAGES", "").split(os.pathsep):
    if p:
        site.addsitedir(p)
"""

#: ``model.py`` of a python-backend model that holds each execute ``%(sleep_ms)s`` milliseconds.
SERIAL_MODEL = (
    SITE_PACKAGES
    + """import time
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        time.sleep(%(sleep_ms)s / 1000.0)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("y", pb_utils.get_input_tensor_by_name(r, "x").as_numpy())])
                for r in requests]
"""
)


#: ``model.py`` of a python-backend model whose one-sample requests take turns (module docstring).
ONE_SAMPLE_SERIAL_MODEL = (
    SITE_PACKAGES
    + """import fcntl, time
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.lock = os.path.join(args["model_repository"], "one_sample.lock")

    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "x").as_numpy()
            if x.shape[0] == 1:  # one sample: one at a time across every instance
                with open(self.lock, "w") as f:
                    fcntl.flock(f, fcntl.LOCK_EX)
                    time.sleep(%(sleep_ms)s / 1000.0)
            else:
                time.sleep(%(sleep_ms)s / 1000.0)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("y", x)]))
        return out
"""
)


def write_python_model(repo: Path, name: str, source: str, input_dims: str = "[ 4 ]", instances: int = 1) -> Path:
    """A hand-made python-backend model ``name`` in ``repo``: FP32 ``x`` -> ``y``, max_batch_size 8,
    ``instances`` KIND_CPU instances."""
    folder = repo / name
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(
        f'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\n'
        f'input [ {{ name: "x" data_type: TYPE_FP32 dims: {input_dims} }} ]\n'
        f'output [ {{ name: "y" data_type: TYPE_FP32 dims: {input_dims} }} ]\n'
        f"instance_group [ {{ kind: KIND_CPU count: {instances} }} ]\n"
    )
    (folder / "1" / "model.py").write_text(source)
    return folder


def write_measured_models(repo: Path, names: Iterable[str]) -> Path:
    """A python-backend config for each of ``names`` in ``repo`` (FP32 ``x`` -> ``y`` of dims ``[ 4 ]``, max_batch_size
    8) with ``1/model.bin`` as its artifact and no ``model.py``: what a hand-made sweep record's variants were measured
    from, never served. Returns ``repo``."""
    for n in names:
        (repo / n / "1").mkdir(parents=True)
        (repo / n / "config.pbtxt").write_text(
            f'name: "{n}"\nbackend: "python"\nmax_batch_size: 8\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
        (repo / n / "1" / "model.bin").write_bytes(b"weights measured")
    return repo
