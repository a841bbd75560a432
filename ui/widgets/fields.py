"""Form fields built from the option declarations, each showing the engine's message for a bad value under it.

`field_for(option)` makes the field an option's kind asks for: a number, a duration or text
typed into a line edit with its unit beside it, a check box, or a list to choose from. The
label, tooltip, unit and bounds come from the `Option` (`engine.model.options`), so an option
declared in the model needs no form code.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QEvent, QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from engine.model.options import Option
from engine.model.units import compact_duration, parse_duration_s
from ui.widgets.style import ERROR_BORDER_STYLE, ERROR_STYLE, laid_out, tip_button, wrapped

_THOUSANDS = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?")
_UNITLESS = ("duration", "bool", "choice")  # their text says the unit (2h, on, a name)


class OptionField(QWidget):
    """An editor with its unit beside it and, when the value is wrong, the reason in red beneath."""

    changed = Signal()

    def __init__(self, editor: QWidget, unit: str = "", tooltip: str = "") -> None:
        super().__init__()
        editor.setToolTip(tooltip)
        self.editor = editor
        self.unit = QLabel(unit)
        self.unit.setMinimumWidth(60)
        self.error = wrapped(style=ERROR_STYLE, hidden=True)
        self._message = ""  # what is wrong with the value, shown while the field is enabled
        row = self.row = laid_out(QHBoxLayout(), editor, self.unit, 1)
        row.setContentsMargins(0, 0, 0, 0)
        column = laid_out(QVBoxLayout(self), row, self.error)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.setFocusProxy(editor)

    def set_value(self, value: object, quiet: bool = False) -> None:
        """Show `value`; `quiet` shows it without announcing an edit (a value the field only displays)."""
        raise NotImplementedError

    def parsed(self) -> tuple[bool, object]:
        """(True, value) or (False, what is wrong with what was entered)."""
        raise NotImplementedError

    def set_error(self, message: str | None) -> None:
        """Say beneath the field what is wrong with its value (None: nothing). A disabled field says nothing while it
        is disabled: what it shows is not the engineer's to correct there."""
        self._message = message or ""
        self._show_error()

    def _show_error(self) -> None:
        shown = self._message if self.isEnabled() else ""
        self.error.setText(shown)
        self.error.setVisible(bool(shown))
        self.editor.setStyleSheet(ERROR_BORDER_STYLE if shown else "")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.EnabledChange:
            self._show_error()
        super().changeEvent(event)


class FieldEdit(OptionField):
    """A typed value: a whole number, a number, a duration (2h, 30m, 45s) or text.

    `optional` fields read empty as None (the option's computed default: "one per core").
    """

    def __init__(self, kind: str = "text", unit: str = "", tooltip: str = "", placeholder: str = "",
                 *, optional: bool = False, allow_zero: bool = False) -> None:
        self.edit = QLineEdit(placeholderText=placeholder)
        widest = 480 if kind == "text" else 240  # a sentence, or a number
        room = self.edit.fontMetrics().horizontalAdvance(placeholder) + 24  # the placeholder says what empty means
        self.edit.setMinimumWidth(min(widest, max(room, 320 if kind == "text" else 0)))
        self.edit.setMaximumWidth(widest)
        super().__init__(self.edit, unit, tooltip)
        self.kind = kind
        self.optional = optional
        self.allow_zero = allow_zero
        self.edit.textChanged.connect(self.changed)

    def text(self) -> str:
        return self.edit.text().strip()

    def set_value(self, value: object, quiet: bool = False) -> None:
        if value is None:
            text = ""
        elif self.kind == "duration" and isinstance(value, int | float):
            text = compact_duration(float(value))
        else:
            text = f"{value:g}" if isinstance(value, float) else str(value)
        if text == self.edit.text():
            return
        if quiet:
            with QSignalBlocker(self.edit):
                self.edit.setText(text)
        else:
            self.edit.setText(text)

    def parsed(self) -> tuple[bool, object]:
        raw = self.text()
        if self.kind == "text":
            return True, raw
        if not raw:
            return (True, None) if self.optional else (False, "enter a value")
        if self.kind == "duration":
            try:
                return True, parse_duration_s(raw, allow_zero=self.allow_zero)
            except ValueError as exc:
                return False, str(exc)
        if "," in raw and not _THOUSANDS.fullmatch(raw):
            # "0,5" is a decimal comma, not a thousands separator: reading it as 5 would change the target tenfold
            return False, f"'{raw}': use a point for decimals (0.5); commas only group thousands (12,000)"
        text = raw.replace(",", "")
        try:
            return True, int(text) if self.kind == "int" else float(text)
        except ValueError:
            return False, "enter a whole number" if self.kind == "int" else "enter a number"


class CheckField(OptionField):
    """An option that is on or off."""

    def __init__(self, text: str, tooltip: str = "") -> None:
        self.box = QCheckBox(text)
        super().__init__(self.box, "", tooltip)
        self.box.toggled.connect(self.changed)

    def set_value(self, value: object, quiet: bool = False) -> None:
        blocked = self.box.blockSignals(quiet)
        self.box.setChecked(bool(value))
        self.box.blockSignals(blocked)

    def parsed(self) -> tuple[bool, object]:
        return True, self.box.isChecked()


