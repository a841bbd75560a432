"""The values of a JetstressConfig.xml's elements as Jetstress writes them, each converter raising ValueError on junk."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pydantic import TypeAdapter, ValidationError

from engine.model.jetstress.elements import DATABASE_SOURCES, SIZING_BY_PROFILE, TEST_TYPES

_DURATION = TypeAdapter(timedelta)  # ISO 8601 durations, years as 365 days and months as 30, as xs:duration
_TRUE, _FALSE = frozenset({"true", "1", "yes"}), frozenset({"false", "0", "no"})


def parse_duration(text: str) -> float | None:
    """Seconds in an xs:duration as Jetstress writes it (P0Y0M0DT2H0M0S), None when it is not one or is zero."""
    text = text.strip()
    # pydantic reads a bare number as seconds, and a time part with nothing in it (P1DT) as none: xs:duration has neither
    if not text.startswith("P") or text.endswith("T"):
        return None
    try:
        seconds = _DURATION.validate_python(text).total_seconds()
    except ValidationError:
        return None
    return seconds if seconds > 0 else None


def boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE or lowered in _FALSE:
        return lowered in _TRUE
    raise ValueError(text)


def number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def whole(text: str) -> int:
    value = number(text)
    if value != int(value):
        raise ValueError(text)
    return int(value)


def duration(text: str) -> float:
    seconds = parse_duration(text)
    if seconds is None:
        raise ValueError(text)
    return seconds


def refuse(text: str) -> str:
    raise ValueError(text)


def kind(text: str) -> str:
    """Jetwise's name of a Jetstress test type, whatever its case."""
    return next((ours for name, ours in TEST_TYPES.items() if name.lower() == text.lower()), None) or refuse(text)


def sizing(text: str) -> str:
    """The scenario a DatabaseSizing names: Profile, the mailbox profile; anything else, the disk throughput."""
    return "mailbox_profile" if text.lower() == SIZING_BY_PROFILE.lower() else "disk_throughput"


def source(text: str) -> str:
    return next((ours for name, ours in DATABASE_SOURCES.items() if name.lower() == text.lower()), None) or refuse(text)


WHAT: dict[Callable[[str], Any], str] = {
    kind: "Performance, Stress, DatabaseBackup or SoftRecovery", source: "New or Open",
    boolean: "true or false", number: "a number", whole: "a whole number",
    duration: "a duration such as P0Y0M0DT2H0M0S"}
