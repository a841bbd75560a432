"""What each row of the Databases page says, worked out without a widget: its own problems at their column, then
the machine's words about its folders as they are now.

A row's own problems are the draft's (an empty or relative folder, two databases in one
folder) and what the engine refused when Start was pressed. The machine's answer counts
for a row only while the row's folders are those it was checked for: a row edited since
says nothing until its answer is in, never a stale tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.model.config import TestConfig
from engine.model.fields import FieldAddress
from engine.model.options import option
from engine.model.validation import Problem, Severity, errors_only
from ui.wizard.problems import rows_words
from ui.wizard.services import MachineCheck, frees_itself, wants_folders

COLUMNS = ("database_path", "log_path", "more_database_paths")
MORE = "more_database_paths"  # a list: its cell holds the folders with "; " between them
ROWS_NAMED = 5  # "Fix rows 1, 2, 3, 4, 5 and 7 more": past this, rows are counted, not listed

Line = tuple[str, str]  # what a row's Checks cell says: (text, "ok" | "warning" | "error")


def row_of(field: str) -> int | None:
    """The row (0-based) a problem's field is in: "databases[1].log_path" -> 1."""
    return FieldAddress.of(field).row


def column_of(field: str) -> str | None:
    """The path a problem's field is about: "databases[1].log_path" -> "log_path"."""
    return FieldAddress.of(field).column


def cell_text(spec: dict[str, Any], key: str) -> str:
    """What a row's cell shows: its folder, or its more database folders with "; " between them."""
    value = spec.get(key, [] if key == MORE else "")
    return "; ".join(value) if isinstance(value, list) else str(value)


def cell_value(key: str, text: str) -> str | list[str]:
    """A cell's text as the row keeps it: a folder, or the list of more database folders."""
    return [part.strip() for part in text.split(";") if part.strip()] if key == MORE else text.strip()


def filled(specs: list[dict[str, Any]], db_pattern: str, log_pattern: str) -> list[dict[str, Any]]:
    """Every row's folders from the patterns typed (Fill down): {n} becomes the row's number, a plain folder gets DB1,
    DB2 (Log1, Log2) below it; a pattern left empty leaves its column as it is."""
    rows = [dict(spec) for spec in specs]
    for n, spec in enumerate(rows, start=1):
        for key, pattern, leaf in (("database_path", db_pattern.strip(), "DB"), ("log_path", log_pattern.strip(), "Log")):
            if pattern:
                spec[key] = pattern.replace("{n}", str(n)) if "{n}" in pattern else str(Path(pattern) / f"{leaf}{n}")
    return rows


def fix_rows_words(rows: list[int], *, missing: bool = False, held: bool = False, unmade: list[str] | None = None) -> str:
    """"Fix row 1 to continue.", "Fix rows 1, 3 to continue.", past a few rows "… and 94 more"; what the page's buttons
    do for `missing` folders and `held` ones, and the folders Create folders could not make (`unmade`)."""
    text = f"Fix {rows_words(rows, ROWS_NAMED)} to continue."
    if missing:
        text += " Create folders makes the folders that are missing."
    if held:
        text += " A folder another run holds is free once that run ends: then press Check again."
    if unmade:
        text += f" {'; '.join(unmade)}."
    return text


@dataclass(frozen=True)
class RowWords:
    """The rows as typed, the draft's problems, and the machine's last answer with the configuration it is about."""

    specs: list[dict[str, Any]]
    problems: list[Problem]
    answer: MachineCheck | None = None
    checked: TestConfig | None = None

    def own(self, row: int) -> list[Problem]:
        """The problems of the values in row `row` (0-based): the draft's and the engine's refusal."""
        return [p for p in self.problems if row_of(p.field) == row]

    def is_checked(self, row: int) -> bool:
        """The machine's answer is about this row's folders as they are now."""
        checked = self.checked
        if checked is None or row >= len(checked.databases) or row >= len(self.specs):
            return False
        typed, spec = self.specs[row], checked.databases[row]
        more = [Path(folder) for folder in typed.get(MORE, [])]
        return more == spec.more_database_paths and all(
            typed[key].strip() and Path(typed[key].strip()) == getattr(spec, key) for key in COLUMNS if key != MORE)

    def machine(self, row: int) -> tuple[list[Line], list[Problem]]:
        """The machine's words and problems for row `row`, while they are about it."""
        if self.answer is None or not self.is_checked(row):
            return [], []
        return list(self.answer.rows.get(row, [])), [p for p in self.answer.problems if row_of(p.field) == row]

    def lines(self, row: int) -> list[Line]:
        """What row `row` says: its own problems at their column, then the machine's words; a row in error says only
        what is wrong (no green tick beside a refusal)."""
        own = self.own(row)
        lines: list[Line] = []
        for problem in own:
            key = column_of(problem.field)
            label = option(f"databases[].{key}").label if key in COLUMNS else ""
            lines.append((f"{label}: {problem.message}" if label else problem.message,
                          "error" if problem.severity == Severity.ERROR else "warning"))
        said = {p.message for p in own}
        lines += [line for line in self.machine(row)[0] if line[0] not in said]
        if any(kind == "error" for _text, kind in lines):
            lines = [line for line in lines if line[1] != "ok"]
        return lines

    def wrong_columns(self, row: int) -> dict[str | None, str]:
        """The paths of row `row` typed wrong, each with its first error."""
        wrong: dict[str | None, str] = {}
        for problem in errors_only(self.own(row)):
            wrong.setdefault(column_of(problem.field), problem.message)
        return wrong

    def held(self) -> bool:
        """A row has a problem that can go away by itself: a folder another run holds."""
        return any(frees_itself(p) for row in range(len(self.specs)) for p in self.own(row) + self.machine(row)[1])

    def missing(self) -> bool:
        """A row's folder is missing with the folder above it: "Create folders" makes them."""
        return any(wants_folders(p) for row in range(len(self.specs)) for p in self.machine(row)[1])

    def bad_rows(self) -> list[int]:
        """The rows (1-based) in error."""
        return [row + 1 for row in range(len(self.specs)) if any(kind == "error" for _t, kind in self.lines(row))]
