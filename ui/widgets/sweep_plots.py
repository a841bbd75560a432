"""A load sweep's curve: transactional IOPS and database read latency against the effective load, a point a step.

The load axis is threads ÷ SluggishSessions on a logarithmic scale (the sweep moves along it
by factors). A step that kept every latency threshold is a filled green point, one that broke
one a hollow red ring; a step that says nothing of the storage (the host's CPU saturated, or
no database reads) a grey square with its reason. The bracket, the heaviest passing step and
the lightest failing one above it, is shaded: the latency limit lies between them. The
setting the advisor chose from the curve is a vertical line.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.tuning.advisor import Advice
from ui.widgets.style import GUIDE, LIMIT, NEUTRAL, TARGET, laid_out, verdict_colour
from ui.widgets.sweep_points import StepPoint, bracket

LOAD_AXIS = "effective load (threads ÷ SluggishSessions)"
BRACKET_BRUSH = (255, 193, 7, 45)  # a light amber band: where the latency limit lies
PASS, FAIL = verdict_colour("pass"), verdict_colour("fail")
SILENT = "#bbbbbb"  # a step that says nothing of the storage
KEY = " &nbsp; ".join(f"<span style='color:{colour}'>{glyph}</span>&nbsp;{words.replace(' ', '&nbsp;')}"
                      for glyph, colour, words in (  # each entry kept whole on its line
                          ("●", PASS, "kept the thresholds"), ("○", FAIL, "broke a threshold"),
                          ("■", NEUTRAL, "host\u2011bound or no reads"), ("█", "#ffe9a8", "the limit lies here"),
                          ("┆", NEUTRAL, "chosen")))
HEADROOM = 0.35  # of the values' span, above the highest: room for the step numbers over the points


def _log(load: float) -> float:
    """Where a load sits on the logarithmic axis (pyqtgraph places items other than curves in log10 units)."""
    return math.log10(max(load, 1e-6))


class LoadAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph ships no type information
    """The effective load on a log scale, written as numbers (0.5, 2, 20), not powers of ten; over a wide span
    only the 1-2-5 ticks are named, so the labels never crowd."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if not self.logMode:
            return list(super().tickStrings(values, scale, spacing))
        loads = [10 ** value * scale for value in values]
        wide = len(loads) > 1 and max(loads) / max(min(loads), 1e-9) > 5
        return [f"{load:.3g}" if not wide or f"{load:.1e}"[0] in "125" else "" for load in loads]


def _plot(title: str, unit: str) -> pg.PlotWidget:
    widget = pg.PlotWidget(axisItems={"bottom": LoadAxis(orientation="bottom")})
    item = widget.getPlotItem()
    item.setTitle(title)
    item.setLabel("left", unit)
    item.setLabel("bottom", LOAD_AXIS)
    item.setLogMode(x=True, y=False)
    item.getAxis("left").enableAutoSIPrefix(False)
    item.getAxis("bottom").enableAutoSIPrefix(False)
    item.showGrid(x=True, y=True, alpha=0.2)
    widget.setMinimumHeight(150)
    return widget


