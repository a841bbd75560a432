"""A tuning session's iterations: a table, and the IOPS and latency curves they trace."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.model.config import TestConfig
from engine.store.rows import RunRow
from ui.widgets.style import GUIDE, LIMIT, TARGET, verdict_colour, verdict_qcolor

COLUMNS = ["Run", "Threads", "SluggishSessions", "Effective load", "Achieved IOPS", "Target IOPS",
           "DB read ms", "Log write ms", "Verdict"]


class SessionView(QWidget):
    back_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 14pt; font-weight: bold;")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.iops_plot = pg.PlotWidget(title="IOPS against effective load (threads / SluggishSessions)")
        self.latency_plot = pg.PlotWidget(title="Database read latency against effective load")
        for plot, unit in ((self.iops_plot, "IOPS"), (self.latency_plot, "ms")):
            plot.setLabel("left", unit)
            plot.setLabel("bottom", "effective load (sessions)")
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.getAxis("bottom").enableAutoSIPrefix(False)
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.setMinimumHeight(200)
        back = QPushButton("Back")
        back.setToolTip("Back to the run's results")
        back.clicked.connect(self.back_requested)
        plots = QHBoxLayout()
        plots.addWidget(self.iops_plot)
        plots.addWidget(self.latency_plot)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addLayout(plots, 1)
        layout.addWidget(back)

    def show_session(self, name: str, runs: list[RunRow]) -> None:
        self.title.setText(f"Tuning session '{name}': {len(runs)} run(s)")
        self.table.setRowCount(len(runs))
        target = runs[-1].config if runs else None
        for row, run in enumerate(runs):
            config = run.config
            cells = [
                run.run_id, str(run.threads), str(run.sluggish_sessions), f"{run.threads / run.sluggish_sessions:.2f}",
                _num(run.achieved_iops, 1), f"{config.target_transactional_iops:,.1f}",
                _num(run.db_read_avg_latency_ms, 2), _num(run.log_write_avg_latency_ms, 2), run.status,
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == len(cells) - 1:
                    item.setForeground(verdict_qcolor(run.status))
                if column == len(cells) - 1 and run.reasons:
                    item.setToolTip("\n".join(run.reasons))
                self.table.setItem(row, column, item)
        self._plot(runs, target)

    def _plot(self, runs: list[RunRow], config: TestConfig | None) -> None:
        self.iops_plot.clear()
        self.latency_plot.clear()
        done = [r for r in runs if r.achieved_iops is not None]
        loads = [r.threads / r.sluggish_sessions for r in done]
        brushes = [pg.mkBrush(verdict_colour(r.status)) for r in done]
        order = sorted(range(len(done)), key=lambda i: loads[i])
        xs = [loads[i] for i in order]
        self.iops_plot.plot(xs, [done[i].achieved_iops for i in order], pen=pg.mkPen(GUIDE, width=1))
        self.iops_plot.addItem(pg.ScatterPlotItem(loads, [r.achieved_iops for r in done], size=11, brush=brushes))
        self.latency_plot.plot(xs, [done[i].db_read_avg_latency_ms for i in order], pen=pg.mkPen(GUIDE, width=1))
        self.latency_plot.addItem(
            pg.ScatterPlotItem(loads, [r.db_read_avg_latency_ms for r in done], size=11, brush=brushes)
        )
        if config is not None:
            dash = pg.QtCore.Qt.PenStyle.DashLine
            self.iops_plot.addItem(pg.InfiniteLine(config.target_transactional_iops, angle=0,
                                                   pen=pg.mkPen(TARGET, width=2, style=dash),
                                                   label="target", labelOpts={"color": TARGET}))
            limit = config.active_thresholds.db_read_avg_latency_ms
            self.latency_plot.addItem(pg.InfiniteLine(limit, angle=0, pen=pg.mkPen(LIMIT, width=2, style=dash),
                                                      label=f"limit {limit:g} ms", labelOpts={"color": LIMIT}))


def _num(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"
