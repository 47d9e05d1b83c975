"""One variant after another (``--design sequential``; the design of runs saved before rounds).

For each variant: load it alone (explicit model control), make it ready (cold start, warm-up:
:meth:`perf.sweep.context.SweepBase.ready`), run perf_analyzer once per planned (client batch
size, concurrency, trial) until its windows agree (:func:`perf.measure.level.measure_level`:
retries with longer windows, a re-measurement on a busy host), record the level, unload and
check that it is gone. Which levels, on which variants and in which order, the search decides
(:mod:`perf.search.policy`); this loop asks it "what next?" after every concurrency. The
variants are measured at different moments, so the host's background load at each moment is
confounded with the variant: the rounds design (:mod:`perf.sweep.rounds`) is the default.
"""

from __future__ import annotations

import logging
import time

from core.errors import ServerError, ToolkitError
from perf.coldstart import measure as coldstart
from perf.records.results import VariantResult
from perf.search.plan import LevelKey, to_measure, workload_label
from perf.sweep.context import SweepBase
from perf.sweep.server import stamp_after, stamp_loaded

log = logging.getLogger(__name__)


class Sequential(SweepBase):
    """The sequential design's steps, on a sweep's state."""

    def run_sequential(self) -> None:
        """Sweep every variant in the search's order, one at a time (one thread per server lane)."""
        assert self.run.search is not None
        self.servers.each(self.run.search.order, lambda i, name: self.sweep_variant(i, self._variant(name)))

    def _variant(self, name: str) -> VariantResult:
        vr = self.run.variant(name)
        assert vr is not None
        return vr

    def sweep_variant(self, index: int, vr: VariantResult) -> None:
        """Measure one variant alone (module docstring); its failure is recorded, never raised."""
        plan = self.plans[vr.name]
        if plan.error:  # an unreadable config fails this variant, not the sweep
            self._fail(vr, plan.error)
            return
        if not plan.levels:
            vr.status, vr.error = (
                "skipped",
                "no asked level can run on it: " + "; ".join(sorted({s.reason for s in plan.skipped})),
            )
            log.warning("variant %s skipped: %s", vr.name, vr.error)
            self._save()
            return
        tried: set[LevelKey] = set()  # measured in this session (a failed level is not measured again now)
        keys = self._next_keys(vr, tried)
        if not keys:  # resumed run: every level the search asks for has numbers (or it was pruned)
            vr.status, vr.error = "ok", None
            return
        vr.status, vr.error = "pending", None
        srv = self._server()
        vr.server = srv.http_url
        self.progress({"event": "variant_loading", "variant": vr.name})
        start = time.monotonic()
        cold = coldstart.wanted(vr)  # none yet, or an earlier session's left incomplete: one rule with the rounds
        try:
            # srv.load(vr.name), timed: the variant's cold start (perf.coldstart.measure); checked to be the variant
            stamp_loaded(vr, coldstart.load(srv, vr, self.session) if cold else srv.load(vr.name))
            self.progress({"event": "variant_loaded", "variant": vr.name, "seconds": time.monotonic() - start})
        except ServerError as e:
            self._fail(vr, f"{e.message.splitlines()[0]} (server log: {self._log_name()})", levels_left=self._left(vr, tried))
            self._server()  # restart if the failed load took the server down
            return
        try:
            args_by_shape = self.ready(srv, vr, keys, cold=cold)
            while keys:  # the search's next concurrency (every batch size, shape, trial), until it says done
                for c, b, t, r, sh in keys:
                    self.progress(
                        {
                            "event": "level_start",
                            "variant": vr.name,
                            "index": index,
                            "n_variants": len(self.names),
                            "concurrency": c,
                            "batch_size": b,
                            "trial": t,
                            "request_rate": r,
                            "shape": sh,
                        }
                    )
                    level = self._measure(vr.name, c, b, t, args_by_shape[sh], r, sh)
                    tried.add((c, b, t, r, sh))
                    alive = self._server_alive_after(vr, level)
                    vr.levels = sorted([lv for lv in vr.levels if lv.key != level.key] + [level], key=lambda lv: lv.key)
                    self._save()
                    self.progress({"event": "level_done", "variant": vr.name, "level": level})
                    if not alive:
                        self._fail(vr, vr.error or "tritonserver died", levels_left=self._left(vr, tried))
                        self._server()
                        return
                keys = self._next_keys(vr, tried)
            self._search_done(vr, tried)
            wrong = stamp_after(srv, vr)  # what the server ran, read again after the last level
            if wrong:
                self._fail(vr, wrong)
            elif any(lv.usable for lv in vr.levels):
                vr.status = "ok"
            else:  # no level can back a recommendation: say why
                self._fail(
                    vr,
                    next(
                        (lv.error or "; ".join(lv.notes) for lv in vr.levels if lv.error or lv.notes),
                        "no level produced a measurement",
                    ),
                )
        except ToolkitError as e:
            self._fail(vr, f"{str(e).splitlines()[0]} (server log: {self._log_name()})", levels_left=self._left(vr, tried))
        finally:
            self._save()
            self.servers.unload(vr.name, self.opts.unload_timeout_s)

    def _next_keys(self, vr: VariantResult, tried: set[LevelKey]) -> list[LevelKey]:
        """The search's next levels on ``vr`` (:meth:`perf.search.policy.Search.next_keys`), read
        while no other server's thread changes the run."""
        with self._lock:
            return self.search.next_keys(vr, self.run, tried)

    def _left(self, vr: VariantResult, tried: set[LevelKey]) -> int:
        """Planned levels of ``vr`` not measured (now): what the progress bar skips."""
        return sum(1 for k in to_measure(self.plans[vr.name], vr) if k not in tried)

    def _search_done(self, vr: VariantResult, tried: set[LevelKey]) -> None:
        """Save the search's decisions on ``vr`` and report each (``search_decision`` events: one per client
        workload whose ladder stopped at several, with its label; the sentence; its planned levels not measured)."""
        self._save()
        mine = [d for d in self.search.record.decisions if d.variant == vr.name]  # one per client workload at several
        left = self._left(vr, tried)
        for i, d in enumerate(mine or ([None] if left else [])):
            label = workload_label(self.plans, d.workload) if d is not None and d.workload is not None else ""
            event = {"event": "search_decision", "variant": vr.name, "workload": label}
            self.progress({**event, "decision": d, "levels_left": left if i == 0 else 0})
