"""The report's written conclusions (written, numbers), their "Why" paragraph (why), and
comparisons of two levels in words with the appendix's fair pairs (pairs).
"""
