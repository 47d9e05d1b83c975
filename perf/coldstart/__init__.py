"""Cold start of a variant: load time and the first requests after a load."""
