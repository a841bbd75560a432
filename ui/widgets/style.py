"""How the window looks, in one place: the report's colours (`reporting.palette`) as Qt colours and style sheets.

Every colour a widget, a table cell or a plot is drawn in comes from here, so the window,
the printed report and its charts say pass, fail, aborted and warning alike.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont

from reporting import palette

NEUTRAL = "#333333"  # a verdict the palette does not know (a run still going)
NOTE_BACKGROUND = "#eef3fa"  # a note that says a page or a figure does not apply to the test planned
GUIDE = "#999999"  # the line joining a session's runs, behind their verdict-coloured points

READS = palette.READS
LOG = palette.LOG
TARGET = palette.TARGET
LIMIT = palette.LIMIT
# One colour per database instance; the run's own curves keep theirs (reads, log, target).
INSTANCE_COLOURS = [colour for colour in palette.SERIES if colour not in (palette.READS, palette.LOG, palette.TARGET)]

ERROR_STYLE = f"color: {palette.FAIL};"
WARNING_STYLE = f"color: {palette.WARNING};"
PASS_STYLE = f"color: {palette.PASS}; font-weight: bold;"
FAIL_STYLE = f"color: {palette.FAIL}; font-weight: bold;"
ERROR_BORDER_STYLE = f"border: 1px solid {palette.FAIL};"

_SEVERITY = {"error": palette.FAIL, "warning": palette.WARNING, "ok": palette.PASS}


def verdict_colour(status: str) -> str:
    """The colour of a verdict ("pass", "fail", "aborted"), as the report draws it."""
    return palette.VERDICT.get(status, NEUTRAL)


def verdict_qcolor(status: str) -> QColor:
    return QColor(verdict_colour(status))


def severity_qcolor(kind: str) -> QColor:
    """A check's line: "error" red, "warning" amber, "ok" green."""
    return QColor(_SEVERITY[kind])


def larger_font(points: int, *, bold: bool = True) -> QFont:
    """The application's font, `points` larger: a title, a verdict, a running scan's figures."""
    font = QFont()
    font.setPointSize(font.pointSize() + points)
    font.setBold(bold)
    return font
