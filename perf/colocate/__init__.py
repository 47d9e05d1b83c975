"""Several models on one server: combinations of their variants measured together, the coordinate search over them."""
