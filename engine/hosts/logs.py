"""The link's own log in a file of the data folder, not on the engineer's console: the console says Jetwise's words.

The WebSocket library logs each connection's troubles, and the controller each refusal; they belong in a file an
engineer can send, beside the lines the agent and the controller say."""

from __future__ import annotations

import logging
from pathlib import Path

from engine.io.safety import make_folders

AGENT_LOG = "agent.log"
CONTROLLER_LOG = "controller.log"
LINK_LOGGERS = ("websockets", "jetwise.controller", "asyncio")


def log_link_to(path: Path) -> None:
    """Send the link's loggers' records to `path` (appended), and none to the console."""
    make_folders(path.parent)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name in LINK_LOGGERS:
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
