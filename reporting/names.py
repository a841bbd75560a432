"""How the templates read a report's typed model: each field by its name, a part's fields beside its holder's.

A report's model is frozen dataclasses; a field made with `field(metadata=PART)` holds a model of its own (a scan's, a sweep's,
None where the run has none), whose fields the templates read as if they were its holder's.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

PART = {"part": True}  # a field's metadata: it holds a part of the model (its fields are names; none when it is None)


def template_names(model: Any) -> dict[str, object]:
    """The names a template reads of `model`, a report's model or a part of one."""
    names: dict[str, object] = {}
    for each in fields(model):
        value = getattr(model, each.name)
        if not each.metadata.get("part"):
            names[each.name] = value
        elif value is not None:
            names |= template_names(value)
    return names
