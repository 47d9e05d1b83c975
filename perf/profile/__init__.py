"""The model without a server: the in-process baseline, how one call is timed, profiler traces and the precision study."""
