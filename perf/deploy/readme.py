"""The README.md of a deployment bundle (:mod:`perf.deploy.bundle`): which variant and why, its
chosen level, what was measured and what differs in the bundle, what the manifests ask
for and why, and the commands that deploy and verify it (docs/KUBERNETES.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.wording import sentence
from perf.deploy import k8s
from perf.deploy.choose import ALLOW_REFUSED_FLAGS, LEVEL_WORDS
from perf.deploy.input_sizes import input_sizes_lines
from perf.deploy.pick_state import ALLOW_CUT, RECOMMENDATION_WHY
from perf.markdown import mark_legend
from perf.records.results import RunResult

BUNDLE_REPOSITORY = "model_repository"
MANIFEST_DIR = "kubernetes"
STORAGE_FILE = "storage.yaml"
SERVER_FILE = "triton.yaml"


def _measured_on(run: RunResult) -> str:
    """``"host h, bundled tritonserver 2.51.0, no GPU"`` from the run's environment."""
    env = run.environment
    server = env.get("server") or {}
    gpus = [g.get("name") or "GPU" for g in env.get("gpus") or []]
    return (
        f"host {env.get('host') or 'unknown'}, {server.get('runtime') or 'unknown'} tritonserver "
        f"{server.get('version') or '(version not recorded)'}, " + (", ".join(gpus) if gpus else "no GPU")
    )


def files_lines(check: Any) -> list[str]:
    """The README's line on the model files (a :class:`perf.records.measured_files.FilesCheck`)."""
    if check is None:
        return []
    text = sentence(check.text(), capital=True)
    if check.verdict == "changed":
        text = (
            f"**Model files not measured** (exported with `--allow-changed-model`): {text} The run's numbers are "
            "not this bundle's: measure it (below) before relying on them."
        )
    return [text, ""]


def first_lines(chosen: Any) -> list[str]:
    """What a reader must know before the rest, said first (a :class:`perf.deploy.choose.Chosen`):
    that the run was measured with a flag this version refuses (its numbers may be mislabelled), that it
    did not finish, and that its pick is of only some of its variants (the others cut for time before
    they were measured); ``[]`` for none."""
    lines = []
    if chosen.refused:  # every number below rests on it
        said = f"(exported with `{ALLOW_REFUSED_FLAGS}`): {sentence(chosen.refused)}"
        lines += ["", f"**Deployed from numbers that may be mislabelled** {said}"]
    if chosen.unfinished:
        lines += ["", f"**Not a finished run's pick**: {sentence(chosen.unfinished)}"]
    if chosen.unmeasured:  # a pick of some variants only: exported with --allow-cut when some were never measured
        asked = f" (exported with `{ALLOW_CUT}`)" if "not measured (cut for time)" in chosen.unmeasured else ""
        lines += ["", f"**{chosen.unmeasured}**{asked}"]
    return lines


