"""The Jetwise settings a written file carries in a comment, merged with what its elements say now.

The comment fills what the elements cannot say (the headroom, the cache sizes, a Database Checksum
test type, ...). An element whose value differs from what Jetwise wrote for those settings was
edited since, and wins.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from engine.model.jetstress.elements import JETWISE_COMMENT

if TYPE_CHECKING:
    from engine.model.jetstress.reading import XmlImport


def with_jetwise_settings(result: XmlImport, comment: str) -> XmlImport:
    """`result` with the settings of Jetwise's comment, each element edited since the export winning over them."""
    from engine.model.jetstress.writing import expected_data  # the writer's view of the saved settings

    try:
        saved = json.loads(comment.strip()[len(JETWISE_COMMENT):])
    except ValueError:
        saved = None
    expected = expected_data(saved) if isinstance(saved, dict) else None
    if not isinstance(saved, dict) or expected is None:
        result.warn("Jetwise settings", "the comment Jetwise wrote is damaged; the elements alone are used")
        return result
    merged = dict(saved)
    found, wrote = _flat(result.data), _flat(expected)
    for key, value in found.items():
        if wrote.get(key) != value:  # edited since Jetwise wrote the file: the element wins
            _put(merged, key, value)
            if key == "profile.iops_per_mailbox":  # the figure typed is the one tested, as in Jetstress
                _put(merged, "profile.headroom_percent", 0.0)
    result.data = merged
    result.threads_per_database = None  # the server's thread count is the one Jetwise wrote
    return result


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _put(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for parent in parents:
        data = data.setdefault(parent, {})
    data[leaf] = value
