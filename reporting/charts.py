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


@dataclass(frozen=True)
class Level:
    """A horizontal reference line: a target or a threshold."""

    value: float
    label: str
    colour: str


LEGEND_SWATCH = 18


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
    x_label: str = "elapsed (h:mm:ss)",
    x_words: Callable[[float], str] = format_duration,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """An SVG line chart with reference levels and a legend."""
    reduced = []
    for line in lines:
        xs, ys = np.asarray(line.xs, dtype=float), np.asarray(line.ys, dtype=float)
        if not line.markers:
            xs, ys = envelope(xs, ys, MAX_POINTS)
        reduced.append((line, xs, ys))
    all_x = np.concatenate([xs for _l, xs, _y in reduced]) if reduced else np.array([0.0, 1.0])
    all_y = np.concatenate([ys for _l, _x, ys in reduced] + [np.array([lv.value for lv in levels])]) if reduced else np.array([0.0, 1.0])
    x0, x1 = (float(all_x.min()), float(all_x.max())) if all_x.size else (0.0, 1.0)
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
    for level in levels:
        y = py(level.value)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{width - RIGHT}" y2="{y:.1f}" stroke="{level.colour}" '
                   f'stroke-width="1.5" stroke-dasharray="6,4"/>')
        out.append(f'<text x="{LEFT + 6}" y="{y - 4:.1f}" fill="{level.colour}">{escape(level.label)}</text>')
    for line, xs, ys in reduced:
        if not len(xs):
            continue
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys, strict=False))
        out.append(f'<polyline fill="none" stroke="{line.colour}" stroke-width="1.4" points="{points}"/>')
        if line.markers:
            for x, y in zip(xs, ys, strict=False):
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="{line.colour}"/>')
    # right-aligned in one row above the plot, last entry rightmost
    right = float(width - RIGHT)
    for line, _xs, _ys in reversed(reduced[:12]):
        left = right - LEGEND_SWATCH - 4 - _text_width(line.label)
        out.append(f'<line x1="{left}" y1="{LEGEND_Y - 4}" x2="{left + LEGEND_SWATCH}" y2="{LEGEND_Y - 4}" '
                   f'stroke="{line.colour}" stroke-width="2"/>')
        out.append(f'<text x="{left + LEGEND_SWATCH + 4}" y="{LEGEND_Y}">{escape(line.label)}</text>')
        right = left - 14
    out.append("</svg>")
    return "".join(out)
