"""The report on paper: laid out by Qt in pages, no line of it cut in two by a page edge."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSizeF
from PySide6.QtGui import QTextCursor, QTextDocument

from engine.results.sample_file import SampleList
from reporting.bundle import RunBundle, load_run
from tests.engine.test_report import known_result
from tests.reporting.test_sweep_report import sweep_folder
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
