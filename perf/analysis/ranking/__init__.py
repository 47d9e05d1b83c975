"""The paired ranking of a rounds sweep: operating points and their comparisons (operating), the
order and the pick (rank), the variant named first (leader) and what it is named first by, in words
(named_first), the latency a level is judged on against a budget (budget_latency), and how the pick
stands against the others (standing, standing_words).
"""
