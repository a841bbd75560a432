"""A tuning session's iterations: a table, and the IOPS and latency curves they trace.

Any session of the store can be chosen (latest first), so the view serves with no run in the
window too. A row opens that run's report, or exports it as a PDF or prints it; its reasons (why it failed or was aborted) are a
column of their own. The curves leave out runs with no measured time: their figures are a
fraction of a second of a starting workload, not a point of the load curve. A load sweep's
steps are small diamonds under the runs: filled where a step kept the latency thresholds,
hollow where it broke one, grey where it said nothing of the storage. A test that runs as long as its
work takes (a Checksum or Backup scan, a Soft Recovery) is named in its row and kept off the curves:
it is no setting of the load to tune from.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QComboBox,
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
from engine.model.units import seconds_words
from engine.results.reasons import grouped_reasons
from engine.results.schema import RunResult
from engine.results.verdict import was_measured
from engine.store.rows import RunRow, marks_devices
from ui.scans import type_words
from ui.widgets.style import (
    GUIDE,
    LIMIT,
    LOG,
    NEUTRAL,
    TARGET,
    laid_out,
    read_only_table,
    tip_button,
    tipped,
    verdict_colour,
    verdict_qcolor,
)
from ui.widgets.sweep_points import StepPoint

COLUMNS = ["Run", "Started", "Test", "Measured", "Threads", "Sluggish\nSessions", "Effective\nload", "Achieved\nIOPS",
           "Target\nIOPS", "DB read\nms", "Log write\nms", "Verdict", "Reasons"]  # two lines each: every column in sight
VERDICT, REASONS = COLUMNS.index("Verdict"), COLUMNS.index("Reasons")
MEASURED = (COLUMNS.index("Achieved\nIOPS"), COLUMNS.index("DB read\nms"), COLUMNS.index("Log write\nms"))


class SessionView(QWidget):
    back_requested = Signal()
    session_chosen = Signal(str)  # a session's name, picked in the chooser
    report_requested = Signal(str)  # a run's id, its row opened
    pdf_requested = Signal(str)  # a run's id: its report exported as a PDF
    print_requested = Signal(str)  # a run's id: its report printed
    rename_requested = Signal(str)  # a session's name
    delete_run_requested = Signal(str)  # a run's id
    delete_session_requested = Signal(str)  # a session's name
    compare_requested = Signal(str, str)  # two runs' ids

    def __init__(self) -> None:
        super().__init__()
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 14pt; font-weight: bold;")
        self.chooser = tipped(QComboBox(minimumContentsLength=24), "Every tuning session in the run store, the latest first")
        self.chooser.activated.connect(self._on_chooser_activated)
        self.table = tipped(read_only_table(COLUMNS), "Double-click a run to open its report")
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.ExtendedSelection)  # two to compare
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(REASONS, QHeaderView.ResizeMode.Stretch)
        # the run's name gives up its width first (its folder and whole name in its tooltip): every column in sight
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.cellDoubleClicked.connect(self._on_table_cell_double_clicked)
        self.table.itemSelectionChanged.connect(self._on_table_item_selection_changed)
        self.iops_plot = pg.PlotWidget(title="IOPS against effective load (threads / SluggishSessions)")
        self.latency_plot = pg.PlotWidget(title="Database read and log write latency against effective load")
        self.latency_plot.addLegend(offset=(10, 10))
        for plot, unit in ((self.iops_plot, "IOPS"), (self.latency_plot, "ms")):
            plot.setLabel("left", unit)
            plot.setLabel("bottom", "effective load (threads ÷ SluggishSessions)")
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.getAxis("bottom").enableAutoSIPrefix(False)
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.setMinimumHeight(200)
        self.open_report = tip_button("Open report", "The full report of the selected run in the browser (HTML)",
                                      self._on_open_report_clicked)
        # the printable report of any run of the store, a killed one's too, where no browser is set up (Server Core)
        self.export_pdf = tip_button("Export PDF…", "The report of the selected run as a PDF, A4 or Letter",
                                     lambda: self._for_selected(self.pdf_requested))
        self.print_report = tip_button("Print…", "The report of the selected run on a printer",
                                       lambda: self._for_selected(self.print_requested))
        self.delete_run = tip_button("Delete run…", "The selected run out of the store, with the files Jetwise wrote "
                                     "in its folder", lambda: self._for_selected(self.delete_run_requested))
        self.compare = tip_button("Compare…", "The two selected runs side by side (Ctrl+click a second row)",
                                  self._on_compare_clicked)
        self.rename = QPushButton("Rename session…")
        self.rename.clicked.connect(lambda: self.rename_requested.emit(self.chooser.currentText()))
        self.delete_session = tip_button("Delete session…", "This session and its runs out of the store, with the "
                                         "files Jetwise wrote in their folders",
                                         lambda: self.delete_session_requested.emit(self.chooser.currentText()))
        self.run_buttons = (self.open_report, self.export_pdf, self.print_report, self.delete_run)
        for button in (*self.run_buttons, self.compare):
            button.setEnabled(False)
        back = tip_button("Back", "Back to the page this view was opened from", self.back_requested)
        heading = laid_out(QHBoxLayout(), (self.title, 1), QLabel("Session:"), self.chooser)
        plots = laid_out(QHBoxLayout(), self.iops_plot, self.latency_plot)
        buttons = laid_out(QHBoxLayout(), *self.run_buttons, self.compare, 1, self.rename, self.delete_session, back)
        laid_out(QVBoxLayout(self), heading, (self.table, 1), (plots, 1), buttons)
        self.runs: list[RunRow] = []

    def show_sessions(self, names: list[str], current: str | None) -> None:
        """The sessions to choose from (latest first), `current` chosen; with none, say how one comes to be."""
        self.chooser.clear()
        self.chooser.addItems(names)
        self.chooser.setEnabled(bool(names))
        if current in names:
            self.chooser.setCurrentIndex(names.index(current))
        if not names:
            self.title.setText("No tuning session yet: a session is made by the first run of a test")
            self._fill([], {})

    def show_session(self, name: str, runs: list[RunRow], results: list[RunResult]) -> None:
        """A session's runs with their results (runs that ended without one have none)."""
        self.title.setText(f"Tuning session '{name}': {len(runs)} run(s)")
        if self.chooser.findText(name) >= 0:
            self.chooser.setCurrentIndex(self.chooser.findText(name))
        self._fill(runs, {result.run_id: result for result in results})

    def _fill(self, runs: list[RunRow], results: dict[str, RunResult]) -> None:
        runs = [_as_judged(run, results.get(run.run_id)) for run in runs]
        self.runs = runs
        self.table.clearSelection()
        self.table.setRowCount(len(runs))
        unmeasured = {run.run_id for run in runs if run.run_id in results and not was_measured(results[run.run_id])}
        off_curve = unmeasured | {run.run_id for run in runs if run.config.open_ended}
        marked = marks_devices(runs)  # runs of more than one device: each simulated one says which
        for row, run in enumerate(runs):
            config = run.config
            # a criterion many instances failed is one line, as the run's results page and report say it
            reasons = grouped_reasons(results[run.run_id]) if run.run_id in results else run.reasons
            result = results.get(run.run_id)
            cells = [
                run.run_id, _local_time(run.started_utc), type_words(config.test_type),
                seconds_words(result.summary.measured_s) if result is not None else "—",
                *(("—",) * 3 if config.scans else  # a scan reads each database once: no setting of the load
                  (str(run.threads), str(run.sluggish_sessions), f"{run.threads / run.sluggish_sessions:.2f}")),
                _num(run.achieved_iops, 1), _num(config.test_target_iops or None, 1),
                _num(run.db_read_avg_latency_ms, 2), _num(run.log_write_avg_latency_ms, 2),
                run.status + (" (host-bound)" if result is not None and result.summary.host_bound else "")
                + (f" ({run.simulated_on})" if marked and run.simulated_on else ""),
                "; ".join(reasons),
            ]
            if run.run_id in unmeasured:
                for column in MEASURED:
                    cells[column] = "not measured"
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    item.setToolTip(f"Run folder: {run.output_dir}")
                if column == VERDICT:
                    item.setForeground(verdict_qcolor(run.status))
                if column == REASONS and reasons:
                    item.setToolTip("\n".join(reasons))
                if column == 0 and (sweep := _sweep_words(results.get(run.run_id))):
                    item.setText(f"{run.run_id} (load sweep)")
                    item.setToolTip(sweep)
                if column == 0 and config.open_ended:
                    item.setText(f"{run.run_id} ({type_words(config.test_type)})")
                    item.setToolTip("Not on the curves: it runs as long as its work takes, not a setting to tune from")
                self.table.setItem(row, column, item)
        for button in (*self.run_buttons, self.compare):
            button.setEnabled(False)
        for button in (self.rename, self.delete_session):
            button.setEnabled(bool(runs))
        steps = [StepPoint.of(step) for run in runs if (result := results.get(run.run_id)) is not None
                 and result.sweep is not None for step in result.sweep.steps]
        self._plot([run for run in runs if run.run_id not in off_curve], runs[-1].config if runs else None)
        self._plot_steps(steps)

    def selected_run(self) -> str | None:
        selected = self.selected_runs()
        return selected[0] if selected else None

    def selected_runs(self) -> list[str]:
        return [self.runs[row].run_id for row in sorted({index.row() for index in self.table.selectedIndexes()})]

    def _on_compare_clicked(self) -> None:
        selected = self.selected_runs()
        if len(selected) == 2:
            self.compare_requested.emit(*selected)

    def _on_chooser_activated(self, index: int) -> None:
        self.session_chosen.emit(self.chooser.itemText(index))

    def _on_table_cell_double_clicked(self, row: int, _column: int) -> None:
        self.report_requested.emit(self.runs[row].run_id)

    def _on_table_item_selection_changed(self) -> None:
        selected = self.selected_runs()
        for button in self.run_buttons:
            button.setEnabled(len(selected) == 1)
        self.compare.setEnabled(len(selected) == 2)

    def _on_open_report_clicked(self) -> None:
        self._for_selected(self.report_requested)

    def _for_selected(self, signal: SignalInstance) -> None:
        run_id = self.selected_run()
        if run_id is not None:
            signal.emit(run_id)

    def _plot(self, runs: list[RunRow], config: TestConfig | None) -> None:
        self.iops_plot.clear()
        self.latency_plot.clear()
        done = [r for r in runs if r.achieved_iops is not None]
        loads = [r.threads / r.sluggish_sessions for r in done]
        brushes = [pg.mkBrush(verdict_colour(r.status)) for r in done]
        # the curve joins the judged runs; a stopped run's partial point stands on its own
        order = sorted((i for i in range(len(done)) if done[i].status != "aborted"), key=lambda i: loads[i])
        xs = [loads[i] for i in order]
        # each run against its own target: a session whose target changed draws each target, its runs by shape
        targets = list(dict.fromkeys(_target(r) for r in done if not r.config.seeks_maximum))
        symbols = [_symbol(targets, _target(r)) for r in done]
        self.iops_plot.plot(xs, [done[i].achieved_iops for i in order], pen=pg.mkPen(GUIDE, width=1))
        self.iops_plot.addItem(pg.ScatterPlotItem(loads, [r.achieved_iops for r in done], size=11, brush=brushes,
                                                  symbol=symbols))
        self.latency_plot.plot(xs, [done[i].db_read_avg_latency_ms for i in order], pen=pg.mkPen(GUIDE, width=1))
        self.latency_plot.addItem(
            pg.ScatterPlotItem(loads, [r.db_read_avg_latency_ms for r in done], size=11, brush=brushes, symbol=symbols,
                               name="database reads (verdict's colour)")
        )
        logged = [i for i in order if done[i].log_write_avg_latency_ms is not None]
        self.latency_plot.plot([loads[i] for i in logged], [done[i].log_write_avg_latency_ms for i in logged],
                               pen=pg.mkPen(LOG, width=1, style=Qt.PenStyle.DotLine), symbol="x", symbolPen=LOG,
                               symbolSize=9, name="log writes")
        if config is not None:
            dash = Qt.PenStyle.DashLine
            current = round(config.test_target_iops, 3)  # like with like: summed across servers, as the IOPS
            for target in ([] if config.seeks_maximum else sorted({*targets, current})):
                shape = f" ({SYMBOL_WORDS[_symbol(targets, target)]})" if len(targets) > 1 and target in targets else ""
                pen = pg.mkPen(TARGET, width=2 if target == current else 1, style=dash)
                self.iops_plot.addItem(pg.InfiniteLine(target, angle=0, pen=pen, label=f"target {target:,.0f}{shape}",
                                                       labelOpts={"color": TARGET}))
            limit = config.active_thresholds.db_read_avg_latency_ms
            self.latency_plot.addItem(pg.InfiniteLine(limit, angle=0, pen=pg.mkPen(LIMIT, width=2, style=dash),
                                                      label=f"read limit {limit:g} ms", labelOpts={"color": LIMIT}))
            log_limit = config.active_thresholds.log_write_avg_latency_ms
            self.latency_plot.addItem(pg.InfiniteLine(log_limit, angle=0, pen=pg.mkPen(LOG, width=1, style=dash),
                                                      label=f"log limit {log_limit:g} ms",
                                                      labelOpts={"color": LOG, "position": 0.2}))


    def _plot_steps(self, steps: list[StepPoint]) -> None:
        """A load sweep's steps, small and behind the runs' points."""
        if not steps:
            return
        for plot, values in ((self.iops_plot, [s.iops for s in steps]), (self.latency_plot, [s.read_ms for s in steps])):
            if plot.getPlotItem().legend is None:
                plot.getPlotItem().addLegend(offset=(10, 10))
            pens = [pg.mkPen(_step_colour(s), width=1.5) for s in steps]
            brushes = [pg.mkBrush(_step_colour(s) if s.passed or not s.telling else "w") for s in steps]
            item = pg.ScatterPlotItem([s.effective_load for s in steps], values, size=8, symbol="d",
                                      pen=pg.mkPen(NEUTRAL), brush=pg.mkBrush(NEUTRAL), name="load sweep steps")
            item.setPen(pens)
            item.setBrush(brushes)
            item.setZValue(-1)
            plot.addItem(item)


