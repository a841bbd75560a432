"""A field's address in a configuration, one form for every part: "databases[1].log_path".

A problem names its field by this address (`engine.model.validation.Problem.field`), the options are declared by
its pattern ("databases[].log_path", `engine.model.options`), and the wizard finds a problem's row and column from it.
`FieldAddress` holds the parts; its text is the address.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PART = re.compile(r"([A-Za-z_]\w*)|\[(\d*)\]")


@dataclass(frozen=True)
class FieldAddress:
    """A field's place as its parts: ("databases", 1, "log_path"); an index left open (None) stands for any row."""

    parts: tuple[str | int | None, ...]

    @classmethod
    def of(cls, text: str) -> FieldAddress:
        """The parts of an address ("databases[1].more_database_paths[0]"); one that is not an address has none."""
        parts: list[str | int | None] = []
        at = 0
        for found in _PART.finditer(text):
            gap = text[at:found.start()]
            if gap not in ("", ".") or (gap == "." and not parts) or (gap == "" and parts and found.group(1)):
                return cls(())
            name, index = found.groups()
            parts.append(name if name is not None else (int(index) if index else None))
            at = found.end()
        return cls(tuple(parts)) if at == len(text) else cls(())

    @property
    def text(self) -> str:
        out = ""
        for part in self.parts:
            if isinstance(part, str):
                out += ("." if out else "") + part
            else:
                out += f"[{'' if part is None else part}]"
        return out

    @property
    def pattern(self) -> str:
        """The address with every index left open: the option it is a value of ("databases[].log_path")."""
        return FieldAddress(tuple(None if not isinstance(part, str) else part for part in self.parts)).text

    @property
    def row(self) -> int | None:
        """The database row (0-based) a field is in: "databases[1].log_path" -> 1."""
        return self.parts[1] if len(self.parts) > 1 and self.parts[0] == "databases" and isinstance(self.parts[1], int) \
            else None

    @property
    def column(self) -> str | None:
        """The row's field it is about: "databases[1].more_database_paths[0]" -> "more_database_paths"."""
        return self.parts[2] if self.row is not None and len(self.parts) > 2 and isinstance(self.parts[2], str) else None

    @property
    def item(self) -> int | None:
        """The place in the row's list it is about: "databases[1].more_database_paths[0]" -> 0."""
        return self.parts[3] if self.column is not None and len(self.parts) > 3 and isinstance(self.parts[3], int) \
            else None

    def row_prefix(self) -> str | None:
        """The address of its row ("databases[1]"), or None outside the rows."""
        return FieldAddress(self.parts[:2]).text if self.row is not None else None


class FieldError(ValueError):
    """A rule across a model's fields broken at one of them: raised in a model's validator, the problem is placed at
    that field (`engine.model.validation`), not at the model as a whole."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = FieldAddress.of(field).parts
