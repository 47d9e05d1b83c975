"""What changing one setting does: main effects and interactions over the variants that differ in one setting
only (:mod:`perf.analysis.stats.pairs`; main_effects, diffs), a rounds sweep's pairs from paired rounds (rounds),
and threads per instance beside the instance count (threads).
"""
