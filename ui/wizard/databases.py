"""Page 4, Databases and logs: where each database and its logs go, every row checked against the machine.

The checks (folder, writable, free space, unbuffered I/O, files already there) probe each
folder, which can take seconds on a SAN or SMB path: they run off the GUI thread, a
moment after the last edit, and Next waits for the answer about the rows as they are now.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.model.options import option
from engine.model.validation import errors_only
from ui.widgets.fields import tooltip_of
from ui.widgets.style import ERROR_STYLE, severity_qcolor
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.problems import field_words
from ui.wizard.services import MachineCheck
from ui.workers import BackgroundCheck

SOURCES = {"create": "Create new databases", "attach": "Attach existing Jetwise databases"}


class DatabasesPage(WizardPage):
    NAME = "databases"
    TITLE = "Databases and logs"
    SUBTITLE = "Where each database and its logs go. Every row is checked as you type."
    OPTIONS = ("databases", "databases[].database_path", "databases[].log_path", "copies_per_database", "database_source")

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        self.count = _spin_box("databases")
        self.copies = _spin_box("copies_per_database")
        self.source = QComboBox()
        for value in option("database_source").choices:
            self.source.addItem(SOURCES.get(value, value), value)
        self.source.setToolTip("Create (or resume) the databases, or attach ones a previous run created")
        self.db_pattern = QLineEdit()
        self.db_pattern.setPlaceholderText("F:\\DB{n}")
        self.db_pattern.setToolTip("A folder pattern; {n} becomes the database number")
        self.log_pattern = QLineEdit()
        self.log_pattern.setPlaceholderText("L:\\Log{n}")
        self.log_pattern.setToolTip("A folder pattern; {n} becomes the database number")
        fill = self.fill_button = QPushButton("Fill down")
        fill.setToolTip("Fill every row from the patterns")
        fill.clicked.connect(self._fill)
        self.columns = [option("databases[].database_path"), option("databases[].log_path")]
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels([o.label for o in self.columns] + ["Checks"])
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 220)
        self.table.setColumnWidth(1, 220)
        self.table.setWordWrap(True)
        self.table.itemChanged.connect(self._table_edited)
        self.editors.update({"databases": self.count, "copies_per_database": self.copies, "database_source": self.source,
                             "databases[].database_path": self.table, "databases[].log_path": self.table})
        browse_db = QPushButton("Browse database folder…")
        browse_log = QPushButton("Browse log folder…")
        browse_db.clicked.connect(lambda: self._browse(0))
        browse_log.clicked.connect(lambda: self._browse(1))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        top = QGridLayout()
        for column, (words, widget) in enumerate(((option("databases").label, self.count),
                                                  (option("copies_per_database").label, self.copies),
                                                  (option("database_source").label, self.source))):
            top.addWidget(QLabel(f"{words}:"), 0, 2 * column)
            top.addWidget(widget, 0, 2 * column + 1)
        top.addWidget(QLabel("Database folders:"), 1, 0)
        top.addWidget(self.db_pattern, 1, 1, 1, 2)
        top.addWidget(QLabel("Log folders:"), 1, 3)
        top.addWidget(self.log_pattern, 1, 4)
        top.addWidget(fill, 1, 5)
        buttons = QHBoxLayout()
        buttons.addWidget(browse_db)
        buttons.addWidget(browse_log)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        self.row_messages: dict[int, list[tuple[str, str]]] = {}  # (text, "ok" | "warning" | "error")
        services = context.services
        self.checks = BackgroundCheck(lambda config: services.check_machine(config), self)
        self.checks.finished.connect(self._on_checks_finished)
        self._filling = False
        self.count.valueChanged.connect(self._count_changed)
        self.copies.valueChanged.connect(lambda v: self.state.set("copies_per_database", v))
        self.source.currentIndexChanged.connect(self._on_source_changed)
        self.state.loaded.connect(self._load_rows)
        self._load_rows()

    def initializePage(self) -> None:
        self._load_rows()
        super().initializePage()
        self._ask(again=True)  # a new visit: the folders may have changed on disk meanwhile

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._ask()  # back from a later page that changed what the rows are checked for

    def _ask(self, again: bool = False) -> None:
        config = self.state.config()
        self.checks.want(None if config is None else config.model_dump_json(), config, again=again)
        self._show_summary()

    def refresh(self) -> None:
        super().refresh()
        if self.isVisible():
            self._ask()
        else:
            self._show_summary()

    def _load_rows(self) -> None:
        specs = self.state.data["databases"]
        self._filling = True
        self.count.setValue(len(specs))
        self.copies.setValue(int(self.state.data.get("copies_per_database", 1)))
        self.source.setCurrentIndex(max(0, self.source.findData(self.state.data.get("database_source", "create"))))
        self.table.setRowCount(len(specs))
        for row, spec in enumerate(specs):
            for column, key in enumerate(("database_path", "log_path")):
                item = QTableWidgetItem(spec[key])
                item.setToolTip(self.columns[column].description)
                self.table.setItem(row, column, item)
            checks = QTableWidgetItem("")
            checks.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, 2, checks)
        self.row_messages = {}
        self._filling = False

    def _on_source_changed(self) -> None:
        """Attaching asks other things of each row (the database files must exist): the rows are checked again."""
        if not self._filling:
            self.state.set("database_source", self.source.currentData())

    def _count_changed(self, count: int) -> None:
        if self._filling:
            return
        specs = list(self.state.data["databases"])
        base = Path(specs[-1]["database_path"]).parent if specs else self.state.base
        log_base = Path(specs[-1]["log_path"]).parent if specs else self.state.base
        while len(specs) < count:
            n = len(specs) + 1
            specs.append({"database_path": str(base / f"DB{n}"), "log_path": str(log_base / f"Log{n}")})
        del specs[count:]
        self.state.set_databases(specs)
        self._load_rows()

    def _fill(self) -> None:
        specs = [dict(s) for s in self.state.data["databases"]]
        for n, spec in enumerate(specs, start=1):
            if self.db_pattern.text().strip():
                spec["database_path"] = _expand(self.db_pattern.text().strip(), n, "DB")
            if self.log_pattern.text().strip():
                spec["log_path"] = _expand(self.log_pattern.text().strip(), n, "Log")
        self.state.set_databases(specs)
        self._load_rows()

    def _browse(self, column: int) -> None:
        row = max(0, self.table.currentRow())
        item = self.table.item(row, column)
        if item is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Choose a folder", item.text())
        if folder:
            item.setText(str(Path(folder)))

    def _table_edited(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() > 1:
            return
        specs = [dict(s) for s in self.state.data["databases"]]
        key = "database_path" if item.column() == 0 else "log_path"
        specs[item.row()][key] = item.text().strip()
        self.state.set_databases(specs)

    def _on_checks_finished(self) -> None:
        answer = self.checks.answer
        self.row_messages = dict(answer.rows) if isinstance(answer, MachineCheck) else {}
        self._show_rows()
        self.completeChanged.emit()

    def _show_rows(self) -> None:
        self._filling = True
        for row in range(self.table.rowCount()):
            messages = self.row_messages.get(row, [])
            item = self.table.item(row, 2)
            if item is None:
                continue
            item.setText("; ".join(m for m, _kind in messages))
            kinds = {kind for _m, kind in messages}
            item.setForeground(severity_qcolor("error" if "error" in kinds else "warning" if "warning" in kinds else "ok"))
            item.setToolTip("\n".join(m for m, _kind in messages))
        self.table.resizeRowsToContents()
        self._filling = False
        self._show_summary()

    def _bad_rows(self) -> list[int]:
        return [row + 1 for row, m in self.row_messages.items() if any(kind == "error" for _t, kind in m)]

    def _show_summary(self) -> None:
        if self.state.config() is None:
            # a field on another page is wrong: say which, or Next is disabled for no visible reason
            words = "; ".join(f"{field_words(p.field, self.context.placed)}: {p.message}"
                              for p in errors_only(self.state.problems()))
            text = f"{html.escape(words or 'The configuration is not valid')} — correct it to check the rows."
        elif self.checks.pending:
            self.summary.setText("Checking the database and log folders…")
            return
        elif self.checks.error is not None:
            text = f"The folders could not be checked: {html.escape(str(self.checks.error))}"
        elif self._bad_rows():
            text = f"Fix rows {', '.join(map(str, self._bad_rows()))} to continue."
        else:
            self.summary.setText("")
            return
        self.summary.setText(f"<span style='{ERROR_STYLE}'>{text}</span>")

    def isComplete(self) -> bool:
        if self.state.config() is None or self.checks.pending or self.checks.error is not None:
            return False
        return not self._bad_rows()


def _spin_box(path: str) -> QSpinBox:
    """A count within the option's bounds, explained by its declaration."""
    found = option(path)
    box = QSpinBox()
    box.setRange(int(found.minimum or 1), int(found.maximum or 256))
    box.setToolTip(tooltip_of(found))
    return box


def _expand(pattern: str, n: int, leaf: str) -> str:
    if "{n}" in pattern:
        return pattern.replace("{n}", str(n))
    return str(Path(pattern) / f"{leaf}{n}")
