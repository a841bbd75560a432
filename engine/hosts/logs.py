"""Dask's own log in a file of the data folder, not on the engineer's console: the console says Jetwise's words.

Dask logs every connection and, when a peer goes, a traceback; they belong in a file an engineer can send, not
between the lines the agent and the controller say."""

from __future__ import annotations

import logging
from pathlib import Path

from engine.io.safety import make_folders

AGENT_LOG = "agent.log"
CONTROLLER_LOG = "controller.log"


def quiet_dask(path: Path) -> None:
    """Send the `distributed` loggers' records to `path` (appended), and none to the console."""
    make_folders(path.parent)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name in ("distributed", "tornado"):
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.propagate = False
