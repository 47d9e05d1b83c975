"""What ``clients check`` says and keeps when it is interrupted (Ctrl-C) part-way.

A Ctrl-C used to end the check with minutes of silence (the server's stop) and a bare
"aborted", dropping the variants already checked (trial 17, T17-16). Now the check says at
once what it is doing to stop, and hands the rows it has to the command, which prints them,
names the variants not checked, and exits 130 (:data:`core.cli.EXIT_INTERRUPTED`), as an
interrupted sweep does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.console import interrupted_words, stop_name
from core.wording import of


class CheckInterrupted(KeyboardInterrupt):
    """A check stopped by Ctrl-C, with what it had checked: still a ``KeyboardInterrupt`` to any
    caller that does not look for it.

    Args:
        results: The :class:`clients.check.CheckResult` rows of the variants checked whole.
        not_checked: The names of the variants not checked (the one interrupted included), in order.
    """

    def __init__(self, results: Sequence[Any], not_checked: Sequence[str]):
        super().__init__("interrupted")
        self.results = list(results)
        self.not_checked = list(not_checked)


def interrupted(results: Sequence[Any], variants: Sequence[Any]) -> CheckInterrupted:
    """The :class:`CheckInterrupted` of a check of ``variants`` (with ``.name``) that has ``results``."""
    done = {r.variant for r in results}
    return CheckInterrupted(results, [v.name for v in variants if v.name not in done])


def stopping_line(name: str, how: str) -> str:
    """The line said the moment Ctrl-C arrives, before anything slow: ``"stopping (Ctrl-C): mlp_x
    left unfinished; stopping tritonserver, which unloads it (up to 35 s)"``; ``how`` is the
    slow part."""
    return f"stopping ({stop_name()}): {name} left unfinished; {how}"


def done_line(name: str, results: Sequence[Any]) -> str:
    """The progress line of a variant checked whole: ``"mlp_x: checked: passed over http, grpc"``."""
    failed = [r.protocol for r in results if not r.passed]
    passed = [r.protocol for r in results if r.passed]
    parts = ([f"passed over {', '.join(passed)}"] if passed else []) + ([f"FAILED over {', '.join(failed)}"] if failed else [])
    return f"{name}: checked: {'; '.join(parts) or 'nothing to check'}"


def interrupted_text(stop: CheckInterrupted) -> str:
    """The closing line of an interrupted check: how many variants were checked (the table above
    shows them), which were not, and how to check those."""
    checked = len(dict.fromkeys(r.variant for r in stop.results))
    total = checked + len(stop.not_checked)
    line = f"{interrupted_words()}: {of(checked, total, 'variant')} checked" + (" (the table above)" if checked else "")
    if stop.not_checked:
        line += (
            f"; not checked: {', '.join(stop.not_checked)}; to check them, run the same command with "
            f"--variants {','.join(stop.not_checked)}"
        )
    return line
