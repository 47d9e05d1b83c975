"""The ``.pth`` file that lets the python-backend stub see the host's packages (``scripts/gpu_check.sh``).

The stub ignores PYTHONPATH: it adds the private environment's site-packages
(``TRITON_TOOLKIT_SITE_PACKAGES``) with ``site.addsitedir``, which reads this file. Its lines: first
one that puts that site-packages ahead of the system's (numpy<2 from the bundle; the stub's
interpreter has the system's folders on ``sys.path`` first), then the repository, the folder torch
is in, the host Python's package folders in its order, and last the base interpreter's folders
the environment sees through ``--system-site-packages``. The last matter where the host Python is
itself a virtual environment (``/opt/venv/bin/python``): pip, run in the private environment, sees
the BASE interpreter's packages as installed and does not install them from the bundle, so the
stub must see those folders too (seen in a CPU dry run over a venv host: pip found pydantic in the
base's folders, the stub did not: "No module named 'pydantic'").

Run with the host Python (the one with torch), standard library only::

    python scripts/gpu_check_pth.py ROOT SITE [BASE_SITE ...] > SITE/triton_toolkit_gpu_check.pth
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence


def pth_lines(root: str, site: str, torch_dir: str | None, host_paths: Iterable[str], base_sites: Iterable[str]) -> list[str]:
    """The ``.pth`` lines (module docstring).

    Args:
        root: The repository (builders/clients/perf import from it).
        site: The private environment's site-packages (never listed again below its first line).
        torch_dir: The folder torch is installed in (``None``: torch not importable).
        host_paths: The host Python's ``sys.path``: its ``site-packages``/``dist-packages`` folders are kept.
        base_sites: The base interpreter's package folders the environment sees.

    Returns:
        The lines, existing folders only, each once, in the order above.
    """
    first = f"import sys; sys.path.remove({site!r}) if {site!r} in sys.path else None; sys.path.insert(0, {site!r})"
    dirs = [root] + ([torch_dir] if torch_dir else [])
    dirs += [p for p in host_paths if p.endswith(("site-packages", "dist-packages"))]
    dirs += list(base_sites)
    own = os.path.abspath(site)
    kept = dict.fromkeys(os.path.abspath(d) for d in dirs if os.path.isdir(d) and os.path.abspath(d) != own)
    return [first, *kept]


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2:
        print(__doc__.rsplit("::", 1)[1].strip(), file=sys.stderr)
        return 2
    try:
        import torch

        torch_dir: str | None = os.path.dirname(os.path.dirname(torch.__file__))
    except ImportError:
        torch_dir = None
    print("\n".join(pth_lines(argv[0], argv[1], torch_dir, sys.path, argv[2:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
