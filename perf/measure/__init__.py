"""Measuring one level: perf_analyzer's command line and output, server/host/GPU metrics sampled beside it, the environment, input data flags."""
