"""The report's "Servers" section: which server measured each variant, what each server said
about itself (``RunResult.servers``, :mod:`perf.sweep.servers`), and the warnings a reader needs
before comparing variants measured on different servers."""

from __future__ import annotations

from datetime import datetime

from core.console import interrupted_words
from core.wording import agree, count, some_of
from perf.markdown import table
from perf.records.coldstart import ColdStart
from perf.records.measured_files import resume_refused
from perf.records.provenance import written_by_today
from perf.records.results import RunResult
from perf.records.servers import MeasuringServer


def _gib(n: float | None) -> str:
    return "-" if n is None else f"{n / 2**30:.1f} GiB"


def session_words(run: RunResult, n: int | None) -> str | None:
    """Which session of a run with several a record is from (``RunResult.sessions``):
    ``"session 1, interrupted"``, ``"session 2, resumed"``; ``None`` in a run of one session, or
    for a record that does not say."""
    if len(run.sessions) < 2 or n is None or not 1 <= n <= len(run.sessions):
        return None
    ended, by = run.sessions[n - 1].ended, run.sessions[n - 1].stopped_by
    words = [f"session {n}", *(["resumed"] if n > 1 else [])]
    if ended == "interrupted":
        words.append(interrupted_words(by) if by else "interrupted")
    elif ended is None and n < len(run.sessions):
        words.append("did not finish")
    return ", ".join(words)


def session_of(run: RunResult, started: str) -> int | None:
    """The session (1 first) of a record that started at ``started`` (ISO time): the last session
    started by then; ``None`` for a run that recorded no sessions or a time it cannot read."""
    try:
        when = datetime.fromisoformat(started)
        starts = [datetime.fromisoformat(x.started) for x in run.sessions]
    except ValueError:
        return None
    return max((i + 1 for i, t in enumerate(starts) if t <= when), default=None)


def group_end_words(run: RunResult, group: int) -> str | None:
    """How a rounds group that recorded no end ended: its session was interrupted (Ctrl-C, SIGTERM) or did
    not finish, with what it had measured and where the run went on (trial 9: an interrupted
    group's line said nothing of how it ended); ``None`` when its session is the one still running
    or nothing says."""
    rr = run.rounds
    rounds = [r for r in rr.rounds if r.group == group and r.order] if rr is not None else []
    n = session_of(run, rounds[0].started) if rounds else None
    if n is None:
        return None
    session, later = run.sessions[n - 1], n < len(run.sessions)
    ended = session.ended
    if ended == "finished" or (ended is None and not later):
        return None
    visits = sum(len(r.order) for r in rounds)
    how = "stopped (its session did not finish)"
    if ended == "interrupted":  # what stopped it, as its console said (break-it F4: a SIGTERM was called Ctrl-C)
        how = interrupted_words(session.stopped_by) if session.stopped_by else "interrupted"
    return (
        f"{how} after {count(visits, 'visit')} in {count(len(rounds), 'round')}"
        + ("; the last one cut short" if rounds[-1].wall_s is None else "")
        + (f"; the run went on in session {n + 1} (`--resume`)" if later else f"; {_continues(run)}")
    )


def _continues(run: RunResult) -> str:
    """What continues an unfinished run: its ``--resume``, unless a rebuild replaced files it measured, which refuses
    one (break-it F18: "`--resume` continues it" under the report's note that the resume is refused)."""
    if resume_refused(run):
        return "a --resume of it is refused (a rebuild replaced files it measured: the note at the top)"
    return "`--resume` continues it"


def replaced_line(run: RunResult, old: ColdStart, new: ColdStart) -> str:
    """What ``triton-perf coldstart --into --replace`` says for each record it replaced in ``run`` (trial 8
    F13: the sweep's own cold start was replaced without a word): the variant, when the old record was
    measured, its first request and load against the new one's, and where the old one is kept."""
    return (
        f"replaced the cold start of {old.variant} ({_when(run, old)}; kept in results.json as its replaced_cold_starts): "
        f"first request {_first_ms(old)} -> {_first_ms(new)}, load {_load_s(old)} -> {_load_s(new)}"
    )


def held_line(run: RunResult, held: ColdStart) -> str:
    """What ``triton-perf coldstart --into`` says for a variant whose cold start ``run`` has, which it
    keeps and does not measure (trial 14, T14-8: it replaced them): when and what was measured, and the flag
    that measures it again."""
    return (
        f"kept the run's cold start of {held.variant} ({_when(run, held)}: first request {_first_ms(held)}, load "
        f"{_load_s(held)}); not measured again (--replace measures it again, keeping this one beside it)"
    )


