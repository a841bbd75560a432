"""The report on paper: PDF (A4 or Letter) and the system print dialog, with Qt's own printing.

The HTML report is laid out by QTextDocument, with each chart's SVG rendered to an
image at print resolution. Every page gets a header (the report and its run) and a
footer ("page x of y"); tables break between rows and repeat their header row, and a heading near a
page's foot starts the next page.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QByteArray, QHashSeed, QMarginsF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextBlock,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
)
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtSvg import QSvgRenderer

from engine.io.safety import replaced_by
from reporting.bundle import RunBundle
from reporting.document import charts, render_html
from reporting.pdf_identity import dated, document_id, identified

PAGE_SIZES = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}
RESOLUTION = 300  # dots per inch of the PDF
CHART_WIDTH_PX = 2400  # about 200 mm at 300 dpi: crisp in print
KEEP_WITH_HEADING_IN = 1.0  # a heading has at least this much of what it heads below it on its page (2.5 cm)
_MOVED = int(QTextFormat.Property.UserProperty) + 1  # a heading's page break of keep_headings_with_next, not of the HTML


def chart_image(svg: str, width_px: int = CHART_WIDTH_PX) -> QImage:
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    size = renderer.defaultSize()
    height = int(width_px * size.height() / max(1, size.width()))
    image = QImage(width_px, height, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    return image


def html_document(html: str, svgs: dict[str, str], page_width_px: float, resolution: int = RESOLUTION) -> QTextDocument:
    """Report HTML rendered for print, its `chart:NAME` images drawn from `svgs`, laid out for a page `page_width_px`
    device pixels wide at `resolution` dpi."""
    document = QTextDocument()
    font = QFont("Helvetica")
    font.setPointSizeF(8.5)
    if hasattr(font, "setFeature"):  # Qt 6.6+: no "fi" ligatures, so the PDF's text searches as typed
        # Qt 6.7 names a feature by a QFont.Tag; 6.6 by its four letters (the Windows lane runs 6.6)
        font.setFeature(QFont.Tag("liga") if hasattr(QFont, "Tag") else "liga", 0)
    document.setDefaultFont(font)
    # Lines break between words only: a word never splits ("Instanc e"), and a table's columns are laid out at
    # least as wide as their longest word instead of being shared out evenly; paths break after their separators.
    option = document.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    document.setDefaultTextOption(option)
    for name, svg in svgs.items():
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart:{name}"), chart_image(svg))
    # charts fill the text width; QTextDocument sizes images in 96-dpi pixels and scales them to the device
    html = html.replace('width="640"', f'width="{int(page_width_px * 96 / resolution * 0.98)}"')
    document.setHtml(html)
    return document


def paginate(document: QTextDocument, device: QPdfWriter | QPrinter) -> QSizeF:
    """Lay `document` out in the body of `device`'s pages, between the header and footer bands; the body's size."""
    paint = device.pageLayout().paintRectPixels(device.resolution())
    body = QSizeF(paint.width(), paint.height() - 2 * _band(device))
    document.documentLayout().setPaintDevice(device)
    document.setPageSize(body)
    keep_headings_with_next(document, device.resolution() * KEEP_WITH_HEADING_IN)
    return body


def keep_headings_with_next(document: QTextDocument, keep_px: float) -> None:
    """A heading that would stand less than `keep_px` above its page's foot starts the next page instead, so it is
    never left alone under what it heads. Headings moved for another page size move back first; a page break the
    HTML asks for stays."""
    layout = document.documentLayout()
    page_height = document.pageSize().height()
    block = document.begin()
    while block.isValid():
        form = block.blockFormat()
        if form.headingLevel():
            if form.boolProperty(_MOVED):
                form.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
                form.clearProperty(_MOVED)
                _set_format(document, block, form)
            breaks = bool(form.pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
            if not breaks and page_height - layout.blockBoundingRect(block).bottom() % page_height < keep_px:
                form.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                form.setProperty(_MOVED, True)
                _set_format(document, block, form)
        block = block.next()


def _set_format(document: QTextDocument, block: QTextBlock, form: QTextBlockFormat) -> None:
    """Give `block` a new format and lay out again all that follows it (Qt moves only the block itself)."""
    QTextCursor(block).setBlockFormat(form)
    document.markContentsDirty(block.position(), document.characterCount() - block.position())


def _band(device: QPdfWriter | QPrinter) -> float:
    return device.resolution() * 0.35  # header and footer bands: about 9 mm


def paint_pages(document: QTextDocument, device: QPdfWriter | QPrinter, title: str) -> int:
    """Lay `document` out on `device` page by page, with header and footer. Returns the page count."""
    paint = device.pageLayout().paintRectPixels(device.resolution())
    band = _band(device)
    body = paginate(document, device)
    pages = document.pageCount()
    painter = QPainter(device)
    small = QFont("Helvetica")
    small.setPointSizeF(7.5)
    try:
        for page in range(pages):
            if page:
                device.newPage()
            painter.save()
            painter.translate(0, band - page * body.height())
            document.drawContents(painter, QRectF(0, page * body.height(), body.width(), body.height()))
            painter.restore()
            painter.setFont(small)
            painter.setPen(Qt.GlobalColor.darkGray)
            painter.drawText(QRectF(0, 0, paint.width(), band * 0.8), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom), title)
            painter.drawLine(0, int(band * 0.85), int(paint.width()), int(band * 0.85))
            footer = QRectF(0, paint.height() - band * 0.8, paint.width(), band * 0.8)
            painter.drawText(footer, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop), f"Page {page + 1} of {pages}")
    finally:
        painter.end()
    return pages


def lay_out_pages(device: QPdfWriter | QPrinter, page_size: str = "a4") -> None:
    """Give `device` the report's pages: `page_size` (A4 or Letter, portrait), its margins and resolution. A PDF and a
    printer alike, so the same report breaks at the same places on either."""
    device.setResolution(RESOLUTION)
    device.setPageLayout(QPageLayout(QPageSize(PAGE_SIZES[page_size.lower()]), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 12, 15, 12), QPageLayout.Unit.Millimeter))


def paper_of(device: QPdfWriter | QPrinter) -> str:
    """The report's page size nearest the paper `device` has (a printer's, as its dialog chose it): Letter, or A4."""
    chosen = device.pageLayout().pageSize().id()
    return next((name for name, size in PAGE_SIZES.items() if size == chosen), "a4")


def paint_report(html: str, svgs: dict[str, str], device: QPdfWriter | QPrinter, title: str) -> int:
    """Report HTML rendered for print (its charts in `svgs`) on `device`'s pages with `title` atop each, laid out as
    every report is (`lay_out_pages`) on the paper the device has; returns the page count. Export PDF and Print
    both go through here."""
    lay_out_pages(device, paper_of(device))
    paint = device.pageLayout().paintRectPixels(device.resolution())
    return paint_pages(html_document(html, svgs, paint.width(), device.resolution()), device, title)


def pdf_writer(path: Path, page_size: str = "a4") -> QPdfWriter:
    """A PDF of `page_size` pages (A4 or Letter, portrait) at the report's resolution and margins."""
    writer = QPdfWriter(str(path))
    lay_out_pages(writer, page_size)
    return writer


