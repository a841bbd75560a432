"""Configuration files as the command line meets them: read, parsed and checked, every problem said."""

from __future__ import annotations

import json
from pathlib import Path

from engine.model.config import TestConfig
from engine.model.validation import Problem, validate_data


def load_checked(path: Path) -> tuple[TestConfig | None, list[Problem]]:
    """A configuration file read and checked against the model, or every problem with it."""
    if path.is_dir():
        return None, [Problem("", f"{path} is a folder; give the configuration file (CONFIG.json)")]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return None, [Problem("", f"cannot read {path}: {exc.strerror or exc}")]
    except UnicodeDecodeError:
        return None, [Problem("", f"{path} is not a text file (a configuration is JSON in UTF-8); was another file named?")]
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Problem("", f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")]
    return validate_data(text)