def readme(bundle: Any, run: RunResult, repository: Path) -> list[str]:
    """The bundle's README.md (module docstring) of ``bundle``, a :class:`perf.deploy.bundle.Bundle`."""
    p, c = bundle.plan, bundle.chosen
    model_dir = f"{BUNDLE_REPOSITORY}/{c.variant}"
    repo_abs = (bundle.folder / BUNDLE_REPOSITORY).resolve()
    size = k8s.storage_request(p.storage_bytes)
    lines = [
        f"# Deployment bundle: `{c.variant}`",
        "",
        f"Written by `triton-perf export-deployment` from run `{run.run_id}` (repository `{repository}`).",
        *first_lines(c),
        "",
        "## Why this variant",
        "",
        f"{sentence(c.why, capital=True)} Its {LEVEL_WORDS}: {sentence(c.level.describe())}",
        f"Measured on {_measured_on(run)}; a cluster node differs, so measure it there too (below).",
    ]
    if sentence(c.why, capital=True).startswith(RECOMMENDATION_WHY):  # the run's pick as it stood: a resume may change it
        lines.append(
            f"This is the run's pick as it stood when the bundle was written: a later `--resume` of run `{run.run_id}` can "
            "change it, and the resume's end and the run's report.md then say this bundle is of an earlier pick."
        )
    if c.caveats:  # the list the command printed (perf.deploy.caveats.level_caveats), said the same here
        lines += ["", *[f"- **Note:** {sentence(caveat)}" for caveat in c.caveats]]
    why_end = len(lines)
    if bundle.serving_note:
        lines += ["", bundle.serving_note]
    lines += ["", "## What was measured and what the bundle runs", "", *files_lines(bundle.files_check), *bundle.differences]
    lines += bundle.release_check.lines() if bundle.release_check is not None else []
    # a dynamic dim: the config's -1 takes any size, the build verified a range (trial 26, T26-8)
    lines += input_sizes_lines((bundle.input_sizes,) if bundle.input_sizes else ())
    lines += [
        "",
        "## What is here",
        "",
        "| path | what |",
        "|---|---|",
        f"| `{model_dir}/` | the model folder, named as the model (`config.pbtxt`, version folder) |",
        f"| `{MANIFEST_DIR}/{STORAGE_FILE}` | PersistentVolumeClaim `{p.claim}` ({size}; the repository is "
        f"{p.storage_bytes:,} bytes) and the loader Pod `{p.loader}` that fills it |",
        f"| `{MANIFEST_DIR}/{SERVER_FILE}` | Deployment and Service `{p.name}`: `{p.image}`, "
        f"`{' '.join(k8s.server_args())}`, probes on `{k8s.READY_PATH}` and `{k8s.LIVE_PATH}`, metrics port "
        "annotated for Prometheus |",
        "",
        "## Resources (from the variant's instance_group)",
        "",
        *[f"- {w}" for w in p.resources.why],
        "",
        "## Deploy",
        "",
        "In this folder:",
        "",
        "```bash",
        f"kubectl apply -f {MANIFEST_DIR}/{STORAGE_FILE}",
        f"kubectl wait --for=condition=Ready pod/{p.loader} --timeout=15m",
        f"kubectl cp {model_dir} {p.loader}:{k8s.MODELS_PATH}/{c.variant}",
        f"kubectl delete pod {p.loader}",
        f"kubectl apply -f {MANIFEST_DIR}/{SERVER_FILE}",
        f"kubectl rollout status deployment/{p.name} --timeout=15m",
        "```",
        "",
        "Then, from the toolkit's folder, check and measure it where it runs:",
        "",
        "```bash",
        f"kubectl port-forward service/{p.name} 8000:8000 8001:8001 8002:8002 &",
        "curl -fsS localhost:8000/v2/health/ready && echo ready",
        f".venv/bin/clients check --runtime remote --url localhost:8000 --no-deploy --repository {repo_abs} --variant {c.variant}",
        f"perf/run_sweep.sh --runtime remote --url localhost:8000 --no-deploy --repository {repo_abs} --variants {c.variant}",
        "```",
        "",
        "The server runs with `--model-control-mode=none`: it loads the repository once at start and refuses "
        "load/unload requests, so these commands use the loaded model as it is (`--no-deploy`): both read back "
        "the config the server runs and refuse it, naming the fields, when it differs from the bundle's (instance "
        "groups, batching, backend, parameters with the thread counts); the check then compares its served outputs "
        "with the build's reference (while the build folder the bundle's `index.json` names is on this machine), "
        "and the sweep measures it on the cluster's node: compare its numbers and `server_cpu_cores` with the run's. "
        "See docs/KUBERNETES.md for the whole path.",
    ]
    legend = mark_legend("\n".join(lines))  # every mark the README uses, defined where the Why ends
    return lines[:why_end] + (["", *legend] if legend else []) + lines[why_end:]
