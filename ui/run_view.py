"""The running test: phase and progress, live plots, a running verdict per criterion, the test log."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.config import TestConfig
from engine.events import IntervalEvent, LogEvent, Phase, PhaseEvent, ProgressEvent
from engine.units import format_bytes, format_duration
from ui.plots import LivePlots

PASS_STYLE = "color: #2e7d32; font-weight: bold;"
FAIL_STYLE = "color: #b00020; font-weight: bold;"


@dataclass
class _Running:
    """Measured-window sums for the running verdict (the worst instance for latencies)."""

    transfers: float = 0.0
    seconds: float = 0.0
    read_sum: dict[str, float] = field(default_factory=dict)
    read_count: dict[str, float] = field(default_factory=dict)
    read_max: float = 0.0
    log_sum: dict[str, float] = field(default_factory=dict)
    log_count: dict[str, float] = field(default_factory=dict)
    log_max: float = 0.0

    def add(self, event: IntervalEvent) -> None:
        seconds = event.duration_s
        self.seconds += seconds
        self.transfers += event.summary.get("transactional_iops", 0.0) * seconds
        for row in event.instances:
            name = row["name"]
            reads = row.get("db_reads_per_s", 0.0) * seconds
            logs = row.get("log_writes_per_s", 0.0) * seconds
            self.read_sum[name] = self.read_sum.get(name, 0.0) + reads * row.get("db_read_avg_latency_ms", 0.0)
            self.read_count[name] = self.read_count.get(name, 0.0) + reads
            self.log_sum[name] = self.log_sum.get(name, 0.0) + logs * row.get("log_write_avg_latency_ms", 0.0)
            self.log_count[name] = self.log_count.get(name, 0.0) + logs
            self.read_max = max(self.read_max, row.get("db_read_max_latency_ms", 0.0))
            self.log_max = max(self.log_max, row.get("log_write_max_latency_ms", 0.0))

    @staticmethod
    def worst(sums: dict[str, float], counts: dict[str, float]) -> float:
        return max((sums[name] / counts[name] for name in sums if counts.get(name)), default=0.0)


class RunView(QWidget):
    stop_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.title = QLabel("Run")
        font = QFont()
        font.setPointSize(font.pointSize() + 4)
        font.setBold(True)
        self.title.setFont(font)
        self.phase = QLabel("Starting the engine…")
        self.clock = QLabel()
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.stop = QPushButton("Stop")
        self.stop.setToolTip("Stop the run: it ends within a couple of seconds and keeps what it measured")
        self.stop.clicked.connect(self.stop_requested)
        self.iterations = QLabel()
        self.iterations.setWordWrap(True)
        self.iterations.setToolTip("Each auto-tune calibration run as it completes")
        self.iterations.hide()
        self.plots = LivePlots()
        self.criteria_box = QGroupBox("Running verdict (measured samples so far)")
        self.criteria_grid = QGridLayout(self.criteria_box)
        self.criteria: dict[str, QLabel] = {}
        for row, key in enumerate(("iops", "read_avg", "read_max", "log_avg", "log_max")):
            label = QLabel("—")
            self.criteria[key] = label
            self.criteria_grid.addWidget(label, row // 3, row % 3)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        self.log.setToolTip("The engine's test log")
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.stop)
        status = QHBoxLayout()
        status.addWidget(self.phase, 1)
        status.addWidget(self.clock)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(header)
        top_layout.addLayout(status)
        top_layout.addWidget(self.progress)
        top_layout.addWidget(self.iterations)
        top_layout.addWidget(self.plots, 1)
        top_layout.addWidget(self.criteria_box)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(self.log)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.config: TestConfig | None = None
        self.running = _Running()

    def begin(self, config: TestConfig, title: str) -> None:
        self.config = config
        self.running = _Running()
        self.title.setText(title)
        self.phase.setText("Starting the engine…")
        self.clock.setText("")
        self.progress.setRange(0, 0)
        self.stop.setEnabled(True)
        self.log.clear()
        limits = config.active_thresholds
        self.plots.reset(config.target_transactional_iops, limits.db_read_avg_latency_ms, limits.log_write_avg_latency_ms)
        for label in self.criteria.values():
            label.setText("—")
            label.setStyleSheet("")

    def on_event(self, event: object) -> None:
        if isinstance(event, PhaseEvent):
            self.phase.setText(event.message)
            if event.phase in (Phase.MEASURING, Phase.WARMING_UP):
                self.progress.setRange(0, 1000)
            if event.phase in (Phase.FINISHING, Phase.DONE):
                self.stop.setEnabled(False)
        elif isinstance(event, ProgressEvent):
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * event.done_bytes / max(1, event.total_bytes)))
            eta = f", about {format_duration(event.eta_s)} left" if event.eta_s is not None else ""
            self.phase.setText(
                f"Creating databases: {format_bytes(event.done_bytes)} of {format_bytes(event.total_bytes)} "
                f"at {format_bytes(event.rate_bytes_per_s)}/s{eta}"
            )
        elif isinstance(event, IntervalEvent):
            self.plots.add_sample(event.elapsed_s, event.summary, event.instances)
            total = event.elapsed_s + event.remaining_s
            self.progress.setValue(int(1000 * event.elapsed_s / max(total, 1e-9)))
            where = "attaining prerequisites (warm-up)" if event.phase == "warmup" else "measuring"
            self.clock.setText(
                f"{where}: {format_duration(event.elapsed_s)} elapsed, {format_duration(event.remaining_s)} remaining"
            )
            if event.phase == "measure":
                self.running.add(event)
                self._show_running()
        elif isinstance(event, LogEvent):
            self.append_log(f"{event.time[11:19]}  {event.level:<7}  {event.message}")

    def show_iterations(self, lines: list[str]) -> None:
        """Auto-tune: the calibration runs so far, one line each."""
        self.iterations.setText("Auto-tune so far:\n" + "\n".join(lines))
        self.iterations.setVisible(bool(lines))
        for line in lines[-1:]:
            self.append_log(f"Auto-tune {line}")

    def append_log(self, line: str) -> None:
        self.log.appendPlainText(line)

    def _show_running(self) -> None:
        config = self.config
        if config is None or self.running.seconds <= 0:
            return
        limits = config.active_thresholds
        floor = config.target_transactional_iops * (1 - config.target_margin_percent / 100.0)
        iops = self.running.transfers / self.running.seconds
        checks = {
            "iops": ("Transactional IOPS", iops, floor, False, ""),
            "read_avg": ("DB read average", self.running.worst(self.running.read_sum, self.running.read_count),
                         limits.db_read_avg_latency_ms, True, " ms"),
            "read_max": ("DB read maximum", self.running.read_max, limits.db_read_max_latency_ms, True, " ms"),
            "log_avg": ("Log write average", self.running.worst(self.running.log_sum, self.running.log_count),
                        limits.log_write_avg_latency_ms, True, " ms"),
            "log_max": ("Log write maximum", self.running.log_max, limits.log_write_max_latency_ms, True, " ms"),
        }
        for key, (name, value, limit, at_most, unit) in checks.items():
            ok = value <= limit if at_most else value >= limit
            sign = "≤" if at_most else "≥"
            self.criteria[key].setText(f"{'✓' if ok else '✗'} {name}: {value:,.2f}{unit} ({sign} {limit:,.1f}{unit})")
            self.criteria[key].setStyleSheet(PASS_STYLE if ok else FAIL_STYLE)
