"""A sweep: its options, its server(s), and the loop that measures variants level by level and stores the run."""
