"""The options an engineer sets, read once from the configuration model.

Each field of `TestConfig` (and of the models inside it) declares its title, description
and bounds for pydantic, and, in `json_schema_extra` through `engine.model.config.cli()`,
its unit and its command-line flag. `options()` reads them into `Option` rows; the CLI builds its flags
and help from them, the wizard its fields, labels, units and tooltips, and a problem
found on a field is shown under the flag or field the engineer typed it in.

Adding an option is one field in the model with `json_schema_extra=cli(...)`.
"""

from __future__ import annotations

import math
import re
import types
import typing
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from engine.model.config import TestConfig
from engine.model.fields import FieldAddress
from engine.model.units import as_typed, compact_duration


@dataclass(frozen=True)
class Option:
    """One setting: where it lives in the model, how people and the command line name it, its bounds."""

    path: str  # "profile.mailboxes"
    title: str
    description: str
    kind: str  # int, float, bool, choice, duration, path, text
    default: Any
    flag: str | None = None
    unit: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    minimum_open: bool = False  # > rather than ≥
    maximum_open: bool = False
    default_words: str = ""  # how the default is found when it is computed, not fixed
    aliases: tuple[tuple[str, str], ...] = ()  # other words for a choice, each with the value it stands for

    @property
    def label(self) -> str:
        """The title without its unit in brackets, for a form whose field shows the unit beside it."""
        return re.sub(r"\s*\([^)]*\)$", "", self.title)

    def bounds_words(self) -> str:
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.minimum_open else '≥'} {self._number(self.minimum)}")
        if self.maximum is not None:
            parts.append(f"{'<' if self.maximum_open else '≤'} {self._number(self.maximum)}")
        return ", ".join(parts)

    def _number(self, value: float) -> str:
        if self.kind == "duration":
            return compact_duration(value) if value else "0"
        return f"{int(value):,}" if value == int(value) else f"{value:g}"

    def amount(self, value: float) -> str:
        """A value in the field's words: "1 mailbox", "4,096 threads", "100 %", "30d"."""
        if self.kind == "duration":
            return compact_duration(value) if value else "0 s"
        number = self._number(value)
        unit = self.unit or (found.group(1) if (found := re.search(r"\(([^)]*)\)$", self.title)) else "")
        if value == 1 and unit.isalpha() and unit.islower() and len(unit) > 2:
            unit = _singular(unit)
        return f"{number} {unit}" if unit else number

    def got_words(self, value: object) -> str:
        """A value refused, as the engineer typed it: a duration in its own words (960h), anything else as read."""
        if self.kind == "duration" and isinstance(value, int | float) and math.isfinite(value) and value > 0:
            return compact_duration(float(value))
        return as_typed(value)

    def out_of_bounds(self, value: float) -> str | None:
        """The bound `value` is outside, in the field's words ("at least 1 mailbox"); None within them."""
        low, high = self.minimum, self.maximum
        if low is not None and (value <= low if self.minimum_open else value < low):
            return self.bound_words("greater_than" if self.minimum_open else "greater_than_equal", low)
        if high is not None and (value >= high if self.maximum_open else value > high):
            return self.bound_words("less_than" if self.maximum_open else "less_than_equal", high)
        return None

    def bound_words(self, kind: str, bound: float) -> str:
        """A bound of pydantic's `kind` ("greater_than", ...) in the field's words: a whole number more than 0 is
        "at least 1 mailbox", a number more than 0 "more than 0 %"."""
        if self.kind == "int" and kind == "greater_than":
            kind, bound = "greater_than_equal", math.floor(bound) + 1
        elif self.kind == "int" and kind == "less_than":
            kind, bound = "less_than_equal", math.ceil(bound) - 1
        return f"{BOUND_ERRORS[kind][1]} {self.amount(bound)}"

    def default_text(self) -> str:
        if self.default_words:
            return self.default_words
        if self.default is None:
            return ""
        if self.kind == "bool":
            return "on" if self.default else "off"
        if isinstance(self.default, Enum):
            return str(self.default.value)
        if self.kind == "duration":
            return compact_duration(float(self.default))
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    def choice(self, text: str) -> str:
        """The choice `text` names: one of `choices`, or the value an alias of it (in any case) stands for."""
        return dict((alias.casefold(), value) for alias, value in self.aliases).get(text.strip().casefold(), text)

    def help(self) -> str:
        """The command line's help for the flag: description, unit and bounds, and the default."""
        words = self.description or self.title
        for value in dict.fromkeys(value for _, value in self.aliases):
            named = [alias for alias, stands_for in self.aliases if stands_for == value]
            words += f" {' or '.join([', '.join(named[:-1]), named[-1]] if len(named) > 1 else named)} is taken as {value}."
        details = [d for d in (self.unit if self.kind not in ("duration", "bool", "choice") else "", self.bounds_words()) if d]
        if details:
            words += f" [{'; '.join(details)}]"
        default = self.default_text()
        return f"{words} (default {default})" if default else words


