"""A built model repository: typed manifest/index records, the Repository view, and ``builders validate``."""
