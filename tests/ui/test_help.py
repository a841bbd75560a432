"""Help → Where Jetwise keeps things: the runs folder, the run store, the error logs and the settings."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QMessageBox

from engine.store.paths import error_log_path


def test_help_says_where_the_runs_the_store_and_the_error_logs_are(qtbot, window, tmp_path):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    action = next(a for a in help_menu.actions() if a.text().startswith("&Where Jetwise keeps things"))
    action.trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QMessageBox), timeout=5000)
    box = QApplication.activeModalWidget()
    text = box.text()
    for path in (window.runs.runs_root, window.store.path, error_log_path(), error_log_path(window=True)):
        assert str(path) in text
    assert "(none yet)" in text  # no error logged in this test: said, not a path that leads nowhere
    buttons = {b.text(): b for b in box.buttons()}
    assert buttons["Open data folder"].isEnabled()  # the store's folder is there
    buttons["Open data folder"].click()
    assert box.isVisible()  # it opens the folder and stays up
    box.close()
