"""The report of a run: in the browser (HTML), as a PDF, on a printer, and its run folder; an ESRP suite's combined
report and its folder.

The run is the one the window shows, or one picked by its id (a row of the session
view). Each action reads the run again with the run store (`reporting.bundle.load_run`),
so an aborted or killed run gets its report from what it wrote, and the report carries
its tuning session and the advisor's conclusion exactly as `jetwise report` prints them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from engine.io.safety import refuse_destination, write_text
from engine.model.units import sentence
from engine.store.sqlite import Store
from reporting.bundle import ReportError, RunBundle, load_run
from reporting.csv_export import write_csv
from reporting.document import charts, render_html
from reporting.suite import REPORT_FILE as SUITE_REPORT_FILE
from reporting.suite import SuiteBundle, load_suite, render_suite_html, suite_charts, write_suite_report
from ui.controllers.runs import RunController
from ui.printing import lay_out_pages, paint_report, report_title, write_html_pdf, write_pdf

REPORT_FILE = "report.html"
PDF_FILTERS = "PDF, A4 (*.pdf);;PDF, Letter (*.pdf)"


class ReportActions(QObject):
    """Open report, Export PDF, Print and Open run folder, for the last run of `runs` or a run of the store."""

    message = Signal(str)  # a line for the status bar

    def __init__(self, runs: RunController, store: Store, window: QWidget) -> None:
        super().__init__(window)
        self._runs = runs
        self._store = store
        self._window = window

    def _reference(self, run_id: str | None) -> str | None:
        """What `load_run` finds the run by: `run_id`, else the folder of the run the window shows."""
        if run_id is not None:
            return run_id
        if self._runs.last_result is None or self._runs.last_output is None:
            return None
        return str(self._runs.last_output)

    def _bundle(self, run_id: str | None) -> RunBundle | None:
        reference = self._reference(run_id)
        if reference is None:
            self.message.emit("No run to report on yet: run a test, or pick a run in the tuning session view")
            return None
        try:
            return load_run(reference, self._store)
        except ReportError as exc:
            QMessageBox.warning(self._window, "No report", str(exc))
            return None

    def open_report(self, run_id: str | None = None) -> Path | None:
        """Write the run's HTML report (in its run folder when it still has one) and open it in the browser."""
        bundle = self._bundle(run_id)
        if bundle is None:
            return None
        html = render_html(bundle)
        path = _report_path(bundle)
        try:
            write_text(path, html)
        except OSError as exc:  # a run folder on a volume that is full or read-only now
            path = Path(tempfile.gettempdir()) / f"jetwise-report-{bundle.result.run_id}.html"
            self.message.emit(f"{_report_path(bundle)} cannot be written ({exc.strerror or exc}); writing {path}")
            write_text(path, html)
        self._open(path, "report", "browser")
        return path

    def export_pdf(self, path: Path | None = None, run_id: str | None = None) -> Path | None:
        bundle = self._bundle(run_id)
        if bundle is None:
            return None
        chosen = self._save_as(path, "Export the report as PDF", _folder(bundle) / "report.pdf", PDF_FILTERS)
        if chosen is None:
            return None
        path, size = chosen[0], _page_size(chosen[1])
        pages = self._written("PDF", path, lambda: write_pdf(bundle, path, size))
        if pages is None:
            return None
        self.message.emit(f"PDF report: {path} ({pages} pages)")
        return path

    def export_csv(self, path: Path | None = None, run_id: str | None = None) -> Path | None:
        """Every sample of the run as CSV, as `jetwise report RUN --csv` writes it."""
        bundle = self._bundle(run_id)
        if bundle is None:
            return None
        chosen = self._save_as(path, "Export the samples as CSV", _folder(bundle) / "samples.csv", "CSV (*.csv)")
        if chosen is None:
            return None
        path = chosen[0]
        rows = self._written("CSV", path, lambda: write_csv(bundle, path))
        if rows is None:
            return None
        self.message.emit(f"CSV samples: {path} ({rows:,} rows)")
        return path

    def print_report(self, run_id: str | None = None) -> None:
        bundle = self._bundle(run_id)
        if bundle is not None:
            self._print(report_title(bundle), render_html(bundle, for_print=True), charts(bundle))

    def _save_as(self, path: Path | None, caption: str, suggested: Path, filters: str) -> tuple[Path, str] | None:
        """`path` when one is given, else the one the engineer chooses, with the filter chosen; None: cancelled."""
        if path is not None:
            return path, ""
        name, chosen = QFileDialog.getSaveFileName(self._window, caption, str(suggested), filters)
        return (Path(name), chosen) if name else None

    def _written(self, what: str, path: Path, write: Callable[[], int]) -> int | None:
        """What `write` returns, or None after saying why `path` was not written."""
        try:
            refuse_destination(path)
            return write()
        except OSError as exc:  # a link or a device at the name, a full or read-only volume: said where it was asked
            QMessageBox.warning(self._window, f"{what} not written", f"{path} was not written: {exc.strerror or exc}")
            return None

    def _print(self, title: str, html: str, svgs: dict[str, str]) -> None:
        """Ask for a printer, then print report HTML rendered for print with `title` on each page: the pages Export PDF
        writes on the paper chosen."""
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        lay_out_pages(printer)  # the dialog offers the report's paper and margins
        if QPrintDialog(printer, self._window).exec() != QPrintDialog.DialogCode.Accepted:
            return
        pages = paint_report(html, svgs, printer, title)
        self.message.emit(f"Printed {pages} pages")

    def open_suite_report(self, folder: Path) -> Path | None:
        """The suite's combined report (esrp-report.html, the engine's; written here when a killed engine left
        none) in the browser."""
        return self._open_combined(folder / SUITE_REPORT_FILE, write_suite_report, "ESRP report")

    def _open_combined(self, path: Path, write: Callable[[Path], Path], what: str) -> Path | None:
        """A report of several runs in one at `path` in the browser, written first when its folder has none."""
        if not path.is_file():
            try:
                path = write(path.parent)
            except (ReportError, OSError) as exc:
                QMessageBox.warning(self._window, f"No {what}", f"The {what} cannot be written in {path.parent}: {exc}")
                return None
        self._open(path, what, "browser")
        return path

    def _suite(self, folder: Path) -> SuiteBundle | None:
        try:
            return load_suite(folder)
        except ReportError as exc:
            QMessageBox.warning(self._window, "No ESRP report", f"The suite in {folder} cannot be read: {exc}")
            return None

    def export_suite_pdf(self, folder: Path, path: Path | None = None) -> Path | None:
        """The suite's combined report as a PDF, as `jetwise report FOLDER --pdf` writes it."""
        suite = self._suite(folder)
        if suite is None:
            return None
        return self._export_combined(folder / "esrp-report.pdf", path, f"the {suite.record.title}", suite,
                                     render_suite_html(suite, for_print=True), suite_charts(suite))

    def _export_combined(self, suggested: Path, path: Path | None, what: str, report: SuiteBundle,
                         html: str, charts: dict[str, str]) -> Path | None:
        """A report of several runs in one (a suite's) as a PDF, where the engineer says."""
        chosen = self._save_as(path, "Export the combined report as PDF", suggested, PDF_FILTERS)
        if chosen is None:
            return None
        path, size = chosen[0], _page_size(chosen[1])
        pages = self._written("PDF", path, lambda: write_html_pdf(html, charts, path, size, title=report.title,
                                                                  document_title=report.document_title,
                                                                  ended_utc=report.ended_utc))
        if pages is None:
            return None
        self.message.emit(f"PDF of {what}: {path} ({pages} pages)")
        return path

    def print_suite_report(self, folder: Path) -> None:
        suite = self._suite(folder)
        if suite is not None:
            self._print(suite.title, render_suite_html(suite, for_print=True), suite_charts(suite))

    def open_run_folder(self) -> None:
        folder = self._runs.last_output
        if folder is None:
            self.message.emit("No run folder yet: run a test first")
        elif not folder.is_dir():
            self.message.emit(f"The run folder {folder} is not there any more")
        else:
            self._open(folder, "run folder", "file manager")

    def _open(self, path: Path, what: str, opener: str) -> None:
        """Open `path` with the desktop's handler, and say where it is if nothing on this machine could."""
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self.message.emit(f"{sentence(what)}: {path}")
        else:
            self.message.emit(f"Nothing on this machine could open the {what} (no {opener} is set up); "
                              f"open it by hand: {path}")


def _report_path(bundle: RunBundle) -> Path:
    """Beside the run's files when its folder is still there; else in the temporary folder."""
    if bundle.folder is not None and bundle.folder.is_dir():
        return bundle.folder / REPORT_FILE
    return Path(tempfile.gettempdir()) / f"jetwise-report-{bundle.result.run_id}.html"


def _folder(bundle: RunBundle) -> Path:
    """Where a save dialog opens for a run: its folder while it is there, else the engineer's home."""
    return bundle.folder if bundle.folder is not None and bundle.folder.is_dir() else Path.home()


def _page_size(chosen_filter: str) -> str:
    return "letter" if "Letter" in chosen_filter else "a4"
