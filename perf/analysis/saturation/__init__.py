"""Saturation: whether a throughput is a peak (peaks), whether it fell or still grew from one level to
another as the noise judges it (falls), and whether it still rises, the knee and p99's trend (rises).
"""
