"""Verification of each export against eager PyTorch: input draws, comparison maths, verdicts and why a check failed."""
