"""Small line charts as server-rendered SVG: the geometry here, the markup in a template.

No JavaScript charting library: a chart is a frame, a few ticks and one polyline per series (a
dot for a series of one point), computed in data coordinates and mapped to the SVG box. Colours
are CSS classes (``line-0`` to ``line-5``, reused in turn), so the pages need no inline styles
under their CSP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LineChart", "PlotLine", "Series", "Tick", "line_chart"]

WIDTH = 560
"""Width of the SVG box."""
HEIGHT = 220
"""Height of the SVG box."""
MARGIN = (44, 12, 14, 30)
"""Left, right, top and bottom margins around the plot area."""
COLOURS = 6
"""Number of line colour classes in the stylesheet."""


@dataclass(frozen=True)
class Series:
    """One line of data."""

    name: str
    """Legend text."""
    points: Sequence[tuple[float, float]]
    """``(x, y)`` pairs in data units, in x order."""


@dataclass(frozen=True)
class Tick:
    """A labelled position on an axis."""

    at: float
    """Position in SVG units."""
    label: str
    """Text shown."""


@dataclass(frozen=True)
class PlotLine:
    """A series mapped to the SVG box."""

    name: str
    """Legend text."""
    points: str
    """The polyline's ``points`` attribute."""
    colour: int
    """Index of its colour class."""
    marker: tuple[float, float] | None = None
    """The point of a series that has only one, drawn as a dot (a polyline of one point draws
    nothing); None for a series of two points or more."""


@dataclass(frozen=True)
class LineChart:
    """Everything the chart template draws."""

    width: int
    """SVG width."""
    height: int
    """SVG height."""
    left: float
    """Plot area's left edge."""
    right: float
    """Plot area's right edge."""
    top: float
    """Plot area's top edge."""
    bottom: float
    """Plot area's bottom edge."""
    lines: list[PlotLine]
    """One per series."""
    x_ticks: list[Tick]
    """Ticks under the plot."""
    y_ticks: list[Tick]
    """Ticks left of the plot."""
    x_label: str
    """Caption of the x axis."""
    y_label: str
    """Caption of the y axis."""

    @property
    def single_points(self) -> bool:
        """Whether every series has one point (the chart shows dots, no line)."""
        return all(line.marker is not None for line in self.lines)


def _span(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    if low == high:
        return low - 1.0, high + 1.0
    return low, high


def _label(value: float) -> str:
    """A tick label with three significant digits (``1`` for 0.9999, ``400`` for 400.0)."""
    return f"{value:.3g}"


def line_chart(
    series: Sequence[Series], *, x_label: str, y_label: str, include_zero: bool = True
) -> LineChart:
    """Map ``series`` to an SVG box with ticks at the ends of both axes (and at y = 0).

    Raises:
        ValueError: no series has a point.
    """
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    if not xs:
        raise ValueError("a chart needs at least one point")
    x_low, x_high = _span(xs)
    y_low, y_high = _span([*ys, 0.0] if include_zero else ys)
    left, right = MARGIN[0], WIDTH - MARGIN[1]
    top, bottom = MARGIN[2], HEIGHT - MARGIN[3]

    def x_at(x: float) -> float:
        return left + (x - x_low) / (x_high - x_low) * (right - left)

    def y_at(y: float) -> float:
        return bottom - (y - y_low) / (y_high - y_low) * (bottom - top)

    lines = [
        PlotLine(
            s.name,
            " ".join(f"{x_at(x):.1f},{y_at(y):.1f}" for x, y in s.points),
            i % COLOURS,
            (round(x_at(s.points[0][0]), 1), round(y_at(s.points[0][1]), 1))
            if len(s.points) == 1
            else None,
        )
        for i, s in enumerate(series)
    ]
    y_values = sorted({y_low, y_high, *([0.0] if y_low < 0.0 < y_high else [])})
    return LineChart(
        width=WIDTH,
        height=HEIGHT,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        lines=lines,
        x_ticks=[Tick(x_at(v), _label(v)) for v in (x_low, x_high)],
        y_ticks=[Tick(y_at(v), _label(v)) for v in y_values],
        x_label=x_label,
        y_label=y_label,
    )
