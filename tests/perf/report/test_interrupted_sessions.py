"""A rounds run interrupted by Ctrl-C and resumed (trial 9, F20/F21): the Servers table lists what the
interrupted session's server measured (it read "measured: -" although it measured 16 visits of 4
variants), the two sessions' servers are not "measured in parallel", and the Paired ranking says how the
interrupted group ended. Hand-made records, no server."""

from __future__ import annotations

from factories import params

from perf.records.levels import LevelResult
from perf.records.provenance import stamp
from perf.records.results import RunResult, Session, VariantResult
from perf.records.rounds import LoadGroup, RoundRecord, RoundsRecord, Visit
from perf.records.servers import MeasuringServer
from perf.report.sections.rounds_budget import design_lines
from perf.report.sections.servers import servers_section, variants_by_server

OLD, NEW = "localhost:43763", "localhost:35995"


def _run(second_ended: str | None = "finished") -> RunResult:
    names = [params(c, db)["name"] for c in (1, 2) for db in (False, True)]
    variants = []
    for n in names:
        lv = [LevelResult(1, 1, r, throughput_infer_per_s=100.0 + r, latency_p99_ms=3.0) for r in range(4)]
        variants.append(VariantResult(n, params(int(n.split("cpu")[1][0]), "db500" in n), "ok", None, lv, server=NEW))
    run = RunResult("fc2", "now", {}, {}, variants)
    stamp(run)  # swept by today's code: its groups' saved words are today's (perf.records.provenance)
    visits = [Visit(n, 1) for n in names]
    run.rounds = RoundsRecord(
        seed=1,
        groups=[LoadGroup(0, names, "every contender fits on the server", OLD, 19.2), LoadGroup(1, names, "every contender fits on the server", NEW, 19.5, "ranking decided")],
        rounds=[
            RoundRecord(0, 0, 1, "2026-12-02T20:16:20+0000", 14.2, visits),
            RoundRecord(1, 0, 2, "2026-12-02T20:16:35+0000", None, visits[:2]),  # cut short by Ctrl-C
            RoundRecord(2, 1, 3, "2026-12-02T20:17:13+0000", 14.4, visits),
            RoundRecord(3, 1, 4, "2026-12-02T20:17:29+0000", 14.4, visits),
        ],
    )  # fmt: skip
    run.sessions = [
        Session("2026-12-02T20:16:01+0000", "interrupted", "Ctrl-C"),
        Session("2026-12-02T20:16:53+0000", second_ended),
    ]
    run.servers = [
        MeasuringServer(OLD, "g", "m", "bundled", "2.51.0", "this host", session=1),
        MeasuringServer(NEW, "g", "m", "bundled", "2.51.0", "this host", session=2),
    ]
    return run


def test_the_interrupted_sessions_server_lists_what_it_measured() -> None:
    run = _run()
    by = variants_by_server(run)
    assert by[OLD] == (by[NEW][0], []) and len(by[OLD][0]) == 4  # rounds 0-1 ran on the first session's server
    text = "\n".join(servers_section(run))
    old = next(ln for ln in text.splitlines() if f"`{OLD}`" in ln)
    cells = [c.strip() for c in old.split("|")[1:-1]]
    assert cells[7].count("`mlp_onnx_") == 4 and cells[8] == "-"  # measured: the 4 variants; not measured: none
    assert "in parallel" not in text  # one session after another, not in parallel


def test_the_interrupted_group_says_how_it_ended() -> None:
    lines = design_lines(_run())
    g1 = next(ln for ln in lines if ln.startswith("- Group 1 "))
    assert g1.endswith(
        "loaded and prepared in 19.2 s; interrupted (Ctrl-C) after 6 visits in 2 rounds; the last one cut short; "
        "the run went on in session 2 (`--resume`)."
    )
    # interrupted and not resumed yet: what continues it
    run = _run()
    run.sessions = run.sessions[:1]
    run.rounds.rounds = run.rounds.rounds[:2]
    run.rounds.groups = run.rounds.groups[:1]
    assert next(ln for ln in design_lines(run) if ln.startswith("- Group 1 ")).endswith("; `--resume` continues it.")


def test_the_interrupted_group_names_the_signal_that_stopped_it() -> None:
    """Break-it F4: a sweep stopped by SIGTERM said "interrupted (Ctrl-C)" in its report. What stopped the session
    is recorded (``Session.stopped_by``) and said; a run saved before it was recorded says "interrupted"."""
    run = _run()
    run.sessions[0].stopped_by = "SIGTERM"
    g1 = next(ln for ln in design_lines(run) if ln.startswith("- Group 1 "))
    assert "; interrupted (SIGTERM) after 6 visits in 2 rounds;" in g1, g1
    run.sessions[0].stopped_by = None
    g1 = next(ln for ln in design_lines(run) if ln.startswith("- Group 1 "))
    assert "; interrupted after 6 visits in 2 rounds;" in g1 and "Ctrl-C" not in g1, g1


def test_a_resumed_session_that_measured_no_round_says_why_not_an_error() -> None:
    """Trial 13 (T13-8): the resumed session loaded the variants whose rounds had ended and measured no round;
    its server's row filed them under "not measured (see the variant's error)", and none had an error."""
    run = _run()
    assert run.rounds is not None
    run.rounds.rounds = [r for r in run.rounds.rounds if r.group == 0]  # the second session: no round
    for v in run.variants:
        v.levels = [lv for lv in v.levels if lv.trial < len(run.rounds.rounds)]
    run.rounds.groups[1].ended = "10 rounds, the most a group gets (max_rounds)"
    new = next(ln for ln in servers_section(run) if f"`{NEW}`" in ln)
    cells = [c.strip() for c in new.split("|")[1:-1]]
    assert cells[7] == "-" and cells[8].count("`mlp_onnx_") == 4
    assert cells[8].count("(its group measured no round: 10 rounds, the most a group gets (max_rounds))") == 4
    failed = run.variants[0]
    failed.status, failed.error = "failed", "server died"  # its error says why: nothing added to it
    new = next(ln for ln in servers_section(run) if f"`{NEW}`" in ln)
    assert new.split("|")[-2].strip().startswith(f"`{failed.name}`, ")
