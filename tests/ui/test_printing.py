"""The report on paper: laid out by Qt in pages, no line of it cut in two by a page edge, no heading alone at a foot."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSizeF
from PySide6.QtGui import QPageSize, QTextCursor, QTextDocument, QTextFormat

from engine.model.config import default_config
from engine.results.sample_read import SampleList
from engine.run.sources.model import PROFILES, runner_for
from reporting.bundle import RunBundle, load_run
from reporting.document import charts, render_html
from tests.engine.test_report import known_result
from tests.pdf_text import needs_pdftotext, pdf_pages
from tests.reporting.test_sweep_report import sweep_folder
from ui.printing import KEEP_WITH_HEADING_IN, html_document, keep_headings_with_next, paginate, pdf_writer


def _lines_cut(document: QTextDocument, page_height: float) -> list[str]:
    """The text of every line outside a table that a page edge crosses (a table's rows Qt paginates itself; the
    empty line Qt keeps after each table shows nothing to cut)."""
    cut = []
    layout = document.documentLayout()
    block = document.begin()
    while block.isValid():
        if block.text() and QTextCursor(block).currentTable() is None:
            top = layout.blockBoundingRect(block).top()
            lines = block.layout()
            for index in range(lines.lineCount()):
                line = lines.lineAt(index)
                start = top + line.y()
                if int(start // page_height) != int((start + line.height() - 0.01) // page_height):
                    cut.append(block.text())
        block = block.next()
    return cut


@pytest.mark.parametrize(("run", "stride"), [("known", 4), ("sweep", 8)])  # the sweep's longer report in fewer sizes
def test_no_line_of_the_printed_report_is_cut_by_a_page_edge_wherever_its_tables_end(run, stride, tmp_path, qapp):
    writer = pdf_writer(tmp_path / "layout.pdf")
    width = writer.pageLayout().paintRectPixels(writer.resolution()).width()
    # a run at one setting, or a load sweep: its steps' table, with a line of its own under a step that broke
    result = known_result(tmp_path) if run == "known" else load_run(str(sweep_folder(tmp_path))).result
    bundle = RunBundle(result, SampleList(), [], tmp_path)
    document = report_document(bundle, width, writer.resolution())
    body = paginate(document, writer)
    for shorter in range(0, 400, stride):  # pages ever shorter, so that every table ends at some page's foot
        height = body.height() - shorter
        document.setPageSize(QSizeF(body.width(), height))
        assert _lines_cut(document, height) == [], height


def _heading_feet(document: QTextDocument) -> list[float]:
    """Where each heading ends, from the top of the document."""
    layout = document.documentLayout()
    feet = []
    block = document.begin()
    while block.isValid():
        if block.blockFormat().headingLevel():
            feet.append(layout.blockBoundingRect(block).bottom())
        block = block.next()
    return feet


def _failed_server(tmp_path):
    """A failed simulated test of 12 databases: a report of eight pages with a reason per database."""
    config = default_config(tmp_path / "data", databases=12, duration_s=10.0, warmup_s=1.0)
    return runner_for(PROFILES["sas-8x10k"], config, tmp_path / "run", lambda _event: None).run()


def _breaking(document: QTextDocument) -> list[str]:
    """The headings that start a page."""
    block, breaking = document.begin(), []
    while block.isValid():
        if block.blockFormat().pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore:
            breaking.append(block.text())
        block = block.next()
    return breaking


@pytest.mark.parametrize(("run", "stride"), [("known", 60), ("12 databases", 100)])
def test_no_heading_is_left_at_a_page_foot_whatever_the_page_size(run, stride, tmp_path, qapp):
    writer = pdf_writer(tmp_path / "layout.pdf")
    width = writer.pageLayout().paintRectPixels(writer.resolution()).width()
    result = known_result(tmp_path) if run == "known" else _failed_server(tmp_path)
    document = report_document(RunBundle(result, SampleList(), [], tmp_path), width, writer.resolution())
    asked = _breaking(document)  # by the HTML: "Throughput and Latency over Time" begins a page
    body = paginate(document, writer)
    keep = writer.resolution() * KEEP_WITH_HEADING_IN
    text = document.toPlainText()
    moved = 0
    for shorter in range(0, 1200, stride):  # laid out as a report is, the headings placed before anything is drawn
        height = body.height() - shorter
        document.setPageSize(QSizeF(body.width(), height))
        keep_headings_with_next(document, keep)
        feet, pages = _heading_feet(document), document.pageCount()
        assert [height - foot % height >= keep for foot in feet] == [True] * len(feet), height
        document.markContentsDirty(0, document.characterCount())  # laid out afresh from the top: the same places
        assert (_heading_feet(document), document.pageCount()) == (feet, pages), height
        breaking = _breaking(document)
        assert set(asked) <= set(breaking), height
        moved += len(breaking) - len(asked)
    assert moved > 0  # some page size left a heading at a foot, so it was moved
    assert document.toPlainText() == text


def test_an_instance_name_keeps_to_one_line_in_the_widest_tables(tmp_path, qapp):
    """A two-line name cell is a row Qt may cut in two at a page's foot ("Instance" on one page, "18" on the next)."""
    writer = pdf_writer(tmp_path / "layout.pdf")
    width = writer.pageLayout().paintRectPixels(writer.resolution()).width()
    document = report_document(RunBundle(_failed_server(tmp_path), SampleList(), [], tmp_path), width, writer.resolution())
    paginate(document, writer)
    names, block = [], document.begin()
    while block.isValid():
        if QTextCursor(block).currentTable() is not None and block.text().startswith("Instance "):
            names.append((block.text(), block.layout().lineCount()))
        block = block.next()
    assert len(names) > 12 * 3 and {lines for _name, lines in names} == {1}, [n for n in names if n[1] > 1][:3]


