"""The ``perf`` commands (click), thin over the packages below: sweep, report, compare, baseline, coldstart, export-deployment."""
