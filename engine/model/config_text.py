"""A configuration file's bytes as every front end takes them: Jetwise's JSON or a JetstressConfig.xml.

The front ends read the file (at most one byte past the limit) and say in their own words what is
wrong with it; what the bytes are is decided here, once.
"""

from __future__ import annotations

from pathlib import Path

from engine.model.units import MIB

CONFIG_LIMIT_BYTES = 1 * MIB
"""A configuration is a few kilobytes; anything near this is another file chosen by mistake."""


def decode_config(raw: bytes) -> str:
    """The text: UTF-8 with or without a byte-order mark (as Notepad writes), or UTF-16 (as Notepad may save a
    JetstressConfig.xml). Raises UnicodeDecodeError for a file that is not text."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw.decode("utf-16")
    return raw.decode("utf-8-sig")


def is_jetstress_xml(path: Path, text: str) -> bool:
    """A JetstressConfig.xml rather than Jetwise's JSON: named .xml, or starting as XML does."""
    return path.suffix.lower() == ".xml" or text.lstrip().startswith("<")
