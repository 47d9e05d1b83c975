"""Run-to-run comparison (``triton-perf compare``): the rule that calls a change at each level
(verdicts) and the comparison of two runs, written (runs).
"""