TARGET_SYMBOLS = ("o", "t", "s", "d")  # a session's runs by target: the first target's circles, then triangles, ...
SYMBOL_WORDS = {"o": "circles", "t": "triangles", "s": "squares", "d": "diamonds"}


def _target(run: RunRow) -> float:
    return round(run.config.test_target_iops, 3)


def _symbol(targets: list[float], target: float) -> str:
    return TARGET_SYMBOLS[targets.index(target) % len(TARGET_SYMBOLS)] if target in targets else "o"


def _as_judged(run: RunRow, result: RunResult | None) -> RunRow:
    """A load sweep's row at the setting of the step its verdict judged, whose figures the row holds (the store
    keeps the setting the sweep started at)."""
    if result is None or result.sweep is None:
        return run
    return replace(run, threads=result.summary.threads, sluggish_sessions=result.summary.sluggish_sessions)


def _sweep_words(result: RunResult | None) -> str:
    if result is None or result.sweep is None:
        return ""
    sweep = result.sweep
    judged = "" if sweep.judged_step is None else f"; its figures are those of step {sweep.judged_step + 1}, which its verdict judged"
    return f"A load sweep of {len(sweep.steps)} step(s), drawn as small diamonds on the curves{judged}"


def _step_colour(step: StepPoint) -> str:
    if not step.telling:
        return NEUTRAL
    return verdict_colour("pass" if step.latency_ok else "fail")


def _local_time(utc: datetime) -> str:
    """When a run started, in this machine's time as its engineer reads a clock: "2026-11-26 14:05"."""
    return f"{utc.astimezone():%Y-%m-%d %H:%M}"


def _num(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"
