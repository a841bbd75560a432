"""The window's Review reserves on a small volume what the test grows its databases by, as validate does."""

from __future__ import annotations

from PySide6.QtWidgets import QWizard

from engine.model.config import TestConfig
from tests.faults.test_growth_space import NEEDS, growth_config, small  # noqa: F401 (small: the volume's fixture)
from ui.wizard import PAGE_REVIEW


def test_review_refuses_a_volume_without_room_for_the_growth_and_says_it(qtbot, window, tmp_path, small):  # noqa: F811
    window.wizard.load_config(TestConfig.model_validate_json(growth_config(tmp_path, small, "2h").read_text()))
    window.wizard.restart_at(PAGE_REVIEW)
    review = window.wizard.review
    qtbot.waitUntil(lambda: NEEDS in review.text.toPlainText(), timeout=20_000)
    assert not window.wizard.button(QWizard.WizardButton.FinishButton).isEnabled()
