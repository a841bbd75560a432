"""A running scan's status in large type: how far the reading got, how fast, how long is left, and the pages so far.

A Database checksum or backup is judged on what it reads, not on latency: in place of the
running verdict the run view shows this, the pages checked and the damaged ones met.
"""

from __future__ import annotations

import time

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.model.config import TestConfig
from engine.model.units import format_duration
from engine.protocol import ProgressEvent
from engine.results.sample_schema import IntervalSample
from engine.results.scan_schema import ScanResult
from engine.results.scans import megabytes
from ui.scans import ScanProgress, final_words
from ui.widgets.style import FAIL_STYLE, PASS_STYLE, laid_out, larger_font, wrapped

MIN_RATE_SPAN_S = 0.4  # progress comes twice a second: a rate over less says little


class ScanStatus(QWidget):
    """"42 % · 312.4 MB/s · about 0:12 left", and "12,345 of 64,000 pages checked, 0 damaged" beneath."""

    def __init__(self) -> None:
        super().__init__()
        self.figures, self.pages = status_lines(
            self, "How much of the databases (and, for a checksum, their logs) is read, the read rate and the time left "
            "at that rate", "Database pages read and verified so far, and the damaged pages and log sectors met")
        self.figures.setText("Waiting for the first reads…")
        self.tally: ScanProgress | None = None
        self._start: tuple[float, int] | None = None  # (monotonic s, bytes done) at the scan's first progress

    def reset(self, config: TestConfig) -> None:
        self.tally = ScanProgress(config)
        self._start = None
        self.figures.setText("Waiting for the first reads…")
        self._show_pages()

    def add_progress(self, event: ProgressEvent) -> None:
        share = event.done_bytes / max(1, event.total_bytes)
        rate, eta = self._rate(event)
        left = f" · about {format_duration(eta)} left" if eta is not None and share < 1 else ""
        self.figures.setText(f"{share:.0%}" + (f" · {megabytes(rate):,.1f} MB/s" if rate > 0 else "") + left)
        if self.tally is not None:
            self.tally.add_progress(event.total_bytes, event.done_bytes)
            self._show_pages()

    def _rate(self, event: ProgressEvent) -> tuple[float, float | None]:
        """The read rate since the reading began, and the time left at it. The window times the scan's progress
        itself: the engine's rate counts from the first progress of the run, the databases' creation included."""
        now = time.monotonic()
        if self._start is None:
            self._start = (now, event.done_bytes)
        began, done_then = self._start
        if now - began < MIN_RATE_SPAN_S:
            return event.rate_bytes_per_s, event.eta_s
        rate = (event.done_bytes - done_then) / (now - began)
        return rate, (event.total_bytes - event.done_bytes) / rate if rate > 0 else None

    def add_sample(self, sample: IntervalSample) -> None:
        if self.tally is not None:
            self.tally.add_sample(sample)
            self._show_pages()

    def finish(self, scan: ScanResult) -> None:
        """The scan's own counts, once its result is in."""
        if self.tally is None:
            return
        rows = scan.databases
        complete = all(r.complete for r in rows)
        self.figures.setText(f"{'Done' if complete else 'Stopped'} · {megabytes(scan.bytes_per_s):,.1f} MB/s "
                             f"over {_seconds(scan.seconds)}")
        damaged = any(r.damaged_pages or r.log_sectors_damaged for r in rows)
        self.pages.setText(final_words(self.tally.config, scan))
        self.pages.setStyleSheet(FAIL_STYLE if damaged else PASS_STYLE if complete else "")

    def _show_pages(self) -> None:
        if self.tally is not None:
            self.pages.setText(self.tally.words())
            self.pages.setStyleSheet(FAIL_STYLE if self.tally.damaged else "")


def status_lines(widget: QWidget, figures_tip: str, counts_tip: str) -> tuple[QLabel, QLabel]:
    """A running test's status on `widget`: its figures in large type, and its counts beneath."""
    figures = wrapped(tip=figures_tip)
    figures.setFont(larger_font(6))
    counts = wrapped(tip=counts_tip)
    counts.setFont(larger_font(2, bold=False))
    laid_out(QVBoxLayout(widget), figures, counts).setContentsMargins(0, 4, 0, 4)
    return figures, counts


def _seconds(value: float) -> str:
    """A scan's length: "0.5 s" under a minute (a test scan of tiny databases is quick), else "1:02:03"."""
    return f"{value:.1f} s" if value < 60 else format_duration(value)
