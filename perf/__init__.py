"""perf_analyzer concurrency sweeps, server metrics, results store and comparison report."""
