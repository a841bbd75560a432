"""How the window looks, in one place: the report's colours (`reporting.palette`) as Qt colours and style sheets.

Every colour a widget, a table cell or a plot is drawn in comes from here, so the window,
the printed report and its charts say pass, fail, aborted and warning alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QBoxLayout, QLabel, QLayout, QPushButton, QTableWidget, QWidget

from reporting import palette

WidgetT = TypeVar("WidgetT", bound=QWidget)
BoxT = TypeVar("BoxT", bound=QBoxLayout)

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
NOTE_STYLE = f"QLabel {{ background: {NOTE_BACKGROUND}; padding: 6px; }}"

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


def tipped(widget: WidgetT, tip: str) -> WidgetT:
    """`widget` with `tip` as its tooltip."""
    widget.setToolTip(tip)
    return widget


def tip_button(text: str, tip: str, clicked: Callable[[], object] | SignalInstance) -> QPushButton:
    """A push button that says in its tooltip what it does, and does it when clicked."""
    pushed = tipped(QPushButton(text), tip)
    pushed.clicked.connect(clicked)
    return pushed


def wrapped(text: str = "", *, style: str = "", tip: str = "", hidden: bool = False) -> QLabel:
    """A label whose words wrap to the width it is given, in `style`, with `tip`; with `hidden`, hidden until shown."""
    label = QLabel(text, wordWrap=True)
    if style:
        label.setStyleSheet(style)
    if tip:
        label.setToolTip(tip)
    if hidden:
        label.hide()
    return label


def read_only_table(columns: list[str], rows: int = 0) -> QTableWidget:
    """A table of figures to read, not edit, with its column headings and no row numbers."""
    table = QTableWidget(rows, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    return table


def laid_out(layout: BoxT, *items: QWidget | QLayout | int | tuple[QWidget | QLayout, int]) -> BoxT:
    """`layout` with `items` added in turn: a widget or a layout, either with its stretch in a pair, or a number, a
    stretch of that factor."""
    for item in items:
        thing, stretch = item if isinstance(item, tuple) else (item, 0)
        if isinstance(thing, int):
            layout.addStretch(thing)
        elif isinstance(thing, QLayout):
            layout.addLayout(thing, stretch)
        else:
            layout.addWidget(thing, stretch)
    return layout
