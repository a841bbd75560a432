"""Live plots of a run: transactional IOPS against the target, latencies against the thresholds.

Samples go into growing numpy arrays; the curves downsample (peak mode, so spikes stay
visible) and clip to the view, so a 24-hour run of one-second samples redraws quickly
(bench/plot_redraw.py).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

pg.setConfigOptions(antialias=False, background="w", foreground="k")

INSTANCE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


class Series:
    """A growing (x, y) series with amortised appends."""

    def __init__(self) -> None:
        self.x = np.empty(1024)
        self.y = np.empty(1024)
        self.n = 0

    def append(self, x: float, y: float) -> None:
        if self.n == len(self.x):
            self.x = np.resize(self.x, 2 * self.n)
            self.y = np.resize(self.y, 2 * self.n)
        self.x[self.n] = x
        self.y[self.n] = y
        self.n += 1

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        for x, y in zip(xs, ys):
            self.append(float(x), float(y))

    def view(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x[: self.n], self.y[: self.n]


def _plot(title: str, unit: str) -> pg.PlotWidget:
    widget = pg.PlotWidget()
    item = widget.getPlotItem()
    item.setTitle(title)
    item.setLabel("left", unit)
    item.setLabel("bottom", "elapsed", units="min")
    item.showGrid(x=True, y=True, alpha=0.25)
    item.addLegend(offset=(10, 10))
    item.setDownsampling(auto=True, mode="peak")
    item.setClipToView(True)
    widget.setMinimumHeight(180)
    return widget


class LivePlots(QWidget):
    """IOPS with its target; DB read and log write latency with their thresholds."""

    def __init__(self) -> None:
        super().__init__()
        self.iops_plot = _plot("Transactional IOPS", "IOPS")
        self.latency_plot = _plot("Average latency per interval", "ms")
        self.per_instance = QCheckBox("Show each instance")
        self.per_instance.setToolTip("Add one database read latency and one IOPS curve per database instance")
        self.per_instance.toggled.connect(self._toggle_instances)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.per_instance)
        layout.addWidget(self.iops_plot, 1)
        layout.addWidget(self.latency_plot, 1)
        self.reset()

    def reset(self, target: float | None = None, read_limit: float = 20.0, log_limit: float = 10.0) -> None:
        for plot in (self.iops_plot, self.latency_plot):
            plot.getPlotItem().clear()
        self.iops = Series()
        self.read = Series()
        self.log = Series()
        self.instance_iops: dict[str, Series] = {}
        self.instance_read: dict[str, Series] = {}
        self.instance_curves: list[pg.PlotDataItem] = []
        self.iops_curve = self.iops_plot.plot(name="achieved", pen=pg.mkPen("#1f4e79", width=2))
        self.read_curve = self.latency_plot.plot(name="database reads", pen=pg.mkPen("#1f4e79", width=2))
        self.log_curve = self.latency_plot.plot(name="log writes", pen=pg.mkPen("#c55a11", width=2))
        dash = pg.QtCore.Qt.PenStyle.DashLine
        if target is not None:
            line = pg.InfiniteLine(target, angle=0, pen=pg.mkPen("#2e7d32", width=2, style=dash),
                                   label=f"target {target:,.0f}", labelOpts={"position": 0.05, "color": "#2e7d32"})
            self.iops_plot.addItem(line)
        for value, colour, words in ((read_limit, "#1f4e79", "read limit"), (log_limit, "#c55a11", "log limit")):
            self.latency_plot.addItem(pg.InfiniteLine(value, angle=0, pen=pg.mkPen(colour, width=1, style=dash),
                                                      label=f"{words} {value:g} ms", labelOpts={"position": 0.9, "color": colour}))
        self._toggle_instances()

    def add_sample(self, elapsed_s: float, summary: dict, instances: list[dict]) -> None:
        minutes = elapsed_s / 60.0
        self.iops.append(minutes, summary.get("transactional_iops", 0.0))
        self.read.append(minutes, summary.get("db_read_avg_latency_ms", 0.0))
        self.log.append(minutes, summary.get("log_write_avg_latency_ms", 0.0))
        for row in instances:
            self.instance_iops.setdefault(row["name"], Series()).append(minutes, row.get("transactional_iops", 0.0))
            self.instance_read.setdefault(row["name"], Series()).append(minutes, row.get("db_read_avg_latency_ms", 0.0))
        self.refresh()

    def refresh(self) -> None:
        self.iops_curve.setData(*self.iops.view())
        self.read_curve.setData(*self.read.view())
        self.log_curve.setData(*self.log.view())
        if self.per_instance.isChecked():
            if len(self.instance_curves) != 2 * len(self.instance_iops):
                self._toggle_instances()
            for index, name in enumerate(self.instance_iops):
                self.instance_curves[2 * index].setData(*self.instance_iops[name].view())
                self.instance_curves[2 * index + 1].setData(*self.instance_read[name].view())

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