class SweepPlots(QWidget):
    """Load–IOPS and load–read latency of a sweep, redrawn whole when a step completes (a few points)."""

    def __init__(self) -> None:
        super().__init__()
        self.caption = QLabel(wordWrap=True)
        self.key = QLabel(KEY, wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.iops_plot = _plot("Transactional IOPS per step", "IOPS")
        self.latency_plot = _plot("Database read latency per step", "ms")
        laid_out(QVBoxLayout(self), self.caption, self.key, (self.iops_plot, 1),
                 (self.latency_plot, 1)).setContentsMargins(0, 0, 0, 0)
        self.target: float | None = None
        self.read_limit = 20.0
        self.points: list[StepPoint] = []
        self.bracket: tuple[StepPoint, StepPoint] | None = None
        self.chosen: Advice | None = None
        self.note: str = ""

    def reset(self, target: float | None, read_limit: float) -> None:
        self.target = target
        self.read_limit = read_limit
        self.points = []
        self.bracket = None
        self.chosen = None
        self.note = ""
        self.redraw()

    def show_points(self, points: list[StepPoint], chosen: Advice | None = None, note: str = "") -> None:
        """The steps measured so far; `chosen`, the advisor's setting read from them; `note` follows "N steps"
        in the caption (the step running, or whose sweep it was)."""
        self.points = sorted(points, key=lambda point: point.effective_load)
        self.bracket = bracket(self.points)
        self.chosen = chosen
        self.note = note
        self.redraw()

    def redraw(self) -> None:
        dash = Qt.PenStyle.DashLine
        for plot in (self.iops_plot, self.latency_plot):
            plot.getPlotItem().clear()
        if self.target is not None:
            self.iops_plot.addItem(pg.InfiniteLine(self.target, angle=0, pen=pg.mkPen(TARGET, width=2, style=dash),
                                                   label=f"target {self.target:,.0f}",
                                                   labelOpts={"position": 0.2, "color": TARGET}))
        self.latency_plot.addItem(pg.InfiniteLine(self.read_limit, angle=0, pen=pg.mkPen(LIMIT, width=1, style=dash),
                                                  label=f"read limit {self.read_limit:g} ms",
                                                  labelOpts={"position": 0.2, "color": LIMIT}))
        if self.bracket is not None:
            low, high = self.bracket
            for plot in (self.iops_plot, self.latency_plot):
                band = pg.LinearRegionItem((_log(low.effective_load), _log(high.effective_load)), movable=False,
                                           brush=pg.mkBrush(*BRACKET_BRUSH), pen=pg.mkPen(None))
                band.setZValue(-10)
                plot.addItem(band)
        if self.chosen is not None:
            load = self.chosen.threads / max(1, self.chosen.sluggish_sessions)
            words = f"chosen: {self.chosen.threads} ÷ {self.chosen.sluggish_sessions}"
            for plot in (self.iops_plot, self.latency_plot):
                plot.addItem(pg.InfiniteLine(_log(load), angle=90, pen=pg.mkPen(NEUTRAL, width=2, style=Qt.PenStyle.DotLine),
                                             label=words, labelOpts={"position": 0.92, "color": NEUTRAL}))
        self._draw_points()

    def _draw_points(self) -> None:
        points = self.points
        self.caption.setText(self._caption())
        if not points:  # the first step settles: the axes wait around its lines
            for plot, level in ((self.iops_plot, self.target or 1.0), (self.latency_plot, self.read_limit)):
                plot.getPlotItem().setRange(xRange=(-0.3, 0.7), yRange=(0.0, 1.6 * level), padding=0)
            return
        loads = [point.effective_load for point in points]
        shown = [_log(load) for load in loads] + ([_log(self.chosen.threads / max(1, self.chosen.sluggish_sessions))]
                                                   if self.chosen is not None else [])
        middle, half = (min(shown) + max(shown)) / 2, max((max(shown) - min(shown)) / 2, 0.15) * 1.15
        for plot, values, line in ((self.iops_plot, [p.iops for p in points], self.target),
                                   (self.latency_plot, [p.read_ms for p in points], self.read_limit)):
            low, high = min([*values, line or values[0]]), max([*values, line or values[0]])
            span = max(high - low, 1.0)
            plot.getPlotItem().setYRange(low - 0.08 * span, high + HEADROOM * span, padding=0)
            plot.getPlotItem().setXRange(middle - half, middle + half, padding=0)  # one step alone still has a span
            plot.plot(loads, values, pen=pg.mkPen(GUIDE, width=1))
            for chosen, symbol, pen, brush in (
                ([p for p in points if p.passed], "o", PASS, PASS),
                ([p for p in points if p.telling and not p.latency_ok], "o", FAIL, "w"),
                ([p for p in points if not p.telling], "s", NEUTRAL, SILENT),
            ):
                if not chosen:
                    continue
                ys = [p.iops if plot is self.iops_plot else p.read_ms for p in chosen]
                plot.plot([p.effective_load for p in chosen], ys, pen=None, symbol=symbol, symbolSize=11,
                          symbolPen=pg.mkPen(pen, width=2), symbolBrush=pg.mkBrush(brush))
            for point, value in zip(points, values, strict=True):
                label = pg.TextItem(_label(point), color=NEUTRAL, anchor=(0.5, 1.15))
                label.setPos(_log(point.effective_load), value)
                plot.addItem(label)

    def _caption(self) -> str:
        """A line or two over the plots; the settings in full in its tooltip."""
        passed = [p for p in self.points if p.passed]
        if not self.points:
            return f"Load sweep{self.note}. Each step shows as a point once its samples are judged."
        short = [f"Load sweep: {len(self.points)} step{'s' if len(self.points) != 1 else ''}{self.note}."]
        full = list(short)
        if self.bracket is not None:
            low, high = self.bracket
            short.append(f"Limit between steps {low.step + 1} and {high.step + 1}.")
            full.append(f"The latency limit lies between step {low.step + 1} ({_setting(low)}, kept the thresholds) "
                        f"and step {high.step + 1} ({_setting(high)}, broke them).")
        elif self.points and len(passed) == len(self.points):
            short.append("Every step kept the thresholds.")
            full.append(short[-1])
        if self.chosen is not None:
            short.append(f"Chosen: {self.chosen.threads} threads, SluggishSessions {self.chosen.sluggish_sessions}.")
            full.append(f"The advisor chose {self.chosen.threads} threads, SluggishSessions "
                        f"{self.chosen.sluggish_sessions} from the curve: {self.chosen.rationale}.")
        self.caption.setToolTip(" ".join(full))
        return " ".join(short)


def _setting(point: StepPoint) -> str:
    return f"{point.threads} threads, SluggishSessions {point.sluggish_sessions}"


def _label(point: StepPoint) -> str:
    """A point's label: its step number as the test log counts, and why it says nothing of the storage."""
    number = str(point.step + 1)
    if point.host_bound:
        return f"{number} host-bound" + (": at least" if point.passed else "")
    if point.no_reads:
        return f"{number} no reads"
    return number
