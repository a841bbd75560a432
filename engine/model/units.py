"""Parsing and formatting of durations and sizes, with the units spelled out.

Sizes follow the Windows convention field engineers read on their servers:
1 KB = 1,024 bytes, 1 MB = 1,048,576 bytes, 1 GB = 1,073,741,824 bytes.
"""

from __future__ import annotations

import re

KIB = 1024
MIB = 1024 * KIB

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)", re.IGNORECASE)
_ISO_DURATION = re.compile(
    r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)
_SECONDS_PER_UNIT = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


_CLOCK_DURATION = re.compile(r"^(\d+):([0-5]\d)(?::([0-5]\d(?:\.\d+)?))?$")


def compact_duration(seconds: float) -> str:
    """'2h', '1h30m', '45s', '1m30s', '0.5s': the short form parse_duration_s reads back exactly.

    Sub-second parts are kept (to the millisecond), so a value shown in a field and read
    back from it is the value that was loaded: walking past a page never changes a setting.
    """
    if seconds <= 0:
        return "0s"
    whole = int(seconds)
    fraction = round(seconds - whole, 3)
    if fraction >= 1:
        whole, fraction = whole + 1, 0.0
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    words = "".join(f"{v}{u}" for v, u in ((hours, "h"), (minutes, "m")) if v)
    if fraction:
        return words + f"{secs + fraction:g}s"
    return words + (f"{secs}s" if secs or not words else "")


def parse_duration_s(text: str, *, allow_zero: bool = False) -> float:
    """Parse '2h', '90m', '1h30m', '45s', '3600', '2:00:00' or ISO 8601 'PT2H' into seconds.

    Raises ValueError with a message that names the accepted forms.
    """

    def positive(value: float) -> bool:
        return value >= 0 if allow_zero else value > 0

    must = "must not be negative" if allow_zero else "must be positive"
    raw = text.strip()
    if not raw:
        raise ValueError("a duration is empty; use e.g. 2h, 30m, 45s or PT2H")
    try:
        value = float(raw)
    except ValueError:
        pass
    else:
        if not positive(value):
            raise ValueError(f"duration {text!r} {must}")
        return value
    clock = _CLOCK_DURATION.match(raw)
    if clock:
        first, second, third = clock.group(1), clock.group(2), clock.group(3)
        if third is None:  # M:SS
            total = int(first) * 60 + float(second)
        else:  # H:MM:SS
            total = int(first) * 3600 + int(second) * 60 + float(third)
        if not positive(total):
            raise ValueError(f"duration {text!r} {must}")
        return total
    iso = _ISO_DURATION.match(raw)
    if iso and any(g is not None for g in iso.groups()):
        years, months, days, hours, minutes, seconds = iso.groups()
        if (years and int(years)) or (months and int(months)):
            raise ValueError(f"duration {text!r}: years and months are not supported; use days")
        total = (
            int(days or 0) * 86400
            + int(hours or 0) * 3600
            + int(minutes or 0) * 60
            + float(seconds or 0)
        )
        if not positive(total):
            raise ValueError(f"duration {text!r} {must}")
        return total
    position = 0
    total = 0.0
    compact = raw.replace(" ", "")
    for match in _DURATION_PART.finditer(compact):
        if match.start() != position:
            break
        total += float(match.group(1)) * _SECONDS_PER_UNIT[match.group(2).lower()]
        position = match.end()
    if position != len(compact) or position == 0:
        raise ValueError(f"cannot read duration {text!r}; use e.g. 2h, 30m, 1h30m, 45s or PT2H")
    if not positive(total):
        raise ValueError(f"duration {text!r} {must}")
    return total


def format_duration(seconds: float) -> str:
    """Format seconds as 'H:MM:SS' (or 'M:SS' under an hour)."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_bytes(size_bytes: float) -> str:
    """Format a byte count in binary units with one decimal ('12.5 GB')."""
    value = float(size_bytes)
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if abs(value) < 1024 or unit == "TB":
            if unit == "bytes":
                return f"{int(value)} bytes"
            return f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
