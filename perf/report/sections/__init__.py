"""The report's sections, one writer each: what was run (run), the per-level tables (tables), the
search (search), the Paired ranking (ranking, rounds_budget), the servers (servers), cold start
(coldstart), serving efficiency and its in-process baseline (efficiency, efficiency_table, inprocess), main effects
(effects), knees (knees), profiler traces and the precision study (profile).
"""
