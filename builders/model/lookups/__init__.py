"""Table lookups of a model: which embedding tables an integer input indexes (:mod:`.probe`), and ranges too wide for them refused before any export (:mod:`.range_ends`)."""
