"""Which toolkit wrote a run's words (issue 26, trial 17: re-reporting an old run printed the sweep's saved
verdicts — "not verified here", a tie set, "group 0" — word for word beside a ranking re-derived by today's rules).

A sweep saves some sentences as it runs (why a group was loaded, why its rounds ended, why a variant or a
level was cut, why a ladder stopped); they are its verdicts at that time, by the rules of the code that ran
it. Each session stamps ``environment["toolkit"]`` with :func:`code_id`, the digest of the toolkit's own
sources (``perf/`` and ``core/``: where the rules and their words live). A report prints those sentences as
its own only when every session of the run was run by today's code (:func:`written_by_today`); otherwise
they are the sweep's words, said apart and labelled with :func:`said_by` (the report's "Said by the sweep
when it ran"). A co-location run (``colocation.json``) stamps its sessions alike; its report prints its saved
sentences in place, each marked :data:`SAID_MARK` where they are not today's (:func:`as_said`).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypeAlias

    from perf.records.colocation import ColocationRecord
    from perf.records.results import RunResult

    #: A record whose sessions stamp their toolkit: a sweep's or a co-location run's.
    Run: TypeAlias = RunResult | ColocationRecord

#: ``RunResult.environment`` key: the :func:`code_id` of each session's toolkit, first session first
#: (a resumed session run by other code adds its own; a run saved before this was recorded has none).
TOOLKIT_KEY = "toolkit"
#: The toolkit's folders whose sources decide the words a sweep saves.
SOURCES = ("perf", "core")


@functools.cache
def code_id() -> str:
    """``"sha256:"`` and the first 16 hex digits of the digest of every ``.py`` file under :data:`SOURCES`
    (their paths and contents, in path order): the same for the same code, different after any change."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for folder in SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"sha256:{h.hexdigest()[:16]}"


def stamp(run: Run) -> None:
    """Record that today's code runs a session of ``run`` (:data:`TOOLKIT_KEY`; once per distinct code)."""
    ids = [str(i) for i in (run.environment.get(TOOLKIT_KEY) or [])]  # type: ignore[attr-defined]
    if code_id() not in ids:
        ids.append(code_id())
    run.environment[TOOLKIT_KEY] = ids  # type: ignore[literal-required]


def toolkits(run: Run) -> list[str]:
    """The :func:`code_id` of every session's toolkit recorded in ``run`` (empty: saved before they were)."""
    return [str(i) for i in (run.environment.get(TOOLKIT_KEY) or [])]  # type: ignore[attr-defined]


def written_by_today(run: Run) -> bool:
    """Every session of ``run`` was run by this very code, so the words it saved are today's."""
    ids = toolkits(run)
    return bool(ids) and all(i == code_id() for i in ids)


def said_by(run: Run, who: str = "the sweep") -> str:
    """``"said by the sweep when it ran (toolkit sha256:..., started 2026-12-03T21:18:48+0000)"``: the
    label of the words a run saved, with the toolkit that said them ("not recorded" for a run saved before
    it was) and when; ``who``: the command that ran it (``"colocate"``)."""
    ids = toolkits(run)
    which = ", ".join(ids) if ids else "not recorded"
    return f"said by {who} when it ran (toolkit {which}, started {run.created}; today's is {code_id()})"


#: What a saved sentence printed in place is marked with where today's code did not write it (:func:`as_said`).
SAID_MARK = "(said when it ran)"


def as_said(run: Run, text: str) -> str:
    """``text``, a sentence ``run`` saved as it ran (a co-location run's decisions, pick reason, cuts...), as a
    report prints it in place: as saved where every session was run by today's code (:func:`written_by_today`),
    else marked :data:`SAID_MARK`, so that it is never read as today's verdict beside numbers re-derived by today's
    rules (re-check 19, NEW-1: "1× the budget" saved beside today's "1.5× the budget" of the same level)."""
    if not text or written_by_today(run):
        return text
    return f"{text.rstrip().removesuffix('.')} {SAID_MARK}"
