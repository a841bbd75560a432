"""Page 4, Databases and logs: where each database and its logs go, every row checked against the machine.

Each row says what is wrong with it where it is typed (`rows`): an empty or relative folder,
two databases in one folder, what the engine refused when Start was pressed, and what the
machine says. The machine's checks (folder, writable, free space, unbuffered I/O, files
already there, a run holding the folder) probe each folder, which can take seconds on a SAN
or SMB path: they run off the GUI thread, a moment after the last edit and again whenever
the page shows again, and Next waits for the answer about the rows as they are now. A folder
another run holds is free once that run ends, and a folder made outside Jetwise is there: "Check again" asks
without a value changing. A folder missing with the folder above it (the run makes only the last one) is made by
"Create folders", off the GUI thread too, and the rows are checked again.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.model.config import TestConfig
from engine.model.options import option
from engine.model.validation import errors_only
from ui.widgets.fields import FieldEdit, bounds_problem, field_for, tooltip_of
from ui.widgets.style import ERROR_STYLE, laid_out, severity_qcolor, tip_button, tipped, wrapped
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.folder_patterns import FolderPatterns
from ui.wizard.problems import field_words, placed_at
from ui.wizard.rows import COLUMNS, Line, RowWords, cell_text, cell_value, fix_rows_words
from ui.wizard.services import MachineCheck, folder_to_make
from ui.workers import BackgroundCheck

SOURCES = {"create": "Create new databases", "attach": "Attach existing Jetwise databases"}
NO_DATABASES = "enter how many databases there are, then each one's database and log folder"


class DatabasesPage(WizardPage):
    NAME = "databases"
    TITLE = "Databases and logs"
    SUBTITLE = "Where each database and its logs go. Every row is checked as you type."
    OPTIONS = ("databases", *(f"databases[].{key}" for key in COLUMNS), "copies_per_database", "database_source")

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        counted = option("databases")
        self.count = FieldEdit("int", counted.unit, tooltip_of(counted))
        self.count.changed.connect(self._on_count_typed)
        self.count.edit.editingFinished.connect(self._on_count_entered)
        self.copies = self.bind("copies_per_database", field_for(option("copies_per_database")))
        self.source = tipped(QComboBox(), "Create (or resume) the databases, or attach ones a previous run created")
        for value in option("database_source").choices:
            self.source.addItem(SOURCES.get(value, value), value)
        self.patterns = FolderPatterns()
        self.db_pattern, self.log_pattern = self.patterns.db_pattern, self.patterns.log_pattern
        self.fill_button = self.patterns.fill_button
        self.fill_button.clicked.connect(self._fill)
        self.columns = [option(f"databases[].{key}") for key in COLUMNS]
        checks = self.checks_column = len(COLUMNS)
        self.table = QTableWidget(0, checks + 1)
        self.table.setHorizontalHeaderLabels([o.label for o in self.columns] + ["Checks"])
        if (header := self.table.horizontalHeaderItem(COLUMNS.index("more_database_paths"))) is not None:
            header.setToolTip("Folders for the instance's further database files, one each, separated by ;")
        self.table.horizontalHeader().setSectionResizeMode(checks, QHeaderView.ResizeMode.Stretch)
        for column, width in enumerate((220, 220, 180)):
            self.table.setColumnWidth(column, width)
        self.table.itemChanged.connect(self._table_edited)
        self.editors.update({"databases": self.count, "database_source": self.source,
                             **{f"databases[].{key}": self.table for key in COLUMNS}})
        browse_db = QPushButton("Browse database folder…")
        browse_log = QPushButton("Browse log folder…")
        browse_db.clicked.connect(lambda: self._browse(0))
        browse_log.clicked.connect(lambda: self._browse(COLUMNS.index("log_path")))
        self.recheck = tip_button("Check again", "Check every row against the machine again: after a folder was made "
                                  "or space freed outside Jetwise, or a run that held a folder ended",
                                  lambda: self._ask(again=True))
        self.recheck.hide()
        self.make = tip_button("Create folders", "Make every database and log folder that is missing, with the "
                               "folders above it", self._on_make_clicked)
        self.make.hide()
        self.made_problems: list[str] = []  # what Create folders could not make, said under the rows
        self.summary = wrapped()
        top = QGridLayout()
        for column, (words, widget) in enumerate(((counted.label, self.count),
                                                  (option("copies_per_database").label, self.copies),
                                                  (option("database_source").label, self.source))):
            top.addWidget(QLabel(f"{words}:"), 0, 2 * column, Qt.AlignmentFlag.AlignTop)
            top.addWidget(widget, 0, 2 * column + 1, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.patterns, 1, 0, 1, 6)
        buttons = laid_out(QHBoxLayout(), browse_db, browse_log, 1, self.make, self.recheck)
        laid_out(QVBoxLayout(self), top, (self.table, 1), buttons, self.summary)
        self.row_messages: dict[int, list[Line]] = {}  # what each row's Checks cell shows now, for rows with words
        services = context.services
        self.checks = BackgroundCheck(lambda config: services.check_machine(config), self)
        self.checks.finished.connect(self._on_checks_finished)
        self.maker = BackgroundCheck(lambda config: services.make_folders(config), self, delay_ms=0)
        self.maker.finished.connect(self._on_maker_finished)
        self._filling = False
        self.source.currentIndexChanged.connect(self._on_source_changed)
        self.state.loaded.connect(self._load_rows)
        self._load_rows()

    def initializePage(self) -> None:
        self._load_rows()
        super().initializePage()
        self._ask(again=True)  # a new visit: the folders may have changed on disk meanwhile

    def shown_again(self) -> None:
        self._ask(again=True)  # Back from a later page, or the window back from a run: a run holding a folder may have ended

    def _ask(self, again: bool = False) -> None:
        if not again:
            self.made_problems = []  # the rows changed: what could not be made was about others
        config = self.state.config()
        self.checks.want(None if config is None else config.model_dump_json(), config, again=again)
        self._show_rows()

    def refresh(self) -> None:
        super().refresh()
        self.count.set_error(self._count_error())
        if self.isVisible():  # a hidden page shows its rows when it shows again (`shown_again`)
            self._ask()
        self.completeChanged.emit()

    def _load_rows(self) -> None:
        specs = self.state.data["databases"]
        self._filling = True
        if "databases" not in self.state.parse_errors and not self.count.hasFocus():
            self.count.set_value(len(specs), quiet=True)
        self.source.setCurrentIndex(max(0, self.source.findData(self.state.data.get("database_source", "create"))))
        self.table.setRowCount(len(specs))
        for row, spec in enumerate(specs):
            for column, key in enumerate(COLUMNS):
                item = self.table.item(row, column)
                if item is None:
                    item = QTableWidgetItem()
                    self.table.setItem(row, column, item)
                if item.text() != cell_text(spec, key):
                    item.setText(cell_text(spec, key))
            if self.table.item(row, self.checks_column) is None:
                checks = QTableWidgetItem("")
                checks.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(row, self.checks_column, checks)
        self._filling = False
        self._show_rows()

    def _on_source_changed(self) -> None:
        """Attaching asks other things of each row (the database files must exist): the rows are checked again."""
        if not self._filling:
            self.state.set("database_source", self.source.currentData())

    def _typed_count(self) -> int | None:
        """The count typed, if it is a whole number within the declared bounds; what is wrong goes to the draft."""
        ok, count = self.count.parsed()
        wrong = bounds_problem(option("databases"), count) if ok and isinstance(count, int) else str(count)
        if wrong is not None or not isinstance(count, int):
            if self.state.parse_errors.get("databases") != wrong:
                self.state.set_parse_error("databases", wrong)
            return None
        if "databases" in self.state.parse_errors:
            self.state.set_parse_error("databases", None)
        return count

    def _on_count_typed(self) -> None:
        """Said at once when out of bounds; the rows follow when the count is entered (Enter, or on to another field),
        so typing 12 over 2 never passes through one row and loses the second's folders."""
        self._typed_count()
        self.completeChanged.emit()

    def _on_count_entered(self) -> None:
        count = self._typed_count()
        specs = list(self.state.data["databases"])
        if count is None or count == len(specs):
            return
        base = Path(specs[-1]["database_path"]).parent if specs else self.state.base
        log_base = Path(specs[-1]["log_path"]).parent if specs else self.state.base
        while len(specs) < count:
            n = len(specs) + 1
            specs.append({"database_path": str(base / f"DB{n}"), "log_path": str(log_base / f"Log{n}")})
        del specs[count:]
        self.state.set_databases(specs)
        self._load_rows()

    def _count_error(self) -> str | None:
        """What is wrong with the count: as typed, or as a loaded file gave it."""
        if "databases" in self.state.parse_errors:
            return self.state.parse_errors["databases"]
        if not self.state.data["databases"]:  # a JetstressConfig.xml whose EseInstances a script adds later
            return NO_DATABASES
        return next((p.message for p in errors_only(self.state.problems()) if p.field == "databases"), None)

    def _fill(self) -> None:
        self.state.set_databases(self.patterns.filled(self.state.data["databases"]))
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
        if self._filling or item.column() >= self.checks_column:
            return
        specs = [dict(s) for s in self.state.data["databases"]]
        key = COLUMNS[item.column()]
        specs[item.row()][key] = cell_value(key, item.text())
        self.state.set_databases(specs)

    def _on_checks_finished(self) -> None:
        answer = self.checks.answer
        if isinstance(answer, MachineCheck) and not errors_only(answer.problems):
            self.state.clear_refusal()  # checked again and passed: what the engine refused for is gone
        self._show_rows()
        self.completeChanged.emit()

    def _on_make_clicked(self) -> None:
        if (config := self.state.config()) is not None:
            self.make.setEnabled(False)
            self.maker.want(config.model_dump_json(), config, again=True)

    def _on_maker_finished(self) -> None:
        failed = self.maker.answer if isinstance(self.maker.answer, list) else [str(self.maker.error)]
        self.made_problems = [str(line) for line in failed]
        self._ask(again=True)  # the rows as the disk is now

    def _rows(self) -> RowWords:
        """What the rows say now: the draft's problems, and the machine's last answer with what it was about."""
        answer, checked = self.checks.answer, self.checks.value
        return RowWords(self.state.data["databases"], self.state.problems(),
                        answer if isinstance(answer, MachineCheck) else None,
                        checked if isinstance(checked, TestConfig) else None)

    def _show_rows(self) -> None:
        words = self._rows()
        self._filling = True
        self.row_messages = {}
        bad: list[int] = []
        for row in range(self.table.rowCount()):
            lines = words.lines(row)
            if lines:
                self.row_messages[row] = lines
            if any(kind == "error" for _text, kind in lines):
                bad.append(row + 1)
            item = self.table.item(row, self.checks_column)
            if item is None:
                continue
            item.setText("; ".join(text for text, _kind in lines))
            kinds = {kind for _text, kind in lines if not _to_make((_text, kind))}  # a folder to make is no error yet
            item.setForeground(severity_qcolor("error" if "error" in kinds else "warning" if lines else "ok"))
            item.setToolTip("\n".join(text for text, _kind in lines))
            wrong = words.wrong_columns(row)
            for column, key in enumerate(COLUMNS):
                cell = self.table.item(row, column)
                if cell is None:
                    continue
                if key in wrong:  # the path typed wrong is red, its reason in its tooltip
                    cell.setForeground(severity_qcolor("error"))
                else:
                    cell.setData(Qt.ItemDataRole.ForegroundRole, None)
                cell.setToolTip(wrong.get(key) or self.columns[column].description)
        self.table.resizeRowsToContents()
        self._filling = False
        held = words.held()
        self.recheck.setVisible(held or bool(bad))
        self.recheck.setEnabled(not self.checks.pending)
        self.make.setVisible(words.missing())
        self.make.setEnabled(not self.checks.pending and not self.maker.pending)
        to_make = bool(bad) and all(_to_make(line) for row in bad for line in words.lines(row - 1) if line[1] == "error")
        self._show_summary(bad, held, words.missing(), to_make=to_make)

    def _here(self, field: str) -> bool:
        return placed_at(field, self.context.placed) == f"{self.TITLE} page"

    def _show_summary(self, bad: list[int], held: bool, missing: bool = False, *, to_make: bool = False) -> None:
        config = self.state.config()
        elsewhere = [p for p in errors_only(self.state.problems()) if not self._here(p.field)]
        if config is None and elsewhere:
            # a field on another page is wrong: say which, or Next is disabled for no visible reason
            words = "; ".join(f"{field_words(p.field, self.context.placed)}: {p.message}" for p in elsewhere)
            text = f"{html.escape(words)} — correct it to check the rows."
        elif not self.state.data["databases"]:
            text = f"No databases yet: {NO_DATABASES}."
        elif config is not None and self.checks.pending:
            self.summary.setText("Checking the database and log folders…")
            return
        elif config is not None and self.checks.error is not None:
            text = f"The folders could not be checked: {html.escape(str(self.checks.error))}"
        elif to_make and not held and not self.made_problems:  # nothing typed wrong: folders not made yet
            self.summary.setText("The folders do not exist yet: Create folders makes them, each with the folders above "
                                 "it, then Next.")
            return
        elif bad:
            text = html.escape(fix_rows_words(bad, missing=missing, held=held, unmade=self.made_problems))
        else:
            self.summary.setText("")
            return
        self.summary.setText(f"<span style='{ERROR_STYLE}'>{text}</span>")

    def isComplete(self) -> bool:
        config = self.state.config()
        if config is None or not self.checks.holds(config.model_dump_json()) or self.checks.error is not None:
            return False
        if self._count_error() is not None or not super().isComplete():
            return False
        if self.count.parsed() != (True, len(self.state.data["databases"])):
            return False  # a count typed, not entered yet: the rows are not the ones it asks for
        return not self._rows().bad_rows()


def _to_make(line: tuple[str, str]) -> bool:
    """A row's line that says a folder is missing with the folder above it: Create folders makes it."""
    return line[1] == "error" and folder_to_make(line[0])
