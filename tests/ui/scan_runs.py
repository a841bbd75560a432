"""Starting a test from the wizard as an engineer does, and waiting for its results: the scan tests' steps."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QRadioButton, QWizard

from engine.model.config import TestConfig
from ui.wizard import PAGE_REVIEW

ENGINE_TIMEOUT_MS = 120_000


def choose(qtbot, button: QRadioButton) -> None:
    """Click a test type's radio button where its circle is."""
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=QPoint(6, 8))
    assert button.isChecked()


def start(qtbot, window, config: TestConfig, session: str, *, load: bool = True) -> None:
    """Start `config` (or, with `load` False, what the wizard holds) from the Review page; return once it runs."""
    if load:
        window.wizard.load_config(config, session=session)
    window.wizard.restart_at(PAGE_REVIEW)
    window.wizard.review.session.setText(session)
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
        qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    assert window.stack.currentWidget() is window.run_view


def wait_for_results(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.results_view, timeout=ENGINE_TIMEOUT_MS)
