"""``python -m perf``: the triton-perf command (the console script is ``triton-perf``; no ``perf`` script shadows Linux's profiler)."""

from perf.cli.main import main

main()