class ChoiceField(OptionField):
    """An option with a few named values, each shown as its value unless given words (`label`)."""

    def __init__(self, choices: tuple[str, ...], tooltip: str = "") -> None:
        self.combo = QComboBox()
        for choice in choices:
            self.combo.addItem(choice, choice)
        super().__init__(self.combo, "", tooltip)
        self.combo.currentIndexChanged.connect(self.changed)

    def label(self, words: dict[str, str]) -> None:
        """Show each value by its words, as a page that knows them says it; the value read stays the value."""
        for index in range(self.combo.count()):
            value = str(self.combo.itemData(index))
            self.combo.setItemText(index, words.get(value, value))

    def set_value(self, value: object, quiet: bool = False) -> None:
        blocked = self.combo.blockSignals(quiet)
        found = self.combo.findData(str(value))
        if found >= 0:  # a value the option does not have leaves the choice shown
            self.combo.setCurrentIndex(found)
        self.combo.blockSignals(blocked)

    def parsed(self) -> tuple[bool, object]:
        return True, self.combo.currentData()


class FolderField(OptionField):
    """An optional folder, typed or chosen with Browse; empty reads as None (the option's default: no folder)."""

    def __init__(self, tooltip: str = "", placeholder: str = "") -> None:
        self.edit = QLineEdit(placeholderText=placeholder)
        self.edit.setMinimumWidth(max(320, self.edit.fontMetrics().horizontalAdvance(placeholder) + 24))
        self.edit.setMaximumWidth(480)
        super().__init__(self.edit, "", tooltip)
        self.browse = tip_button("Browse…", "Choose the folder", self._on_browse_clicked)
        self.row.insertWidget(1, self.browse)
        self.edit.textChanged.connect(self.changed)

    def _on_browse_clicked(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Choose a folder", self.edit.text().strip())
        if chosen:
            self.edit.setText(str(Path(chosen)))

    def set_value(self, value: object, quiet: bool = False) -> None:
        text = "" if value is None else str(value)
        if text != self.edit.text():
            blocked = self.edit.blockSignals(quiet)
            self.edit.setText(text)
            self.edit.blockSignals(blocked)

    def parsed(self) -> tuple[bool, object]:
        text = self.edit.text().strip()
        return True, text or None


class DurationChoice(OptionField):
    """A duration typed (2h, 30m, 45s, 1:30:00) or picked from the usual ones."""

    def __init__(self, presets: list[str], tooltip: str = "", *, allow_zero: bool = False) -> None:
        self.combo = QComboBox(editable=True)
        self.combo.addItems(presets)
        super().__init__(self.combo, "", tooltip)
        self.allow_zero = allow_zero
        self.combo.currentTextChanged.connect(self.changed)

    def set_value(self, value: object, quiet: bool = False) -> None:
        text = compact_duration(float(value)) if isinstance(value, int | float) else str(value)
        if text != self.combo.currentText():
            blocked = self.combo.blockSignals(quiet)
            self.combo.setCurrentText(text)
            self.combo.blockSignals(blocked)

    def parsed(self) -> tuple[bool, object]:
        try:
            return True, parse_duration_s(self.combo.currentText(), allow_zero=self.allow_zero)
        except ValueError as exc:
            return False, str(exc)


def tooltip_of(option: Option) -> str:
    """The option's description, with its bounds and how an empty field is read."""
    lines = [option.description or option.title]
    bounds = option.bounds_words()
    if bounds and option.kind != "text":
        lines.append(f"Allowed: {bounds}" + (f" {option.unit}" if option.unit and option.kind not in _UNITLESS else ""))
    if option.default is None and option.default_words:
        lines.append(f"Empty: {option.default_words}")
    return "\n".join(lines)


def field_for(option: Option) -> OptionField:
    """The field for `option`, labelled, explained and bounded by its declaration alone."""
    tooltip = tooltip_of(option)
    if option.kind == "bool":
        return CheckField(option.label, tooltip)
    if option.kind == "choice":
        return ChoiceField(option.choices, tooltip)
    kind = option.kind if option.kind in ("int", "float", "duration") else "text"
    placeholder = option.default_words if option.default is None else ""
    if kind == "duration":
        placeholder = "e.g. 2h, 30m, 45s"
    unit = "" if option.kind in _UNITLESS else option.unit
    return FieldEdit(kind, unit, tooltip, placeholder, optional=option.default is None and kind != "text",
                     allow_zero=zero_allowed(option))


def bounds_problem(option: Option, value: float) -> str | None:
    """What is wrong with `value` against the option's declared bounds, in the field's words, as the model says it
    ("at least 2 files (got 1)"); None if nothing."""
    wrong = option.out_of_bounds(value)
    return f"{wrong} (got {option.got_words(value)})" if wrong is not None else None


def zero_allowed(option: Option) -> bool:
    """A duration of 0 is valid (a warm-up may be skipped)."""
    return option.minimum == 0 and not option.minimum_open
