"""Plots read back from their matplotlib artists: the figures a plot closes are kept open here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import ModuleType

import pytest

from perf.plots import canvas as plot_canvas


@pytest.fixture
def keep_figures(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[ModuleType], list]]:
    """``keep(module)``: the figures that ``module``'s plots close from now on, kept open in the
    returned list (to be read back from their artists); closed at the end of the test."""
    real = plot_canvas.pyplot()
    figures: list = []

    class KeepOpen:
        def __getattr__(self, name: str):
            return getattr(real, name)

        def close(self, fig) -> None:
            figures.append(fig)

    def keep(module: ModuleType) -> list:
        monkeypatch.setattr(module, "pyplot", KeepOpen)
        return figures

    yield keep
    for fig in figures:
        real.close(fig)


@pytest.fixture
def kept_figures(keep_figures: Callable[[ModuleType], list]) -> list:
    """The figures the plots (through :mod:`perf.plots.canvas`) close, kept open to be read back."""
    return keep_figures(plot_canvas)
