"""A fixed string-hash seed for the ``builders`` command, so that an export of the same model is the
same file every time.

Python randomises ``hash()`` of strings per process unless ``PYTHONHASHSEED`` is set
(https://docs.python.org/3/using/cmdline.html#envvar-PYTHONHASHSEED), and both exporters let set
order leak into what they write: ``torch.jit.save`` pickles with or without memo entries it never
reads (the built-in mlp's ``model.pt`` flipped between two SHA-256s on successive
``builders build --force``, break-it F10), and the dynamo ``torch.onnx.export`` ordered a ``Loop``'s
carried values and numbered intermediate names differently (an ``EmbeddingBag`` model's
``model.onnx``: three SHA-256s in three builds, trial 23, T23-10). A re-export of the same weights
then looked like "another content" to every run that measured the earlier file, and its resume and
bundle were refused. With ``PYTHONHASHSEED=0`` both are byte-identical build after build (checked:
tests/builders/cli/test_hash_seed.py).

So :func:`with_fixed_hash_seed` runs the command again, once, in the same process (``os.execve``:
the same PID, terminal and pipes) with ``PYTHONHASHSEED=0`` when the variable is not set; a value the
user set (``random`` included) is kept. Randomised hashing defends a long-running service against
inputs crafted to collide; a build reads only its own model and flags. A Python caller of
:func:`builders.build.build` runs under its own interpreter's setting (README, "Reproducible
exports").
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence

log = logging.getLogger(__name__)

#: The environment variable and the value the command runs under.
HASH_SEED_VAR, HASH_SEED = "PYTHONHASHSEED", "0"


def with_fixed_hash_seed(
    environ: Mapping[str, str] = os.environ,
    argv: Sequence[str] | None = None,
    execve: Callable[[str, list[str], dict[str, str]], object] = os.execve,
) -> None:
    """Run this command again with ``PYTHONHASHSEED=0`` unless the variable is set (module
    docstring); returns only when it is set already, or when the new run cannot start (a warning says so: the command
    then runs as it is, its exports possibly not byte-stable).

    Args:
        environ: The environment [default: the process's].
        argv: The command line as the interpreter got it [default: :data:`sys.orig_argv`, which keeps
            ``-m MODULE`` and interpreter options].
        execve: The call that replaces the process [default: :func:`os.execve`].
    """
    if HASH_SEED_VAR in environ:
        return
    args = list(sys.orig_argv if argv is None else argv)
    try:
        execve(sys.executable, [sys.executable, *args[1:]], {**environ, HASH_SEED_VAR: HASH_SEED})
    except OSError as e:  # an interpreter that cannot start itself again: said, never a silent fallback
        log.warning(
            "could not run again with %s=%s (%s): this build's exports may differ in bytes from an earlier build of the "
            "same model; set %s=%s to make them the same",
            HASH_SEED_VAR,
            HASH_SEED,
            e,
            HASH_SEED_VAR,
            HASH_SEED,
        )
