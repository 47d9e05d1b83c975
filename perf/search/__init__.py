"""Which levels to measure: the adaptive concurrency ladder, pruning across variants, and the plan of a (resumed) sweep."""