def _when(run: RunResult, cs: ColdStart) -> str:
    n = cs.session
    if n is not None and 1 <= n <= len(run.sessions):
        return f"measured in session {n} of the run, started {run.sessions[n - 1].started[:19].replace('T', ' ')}"
    return "measured earlier"


def _first_ms(c: ColdStart) -> str:
    first = c.first_request
    return "not measured" if first is None or first.first_ms is None else f"{first.first_ms:.1f} ms"


def _load_s(c: ColdStart) -> str:
    return "not measured" if c.load_s is None else f"{c.load_s:.2f} s"


def sessions_sentence(run: RunResult) -> str:
    """The cold-start conclusion's words on a run of several sessions (which record a variant keeps)."""
    return (
        f"The run has {len(run.sessions)} sessions (the sweep, then each `--resume`): a variant's cold start is from the "
        "first session that measured it to the end (the table's session column); a variant loaded again in a later "
        "session keeps it, and one whose load an interruption cut short is measured again."
    )


def variants_by_server(run: RunResult) -> dict[str, tuple[list[str], list[str]]]:
    """Per server URL: the variants measured there (a level with numbers) and those that
    reached it but were not (refused, failed to load, cut before a level): the one place every
    line listing variants per server takes them from (trial 6: a variant refused by a server's
    tenant was listed as "measured" there). In a rounds sweep a level's server is its round's
    group's (:class:`perf.records.rounds.LoadGroup`), so a run of several sessions lists each
    server with what it measured (trial 9: the interrupted session's server, which measured 16
    visits of 4 variants, read "measured: -"); else it is the variant's last server."""
    rr = run.rounds
    groups = {g.index: g for g in rr.groups} if rr is not None else {}
    where = {r.index: groups[r.group].server for r in rr.rounds if r.group in groups} if rr is not None else {}
    out: dict[str, tuple[list[str], list[str]]] = {}
    for v in run.variants:
        measured = {where.get(lv.trial) or v.server for lv in v.levels if lv.ok}
        reached = {v.server, *measured, *(g.server for g in groups.values() if v.name in g.variants)}
        for url in sorted(u for u in reached if u):
            was, was_not = out.setdefault(url, ([], []))
            (was if url in measured else was_not).append(v.name)
    return out


def _names_or_dash(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) or "-"


def why_not_measured(run: RunResult, name: str, url: str) -> str:
    """Why variant ``name``, which reached server ``url``, has no level measured there, when its error does
    not say it (``""`` when it does, or nothing recorded tells): its group on that server measured no round,
    and how that group ended (trial 13, T13-8: a resumed session that loaded two variants whose rounds had
    ended was listed under "see the variant's error" beside variants without one)."""
    vr = run.variant(name)
    if vr is not None and vr.error and vr.status in ("failed", "skipped"):
        return ""
    rr = run.rounds
    groups = [g for g in rr.groups if g.server == url and name in g.variants] if rr is not None else []
    if rr is None or not groups or any(r.group == g.index for g in groups for r in rr.measured()):
        return ""
    ended = next((g.ended for g in groups if g.ended), None)
    if ended and not written_by_today(run):  # an older toolkit's words (issue 26): apart, in the report's own section
        return "its group measured no round (why: the sweep's words, said apart in report.md)"
    return f"its group measured no round: {ended}" if ended else "its group measured no round (its session was interrupted)"


def _not_measured(run: RunResult, names: list[str], url: str) -> str:
    """The not-measured cell: each name, with why where its error does not say it (:func:`why_not_measured`)."""
    said = [f"`{n}`" + (f" ({why})" if (why := why_not_measured(run, n, url)) else "") for n in names]
    return ", ".join(said) or "-"


