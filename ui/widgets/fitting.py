"""What keeps a page within a small screen (a 1024×768 Remote Desktop session): content that scrolls when the window is
smaller than it, and radio buttons whose long words wrap instead of setting the window's minimum width."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayoutItem,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QStyleOptionFocusRect,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)


class ScrollContent(QWidget):
    """What a scroll area (`scrolled`) shows: as tall as the area where that is room enough, else its minimum.

    A scroll area asks content whose words wrap for its height at the width given, and a layout answers with its
    preferred height: a plot or a table would then always be as tall as it likes and the page would scroll where it
    could fit. Its minimum height at that width is asked instead."""

    def heightForWidth(self, width: int) -> int:
        layout = self.layout()
        if layout is None:
            return super().heightForWidth(width)
        # Qt's minimum leaves out what words wrapped at this width need (a label's, a titled box's): such an item's
        # height for the width, every other item's minimum (a plot's), so no item is squeezed over the next
        margins = layout.contentsMargins()
        inner = width - margins.left() - margins.right()
        items = [item for item in (layout.itemAt(i) for i in range(layout.count())) if item is not None and not item.isEmpty()]

        def least(item: QLayoutItem) -> int:
            worded = isinstance(item.widget(), QLabel | QGroupBox) and item.hasHeightForWidth()
            return max(item.minimumSize().height(), item.heightForWidth(inner) if worded else 0)

        needed = sum(least(item) for item in items)
        needed += max(0, layout.spacing()) * max(0, len(items) - 1) + margins.top() + margins.bottom()
        return max(layout.totalMinimumHeightForWidth(width), needed)


def scrolled(content: ScrollContent) -> QScrollArea:
    """`content` in a scroll area: a window smaller than the content scrolls it rather than growing."""
    area = QScrollArea()
    area.setWidgetResizable(True)  # the content takes the whole width and height, and scrolls below its minimum
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(content)
    content.setAutoFillBackground(False)  # the page's own background shows through, as without the scroll area
    area.viewport().setAutoFillBackground(False)
    return area


def scrolled_body(owner: QWidget) -> tuple[QVBoxLayout, QVBoxLayout]:
    """The layout to put `owner`'s content in, shown scrolled (`scrolled`) in all of `owner`, and `owner`'s own layout,
    where what is added below the scroll area stays in sight."""
    body = ScrollContent()
    content = QVBoxLayout(body)
    content.setContentsMargins(0, 0, 0, 0)
    outer = QVBoxLayout(owner)  # its margins around the scroll area, as they were around the content
    outer.addWidget(scrolled(body), 1)
    return content, outer


class WrappingRadioButton(QRadioButton):
    """A radio button whose words wrap to the width it is given, as a word-wrapped label's do; the whole of it,
    words included, chooses it."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.words = QLabel(text)
        self.words.setWordWrap(True)
        self.words.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        option = QStyleOptionButton()
        self.initStyleOption(option)
        style = self.style()
        indent = (style.pixelMetric(QStyle.PixelMetric.PM_ExclusiveIndicatorWidth, option, self)
                  + style.pixelMetric(QStyle.PixelMetric.PM_RadioButtonLabelSpacing, option, self))
        row = self.row = QHBoxLayout(self)
        row.setContentsMargins(indent, 0, 0, 0)
        row.addWidget(self.words)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def setText(self, text: str) -> None:  # the words shown follow the button's own
        super().setText(text)
        self.words.setText(text)

    def sizeHint(self) -> QSize:
        return self._at_least_indicator(self.row.totalSizeHint())

    def minimumSizeHint(self) -> QSize:
        return self._at_least_indicator(self.row.totalMinimumSize())

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(self.row.totalHeightForWidth(width), self._indicator_height())

    def hitButton(self, pos: QPoint) -> bool:
        return self.rect().contains(pos)

    def _indicator_height(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_ExclusiveIndicatorHeight, None, self)

    def _at_least_indicator(self, size: QSize) -> QSize:
        return QSize(size.width(), max(size.height(), self._indicator_height()))

    def paintEvent(self, _event: QPaintEvent) -> None:
        """The indicator beside the first line of the words (the label draws them), and the focus around them."""
        painter = QStylePainter(self)
        option = QStyleOptionButton()
        self.initStyleOption(option)
        option.text = ""
        option.state &= ~QStyle.StateFlag.State_HasFocus  # drawn around the words below, not around no words
        option.rect = QRect(0, 0, self.width(), max(self.words.fontMetrics().height(), self._indicator_height()))
        painter.drawControl(QStyle.ControlElement.CE_RadioButton, option)
        if self.hasFocus():
            focus = QStyleOptionFocusRect()
            focus.initFrom(self)
            words = self.words.geometry()
            used = self.words.fontMetrics().boundingRect(QRect(0, 0, words.width(), words.height()),
                                                         int(Qt.TextFlag.TextWordWrap), self.text())
            focus.rect = used.translated(words.topLeft()).adjusted(-1, 0, 1, 0)  # around the words, not the row
            painter.drawPrimitive(QStyle.PrimitiveElement.PE_FrameFocusRect, focus)
