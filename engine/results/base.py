"""The base of every document model: unknown fields are ignored, so a newer document still reads."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Schema(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=False)
