"""A configuration saved as Jetwise's JSON: written whole, never through a link (`engine.io.safety`)."""

from __future__ import annotations

from pathlib import Path

from engine.io.safety import write_text
from engine.model.config import TestConfig


def save_config(config: TestConfig, path: Path) -> None:
    write_text(path, config.model_dump_json(indent=2) + "\n")


def load_config(path: Path) -> TestConfig:
    """Load a JSON configuration file (raises pydantic.ValidationError or OSError)."""
    return TestConfig.model_validate_json(path.read_text(encoding="utf-8"))
