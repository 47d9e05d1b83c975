"""Saturation: whether a throughput is a peak (peaks), and whether it fell or still grew from one
level to another as the noise judges it (falls).
"""
