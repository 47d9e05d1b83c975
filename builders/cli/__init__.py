"""The ``builders`` commands (click): build, variants, validate, inspect, models."""
