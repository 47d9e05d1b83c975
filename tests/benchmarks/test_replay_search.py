"""benchmarks/replay_search.py on a brute-force rounds run of the simulated host: the replay of
brute force reproduces its run, and the search's replay sees only numbers brute force measured."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _replay_module():
    spec = importlib.util.spec_from_file_location("replay_search", ROOT / "benchmarks" / "replay_search.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_replay_of_brute_force_reproduces_its_visits_and_the_search_makes_fewer(tmp_path: Path) -> None:
    from simulated_host import rounds_run

    from perf.records.results import save

    run, _, _ = rounds_run(4, mode="brute", concurrency=(1, 2, 4, 8, 16))
    save(run, tmp_path / "brute")
    out = tmp_path / "replay.json"
    assert _replay_module().main([str(tmp_path / "brute"), "--wall-s", "500", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    real = sum(len(r.order) for r in run.rounds.rounds)
    assert got["brute_real"]["visits"] == real == got["brute_replay"]["visits"]
    assert got["brute_replay"]["rounds"] == len(run.rounds.rounds)
    assert 0 < got["search_replay"]["visits"] < real and got["visits_ratio"] < 1.0
    assert not got["ran_out_of_rounds"] or got["search_replay"]["rounds"] == len(run.rounds.rounds)
    assert 0 < got["wall_ratio_model"] < 1.0
