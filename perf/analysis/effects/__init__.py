"""What changing one setting does: the variants that differ in one setting only (pairs), main effects
and interactions over them (main_effects, diffs), a rounds sweep's pairs from paired rounds (rounds),
and threads per instance beside the instance count (threads).
"""
