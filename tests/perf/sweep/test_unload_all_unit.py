"""ServerPool.unload_all: a group's variants are unloaded at once (each request mostly waits for
its backend to exit), in the calling thread's lane, every result returned in the models' order."""

from __future__ import annotations

import threading

from perf.sweep.servers import ServerPool


class _Lane:
    """A lane whose unload returns only when ``parties`` unloads are in flight together."""

    def __init__(self, parties: int, gone: set[str]):
        self.barrier = threading.Barrier(parties, timeout=10)
        self.gone, self.threads = gone, set()

    def unload(self, model: str, timeout_s: float) -> bool:
        self.threads.add(threading.get_ident())
        self.barrier.wait()  # raises BrokenBarrierError if the unloads ran one after another
        return model in self.gone


def test_a_groups_unloads_are_in_flight_together_and_answer_in_order() -> None:
    pool = ServerPool.__new__(ServerPool)  # only the lane lookup is used
    pool._local = threading.local()
    lane = _Lane(4, gone={"a", "c", "d"})
    pool.lanes = [lane]  # type: ignore[list-item]
    assert pool.unload_all(["a", "b", "c", "d"], 5.0) == [True, False, True, True]
    assert len(lane.threads) == 4
    one = _Lane(1, gone={"x"})
    pool.lanes = [one]  # type: ignore[list-item]
    assert pool.unload_all(["x"], 5.0) == [True] and one.threads == {threading.get_ident()}
