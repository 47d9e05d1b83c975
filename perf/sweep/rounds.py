"""Interleaved rounds on the server (the default design): load the contenders together, measure
them in rounds, unload them.

- **Loading**: the variants still in contention are loaded together (explicit model control),
  each one's cold start measured at its load (:mod:`perf.coldstart.measure`), its first requests
  and warm-up sent, all before any round and outside every measured window. A variant is added
  to the current **group** while the server's host keeps :data:`MEMORY_RESERVE_FRACTION` of its
  memory free after the load (a local server: read with psutil; a remote one: not checked) and
  at most ``max_loaded`` are loaded; the others form the next group. Every group is recorded
  (:class:`perf.records.rounds.LoadGroup`) with why it is one.
- **The plan fitted again** to the loads measured so far, in one place (:func:`perf.sweep.load_cuts.fit_to_loads`):
  before every load of every group, the finals' and each server's included (a variant it would cut is
  not loaded at all), and once the first group is loaded (every variant of the plan in it, one server),
  before its first round (trial 7: 12.9 s a load against the plan's 5 s, 2 of 6 rounds). A variant it
  cuts after the loads is unloaded and, like the first plan's cuts, measured after the rounds if the
  time they leave fits it.
- **Rounds**: the scheduler (:mod:`perf.search.rounds`) runs the group's rounds, every visit a
  short perf_analyzer run (:func:`perf.measure.level.measure_visit`).
- **Several groups**: variants of different groups were never measured in the same round, so
  they are not compared; the tie sets of the groups then meet in a final group, loaded together
  and measured in rounds of their own.
- **Several servers** (``--runtime remote --url a,b``): the variants are dealt to the servers in
  turn (most promising first) and each server runs its own groups and rounds in its own thread;
  the tie sets of the servers then meet in a final group on the first server.
- **Variants cut for time** (the plan's cut, :func:`perf.search.budget.fit`): when the rounds
  end with time left, the plan is re-made from what they measured (:func:`perf.search.late.late`)
  and the cut variants that fit (most promising first) meet the tie set in a final group,
  measured in rounds of its own; those still cut say the real numbers.
- **A server that dies** during a visit fails the variant being measured (as in the sequential
  design); the server is restarted, the group's other variants are loaded again (their cold
  start is not measured twice; each load time-checked as every load is, those it cuts leaving the
  group's rounds) and the rounds go on.
- After the rounds, every variant is unloaded (the requests sent at once) and checked gone; a
  variant that measured no usable level is failed with the reason.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from core.errors import ServerError, ToolkitError
from core.wording import join_once
from perf.coldstart import measure as coldstart
from perf.markdown import fmt
from perf.records.results import LevelResult, VariantResult
from perf.records.rounds import LateGroup, LoadGroup
from perf.search import late as lates
from perf.search import promise
from perf.search.budget import Fit
from perf.search.plan import LevelKey
from perf.search.rounds import Rounds
from perf.sweep import load_cuts
from perf.sweep.context import SweepBase
from perf.sweep.server import stamp_after, stamp_loaded

log = logging.getLogger(__name__)

#: Share of the host's memory a group leaves free: no variant is added to a group after a load
#: that left less available (the next one starts the next group).
MEMORY_RESERVE_FRACTION = 0.15


def memory_left_fraction() -> float:
    """Available / total memory of this host (psutil)."""
    import psutil

    vm = psutil.virtual_memory()
    return vm.available / vm.total if vm.total else 1.0


class RoundsSweep(SweepBase):
    """The rounds design's steps, on a sweep's state (module docstring)."""

    invoked_at = 0.0  #: when the command started (time.monotonic; perf.sweep.run.Sweep sets it)
    clock_started: float | None = None  #: the time budget's clock's start (perf.sweep.budget_scope), once started

    def _startup_s(self) -> float | None:
        """The seconds of start-up before the budget's clock (``Session.startup_s``), measured."""
        return None if self.clock_started is None else self.clock_started - self.invoked_at

    def run_rounds(self, engine: Rounds, names: Sequence[str], fit: Fit | None = None) -> None:
        """Measure ``names`` (most promising first) in rounds: by group, by server lane, then a
        final of the groups' tie sets; then the variants ``fit`` cut, those the time left fits
        (:meth:`_late`). Every variant ends ``ok``, ``failed`` or ``skipped``."""
        self.start_session(fit, refitted=False)
        lanes = len(self.servers.lanes)
        dealt = [list(names[i::lanes]) for i in range(lanes)] if lanes > 1 else [list(names)]
        ties: list[list[str]] = [[] for _ in dealt]

        def lane(i: int, _name: str) -> None:
            ties[i] = self._groups(engine, dealt[i], f"server {i + 1} of {lanes}" if lanes > 1 else "")

        self.servers.each([str(i) for i in range(len(dealt))], lane)
        tie = [n for t in ties for n in t]
        if len(dealt) > 1 and len(tie) > 1:
            tie = self._groups(engine, tie, "the final: the tie sets of the servers, measured together")
        late = self._late(engine, tie, self._plan) if self._plan is not None else []
        for n in [*names, *late]:
            self._settle(self._variant(n))

    def start_session(self, fit: Fit | None, refitted: bool) -> None:
        """The state this session's groups read, set once before its first group: by :meth:`run_rounds` and by a
        resume's final group (:meth:`perf.sweep.final.ResumedRounds.run_final`), which runs no other rounds."""
        self._args: dict[str, dict[str | None, list[str]]] = {}
        self._unloads: list[tuple[int, float]] = []  # (variants, seconds) of each group's unloads
        self._plan, self._refitted = fit, refitted  # the time budget's plan, fitted again once (:meth:`_refit`)
        self._final: lates.Final | None = None  # the final group after the rounds, while its loads are checked
        self._load_times, self._load_names = list[float](), list[str]()  # each load attempt's seconds, its variant
        self._groups_before = len(self.run.rounds.groups) if self.run.rounds is not None else 0  # a resume's

    def _late(self, engine: Rounds, tie: list[str], fit: Fit) -> list[str]:
        """The variants ``fit`` cut that the time the rounds left fits, measured in a final group
        with their tie set (:func:`perf.search.late.late`: the plan re-made from the measured
        visits and loads); the others' cuts say the real numbers. Returns those measured."""
        rr, cut = self.run.rounds, fit.cut_variants
        if rr is None or not cut or engine.deadline is None:
            return []
        load_s = load_cuts.load_s(self.run_load_times(), fit)
        tie = engine.contenders(tie)
        left = engine.deadline - engine.clock()
        before = {n for n in cut if promise.has_numbers(self.run, n)}  # a resume's earlier numbers: not "not measured"
        tie_visits = len(engine.visits(tie, 0))
        prices = load_cuts.format_prices(self, self.run_load_times(), [*tie, *cut], fit.load_s)[0]  # (T18-5)
        late = lates.late(cut, tie, tie_visits, fit.visits, load_s, engine.visit_s, left, self._unload_s(), before, prices)
        with self._lock:
            rr.cuts = [c for c in rr.cuts if not (c.kind == "variant" and c.variant in cut)]
        for c in late.cuts:
            rr.cut(c)
            if c.variant not in before:  # one with numbers keeps the status they give it
                self._variant(c.variant or "").error = f"cut for time: {c.reason.removeprefix('not measured: ')}"
        rr.late = LateGroup(late.variants, tie, rr.ended or "", rr.ended_by) if late.variants else None  # under way (sweep.final)
        self._save()
        if not late.variants:  # said, as a fitting final group is (break-it F9: only report.md said why, not the console)
            text = "rounds: cut for time: " + (late.said or join_once([f"{c.variant} {c.reason}" for c in late.cuts]))
            self.progress({"event": "plan", "text": text, "estimate_s": 0.0, "warn": True})  # said once
            return []
        self.progress({"event": "plan", "text": f"rounds: {late.reason}", "estimate_s": late.estimate_s})  # said once
        self._final = lates.Final(late.variants, tie, tie_visits, list(fit.visits), frozenset(before))  # priced so (T17-2)
        self._groups(engine, [*tie, *late.variants], late.reason)
        self._final, rr.late = None, None  # its rounds ended
        return late.variants

    def run_load_times(self) -> list[float]:
        """The run's loads (s) a time check prices a load from (:func:`perf.sweep.load_cuts.load_s`): the earlier
        sessions' recorded groups (:func:`perf.sweep.load_cuts.recorded_load_times`), then this session's attempts."""
        assert self.run.rounds is not None
        return load_cuts.recorded_load_times(self.run.rounds.groups[: self._groups_before]) + self._load_times

    def keys_per_level(self) -> int:
        """Visits per concurrency level the plan counts: batch sizes x swept shapes, plus request rates."""
        per_level = max(len(p.batch_sizes) * len(p.shapes) for p in self.plans.values()) if self.plans else 1
        rates = max((len({k[3] for k in p.levels if k[3] is not None}) for p in self.plans.values()), default=0)
        return per_level + rates

    def _refit(self, engine: Rounds, loaded: list[str], whole: bool) -> list[str]:
        """The plan fitted again to the time the loads left (module docstring,
        :func:`perf.sweep.load_cuts.fit_to_loads`), at the first group only, when it holds every variant
        of the plan (``whole``: no group after it); its cuts recorded, said and unloaded. Returns those kept."""
        first, self._refitted = not self._refitted, True
        if not first or not whole:
            return loaded
        self._reprice_kept(engine, loaded)  # the baseline's kept time from the loads just measured (T17-11)
        self._plan, kept, _ = load_cuts.fit_to_loads(
            self, engine, self._plan, loaded, [], self.run_load_times(), self.keys_per_level()
        )
        return kept

    def _reprice_kept(self, engine: Rounds, loaded: list[str]) -> None:
        """The time kept for the in-process baseline priced again once ``loaded`` are loaded (its step's)."""

    def _unload_s(self) -> float:
        """Time to unload one variant (s): :func:`perf.sweep.load_cuts.unload_s` of the unloads the run measured, the
        earlier sessions' recorded groups and this session's (:data:`perf.search.budget.UNLOAD_S` before any)."""
        earlier = load_cuts.recorded_unload_times(self.run.rounds.groups[: self._groups_before]) if self.run.rounds else []
        return load_cuts.unload_s(earlier + [spent / k for k, spent in self._unloads if k for _ in range(k)])

    def _variant(self, name: str) -> VariantResult:
        vr = self.run.variant(name)
        assert vr is not None
        return vr

    def _groups(self, engine: Rounds, names: list[str], why: str) -> list[str]:
        """Groups over ``names`` until each was measured; with several groups, a final of their
        tie sets (itself in groups when it does not fit). Returns the last tie set."""
        todo, ties, groups = list(names), [], 0
        while todo:
            loaded, todo, group = self._load_group(engine, todo, why)
            loaded = self._refit(engine, loaded, whole=not todo) if loaded else loaded
            if loaded:
                ties += self._measure_group(engine, loaded, group)
                groups += 1
        if groups > 1 and 1 < len(ties) < len(names):
            final = self._groups(engine, ties, "the final: the tie sets of the groups, measured together")
            if final:  # none when the time left fits no round of it (perf.sweep.load_cuts: none loaded)
                return final
        if groups > 1 and len(ties) > 1:
            log.warning("%s were measured in different groups and not separated within them: not compared", ", ".join(ties))
        return ties

    def _load_group(self, engine: Rounds, names: list[str], why: str) -> tuple[list[str], list[str], int]:
        """Load variants of ``names`` until the group is full; ``(loaded, the rest, group index)``."""
        assert self.run.rounds is not None
        start = engine.clock()  # the time budget's clock: the loads' time is what the plan is fitted to
        srv = self._server()
        loaded: list[str] = []
        cut: set[str] = set()  # cut for time before their load
        per = self.keys_per_level()
        said = f"{why}; " if why else ""
        reason = why or "every contender fits on the server"
        for i, name in enumerate(names):
            if self.opts.max_loaded is not None and len(loaded) >= self.opts.max_loaded:
                reason = f"{said}at most {self.opts.max_loaded} variants loaded at once (max_loaded)"
                return loaded, [n for n in names[i:] if n not in cut], self._record_group(engine, loaded, reason, start)
            if name in cut:
                continue
            with self._lock:  # every load: cut for time before it starts (perf.sweep.load_cuts); servers' threads one at a time
                pending = [n for n in names[i:] if n not in cut]
                args = (self._plan, loaded, pending, self.run_load_times(), per, self._unload_s(), self._final)
                self._plan, _, keep = load_cuts.fit_to_loads(self, engine, *args)
            cut |= set(pending) - set(keep)
            members = [*loaded, *keep]  # those loaded unloaded where they and the rest add no comparison (load_cuts)
            if nothing := load_cuts.adds_nothing(self.run.rounds.groups[self._groups_before :], self._final, members):
                return [], [], self._record_group(engine, [], said + load_cuts.drop(self, loaded, nothing), start)
            if name in cut:
                continue
            t0 = engine.clock()
            if self._load(engine, name):
                loaded.append(name)
            self._load_times.append(engine.clock() - t0)
            self._load_names.append(name)  # its format prices the loads of that format (load_cuts.format_prices)
            left = memory_left_fraction() if not srv.opts.urls else 1.0
            if left < MEMORY_RESERVE_FRACTION and i + 1 < len(names):
                reason = f"{said}the host had {left * 100:.0f} % of its memory left after loading `{name}`"
                return loaded, [n for n in names[i + 1 :] if n not in cut], self._record_group(engine, loaded, reason, start)
        if cut and not loaded:
            reason = f"{said}not loaded: each of its variants cut for time before its load"
        return loaded, [], self._record_group(engine, loaded, reason, start)

    def _record_group(self, engine: Rounds, loaded: list[str], reason: str, start: float) -> int:
        """Record a group (:class:`perf.records.rounds.LoadGroup`); returns its index."""
        assert self.run.rounds is not None
        srv = self._server()
        with self._lock:
            groups = self.run.rounds.groups
            groups.append(LoadGroup(len(groups), list(loaded), reason, srv.http_url, round(engine.clock() - start, 2)))
            index = groups[-1].index
        self._save()
        return index

    def _load(self, engine: Rounds, name: str) -> bool:
        """Load one variant and make it ready (its cold start measured the first time it is loaded
        to the end, :func:`perf.coldstart.measure.wanted`); ``False``
        when it failed (recorded)."""
        vr, plan = self._variant(name), self.plans[name]
        srv = self._server()
        vr.server, vr.status, vr.error = srv.http_url, "pending", None
        first = coldstart.wanted(vr)  # none yet, or an earlier session's left incomplete
        self.progress({"event": "variant_loading", "variant": name})
        start = time.monotonic()
        try:  # checked to be the variant, and stamped with what the server runs
            stamp_loaded(vr, coldstart.load(srv, vr, self.session) if first else srv.load(name))  # first: timed, its cold start
            self.progress({"event": "variant_loaded", "variant": name, "seconds": time.monotonic() - start})
        except ServerError as e:
            self._fail(vr, f"{e.message.splitlines()[0]} (server log: {self._log_name()})")
            self._server()  # restart if the failed load took the server down
            return False
        try:
            keys: list[LevelKey] = [(self.levels[0], b, 0, None, sh) for b in plan.batch_sizes for sh in plan.shapes]
            self._args[name] = self.ready(srv, vr, keys, cold=first)
        except ToolkitError as e:
            self._fail(vr, f"{str(e).splitlines()[0]} (server log: {self._log_name()})")
            self.servers.unload(name, self.opts.unload_timeout_s)
            return False
        return True

    def _measure_group(self, engine: Rounds, loaded: list[str], group: int) -> list[str]:
        """The group's rounds, then every variant unloaded; returns its tie set."""
        try:

            def visit(name: str, key: LevelKey) -> LevelResult | None:
                return self._visit(engine, loaded, name, key)

            return engine.run_group(loaded, group, visit, reserve_s=len(loaded) * self._unload_s())
        finally:
            srv, start = self._server(), time.monotonic()
            for name in loaded:
                vr = self._variant(name)
                wrong = stamp_after(srv, vr) if vr.status not in ("failed", "skipped") else None
                if wrong:  # the server ran something else by the end of the rounds: not filed under its name
                    self._fail(vr, wrong)
            self.servers.unload_all(loaded, self.opts.unload_timeout_s)  # at once: each mostly waits for its backend
            self._unloads.append((len(loaded), time.monotonic() - start))
            rec = next((g for g in self.run.rounds.groups if g.index == group), None) if self.run.rounds else None
            if rec is not None:  # recorded: what a later session prices an unload from (load_cuts.recorded_unload_times)
                rec.unload_s = round(self._unloads[-1][1], 2)
            self._save()

    def _visit(self, engine: Rounds, loaded: list[str], name: str, key: LevelKey) -> LevelResult | None:
        """One visit; a server that died is restarted and the group loaded again."""
        vr = self._variant(name)
        c, b, t, r, sh = key
        level = self._measure(name, c, b, t, self._args[name][sh], r, sh)
        if self._server_alive_after(vr, level):
            return level
        self._fail(vr, vr.error or "tritonserver died")
        self._reload(
            engine, [n for n in loaded if n != name and self._variant(n).status != "failed" and n not in engine.withdrawn]
        )
        return level

    def _reload(self, engine: Rounds, names: list[str]) -> None:
        """``names`` loaded again after the server died, each load time-checked as every load is, in one place
        (:func:`perf.sweep.load_cuts.fit_to_loads`; issue 26: these loads had no check, and a group whose server
        died near the end of the budget loaded its variants again past it); those it cuts are not loaded again and
        leave the group's rounds (:attr:`perf.search.rounds.Rounds.withdrawn`)."""
        done: list[str] = []
        for i, name in enumerate(names):
            if name in engine.withdrawn:
                continue
            with self._lock:
                pending = [n for n in names[i:] if n not in engine.withdrawn]
                args = (self._plan, done, pending, self.run_load_times(), self.keys_per_level(), self._unload_s())
                self._plan, _, keep = load_cuts.fit_to_loads(self, engine, *args)
                engine.withdrawn |= set(pending) - set(keep)
            if name in engine.withdrawn:
                continue
            t0 = engine.clock()
            if self._load(engine, name):
                done.append(name)
            self._load_times.append(engine.clock() - t0)
            self._load_names.append(name)

    def _settle(self, vr: VariantResult) -> None:
        """A measured variant ends ``ok`` when a level can back a recommendation, else ``failed`` with why."""
        if vr.status in ("failed", "skipped"):
            return
        if any(lv.usable for lv in vr.levels):
            vr.status, vr.error = "ok", None
            return
        rr = self.run.rounds
        if not vr.levels and rr is not None and any(c.kind == "rounds" for c in rr.cuts):  # no round fitted the budget
            vr.status = "skipped"
            vr.error = "not measured: the time budget ended before its first round (a longer --time-budget measures it)"
            log.warning("%s: %s", vr.name, vr.error)
            return
        why = next((lv.error or "; ".join(lv.notes) for lv in vr.levels if lv.error or lv.notes), NO_LEVEL)
        self._fail(vr, why)


#: Why a variant with no usable level failed when none says more (also, by an earlier version, one stopped unvisited: T23-4).
NO_LEVEL = "no level produced a measurement"


def of_budget(budget_s: float | None, left_s: float | None) -> str:
    """How the plan line's estimate stands to the budget: ``" of a 120 s budget"``, or, when set-up took a
    second or more of it, ``" of the 119 s left of a 120 s budget"`` (the time :func:`perf.search.budget.fit`
    planned in, the number its cuts give)."""
    if budget_s is None or left_s is None:
        return " (no time budget)"
    whole = f"a {fmt(budget_s, 0)} s budget"
    return f" of {whole}" if fmt(left_s, 0) == fmt(budget_s, 0) else f" of the {fmt(left_s, 0)} s left of {whole}"
