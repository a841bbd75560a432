"""A problem the engine's rules find across fields shows under the field it names, as soon as the value is entered,
not only on the Review page."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWizard

from engine.model import config as model
from tests.ui.test_wizard_rows import _small, _type
from ui.wizard import PAGE_REVIEW, PAGE_TYPE


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def test_a_minimum_cache_above_the_maximum_is_named_under_the_minimum_field(qtbot, window, tmp_path):
    window.wizard.load_config(_small(tmp_path / "data"), session="cache")
    window.wizard.restart_at(PAGE_TYPE)
    page = window.wizard.test_type
    smallest = page.fields["database_cache_min_mb"]
    _type(qtbot, smallest, "64")  # above the maximum of 16 MB
    assert page.more.content.isVisibleTo(page) and smallest.error.isVisibleTo(page)
    assert smallest.error.text() == "the minimum database cache (64 MB) is larger than the maximum (16 MB)"
    assert not _next_enabled(window)
    window.wizard.restart_at(PAGE_REVIEW)
    text = window.wizard.review.text.toPlainText()
    assert "Error — Minimum database cache (MB) (More settings on the Test type page): the minimum database" in text
    assert "Configuration:" not in text


def test_every_test_type_loaded_from_a_file_is_chosen_on_the_page_and_runs(qtbot, window, tmp_path):
    for kind in model.TestType:
        config = _small(tmp_path / "data").model_copy(update={"test_type": kind})
        window.wizard.load_config(config, session="types")
        window.wizard.restart_at(PAGE_TYPE)
        page = window.wizard.test_type
        assert page.buttons[kind].isChecked() and _next_enabled(window), kind
        assert [b for b in page.buttons.values() if b.isChecked()] == [page.buttons[kind]]
    qtbot.mouseClick(page.performance, Qt.MouseButton.LeftButton, pos=QPoint(6, 8))
    assert window.state.data["test_type"] == "performance" and _next_enabled(window)
