"""The window's wiring: the application, the exception hooks, the main window.

`jetwise` with no arguments comes here; so does the PDF report, which needs a Qt
application (offscreen where there is no display) but no window.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from importlib import resources
from pathlib import Path
from types import TracebackType

from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from app.crash import record_crash
from engine.protocol import ExitCode
from engine.store.sqlite import Store, StoreError
from engine.version import __version__


def install_exception_hook() -> None:
    """An unexpected error shows a dialog and is logged; the window stays up."""

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        path = record_crash(value.with_traceback(tb), "the window", window=True)
        sys.stderr.write(text)
        if QApplication.instance() is not None:
            where = f"Details were written to {path}." if path else "Its details could not be written to a log."
            box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error",
                              f"Jetwise hit an unexpected error and carried on.\n\n{value}\n\n{where}")
            box.setDetailedText(text)
            box.exec()

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not SystemExit and args.exc_value is not None:
            name = args.thread.name if args.thread else "?"
            record_crash(args.exc_value.with_traceback(args.exc_traceback), f"the window, thread {name}", window=True)
            text = "".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback))
            sys.stderr.write(f"in thread {name}:\n{text}")

    sys.excepthook = hook
    threading.excepthook = thread_hook


def icon_path() -> Path:
    """The application's icon (an SVG among the resources; a frozen Windows build makes its .ico from it)."""
    return Path(str(resources.files("resources").joinpath("icons/jetwise.svg")))


def ensure_gui_application() -> QGuiApplication:
    """Qt's text layout needs an application; headless machines get the offscreen platform."""
    app = QGuiApplication.instance()
    if app is None:
        if sys.platform.startswith("linux") and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication([sys.argv[0] if sys.argv else "jetwise"])
    assert isinstance(app, QGuiApplication)
    return app


def main(argv: list[str], config: Path | None = None, *, start: bool = False) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setOrganizationName("Jetwise")
    app.setApplicationName("Jetwise")
    app.setApplicationVersion(__version__)
    QApplication.setWindowIcon(QIcon(str(icon_path())))
    install_exception_hook()
    from ui.shell import MainWindow

    try:
        store = Store()  # opened once, for the whole window
    except StoreError as exc:
        QMessageBox.critical(None, "Jetwise cannot start", str(exc))
        return ExitCode.ABORTED
    try:
        window = MainWindow(store)
        window.show()
        if config is not None and window.load_config_file(config) and start:
            window.start_from_wizard()
        return int(app.exec())
    finally:
        store.close()
