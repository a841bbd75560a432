"""Help → Where Jetwise keeps things: the runs, the run store, the error logs and the window's settings, each a
path to copy and a folder to open."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from engine.store.paths import error_log_path


def places(runs_root: Path, store_path: Path) -> list[tuple[str, Path]]:
    """What Jetwise keeps where, in the order an engineer looks for it."""
    return [
        ("Runs (each run's folder: its samples, result, test log and reports)", runs_root),
        ("Run store (every tuning session and run)", store_path),
        ("Error log of the command line and the engine", error_log_path()),
        ("Error log of the window", error_log_path(window=True)),
        ("The window's settings", Path(QSettings().fileName())),
    ]


def show_places(parent: QWidget, runs_root: Path, store_path: Path) -> QMessageBox:
    """The places, with buttons that open the runs folder and the data folder; shown without blocking."""
    rows = "".join(f"<tr><td><b>{escape(what)}</b></td><td>{escape(str(path))}"
                   f"{'' if path.exists() else ' <i>(none yet)</i>'}</td></tr>" for what, path in places(runs_root, store_path))
    box = QMessageBox(QMessageBox.Icon.Information, "Where Jetwise keeps things",
                      f"<table cellpadding='3'>{rows}</table>", QMessageBox.StandardButton.Close, parent)
    for label, folder in (("Open runs folder", runs_root), ("Open data folder", store_path.parent)):
        button = box.addButton(label, QMessageBox.ButtonRole.ActionRole)
        button.setEnabled(folder.is_dir())
        button.clicked.disconnect()  # it opens the folder and leaves the box up
        button.clicked.connect(lambda _checked=False, f=folder: QDesktopServices.openUrl(QUrl.fromLocalFile(str(f))))
    box.open()
    return box