# pydantic's bound errors: the bound's key in the error's context, and how a field says it
BOUND_ERRORS = {"greater_than": ("gt", "more than"), "greater_than_equal": ("ge", "at least"),
                "less_than": ("lt", "less than"), "less_than_equal": ("le", "at most")}


def _singular(unit: str) -> str:
    """One of a counted unit: "copies" -> "copy", "mailboxes" -> "mailbox", "threads" -> "thread"."""
    if unit.endswith("ies"):
        return unit[:-3] + "y"
    if unit.endswith(("xes", "sses")):
        return unit[:-2]
    return unit.removesuffix("s")


def _unwrap(annotation: Any) -> Any:
    """`int | None` -> int; `list[X]` stays a list."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return inner[0] if len(inner) == 1 else annotation
    return annotation


def _kind(annotation: Any, extra: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    if extra.get("duration"):
        return "duration", ()
    if isinstance(annotation, type):
        if issubclass(annotation, Enum):
            return "choice", tuple(str(m.value) for m in annotation)
        if annotation is bool:
            return "bool", ()
        if annotation is int:
            return "int", ()
        if annotation is float:
            return "float", ()
        if issubclass(annotation, Path):
            return "path", ()
    return "text", ()


def _bounds(info: FieldInfo) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in info.metadata:
        if isinstance(item, Ge):
            found["minimum"] = float(item.ge)  # type: ignore[arg-type]
        elif isinstance(item, Gt):
            found["minimum"], found["minimum_open"] = float(item.gt), True  # type: ignore[arg-type]
        elif isinstance(item, Le):
            found["maximum"] = float(item.le)  # type: ignore[arg-type]
        elif isinstance(item, Lt):
            found["maximum"], found["maximum_open"] = float(item.lt), True  # type: ignore[arg-type]
        elif isinstance(item, MinLen):
            found["minimum"] = float(item.min_length)
        elif isinstance(item, MaxLen):
            found["maximum"] = float(item.max_length)
    return found


def _walk(model: type[BaseModel], prefix: str) -> list[Option]:
    found: list[Option] = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        annotation = _unwrap(info.annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found += _walk(annotation, path + ".")
            continue
        if typing.get_origin(annotation) is list:
            (item,) = typing.get_args(annotation)
            if isinstance(item, type) and issubclass(item, BaseModel):
                found += _walk(item, path + "[].")
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        kind, choices = _kind(annotation, extra)
        if typing.get_origin(annotation) is list:
            kind = "list"
        default = None if info.default is PydanticUndefined else info.default
        if info.default_factory is not None:
            default = None
        found.append(
            Option(path=path, title=info.title or name, description=info.description or "", kind=kind, default=default,
                   flag=typing.cast("str | None", extra.get("flag")), unit=str(extra.get("unit", "")), choices=choices,
                   default_words=str(extra.get("default_words", "")),
                   aliases=tuple(typing.cast("dict[str, str]", extra.get("aliases", {})).items()), **_bounds(info))
        )
    return found


@cache
def options() -> dict[str, Option]:
    """Every option of a test configuration by its path ("profile.mailboxes", "databases[].log_path")."""
    return {option.path: option for option in _walk(TestConfig, "")}


def option(path: str) -> Option:
    return options()[path]


def flagged() -> list[Option]:
    """The options the command line sets directly, in the model's order."""
    return [o for o in options().values() if o.flag and "[]" not in o.path and o.kind != "list"]


def option_at(field: str) -> Option | None:
    """The option a problem's field path is about: "databases[1].log_path" -> databases[].log_path."""
    path = FieldAddress.of(field).pattern
    while path:
        for candidate in (path, path.removesuffix("[]")):  # databases[].more_database_paths[] is the list's option
            if candidate in options():
                return options()[candidate]
        path = path.rpartition(".")[0]
    return None


def where_typed(field: str) -> str:
    """The flag the engineer typed a field's value with ("--log-path databases[1]"), or the field itself."""
    found = option_at(field)
    if found is None or not found.flag:
        return field
    row = FieldAddress.of(field).row_prefix()
    return f"{found.flag} {row}" if row is not None and "[]" in found.path else found.flag


def assign(data: dict[str, Any], path: str, value: Any) -> None:
    """Set `path` ("profile.mailboxes") in a nested dict of configuration data."""
    *parents, leaf = path.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[leaf] = value
