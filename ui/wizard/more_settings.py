"""More settings: every option with a command-line flag that no page places itself, generated from its declaration.

An option declared in the model with `cli("--flag")` appears here with its label, unit,
tooltip and bounds, and its problems under its field, with no code of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QFormLayout, QWidget

from engine.model.options import Option
from ui.widgets.section import CollapsibleSection
from ui.wizard.base import WizardPage

TITLE = "More settings"


def more_settings(page: WizardPage, options: Sequence[Option]) -> CollapsibleSection:
    """A closed section on `page` with one field per option, bound to the draft like the page's own."""
    content = QWidget()
    form = QFormLayout(content)
    form.setContentsMargins(18, 0, 0, 0)
    for found in options:
        page.add_field(form, found.path)
    return CollapsibleSection(TITLE, content, "Settings most tests leave at their defaults; each is also a "
                                              "command-line flag of jetwise init")
