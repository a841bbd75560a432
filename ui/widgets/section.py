"""A titled part of a form that opens and closes: what most tests leave alone, one click away."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget

from ui.widgets.style import laid_out, tipped


class CollapsibleSection(QWidget):
    """A header that shows or hides `content`; closed at first."""

    def __init__(self, title: str, content: QWidget, tooltip: str = "") -> None:
        super().__init__()
        self.toggle = tipped(QToolButton(autoRaise=True, arrowType=Qt.ArrowType.RightArrow,
                                         toolButtonStyle=Qt.ToolButtonStyle.ToolButtonTextBesideIcon), tooltip)
        self.toggle.setText(title)
        self.toggle.setCheckable(True)
        self.toggle.toggled.connect(self._on_toggle_toggled)
        self.content = content
        content.hide()
        laid_out(QVBoxLayout(self), self.toggle, content).setContentsMargins(0, 0, 0, 0)

    def expand(self) -> None:
        self.toggle.setChecked(True)

    def _on_toggle_toggled(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.content.setVisible(on)
