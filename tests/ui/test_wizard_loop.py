"""The wizard after a run: "New test" puts it back on a page with a clean history, and nothing entered is lost."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from ui.wizard import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE, PAGE_WELCOME

PAGES = [PAGE_WELCOME, PAGE_PROFILE, PAGE_TUNING, PAGE_DATABASES, PAGE_TYPE, PAGE_REVIEW]  # no server enrolled: no Servers page


def _button(wizard, which: QWizard.WizardButton):
    return wizard.button(which)


def _type(qtbot, field, text: str) -> None:
    field.edit.clear()
    qtbot.keyClicks(field.edit, text)


def _go_next(qtbot, wizard) -> None:
    button = _button(wizard, QWizard.WizardButton.NextButton)
    qtbot.waitUntil(button.isEnabled, timeout=5000)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _go_back(qtbot, wizard) -> None:
    qtbot.mouseClick(_button(wizard, QWizard.WizardButton.BackButton), Qt.MouseButton.LeftButton)


def fill_folders(qtbot, page, data) -> None:
    """The Databases page's folders typed as patterns below `data` and filled into its rows."""
    page.db_pattern.setText(str(data / "DB{n}"))
    page.log_pattern.setText(str(data / "Log{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)


def _walk_to_review(qtbot, wizard, tmp_path) -> None:
    """Welcome to Review with Next only, entering values on the way."""
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_PROFILE
    _type(qtbot, wizard.profile.fields["profile.mailboxes"], "321")
    _type(qtbot, wizard.profile.fields["profile.mailbox_size_mb"], "2")
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_TUNING
    wizard.tuning.manual.setChecked(True)
    _type(qtbot, wizard.tuning.fields["thread_count"], "5")
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_DATABASES
    page = wizard.databases
    fill_folders(qtbot, page, tmp_path / "data")
    qtbot.waitUntil(lambda: "✓ will be created" in (page.table.item(0, 3).text() if page.table.item(0, 3) else ""),
                    timeout=5000)
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_TYPE
    wizard.test_type.duration.setCurrentText("10s")
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_REVIEW


def test_restart_at_the_profile_after_review_walks_on_and_back_with_every_value_kept(qtbot, window, tmp_path):
    wizard = window.wizard
    _walk_to_review(qtbot, wizard, tmp_path)
    (tmp_path / "data" / "DB1").mkdir()  # changes what the Databases page's checks find

    wizard.restart_at(PAGE_PROFILE)
    assert wizard.currentId() == PAGE_PROFILE
    assert wizard.profile.fields["profile.mailboxes"].edit.text() == "321"
    assert window.state.data["thread_count"] == 5 and window.state.data["duration_s"] == 10.0

    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_TUNING
    assert wizard.tuning.manual.isChecked() and wizard.tuning.fields["thread_count"].edit.text() == "5"
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_DATABASES
    page = wizard.databases
    # the page checks its rows again on this new visit: the folder made meanwhile is seen
    qtbot.waitUntil(lambda: "✓ exists" in page.table.item(0, 3).text(), timeout=5000)
    assert "✓ will be created" in page.table.item(1, 3).text()
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_TYPE
    assert wizard.test_type.duration.currentText() == "10s"
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_REVIEW
    assert "5 threads, SluggishSessions 1" in wizard.review.text.toPlainText()
    qtbot.waitUntil(_button(wizard, QWizard.WizardButton.FinishButton).isEnabled, timeout=5000)

    # Back goes to the previous page, every step of the way
    for expected in reversed(PAGES[:-1]):
        _go_back(qtbot, wizard)
        assert wizard.currentId() == expected
    assert not _button(wizard, QWizard.WizardButton.BackButton).isEnabled()  # the first page
    assert wizard.profile.fields["profile.mailboxes"].edit.text() == "321"


def test_restart_at_each_page_gives_a_history_that_back_unwinds_page_by_page(qtbot, window, tmp_path):
    wizard = window.wizard
    _walk_to_review(qtbot, wizard, tmp_path)
    for page_id in PAGES:
        wizard.restart_at(page_id)
        assert wizard.currentId() == page_id
        assert wizard.visitedIds() == PAGES[: PAGES.index(page_id) + 1]
    wizard.restart_at(PAGE_TYPE)
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_REVIEW
    assert window.state.data["profile"]["mailboxes"] == 321


def test_restart_at_refuses_a_page_the_wizard_does_not_have(qtbot, window):
    import pytest

    with pytest.raises(ValueError, match="no page 42"):
        window.wizard.restart_at(42)


def test_a_database_to_recreate_is_a_warning_on_its_row_and_next_stays_enabled(qtbot, window, tmp_path):
    """After a run, more mailboxes make the databases larger: the rows say they will be recreated, amber, and
    the engineer goes on (the run recreates Jetwise's own files)."""
    from engine.io.file_names import database_file_path
    from engine.io.files import prepare_database
    from engine.io.platform import default_backend
    from engine.model.config import DatabaseSource
    from tests.conftest import small_config

    config = small_config(tmp_path / "data" / "dbs")
    for index, spec in enumerate(config.databases):
        spec.database_path.mkdir(parents=True)
        prepare_database(default_backend(), database_file_path(spec.database_path, index), config.database_pages,
                         DatabaseSource.CREATE, unbuffered=False)
    window.wizard.load_config(config.model_copy(update={"profile": config.profile.model_copy(update={"mailboxes": 48})}),
                              session="grown")
    window.wizard.restart_at(PAGE_DATABASES)
    page = window.wizard.databases
    qtbot.waitUntil(lambda: "will be recreated" in (page.table.item(0, 3).text() if page.table.item(0, 3) else ""),
                    timeout=5000)
    assert page.table.item(0, 3).foreground().color().name() == "#8a5a00"  # amber, not an error's red
    qtbot.waitUntil(_button(window.wizard, QWizard.WizardButton.NextButton).isEnabled, timeout=5000)
    assert "Fix rows" not in page.summary.text()


def test_a_decimal_comma_is_refused_at_its_field_not_read_as_a_larger_number(qtbot, window):
    window.wizard.restart_at(PAGE_PROFILE)
    field = window.wizard.profile.fields["profile.iops_per_mailbox"]
    _type(qtbot, field, "0,5")
    assert "use a point for decimals" in field.error.text()
    assert window.state.data["profile"]["iops_per_mailbox"] != 5
    _type(qtbot, field, "0.5")
    assert not field.error.text() and window.state.data["profile"]["iops_per_mailbox"] == 0.5
