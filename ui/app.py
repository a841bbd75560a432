"""Start the window: `jetwise` with no arguments."""

from __future__ import annotations

import sys
import traceback
from datetime import datetime
from pathlib import Path
from types import TracebackType

from PySide6.QtWidgets import QApplication, QMessageBox

from engine.store import default_store_path
from engine.version import __version__


def crash_log_path() -> Path:
    return default_store_path().parent / "jetwise-ui-errors.log"


def install_exception_hook() -> None:
    """An unexpected error shows a dialog and is logged; the window stays up."""

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        path = crash_log_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as log:
                log.write(f"--- {datetime.now().isoformat(timespec='seconds')} Jetwise {__version__}\n{text}\n")
        except OSError:
            pass
        sys.stderr.write(text)
        if QApplication.instance() is not None:
            box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error",
                              f"Jetwise hit an unexpected error and carried on.\n\n{value}\n\nDetails were written to {path}.")
            box.setDetailedText(text)
            box.exec()

    sys.excepthook = hook


def main(argv: list[str]) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setOrganizationName("Jetwise")
    app.setApplicationName("Jetwise")
    app.setApplicationVersion(__version__)
    install_exception_hook()
    from ui.main_window import MainWindow

    window = MainWindow()
    window.show()
    return int(app.exec())
