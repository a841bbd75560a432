"""The window under test: its own settings, run folder and data folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from ui.main_window import MainWindow


@pytest.fixture
def window(qtbot, qapp, tmp_path: Path, monkeypatch):
    from PySide6.QtGui import QDesktopServices

    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    qapp.setOrganizationName("JetwiseTests")
    qapp.setApplicationName("Jetwise")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    (tmp_path / "data").mkdir()
    main = MainWindow(runs_root=tmp_path / "runs", data_base=tmp_path / "data")
    qtbot.addWidget(main)
    main.resize(1100, 780)
    main.show()
    yield main
    if main.engine is not None and main.engine.running:
        main.engine.stop()
        main.engine.process.waitForFinished(10_000)
