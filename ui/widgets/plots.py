"""Live plots of a run: transactional IOPS against the target, latencies against the thresholds; for a scan
(Database checksum or backup), read throughput and read latency, which nothing is judged against.

Samples go into growing numpy arrays. What a curve is given is the part of its series
in view, reduced to at most `MAX_POINTS` points as a min/max envelope (so a spike
never disappears): a 24-hour run of one-second samples redraws quickly
(bench/plot_redraw.py), and zooming in shows every sample again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

from engine.model.host_names import short_names
from engine.model.units import format_duration
from engine.results.sample_schema import Figures, InstanceFigures
from engine.results.scans import megabytes
from reporting.series import envelope
from ui.widgets.style import GUIDE, INSTANCE_COLOURS, LOG, READS, TARGET, laid_out, tipped

pg.setConfigOptions(antialias=False, background="w", foreground="k")

FEW_SAMPLES = 60  # a scan with no more samples marks each one: a short scan may have only one
MAX_POINTS = 1600  # per curve: a minimum and a maximum for every pixel or so of a wide plot


def _latency(per_s: float, average_ms: float) -> float:
    """An interval's average latency, or a gap (NaN) where it did no such I/O: not a 0 ms the storage never gave."""
    return average_ms if per_s > 0 else float("nan")


