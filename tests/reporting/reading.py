"""The HTML report as an engineer reads it, for tests that check its words in order."""

from __future__ import annotations

import html as markup
import re


def html_text(html: str) -> str:
    """Tags out, entities decoded, spaces collapsed."""
    return re.sub(r"\s+", " ", markup.unescape(re.sub(r"<[^>]+>", " ", html)))
