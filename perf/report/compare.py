"""``triton-perf compare``'s Python API: two runs compared level by level, as the command writes them.

:func:`perf.analysis.comparison.runs.compare_runs` takes the sentence of a run's refused pass-through
flags from a layer above it (``refused``); :func:`compare_runs` here gives it the sweep's
(:func:`perf.sweep.refused_run.refused_flags_text`), so that a comparison made in Python says what the
command's says (trial 30, F7: README named the analysis function, which a user could not call without it).
"""

from __future__ import annotations

from pathlib import Path

from perf.analysis.comparison import runs
from perf.sweep.refused_run import refused_flags_text


def compare_runs(run_a: str | Path, run_b: str | Path, out: str | Path | None = None) -> Path:
    """Compare run ``run_a`` (before) with ``run_b`` (after) and write the markdown comparison
    (:func:`perf.analysis.comparison.runs.compare_runs`, each run's refused flags said as the sweep says them).

    Args:
        run_a: Run folder of the baseline ("before") sweep.
        run_b: Run folder of the compared ("after") sweep.
        out: Markdown file to write (default ``<run_b>/compare_<run_a id>.md``).

    Returns:
        The path written.

    Raises:
        PerfError: as :func:`perf.analysis.comparison.runs.compare_runs`.
    """
    return runs.compare_runs(Path(run_a), Path(run_b), Path(out) if out is not None else None, refused=refused_flags_text)
