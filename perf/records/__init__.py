"""The typed records a run stores (``results.json`` and its parts): levels, settings, baseline, cold start, search, profile, servers."""
