"""The toolkit's shared vocabulary, imported by builders, clients and perf and importing none of them.

Layering (checked by import-linter in ``make test``): ``core`` < ``builders`` < ``clients`` < ``perf``.
"""