@needs_pdftotext
@pytest.mark.parametrize(("paper", "filter_chosen"), [(QPageSize.PageSizeId.A4, "PDF, A4 (*.pdf)"),
                                                      (QPageSize.PageSizeId.Letter, "PDF, Letter (*.pdf)")])
def test_print_and_export_lay_a_report_out_on_the_same_pages(qtbot, window, tmp_path, monkeypatch, paper, filter_chosen):
    """The printer the engineer chooses prints the pages Export PDF writes on that paper: the same breaks, the same
    "page x of y"."""
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter
    from PySide6.QtWidgets import QFileDialog

    from tests.ui.test_reports import record_run

    run = record_run(window.store, "walk", tmp_path / "runs" / "a")
    exported, printed = tmp_path / "exported.pdf", tmp_path / "printed.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: (str(exported), filter_chosen))
    assert window.reports.export_pdf(run_id=run.run_id) == exported

    class PrintToFile:  # the system's print dialog: a printer that writes a file, on the paper chosen
        DialogCode = QPrintDialog.DialogCode

        def __init__(self, printer: QPrinter, _parent) -> None:
            self.printer = printer

        def exec(self):
            self.printer.setOutputFileName(str(printed))
            self.printer.setPageSize(QPageSize(paper))
            return QPrintDialog.DialogCode.Accepted

    monkeypatch.setattr("PySide6.QtPrintSupport.QPrintDialog", PrintToFile)
    window.reports.print_report(run.run_id)
    on_paper, in_file = pdf_pages(printed), pdf_pages(exported)
    assert len(in_file) > 1 and window.statusBar().currentMessage() == f"Printed {len(in_file)} pages"
    assert on_paper == in_file


def report_document(bundle: RunBundle, page_width_px: float, resolution: int) -> QTextDocument:
    """The report laid out for a page `page_width_px` device pixels wide at `resolution` dpi, as it is printed."""
    return html_document(render_html(bundle, for_print=True), charts(bundle), page_width_px, resolution)
