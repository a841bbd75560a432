"""The report of the run shown: in the browser (HTML), as a PDF, on a printer, and its run folder.

Each reads the run's folder again (`reporting.bundle.load_run`), so an aborted or killed
run gets its report from what it wrote.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from reporting.bundle import ReportError, RunBundle, load_run
from reporting.document import render_html
from ui.controllers.runs import RunController
from ui.printing import paint_pages, report_document, report_title, write_pdf


class ReportActions(QObject):
    """Open report, Export PDF, Print and Open run folder, for the last run of `runs`."""

    message = Signal(str)  # a line for the status bar

    def __init__(self, runs: RunController, window: QWidget) -> None:
        super().__init__(window)
        self._runs = runs
        self._window = window

    def _bundle(self) -> RunBundle | None:
        folder = self._runs.last_output
        if self._runs.last_result is None or folder is None:
            return None
        try:
            return load_run(str(folder))
        except ReportError as exc:
            QMessageBox.warning(self._window, "No report", str(exc))
            return None

    def open_report(self) -> Path | None:
        bundle = self._bundle()
        if bundle is None or self._runs.last_output is None:
            return None
        path = self._runs.last_output / "report.html"
        path.write_text(render_html(bundle), encoding="utf-8")
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
        self.message.emit(f"Report: {path}")
        return path

    def export_pdf(self, path: Path | None = None) -> Path | None:
        bundle = self._bundle()
        if bundle is None or self._runs.last_output is None:
            return None
        if path is None:
            name, chosen = QFileDialog.getSaveFileName(
                self._window, "Export the report as PDF", str(self._runs.last_output / "report.pdf"),
                "PDF, A4 (*.pdf);;PDF, Letter (*.pdf)")
            if not name:
                return None
            path, size = Path(name), ("letter" if "Letter" in chosen else "a4")
        else:
            size = "a4"
        pages = write_pdf(bundle, path, size)
        self.message.emit(f"PDF report: {path} ({pages} pages)")
        return path

    def print_report(self) -> None:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        bundle = self._bundle()
        if bundle is None:
            return
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self._window)
        if dialog.exec() != QPrintDialog.DialogCode.Accepted:
            return
        paint = printer.pageLayout().paintRectPixels(printer.resolution())
        pages = paint_pages(report_document(bundle, paint.width(), printer.resolution()), printer, report_title(bundle))
        self.message.emit(f"Printed {pages} pages")

    def open_run_folder(self) -> None:
        if self._runs.last_output is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._runs.last_output)))