class Series:
    """A growing (x, y) series with amortised appends (`compact`: in single precision, as each instance's curves
    are kept: half the memory, still exact to a hundredth of a second over a day)."""

    def __init__(self, *, compact: bool = False) -> None:
        kind = np.float32 if compact else np.float64
        self.x = np.empty(1024, dtype=kind)
        self.y = np.empty(1024, dtype=kind)
        self.n = 0

    def append(self, x: float, y: float) -> None:
        if self.n == len(self.x):
            self.x = np.resize(self.x, 2 * self.n)
            self.y = np.resize(self.y, 2 * self.n)
        self.x[self.n] = x
        self.y[self.n] = y
        self.n += 1

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        for x, y in zip(xs, ys, strict=False):
            self.append(float(x), float(y))

    def view(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x[: self.n], self.y[: self.n]

    def envelope(self, low: float | None = None, high: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The samples between x = low and high (all by default), reduced to a min/max envelope."""
        x, y = self.view()
        if low is not None and high is not None and len(x):
            start = max(0, int(np.searchsorted(x, low)) - 1)
            stop = min(len(x), int(np.searchsorted(x, high)) + 1)
            x, y = x[start:stop], y[start:stop]
        return envelope(x, y, MAX_POINTS)


class ElapsedAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph ships no type information
    """Seconds since the start, written as m:ss or h:mm:ss."""

    def tickStrings(self, values: list[float], _scale: float, spacing: float) -> list[str]:
        whole = [format_duration(value) for value in values]
        if spacing < 1 or len(set(whole)) < len(whole):  # tenths of a second: a short run, or no sample yet
            return [f"{value:.1f} s" for value in values]
        return whole


def _plot(title: str, unit: str) -> pg.PlotWidget:
    widget = pg.PlotWidget(axisItems={"bottom": ElapsedAxis(orientation="bottom")})
    item = widget.getPlotItem()
    item.setTitle(title)
    item.setLabel("left", unit)
    item.setLabel("bottom", "elapsed (h:mm:ss)")
    item.getAxis("left").enableAutoSIPrefix(False)
    item.getAxis("bottom").enableAutoSIPrefix(False)  # elapsed seconds, written by ElapsedAxis
    item.showGrid(x=False, y=True, alpha=0.2)
    legend = item.addLegend(offset=(-10, 4))
    legend.setColumnCount(3)  # one line along the top, over the headroom kept free for it
    legend.setBrush(pg.mkBrush(255, 255, 255, 200))
    item.getViewBox().setDefaultPadding(0.12)
    widget.setMinimumHeight(180)
    return widget


class LivePlots(QWidget):
    """IOPS with its target; DB read and log write latency with their thresholds."""

    def __init__(self) -> None:
        super().__init__()
        self.iops_plot = _plot("Transactional IOPS", "IOPS")
        self.latency_plot = _plot("Average latency per interval", "ms")
        self.per_instance = tipped(QCheckBox("Show each instance"), "Add one database read latency and one IOPS "
                                   "curve per database instance")
        self.per_instance.toggled.connect(self._toggle_instances)
        for plot in (self.iops_plot, self.latency_plot):
            plot.getPlotItem().getViewBox().sigXRangeChanged.connect(self._zoomed)
        laid_out(QVBoxLayout(self), self.per_instance, (self.iops_plot, 1),
                 (self.latency_plot, 1)).setContentsMargins(0, 0, 0, 0)
        self.reset()

    def reset(self, target: float | None = None, read_limit: float = 20.0, log_limit: float = 10.0, *,
              scan: bool = False, servers: Mapping[str, tuple[str, str]] | None = None,
              server_target: float | None = None) -> None:
        """Empty plots for a run; a scan's (`scan`) show read throughput and read latency, with no target nor limits.
        A test across servers (`servers`: each instance's server, `TestConfig.instance_servers`) draws each server's
        line too (its instances summed) against its own share of the target (`server_target`)."""
        self.scan = scan
        self.server_of = {name: host for name, (host, _own) in (servers or {}).items()}
        self.servers = list(dict.fromkeys(self.server_of.values()))
        self.marks = 0  # steps and the measured window marked so far
        self.server_rates = {host: Series() for host in self.servers}
        self.iops = Series()
        self.read = Series()
        self.log = Series()
        self.instance_iops: dict[str, Series] = {}
        self.instance_read: dict[str, Series] = {}
        for plot in (self.iops_plot, self.latency_plot):
            plot.getPlotItem().clear()
            box = plot.getPlotItem().getViewBox()
            box.setLimits(xMin=0.0, yMin=0.0)  # no negative time, rate nor latency around the samples
            box.setRange(xRange=(0.0, 60.0), yRange=(0.0, 1.0), padding=0)  # until the first sample comes
            box.enableAutoRange()
            plot.plot([0.0, 0.0], [0.0, 0.0], pen=pg.mkPen(0, 0, 0, 0))  # the axis from zero: not a sliver around a target or a limit line
        self.iops_plot.getPlotItem().setTitle("Database read throughput" if scan else "Transactional IOPS")
        self.iops_plot.getPlotItem().setLabel("left", "MB/s" if scan else "IOPS")
        self.latency_plot.getPlotItem().setTitle("Average database read latency per interval" if scan
                                                 else "Average latency per interval")
        self.per_instance.setToolTip(f"Add one database read latency and one {'throughput' if scan else 'IOPS'} "
                                     "curve per database instance")
        self.instance_curves: list[pg.PlotDataItem] = []
        self.iops_curve = self.iops_plot.plot(name="database reads" if scan else "achieved", pen=pg.mkPen(READS, width=2))
        self.read_curve = self.latency_plot.plot(name="database reads", pen=pg.mkPen(READS, width=2))
        self.log_curve = self.latency_plot.plot(name=None if scan else "log writes", pen=pg.mkPen(LOG, width=2))
        pens = [pg.mkPen(colour, width=1.5) for colour in INSTANCE_COLOURS]
        legend = short_names(self.servers)  # the legend's line along the top names each server as narrowly as it can
        self.server_curves = {host: self.iops_plot.plot(name=legend[host], pen=pens[index % len(pens)])
                              for index, host in enumerate(self.servers)}
        if scan:  # nothing is judged against a target or a latency limit
            self._toggle_instances()
            return
        dash = pg.QtCore.Qt.PenStyle.DashLine
        if target is not None:
            line = pg.InfiniteLine(target, angle=0, pen=pg.mkPen(TARGET, width=2, style=dash),
                                   label=f"{'all servers’ ' if self.servers else ''}target {target:,.0f}",
                                   labelOpts={"position": 0.15, "color": TARGET})  # clear of the legend, top right
            self.iops_plot.addItem(line)
        if self.servers and server_target:
            self.iops_plot.addItem(pg.InfiniteLine(server_target, angle=0, pen=pg.mkPen(TARGET, width=1, style=dash),
                                                   label=f"each server’s target {server_target:,.0f}",
                                                   labelOpts={"position": 0.15, "color": TARGET}))
        for value, colour, words in ((read_limit, READS, "read limit"), (log_limit, LOG, "log limit")):
            self.latency_plot.addItem(pg.InfiniteLine(value, angle=0, pen=pg.mkPen(colour, width=1, style=dash),
                                                      label=f"{words} {value:g} ms", labelOpts={"position": 0.08, "color": colour}))
        self._toggle_instances()

    def mark_step(self, elapsed_s: float, words: str) -> None:
        """A load sweep's step, or the measured window, begins here: a dotted line across both plots, named on the
        IOPS plot."""
        pen = pg.mkPen(GUIDE, width=1, style=pg.QtCore.Qt.PenStyle.DotLine)
        self.marks += 1  # each mark's name a line below the one before's: close steps' names stay apart
        self.iops_plot.addItem(pg.InfiniteLine(elapsed_s, angle=90, pen=pen, label=words,
                                               labelOpts={"position": 0.95 - 0.1 * (self.marks % 2), "color": GUIDE}))
        self.latency_plot.addItem(pg.InfiniteLine(elapsed_s, angle=90, pen=pen))

    def _rate(self, figures: Figures) -> float:
        """What the upper plot draws: transactional IOPS, or a scan's database reads in MB/s (MiB, as Jetstress)."""
        return megabytes(figures.db_reads_per_s * figures.db_read_avg_bytes) if self.scan else figures.transactional_iops

    def add_sample(self, elapsed_s: float, summary: Figures, instances: Sequence[InstanceFigures]) -> None:
        self.iops.append(elapsed_s, self._rate(summary))
        self.read.append(elapsed_s, _latency(summary.db_reads_per_s, summary.db_read_avg_latency_ms))
        if not self.scan:
            self.log.append(elapsed_s, _latency(summary.log_writes_per_s, summary.log_write_avg_latency_ms))
        for host, series in self.server_rates.items() if instances else ():  # a simulated window's inner seconds: none
            series.append(elapsed_s, sum(self._rate(row) for row in instances if self.server_of.get(row.name) == host))
        for row in instances:
            self.instance_iops.setdefault(row.name, Series(compact=True)).append(elapsed_s, self._rate(row))
            self.instance_read.setdefault(row.name, Series(compact=True)).append(
                elapsed_s, _latency(row.db_reads_per_s, row.db_read_avg_latency_ms))
        self.refresh()

    def _span(self, plot: pg.PlotWidget) -> tuple[float | None, float | None]:
        """The x range in view when the user has zoomed; (None, None) while the plot follows the run."""
        box = plot.getPlotItem().getViewBox()
        if box.autoRangeEnabled()[0]:
            return None, None
        low, high = box.viewRange()[0]
        return float(low), float(high)

    def refresh(self) -> None:
        iops_span, latency_span = self._span(self.iops_plot), self._span(self.latency_plot)
        if self.scan:  # a short scan's one or two samples show as points
            marked = "o" if self.iops.n <= FEW_SAMPLES else None
            for curve in (self.iops_curve, self.read_curve):
                if curve.opts["symbol"] != marked:
                    curve.setSymbol(marked)
                    curve.setSymbolSize(6)
                    curve.setSymbolBrush(READS)
        self.iops_curve.setData(*self.iops.envelope(*iops_span), connect="finite")
        self.read_curve.setData(*self.read.envelope(*latency_span), connect="finite")
        self.log_curve.setData(*self.log.envelope(*latency_span), connect="finite")
        for host, curve in self.server_curves.items():
            curve.setData(*self.server_rates[host].envelope(*iops_span), connect="finite")
        if self.per_instance.isChecked():
            if len(self.instance_curves) != 2 * len(self.instance_iops):
                self._toggle_instances()
            for index, name in enumerate(self.instance_iops):
                self.instance_curves[2 * index].setData(*self.instance_iops[name].envelope(*iops_span), connect="finite")
                self.instance_curves[2 * index + 1].setData(
                    *self.instance_read[name].envelope(*latency_span), connect="finite"
                )

    def _zoomed(self, box: pg.ViewBox, *_range: object) -> None:
        """The user zoomed or panned: give the curves the samples now in view."""
        if self.iops.n and not box.autoRangeEnabled()[0]:
            self.refresh()

    def _toggle_instances(self) -> None:
        for index, curve in enumerate(self.instance_curves):
            (self.iops_plot if index % 2 == 0 else self.latency_plot).removeItem(curve)
        self.instance_curves = []
        if not self.per_instance.isChecked():
            return
        for index, name in enumerate(self.instance_iops):
            colour = INSTANCE_COLOURS[index % len(INSTANCE_COLOURS)]
            pen = pg.mkPen(colour, width=1)
            self.instance_curves.append(self.iops_plot.plot(name=name, pen=pen))
            self.instance_curves.append(self.latency_plot.plot(name=f"{name} reads", pen=pen))
        self.refresh()
