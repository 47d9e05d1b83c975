"""The report's PNG plots (matplotlib): canvas, styles, frontier, bars."""
