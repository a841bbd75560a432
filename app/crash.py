"""Unexpected errors: the details to a crash log in the data folder, one line to the engineer."""

from __future__ import annotations

import traceback
from datetime import datetime
from pathlib import Path

from engine.io.safety import make_folders
from engine.store.paths import error_log_path
from engine.version import __version__


def crash_log_path(window: bool = False) -> Path:
    """The command line's crash log, or the window's (`window`): both in the data folder that holds the run store."""
    return error_log_path(window=window)


def record_crash(error: BaseException, where: str, *, window: bool = False) -> Path | None:
    """Append the traceback of `error` to the crash log; the log's path, or None if it cannot be written."""
    path = crash_log_path(window)
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    try:
        make_folders(path.parent)
        with path.open("a", encoding="utf-8") as log:
            log.write(f"--- {datetime.now().isoformat(timespec='seconds')} Jetwise {__version__}, {where}\n{text}\n")
    except OSError:
        return None
    return path
