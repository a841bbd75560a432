"""Where the run store and the error logs live: the user's data folder (platformdirs; `JETWISE_DATA_DIR` moves it)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

STORE_FILE = "jetwise.sqlite3"
DATA_DIR_ENV = "JETWISE_DATA_DIR"


def default_store_path() -> Path:
    folder = os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_dir("Jetwise", appauthor=False)
    return Path(folder) / STORE_FILE


ERROR_LOG = "jetwise-errors.log"  # what the command line and the engine met unexpectedly, beside the store
WINDOW_ERROR_LOG = "jetwise-ui-errors.log"  # ... and the window


def error_log_path(window: bool = False) -> Path:
    """Where unexpected errors are logged: the data folder that holds the run store."""
    return default_store_path().parent / (WINDOW_ERROR_LOG if window else ERROR_LOG)
