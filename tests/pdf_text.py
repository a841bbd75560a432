"""A PDF's text as a reader reads it: its words in order, whatever the machine's fonts made of the lines.

Another font wraps a table's cell or a sentence at another word, so a test that reads a PDF asserts on its words and
their order, never on where a line breaks: each page's text is folded to single spaces (NFKC, so ligatures and
non-breaking spaces read as typed; the break opportunities the report places in paths are dropped)."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

needs_pdftotext = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is not installed")


def pdf_pages(pdf: Path) -> list[str]:
    """Each page's words joined by single spaces, in reading order (pdftotext's layout keeps a table's row together)."""
    raw = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = raw.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()  # pdftotext ends the last page with a form feed too
    return [fold(page) for page in pages]


def pdf_text(pdf: Path) -> str:
    """The whole document's words joined by single spaces."""
    return " ".join(pdf_pages(pdf))


def fold(text: str) -> str:
    """`text` with every run of white space one space, NFKC-normalised, without zero-width break opportunities."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).replace("\u200b", "")).strip()
