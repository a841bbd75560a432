"""Walking the wizard as an engineer would: bad values are named at the field and block Next."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from ui.wizard import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _type(qtbot, field, text: str) -> None:
    field.edit.clear()
    qtbot.keyClicks(field.edit, text)


def _go_next(qtbot, window) -> None:
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)


def test_bad_values_are_named_at_the_field_and_good_ones_reach_review(qtbot, window, tmp_path):
    wizard = window.wizard
    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_PROFILE
    mailboxes = wizard.profile.fields["profile.mailboxes"]

    _type(qtbot, mailboxes, "-5")
    assert mailboxes.error.isVisible() and "greater than 0 (got -5)" in mailboxes.error.text()
    assert not _next_enabled(window)
    _type(qtbot, mailboxes, "lots")
    assert mailboxes.error.text() == "enter a whole number" and not _next_enabled(window)
    _type(qtbot, mailboxes, "20")
    size = wizard.profile.fields["profile.mailbox_size_mb"]
    _type(qtbot, size, "2")
    assert not mailboxes.error.isVisible() and _next_enabled(window)
    assert "Target: <b>2.4 transactional IOPS</b>" in wizard.profile.readout.text()  # 20 × 0.1 + 20 %

    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_TUNING
    wizard.tuning.manual.setChecked(True)
    threads = wizard.tuning.fields["thread_count"]
    _type(qtbot, threads, "0")
    assert "greater than or equal to 1" in threads.error.text() and not _next_enabled(window)
    _type(qtbot, threads, "1")
    assert "cannot serve 2 databases" in threads.error.text()  # the engine's own cross-field rule
    _type(qtbot, threads, "2")
    assert "Advisor's starting point" in wizard.tuning.suggestion.text()

    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_DATABASES
    page = wizard.databases
    page.db_pattern.setText(str(tmp_path / "nowhere" / "deeper" / "DB{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(page.row_messages), timeout=5000)
    assert "does not exist" in page.table.item(0, 2).text() and not _next_enabled(window)
    page.db_pattern.setText(str(tmp_path / "data" / "DB{n}"))
    page.log_pattern.setText(str(tmp_path / "data" / "Log{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    assert "✓ will be created, writable" in page.table.item(1, 2).text()
    assert "same volume as row 1" in page.table.item(1, 2).text()

    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_TYPE
    wizard.test_type.duration.setCurrentText("soon")
    assert "cannot read duration 'soon'" in wizard.test_type.duration_error.text() and not _next_enabled(window)
    wizard.test_type.duration.setCurrentText("10s")
    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_REVIEW
    review = wizard.review.text.toPlainText()
    assert "2.4 transactional IOPS" in review and "2 threads, SluggishSessions 1" in review and "10s measured" in review
    assert wizard.button(QWizard.WizardButton.FinishButton).isEnabled()

    # nothing is lost going back
    wizard.back()
    wizard.back()
    wizard.back()
    wizard.back()
    assert wizard.currentId() == PAGE_PROFILE
    assert mailboxes.edit.text() == "20" and size.edit.text() == "2"


def test_a_configuration_file_opens_into_the_wizard(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from engine.config import default_config, save_config

    path = tmp_path / "design.json"
    save_config(default_config(tmp_path / "data", databases=3, profile={"mailboxes": 777}), path)
    assert window.load_config_file(path)
    assert window.state.data["profile"]["mailboxes"] == 777 and window.state.session == "design"
    window.wizard.next()
    assert window.wizard.profile.fields["profile.mailboxes"].edit.text() == "777"
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warnings.append(text))
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    assert not window.load_config_file(bad)
    assert warnings and "broken.json" in warnings[0]
    assert window.state.data["profile"]["mailboxes"] == 777  # nothing lost


def test_a_configuration_dropped_on_the_window_opens(qtbot, window, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from engine.config import default_config, save_config

    path = tmp_path / "dropped.json"
    save_config(default_config(tmp_path / "data", profile={"mailboxes": 4321}), path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.state.data["profile"]["mailboxes"] == 4321 and window.state.session == "dropped"


def test_a_tuning_session_is_continued_from_the_welcome_page(qtbot, qapp, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from engine.config import default_config
    from engine.events import ResultEvent
    from engine.store import RunRecorder, Store
    from ui.main_window import MainWindow

    config = default_config(tmp_path / "data", thread_count=6, sluggish_sessions=3, profile={"mailboxes": 2500})
    store = Store()
    record = RunRecorder(store, store.session_for("SAN tier 2", config), "r-1", config, tmp_path / "out")
    record(ResultEvent(result={"summary": {"verdict": "fail", "achieved_transactional_iops": 250.0,
                                           "db_read_avg_latency_ms": 24.0, "log_write_avg_latency_ms": 2.0,
                                           "reasons": ["too slow"]}}))
    store.close()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    window = MainWindow(runs_root=tmp_path / "runs", data_base=tmp_path / "data")
    qtbot.addWidget(window)
    sessions = window.wizard.welcome.sessions
    assert sessions.count() == 1
    assert "SAN tier 2" in sessions.item(0).text() and "last: FAIL at 6 threads / SluggishSessions 3" in sessions.item(0).text()
    sessions.setCurrentRow(0)
    assert window.wizard.welcome.resume.isChecked()
    assert window.state.session == "SAN tier 2" and window.state.data["profile"]["mailboxes"] == 2500
    assert window.state.data["thread_count"] == 6
