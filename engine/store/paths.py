"""Where the run store and the error logs live: the user's data folder (platformdirs; `JETWISE_DATA_DIR` moves it)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

STORE_FILE = "jetwise.sqlite3"
DATA_DIR_ENV = "JETWISE_DATA_DIR"


def data_folder() -> Path:
    """The user's Jetwise data folder."""
    return Path(os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_dir("Jetwise", appauthor=False))


def default_store_path() -> Path:
    return data_folder() / STORE_FILE


def hosts_folder() -> Path:
    """Where a controller keeps its authority and its servers (`engine.hosts.roster`)."""
    return data_folder() / "hosts"


def agent_folder() -> Path:
    """Where an agent keeps its enrolment (`engine.hosts.membership`)."""
    return data_folder() / "agent"


ERROR_LOG = "jetwise-errors.log"  # what the command line and the engine met unexpectedly, beside the store
WINDOW_ERROR_LOG = "jetwise-ui-errors.log"  # ... and the window


def error_log_path(window: bool = False) -> Path:
    """Where unexpected errors are logged: the data folder that holds the run store."""
    return default_store_path().parent / (WINDOW_ERROR_LOG if window else ERROR_LOG)
