"""Parsing and formatting of durations and sizes, with the units spelled out, and of values as typed.

Sizes follow the Windows convention field engineers read on their servers:
1 KB = 1,024 bytes, 1 MB = 1,048,576 bytes, 1 GB = 1,073,741,824 bytes.
"""

from __future__ import annotations

import math
import re

KIB = 1024
MIB = 1024 * KIB

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)", re.IGNORECASE)
_ISO_DURATION = re.compile(r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$",
                           re.IGNORECASE)
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

    typed = as_typed(text)

    def checked(total: float) -> float:
        if not math.isfinite(total):
            raise ValueError(f"duration {typed} is not a length of time; use e.g. 2h, 30m, 45s or 3600")
        if total < 0 or (total == 0 and not allow_zero):
            raise ValueError(f"duration {typed} must {'not be negative' if allow_zero else 'be positive'}")
        return total

    raw = text.strip()
    if not raw:
        raise ValueError("a duration is empty; use e.g. 2h, 30m, 45s or PT2H")
    try:
        plain: float | None = float(raw)
    except ValueError:
        plain = None
    if plain is not None:
        return checked(plain)
    clock = _CLOCK_DURATION.match(raw)
    if clock:  # float, not int: a clock with a thousand digits of hours is infinite, not an overflow
        first, second, third = clock.group(1), clock.group(2), clock.group(3)
        if third is None:  # M:SS
            return checked(float(first) * 60 + float(second))
        return checked(float(first) * 3600 + float(second) * 60 + float(third))  # H:MM:SS
    iso = _ISO_DURATION.match(raw)
    if iso and any(g is not None for g in iso.groups()):
        years, months, days, hours, minutes, seconds = iso.groups()
        if float(years or 0) or float(months or 0):
            raise ValueError(f"duration {typed}: years and months are not supported; use days")
        return checked(float(days or 0) * 86400 + float(hours or 0) * 3600 + float(minutes or 0) * 60 + float(seconds or 0))
    if raw.startswith("-"):  # -5m reads, as a length of time it never is
        try:
            parse_duration_s(raw[1:], allow_zero=True)
        except ValueError:
            pass
        else:
            checked(-1.0)
    position = 0
    total = 0.0
    compact = raw.replace(" ", "")
    for match in _DURATION_PART.finditer(compact):
        if match.start() != position:
            break
        total += float(match.group(1)) * _SECONDS_PER_UNIT[match.group(2).lower()]
        position = match.end()
    if position != len(compact) or position == 0:
        raise ValueError(f"cannot read duration {typed}; use e.g. 2h, 30m, 1h30m, 45s or PT2H")
    return checked(total)


def format_duration(seconds: float) -> str:
    """Format seconds as 'H:MM:SS' (or 'M:SS' under an hour)."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def sentence(text: str) -> str:
    """`text` as a sentence begins: its first letter a capital, the rest as it is."""
    return text[:1].upper() + text[1:]


def seconds_words(value: float) -> str:
    """Measured time as read: "100 s", "1,800 s"; a decimal under ten seconds, so 0.1 s is not "0 s"."""
    return f"{value:,.0f} s" if value >= 10 else f"{value:.1f} s"


def format_bytes(size_bytes: float) -> str:
    """Format a byte count in binary units with one decimal ('12.5 GB')."""
    value = float(size_bytes)
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if abs(value) < 1024 or unit == "TB":
            if unit == "bytes":
                return f"{int(value)} bytes"
            return f"{value:,.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def as_typed(value: object, limit: int = 60) -> str:
    """A value as typed, cut short: a list of 100,000 databases is not repeated back."""
    if isinstance(value, list | tuple | dict) and len(value) > 3:
        return f"{len(value):,} items"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counted(number: int, noun: str) -> str:
    """`number` `noun`s, one of them singular: "1 error", "2 errors", "1,024 damaged sectors"."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")
