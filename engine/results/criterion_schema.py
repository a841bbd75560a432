"""A judged figure, as the result document keeps it (`RunResult.criteria`), and the one way its figure is written."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.results.base import Schema as _Schema


def unit_after(unit: str) -> str:
    """A criterion's unit as it follows its figure, the one rule every view and reason follows: ' ms', ' s', '/s', or
    nothing."""
    return unit if unit in ("", "/s") else f" {unit}"


class Criterion(_Schema):
    """One judged figure: value against limit."""

    name: str
    instance: str | None = Field(description="None: the whole server.")
    value: float
    limit: float
    unit: str
    comparison: Literal["<=", ">="]
    passed: bool

    @property
    def unit_after(self) -> str:
        return unit_after(self.unit)

    def __str__(self) -> str:
        where = f"{self.instance}: " if self.instance else ""
        at_most = self.comparison == "<="
        sign = ("<=" if self.passed else ">") if at_most else (">=" if self.passed else "<")
        unit = self.unit_after
        return f"{where}{self.name} {number(self.value)}{unit} {sign} {number(self.limit)}{unit}"


def number(value: float) -> str:
    """A figure as a person reads it: no decimals from 100 up, one from 1, two below."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 1 else f"{value:.2f}"
