"""A chosen server's own database and log folders in a test across servers (Servers page, Folders on the chosen
server…).

Each row is one database of this test, with its folders on that server; the rest of the test (its databases' number,
profile, thread setting, length and thresholds) is the wizard's. The folders are typed as on the Databases page: a
pattern with {n} and Fill down (`FolderPatterns`), or row by row. This machine cannot see the server's disks: what a
folder holds there, its agent checks when the test starts, and a refusal names the server and the folder. Nor can it
make folders there, so the dialog has no Create folders: the agent makes a missing folder, with the folders above it,
when the test prepares (`engine.hosts.part`). Here each row is checked as the configuration checks any: a folder
entered, no two databases in one folder.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.model.config import TestConfig
from engine.model.profile import DatabaseSpec
from engine.model.validation import check_rules, errors_only
from ui.widgets.style import laid_out, tip_button, wrapped
from ui.wizard.folder_patterns import FolderPatterns

COLUMNS = ("database_path", "log_path")


def with_folders(config: TestConfig, rows: list[tuple[str, str]]) -> TestConfig:
    """`config` with each database's folders replaced by a row's (database folder, log folder); ValueError, in the
    configuration's words with the row, when they cannot be."""
    specs = [{**spec.model_dump(mode="json"), "database_path": db, "log_path": log}
             for spec, (db, log) in zip(config.databases, rows, strict=True)]
    try:
        changed = TestConfig.model_validate({**config.model_dump(mode="json"), "databases": specs})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{_row_words(where)}{first['msg'].removeprefix('Value error, ')}") from exc
    problems = errors_only(check_rules(changed))
    if problems:
        raise ValueError(f"{_row_words(problems[0].field)}{problems[0].message}")
    return changed


def _row_words(field: str) -> str:
    """"databases.1.log_path" or "databases[1].log_path" -> "Row 2: "."""
    digits = "".join(c if c.isdigit() else " " for c in field).split()
    return f"Row {int(digits[0]) + 1}: " if field.startswith("databases") and digits else ""


class ServerFoldersDialog(QDialog):
    """The folders of each database of the test on `host`."""

    def __init__(self, host: str, config: TestConfig, current: list[DatabaseSpec] | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host, self.config = host, config
        self.setWindowTitle(f"Database and log folders on {host}")
        intro = wrapped(f"Each database of this test, and its folders on {host}. This machine cannot see {host}'s "
                        "disks: its agent checks the folders when the test starts, and says what it cannot use.")
        self.patterns = FolderPatterns()
        self.patterns.fill_button.clicked.connect(self._fill_down)
        self.made = wrapped(f"Folders missing on {host} are created there, with the folders above them, by its agent "
                            "when the test prepares.")
        self.table = QTableWidget(config.database_count, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(["Database folder", "Log folder"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.same = tip_button("Same as this server", "The folders this test uses on this server",
                               lambda: self._fill(config.databases))
        self.message = wrapped(style="color: #b00020")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        laid_out(QVBoxLayout(self), intro, self.patterns, self.table, self.same, self.made, self.message, self.buttons)
        self._fill(current if current is not None and len(current) == config.database_count else config.databases)
        self.table.itemChanged.connect(lambda _item: self._check())
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.resize(760, 420)

    def _fill(self, specs: list[DatabaseSpec]) -> None:
        self._show([(str(spec.database_path), str(spec.log_path)) for spec in specs])

    def _fill_down(self) -> None:
        rows = self.patterns.filled([dict(zip(COLUMNS, row, strict=True)) for row in self.rows()])
        self._show([(row["database_path"], row["log_path"]) for row in rows])

    def _show(self, rows: list[tuple[str, str]]) -> None:
        self.table.blockSignals(True)
        for row, folders in enumerate(rows):
            for column, text in enumerate(folders):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.blockSignals(False)
        self._check()

    def rows(self) -> list[tuple[str, str]]:
        def text(row: int, column: int) -> str:
            item = self.table.item(row, column)
            return item.text().strip() if item is not None else ""

        return [(text(row, 0), text(row, 1)) for row in range(self.table.rowCount())]

    def problem(self) -> str | None:
        try:
            with_folders(self.config, self.rows())
        except ValueError as exc:
            return str(exc)
        return None

    def _check(self) -> None:
        problem = self.problem()
        self.message.setText(problem or "")
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(problem is None)

    def specs(self) -> list[DatabaseSpec]:
        """The databases with their folders on the server (call once accepted)."""
        return with_folders(self.config, self.rows()).databases


def differs(config: TestConfig, specs: list[DatabaseSpec]) -> bool:
    """The server's folders are not this server's."""
    mine: list[Any] = [(str(s.database_path), str(s.log_path)) for s in config.databases]
    return mine != [(str(s.database_path), str(s.log_path)) for s in specs]
