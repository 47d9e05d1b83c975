"""The recommendation: the pick under a latency budget and the best peak (recommend, choice), the
Pareto frontier (frontier), and what it leaves out, in words: levels left out of the ranking
(excluded), variants a time budget cut (cuts), a level's notes over its rounds (notes).
"""
