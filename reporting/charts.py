"""Charts for reports as self-contained SVG: crisp in any browser and at any print size.

Long series are reduced to a min/max envelope first (`reporting.series`), so a day of
one-second samples stays a small file and a single spike still shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

from engine.model.units import format_duration
from reporting import palette
from reporting.series import envelope

WIDTH, HEIGHT = 900, 290
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 44, 44
LEGEND_Y = 34  # the legend's row: between the title and the plot, where it covers no line
MAX_POINTS = 1200


@dataclass(frozen=True)
class Line:
    label: str
    xs: Sequence[float] | np.ndarray
    ys: Sequence[float] | np.ndarray
    colour: str
    markers: bool = False
    shape: str = "circle"  # the markers' shape: circle, cross or square; what tells points apart in black and white
    joined: bool = True  # a line through the points (False: the markers alone)


@dataclass(frozen=True)
class Level:
    """A horizontal reference line: a target or a threshold."""

    value: float
    label: str
    colour: str


@dataclass(frozen=True)
class Mark:
    """A vertical reference line labelled at the plot's top: where a sweep's step starts, or a chosen setting."""

    x: float
    label: str
    colour: str = "#777"
    dashed: bool = True


@dataclass(frozen=True)
class Span:
    """A shaded stretch of the x axis, named in the legend: where a limit lies between two measured points."""

    start: float
    end: float
    label: str
    colour: str = "#e2e2e2"


LEGEND_SWATCH = 18


def _marker(shape: str, x: float, y: float, colour: str) -> str:
    """A point's marker, its shape legible without colour: a filled circle, a cross, or a hollow square."""
    if shape == "cross":
        return (f'<path d="M{x - 4:.1f},{y - 4:.1f}L{x + 4:.1f},{y + 4:.1f}M{x - 4:.1f},{y + 4:.1f}L{x + 4:.1f},{y - 4:.1f}" '
                f'stroke="{colour}" stroke-width="2.2"/>')
    if shape == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="white" stroke="{colour}" stroke-width="1.8"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def _text_width(text: str) -> float:
    """About how wide `text` is at the charts' 11 px font (no font metrics without a renderer)."""
    return 6.2 * len(text)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    if not math.isfinite(low) or not math.isfinite(high) or high <= low:
        return [low]
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = min((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw), default=raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _number(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def line_chart(
    title: str,
    y_label: str,
    lines: Sequence[Line],
    levels: Sequence[Level] = (),
    *,
    marks: Sequence[Mark] = (),
    spans: Sequence[Span] = (),
    x_label: str = "elapsed (h:mm:ss)",
    x_words: Callable[[float], str] = format_duration,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """An SVG line chart with reference levels, vertical marks, shaded spans and a legend."""
    reduced = []
    for line in lines:
        xs, ys = np.asarray(line.xs, dtype=float), np.asarray(line.ys, dtype=float)
        if not line.markers:
            xs, ys = envelope(xs, ys, MAX_POINTS)
        reduced.append((line, xs, ys))
    edges = np.array([m.x for m in marks] + [x for span in spans for x in (span.start, span.end)], dtype=float)
    all_x = np.concatenate([xs for _l, xs, _y in reduced] + [edges]) if reduced else np.array([0.0, 1.0])
    all_y = np.concatenate([ys for _l, _x, ys in reduced] + [np.array([lv.value for lv in levels])]) if reduced else np.array([0.0, 1.0])
    x0, x1 = (float(all_x.min()), float(all_x.max())) if all_x.size else (0.0, 1.0)
    if any(line.markers for line in lines):  # room for the outermost markers; a lone point in the middle
        pad = (x1 - x0) * 0.05 if x1 > x0 else max(abs(x0) * 0.2, 0.5)
        x0, x1 = (max(0.0, x0 - pad) if x0 >= 0 else x0 - pad), x1 + pad
    if x1 <= x0:
        x1 = x0 + 1.0
    y0 = 0.0
    y1 = float(all_y.max()) * 1.1 if all_y.size and all_y.max() > 0 else 1.0
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - (y - y0) / (y1 - y0) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    for span in spans:
        left, right = sorted((px(span.start), px(span.end)))
        out.append(f'<rect x="{left:.1f}" y="{TOP}" width="{right - left:.1f}" height="{plot_h}" fill="{span.colour}"/>')
    for tick in nice_ticks(y0, y1):
        y = py(tick)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{width - RIGHT}" y2="{y:.1f}" stroke="{palette.GRID}"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{_number(tick)}</text>')
    x_ticks = nice_ticks(x0, x1, 6)
    words = [x_words(tick) for tick in x_ticks]
    if len(set(words)) < len(words):  # whole seconds cannot tell a sub-second axis's ticks apart
        unit = " s" if x_words is format_duration else ""
        words = [f"{_number(tick)}{unit}" for tick in x_ticks]
        x_label = x_label.replace("(h:mm:ss)", "(s)")
    for tick, word in zip(x_ticks, words, strict=True):
        x = px(tick)
        out.append(f'<line x1="{x:.1f}" y1="{TOP + plot_h}" x2="{x:.1f}" y2="{TOP + plot_h + 4}" stroke="#555"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{escape(word)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#555"/>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{height - 8}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{TOP + plot_h / 2}" text-anchor="middle" transform="rotate(-90 14 {TOP + plot_h / 2})">'
               f'{escape(y_label)}</text>')
    out += _marks([(px(m.x), m) for m in marks], TOP + plot_h, width)
    for level in levels:
        y = py(level.value)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{width - RIGHT}" y2="{y:.1f}" stroke="{level.colour}" '
                   f'stroke-width="1.5" stroke-dasharray="6,4"/>')
        out.append(f'<text x="{LEFT + 6}" y="{y - 4:.1f}" fill="{level.colour}">{escape(level.label)}</text>')
    for line, xs, ys in reduced:
        if not len(xs):
            continue
        if line.joined:
            points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys, strict=False))
            out.append(f'<polyline fill="none" stroke="{line.colour}" stroke-width="1.4" points="{points}"/>')
        if line.markers:
            out += [_marker(line.shape, px(x), py(y), line.colour) for x, y in zip(xs, ys, strict=False)]
    out += _legend([line for line, _xs, _ys in reduced[:12] if line.label], spans, width)
    out.append("</svg>")
    return "".join(out)


