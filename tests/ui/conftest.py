"""The window under test: its own settings, run folder, data folder and run store."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QThreadPool

from engine.store.sqlite import Store
from ui.shell import MainWindow


def open_window(qtbot, tmp_path: Path, store: Store) -> MainWindow:
    """A window on `store`, its settings and data folder below `tmp_path`, shown."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    (tmp_path / "data").mkdir(exist_ok=True)
    main = MainWindow(store, runs_root=tmp_path / "runs", data_base=tmp_path / "data")
    qtbot.addWidget(main)
    main.resize(1100, 780)
    main.show()
    return main


@pytest.fixture
def store():
    """The run store of the test (in its scratch folder, where the engine processes it starts record too)."""
    opened = Store()
    yield opened
    QThreadPool.globalInstance().waitForDone(10_000)  # no check still running against a closed window
    opened.close()


@pytest.fixture
def window(qtbot, qapp, tmp_path: Path, monkeypatch, store):
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QMessageBox

    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    # A message box no test expects would wait for a click that never comes: it is kept, and fails the test.
    dialogs: list[str] = []
    dialogs_asked: list[str] = []
    for kind in ("warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, kind, lambda _parent, title, text, *_a, _kind=kind: dialogs.append(
            f"{_kind}: {title}: {text}") or QMessageBox.StandardButton.Ok)
    # Stop and quit during a run ask first (ui.confirm, asked for real in test_confirmations): answered Yes here
    from ui import confirm

    monkeypatch.setattr(confirm, "ask", lambda _parent, title, _text, **_buttons: dialogs_asked.append(title) or True)
    qapp.setOrganizationName("JetwiseTests")
    qapp.setApplicationName("Jetwise")
    main = open_window(qtbot, tmp_path, store)
    yield main
    if main.runs.running:
        main.runs.stop_and_wait()
    assert not dialogs, f"the window showed a message box no test expected: {dialogs}"
