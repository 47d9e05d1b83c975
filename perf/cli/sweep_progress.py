"""The sweep's progress bar and its log lines (``triton-perf sweep``, :mod:`perf.cli.sweep`), fed by the events of
:class:`perf.sweep.run.Sweep`."""

from __future__ import annotations

from typing import Any

from core.units import thousands, throughput_text
from core.wording import fold_clauses
from perf.analysis.stats.notes import flag_statuses
from perf.cli.baseline import describe_event
from perf.markdown import flag_mark, fmt_given, short_error


class SweepProgress:
    """The sweep's progress bar and log lines, fed by its events."""

    def __init__(self, console: Any):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(  # off a terminal no bar: the log lines say each step (a log file got its last frame)
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        self.task: Any = None
        self.trials = 1
        self.last = ""  # the last measured throughput, shown on the progress bar
        self.said: set[tuple[str, str]] = set()  # (variant, error) of the failed levels said: a variant's failure not again

    def drop_if_idle(self) -> None:
        """Remove the bar before it is drawn for the last time when nothing moved it (no level
        planned, none measured: e.g. a resume whose rounds were all cut, or an interrupt while
        the server started): its "starting tritonserver 0/0" said nothing true."""
        task = next((t for t in self.bar.tasks if t.id == self.task), None)
        if task is not None and not task.completed and not task.total:
            self.bar.remove_task(self.task)

    def on_event(self, e: dict[str, Any]) -> None:
        """Show one event of the sweep: the bar moved or relabelled, or a log line (a level, a decision, a load)."""
        from rich.markup import escape

        from perf.records.levels import TRANSIENT_WORDS, transient_failure, window_failure

        log = self.bar.console.log
        if e["event"] == "level_start":
            trial = f" t={e['trial'] + 1}/{self.trials}" if self.trials > 1 else ""
            load = f"rate={fmt_given(e['request_rate'], 0)}/s" if e.get("request_rate") else f"c={e['concurrency']}"
            load += f" {e['shape']}" if e.get("shape") else ""
            where = f"round {e['round'] + 1}: " if e.get("round") is not None else ""
            text = f"{where}{e['variant']} ({e['index'] + 1}/{e['n_variants']}) {load} b={e['batch_size']}{trial}{self.last}"
            self.bar.update(self.task, description=escape(text))
        elif e["event"] == "level_done":
            lv = e["level"]
            trial = f" t={lv.trial + 1}/{self.trials}" if self.trials > 1 else ""
            self.last = f" | last {thousands(lv.throughput_infer_per_s)} infer/s" if lv.ok else ""
            self.said |= {(e["variant"], lv.error)} if not lv.ok and lv.error else set()
            # a round's transient error (no request in a window, the server's state) is no measurement this round (perf.search.failed)
            missed = e.get("round") is not None and transient_failure(lv.error)
            note = (
                f"{throughput_text(lv.throughput_infer_per_s, lv.batch_size)}, p99 {lv.latency_p99_ms:.2f} ms"
                if lv.ok
                else f"{'not measured this round' if missed else 'failed'}"
                f"{f' ({TRANSIENT_WORDS})' if missed and not window_failure(lv.error) else ''}: "
                f"{short_error(lv.error or 'perf_analyzer measured no throughput')}"
            )
            # the report's mark and words for the level (trial 26, T26-11: "[unstable]" here, "† host busy" there)
            flag = "" if lv.status in ("ok", "failed") else flag_mark(flag_statuses(lv.status, lv.notes))
            load = f"rate={fmt_given(lv.request_rate, 0)}/s" if lv.request_rate else f"c={lv.concurrency}"
            load += f" {lv.shape}" if lv.shape else ""
            # a rounds visit names its round, as the bar does and as the rounds line counts them (trial 15, T15-1: a
            # reader matching a table's median to the console's lines could not tell which round each line was)
            where = f"round {e['round'] + 1}: " if e.get("round") is not None else ""
            log(escape(f"{where}{e['variant']} {load} b={lv.batch_size}{trial}: {note}{flag}"))
            self.bar.advance(self.task)
        elif e["event"] == "search_decision":
            from perf.search.events import subject  # the variant, or its series at one of several client workloads

            d = e["decision"]
            if d is not None and e.get("provisional"):  # a rounds ladder: judged again after every round
                said = f"{subject(e)}: its ladder stops at concurrency {d.concurrency} for now (re-judged each round): {d.reason}"
                log(escape(fold_clauses(said)))
            elif d is not None:
                log(escape(fold_clauses(f"{subject(e)}: {d.words(past=False)}")))
            elif e.get("reopened") and e.get("why"):  # a drop taken back (perf.search.drops)
                log(escape(fold_clauses(f"{e['variant']}: measured again, no longer dropped: {e['why']}")))
            elif e.get("reopened"):
                log(escape(f"{subject(e)}: its ladder climbs again: the latest rounds no longer back its stop"))
            self.bar.advance(self.task, e.get("levels_left", 0))  # its planned levels the search left out
        elif e["event"] == "level_changed":  # a level retired, joined or measured again at one client workload, and why
            from perf.search.events import change_words

            log(escape(fold_clauses(change_words(e["change"]))))
        elif e["event"] == "variant_failed":
            again = (e["variant"], e["error"]) in self.said  # its level's line above said it (trial 23, T23-6)
            log(f"[red]{escape(e['variant'])} failed: {'its level failed as said above' if again else escape(e['error'])}[/red]")
            self.bar.advance(self.task, e.get("levels_left", 0))  # its planned levels that will not run now
        elif e["event"] in ("plan", "spent"):  # the rounds' time budget: the estimate, then the real time
            log(escape(fold_clauses(e.get("after_opening") or e["text"])))  # the resume line printed above says the rest
        elif e["event"] == "round_start":  # a round says its size as it starts
            done = self.bar.tasks[0].completed if self.bar.tasks else 0
            self.bar.update(self.task, total=done + e["visits"])
        elif e["event"] == "variant_loading":  # a load takes seconds: the bar says what it waits for
            self.bar.update(self.task, description=escape(f"loading {e['variant']}"))
        elif e["event"] == "variant_loaded":  # one line per variant loaded, in a log file too
            from perf.search.events import loaded_words

            log(escape(loaded_words(e["variant"], e["seconds"])))
        elif e["event"] in ("baseline_point", "baseline_rounds", "baseline_cut", "baseline_loading"):
            log(escape("in-process baseline " + describe_event(e)))
