"""The report on paper: laid out by Qt in pages, no line of it cut in two by a page edge."""

from __future__ import annotations

from PySide6.QtCore import QSizeF
from PySide6.QtGui import QTextCursor, QTextDocument

from reporting.bundle import RunBundle
from tests.engine.test_report import known_result
from ui.printing import paginate, pdf_writer, report_document


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


def test_no_line_of_the_printed_report_is_cut_by_a_page_edge_wherever_its_tables_end(tmp_path, qapp):
    writer = pdf_writer(tmp_path / "layout.pdf")
    width = writer.pageLayout().paintRectPixels(writer.resolution()).width()
    document = report_document(RunBundle(known_result(tmp_path), [], [], tmp_path), width, writer.resolution())
    body = paginate(document, writer)
    for shorter in range(0, 400, 4):  # pages ever shorter, so that every table ends at some page's foot
        height = body.height() - shorter
        document.setPageSize(QSizeF(body.width(), height))
        assert _lines_cut(document, height) == [], height