def _marks(placed: Sequence[tuple[float, Mark]], bottom: float, width: int) -> list[str]:
    """Vertical lines over the plot, each labelled at its top, unless the label would run into the one before."""
    out, free_from = [], float(LEFT)
    for x, mark in sorted(placed, key=lambda p: p[0]):
        dash = ' stroke-dasharray="3,3"' if mark.dashed else ' stroke-width="1.5"'
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="{mark.colour}"{dash}/>')
        label_w = _text_width(mark.label)
        if x + 3 + label_w <= width - RIGHT and x + 3 >= free_from:
            out.append(f'<text x="{x + 3:.1f}" y="{TOP + 12}" fill="{mark.colour}">{escape(mark.label)}</text>')
            free_from = x + 3 + label_w + 6
        elif x + 3 + label_w > width - RIGHT and x - 3 - label_w >= free_from:  # at the right edge: left of its line
            out.append(f'<text x="{x - 3:.1f}" y="{TOP + 12}" text-anchor="end" fill="{mark.colour}">{escape(mark.label)}</text>')
            free_from = x + 6
    return out


def _legend(lines: Sequence[Line], spans: Sequence[Span], width: int) -> list[str]:
    """One row above the plot, right-aligned, the last entry rightmost: each line's swatch (and marker), each span's."""
    out, right = [], float(width - RIGHT)
    entries: list[Line | Span] = [*lines, *spans]
    for entry in reversed(entries):
        left = right - LEGEND_SWATCH - 4 - _text_width(entry.label)
        if isinstance(entry, Span):
            out.append(f'<rect x="{left}" y="{LEGEND_Y - 9}" width="{LEGEND_SWATCH}" height="10" fill="{entry.colour}" '
                       'stroke="#999" stroke-width="0.5"/>')
        elif entry.joined:
            out.append(f'<line x1="{left}" y1="{LEGEND_Y - 4}" x2="{left + LEGEND_SWATCH}" y2="{LEGEND_Y - 4}" '
                       f'stroke="{entry.colour}" stroke-width="2"/>')
        else:  # points alone: their marker says which they are
            out.append(_marker(entry.shape, left + LEGEND_SWATCH / 2, LEGEND_Y - 4, entry.colour))
        out.append(f'<text x="{left + LEGEND_SWATCH + 4}" y="{LEGEND_Y}">{escape(entry.label)}</text>')
        right = left - 14
    return out
