"""The base of every document model: unknown fields are ignored, so a newer document still reads; and the one shape
of a moment in them, `UtcTime`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer


class Schema(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=False)


def _aware(value: object) -> object:
    """A moment as documents hold it: an aware datetime; text is ISO 8601, and one without an offset is UTC."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if isinstance(moment, datetime) and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


UtcTime = Annotated[datetime, BeforeValidator(_aware), PlainSerializer(lambda moment: moment.isoformat(), when_used="json")]
"""A moment, an aware datetime (written as ISO 8601 with its offset, "2026-11-21T10:00:00+00:00"): shown in the
engineer's time or the host's where it is shown, never cut out of text."""
