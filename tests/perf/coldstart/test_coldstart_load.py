"""A cold start's first requests carry the host's load like a sweep level (issue 24 item 3): a
host-busy size is marked in the cold-start table and named in the conclusion. Hand-made records."""

from __future__ import annotations

from factories import make_run

from perf.records.coldstart import ColdStart, FirstRequests
from perf.report.sections import coldstart as coldstart_report


def test_a_host_busy_first_request_is_marked_in_the_table_and_the_sentence():
    run = make_run()
    v = run.variants[0]
    busy = FirstRequests(1, latencies_ms=[60.0, 3.0, 0.9, 1.0, 1.0, 1.1], host_busy_pct=72.0, host_busy=True)
    quiet = FirstRequests(8, latencies_ms=[6.0, 2, 2, 2], host_busy_pct=3.0)
    v.cold_start = ColdStart(v.name, load_s=2.0, first=[busy, quiet])
    assert busy.flag == "host busy" and quiet.flag == "ok"
    lines = coldstart_report.section(run)
    row = [c.strip() for c in next(ln for ln in lines if f"`{v.name}`" in ln).split("|")[1:-1]]
    assert row[4] == "60.0 † host busy" and "†" not in row[6]  # the busy size marked, the quiet one not
    text = "\n".join(lines)
    assert "The first requests of 1 of 1 variant (at b1) were sent while other processes used up to 72 % of one core" in text
    assert "† host busy: other processes used the host's CPU while those requests were sent." in text


def test_a_warmup_pair_with_a_host_busy_first_request_is_not_measured_fairly():
    from factories import levels, params

    from perf.records.results import VariantResult

    run = make_run()
    base = run.variants[0]
    base.cold_start = ColdStart(base.name, load_s=2.0, first=[FirstRequests(1, latencies_ms=[60.0, 3.0, 0.9, 1.0, 1.0])])
    wp = {**params(1, False), "warmup": "zero", "name": "mlp_onnx_cpu1_nodb_mbs64_warm-zero"}
    warm = VariantResult(wp["name"], wp, "ok", None, levels([100, 180], [1.2, 1.5]))
    first = FirstRequests(1, latencies_ms=[2.0, 1.0, 0.9, 1.0, 1.0], host_busy_pct=40.0, host_busy=True)
    warm.cold_start = ColdStart(warm.name, "zero", load_s=2.5, first=[first])
    run.variants.append(warm)
    text = "\n".join(coldstart_report.section(run))
    assert "the first request at batch 1 by -58.0 ms (not measured fairly: in 1 pair a first request was sent" in text


def test_the_busy_sentence_counts_variants_as_the_table_shows_them_not_sizes():
    # trial 9 F9: "4 sizes were sent while other processes used up to 106 % of one core" beside a table of one
    # size (b1) and 4 flagged variants
    from factories import levels, params

    from perf.records.results import VariantResult

    run = make_run()
    run.variants = []
    for i, (count, db, fmt) in enumerate((c, d, f) for c in (1, 2) for d in (False, True) for f in ("onnx", "torchscript")):
        p = params(count, db, fmt)
        v = VariantResult(p["name"], p, "ok", None, levels([100, 180], [1.2, 1.5]))
        busy = i % 2 == 0
        first = [FirstRequests(1, latencies_ms=[9.0, 1.0, 1.0], host_busy_pct=60.0 + i * 10 if busy else 2.0, host_busy=busy)]
        v.cold_start = ColdStart(v.name, load_s=2.0, first=first)
        run.variants.append(v)
    text = "\n".join(coldstart_report.section(run))
    assert "The first requests of 4 of 8 variants (at b1) were sent while other processes used up to 120 % of one core" in text
    assert "sizes were sent" not in text
    reason = coldstart_report.measured_warmup_count(coldstart_report.entries(run), run.run_id)[1]
    assert reason.endswith("(8 variants judged at batch 1)")  # was "(8 sizes of 8 variants judged)"
    # a variant flagged at a second size: each size says at how many of them
    run.variants[0].cold_start.first.append(FirstRequests(4, latencies_ms=[9.0, 1.0, 1.0], host_busy_pct=50.0, host_busy=True))
    text = "\n".join(coldstart_report.section(run))
    assert "The first requests of 4 of 8 variants (at b1 for 4, at b4 for 1) were sent" in text
