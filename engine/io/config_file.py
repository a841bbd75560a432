"""A configuration file read (Jetwise's JSON or a JetstressConfig.xml, as text) and saved (JSON, written whole, never
through a link: `engine.io.safety`): the command line and the window read it the same way."""

from __future__ import annotations

from pathlib import Path

from engine.io.safety import write_text
from engine.model.config import FROM_FILE, TestConfig
from engine.model.config_text import CONFIG_LIMIT_BYTES, decode_config
from engine.model.units import format_bytes
from engine.model.validation import Problem


def save_config(config: TestConfig, path: Path) -> None:
    write_text(path, config.model_dump_json(indent=2) + "\n")


def load_config(path: Path) -> TestConfig:
    """Load a JSON configuration file (raises pydantic.ValidationError or OSError)."""
    return TestConfig.model_validate_json(path.read_text(encoding="utf-8"), context=FROM_FILE)


def read_config_text(path: Path) -> str | Problem:
    """The file's text (a byte-order mark, as Notepad writes, is fine), or why it cannot be read as a configuration."""
    if "\0" in str(path):
        return Problem("", "the configuration's path holds a NUL character (\\x00), which no file system accepts")
    try:
        if path.is_dir():  # raises for a name too long for the file system, not only reading does
            return Problem("", f"{path} is a folder; give the configuration file (CONFIG.json)")
        if path.exists() and not path.is_file():  # a pipe would wait for a writer for ever
            return Problem("", f"{path} is not a regular file (a pipe or a device); give the configuration file")
        with path.open("rb") as file:  # at most one byte past the limit: a disk image or a pipe is not read whole
            raw = file.read(CONFIG_LIMIT_BYTES + 1)
    except OSError as exc:
        return Problem("", f"cannot read {path}: {exc.strerror or exc}")
    if len(raw) > CONFIG_LIMIT_BYTES:
        return Problem("", f"{path} is larger than {format_bytes(CONFIG_LIMIT_BYTES)}; a configuration is a small JSON "
                           "file or JetstressConfig.xml (jetwise init writes one): was another file named?")
    try:
        return decode_config(raw)
    except UnicodeDecodeError:
        return Problem("", f"{path} is not a text file (a configuration is JSON in UTF-8); was another file named?")