def servers_section(run: RunResult) -> list[str]:
    """Markdown lines of the section; none for a run with one server the toolkit started
    (the environment lines already say which) or a run saved before servers were recorded."""
    servers = run.servers
    if not servers or (len(servers) == 1 and servers[0].runtime != "remote"):
        return []
    by_url = variants_by_server(run)
    rows = [
        [
            f"`{s.url}`" + (f" ({w})" if (w := session_words(run, s.session)) else ""),
            s.runtime,
            s.version or "-",
            s.host or "-",
            ", ".join(s.gpu_uuids) or "none reported",
            _gib(s.cpu_memory_total_bytes),
            s.deploy + (f" (`{s.remote_repository}`)" if s.remote_repository else ""),
            _names_or_dash(by_url.get(s.url, ([], []))[0]),
            _not_measured(run, by_url.get(s.url, ([], []))[1], s.url),
        ]
        for s in servers
    ]
    lines = [
        "## Servers",
        "",
        *table(
            [
                "server (HTTP)",
                "runtime",
                "Triton",
                "host",
                "GPUs (metrics)",
                "CPU memory",
                "variants reached it by",
                "measured",
                "not measured (why, else see the variant's error)",
            ],
            rows,
            ["left"] * 9,
        ),
    ]
    notes = []
    if any(s.runtime == "remote" for s in servers):
        notes.append(
            "The servers were not started by the toolkit: the host CPU figures of the environment lines are the "
            "client's, the server's own CPU is not measured, and GPU figures come from each server's metrics endpoint."
        )
    for s in servers:
        notes += _tenancy_notes(s)
    sessions = [s.session for s in servers if by_url.get(s.url, ([], []))[0]]  # servers that measured, by session
    if any(
        sessions.count(n) > 1 for n in sessions
    ):  # in parallel: one session's (a resumed run's sessions ran one after another)
        notes.append(
            "Variants were measured on different servers in parallel: a comparison across servers includes their "
            "hardware differences, not only the variants' settings; to check, sweep one variant again on the "
            "other server (`--url` of it"
            + ("" if run.rounds is not None else ", `--trials 2` for a spread")
            + ") and compare the runs with `triton-perf compare`."
        )
    shared = sorted({(min(s.url, o), max(s.url, o)) for s in servers for o in s.shares_with})
    if shared:
        pairs = "; ".join(f"`{a}` and `{b}`" for a, b in shared)
        notes.append(
            f"**Measured in parallel on shared hardware** (`--allow-shared-host`): {pairs} share a host or GPU, so "
            "each one's numbers include the other's load."
        )
    if notes:
        lines += ["", *(f"- {n}" for n in notes)]
    return [*lines, ""]


def _tenancy_notes(s: MeasuringServer) -> list[str]:
    """What the run found on a server it did not start and how it left it."""
    out = []
    if s.models_found:
        names, n = ", ".join(f"`{m}`" for m in s.models_found), len(s.models_found)
        out.append(
            f"`{s.url}` already had {count(n, 'model')} loaded ({names}): {agree(n, 'it was', 'they were')} left as "
            f"{agree(n, 'it was', 'they were')} and ran beside every variant measured there, so {agree(n, 'its', 'their')} "
            "traffic, if any, is in those numbers."
        )
    if s.left_differently:
        out.append(f"`{s.url}` was not left as it was found: {'; '.join(s.left_differently)}.")
    return out


def measured_elsewhere(run: RunResult) -> str | None:
    """Where a run was measured when it was not this host: ``"the server at a:8000 (host
    10.0.0.5, 1 GPU reported), ..."``; ``None`` when every server ran here (the conclusions
    then describe this host)."""
    away = [s for s in run.servers if s.host != "this host"]
    if not away:
        return None
    said = [
        f"`{s.url}` (host {s.host or '?'}, Triton {s.version or '?'}, "
        + (f"{count(len(s.gpu_uuids), 'GPU')} reported" if s.gpu_uuids else "no GPU reported")
        + ")"
        for s in run.servers
    ]
    return f"the server{'s' if len(said) > 1 else ''} at {', '.join(said)}"


def _names(models: list[str]) -> str:
    return some_of([f"`{m}`" for m in models])


def how_loaded(run: RunResult, others: list[list[str] | None], runtime: str) -> str:
    """How the variants of a cold-start sentence were loaded, as a clause (``"each loaded alone
    on the bundled tritonserver"``): never "alone" unless their loads' stamps say nothing else
    was loaded on the server (``ColdStart.others_loaded``; not claimed when no record says).

    Args:
        run: The run (its design: a rounds sweep loads its group one after another).
        others: Each variant's ``others_loaded`` (``None``: not recorded).
        runtime: The server's runtime, for the words.
    """
    said = [o for o in others if o is not None]
    if run.rounds is not None and len(others) > 1:  # the group loaded one after another, before any round
        foreign = sorted({m for o in said for m in o} - {v.name for v in run.variants})
        also = f"; other models were loaded there too: {_names(foreign)}" if foreign else ""
        return f"loaded one after another on the same {runtime} tritonserver (those loaded before a variant stayed loaded, idle{also})"
    beside = sorted({m for o in said for m in o})
    one = len(others) == 1  # "1 variant was each loaded" / "loaded one after another" would not read
    if not said:
        how = f"(whether other models were loaded beside {'it' if one else 'them'} was not recorded)"
    else:
        how = f"beside other models loaded on the server ({_names(beside)}), not alone" if beside else "alone"
    return f"{'' if one else 'each '}loaded {how} on the {runtime} tritonserver"