def write_pdf(bundle: RunBundle, path: Path, page_size: str = "a4") -> int:
    """Write the report as a PDF; returns its page count. Needs a Qt application (app.window)."""
    return write_html_pdf(render_html(bundle, for_print=True), charts(bundle), path, page_size,
                          title=report_title(bundle), document_title=f"Jetwise report {bundle.result.run_id}",
                          ended_utc=bundle.result.times.test_end_utc)


def write_html_pdf(html: str, svgs: dict[str, str], path: Path, page_size: str, *, title: str, document_title: str,
                   ended_utc: datetime | None) -> int:
    """Write report HTML rendered for print (its charts in `svgs`) as a PDF with `title` atop every page; returns its
    page count. The same report is the same bytes whenever it is written: dated `ended_utc` (the end of what it
    records; None: when written), identified by its content. Needs a Qt application (app.window)."""
    pages = 0
    # the fonts are embedded in the order of a hash of them: a fixed seed, or each process orders them its own way
    QHashSeed.setDeterministicGlobalSeed()

    def produce(scratch: Path) -> None:
        nonlocal pages
        writer = pdf_writer(scratch, page_size)
        writer.setTitle(document_title)
        writer.setCreator("Jetwise")
        pages = paint_report(html, svgs, writer, title)
        del writer  # the file is whole once its writer is gone
        content = (html, page_size, title, *(part for item in sorted(svgs.items()) for part in item))
        written = identified(scratch.read_bytes(), document_id(*content))
        scratch.write_bytes(dated(written, ended_utc.astimezone(UTC)) if ended_utc is not None else written)

    # Qt's writer says nothing when the volume is full: the file is checked whole (it ends with %%EOF) before it counts.
    replaced_by(path, produce, valid=lambda tail: b"%%EOF" in tail)
    return pages


def report_title(bundle: RunBundle) -> str:
    """The running title on every printed page."""
    kind = " · tuning run" if bundle.result.summary.run_kind == "tuning" else ""
    return f"Jetwise report · run {bundle.result.run_id} · {bundle.result.verdict.value.upper()}{kind}"
