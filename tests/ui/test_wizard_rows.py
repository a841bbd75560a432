"""The Databases page says what is wrong with a row at that row, as soon as it is typed, and Next follows what the
rows say: the engine's rules across rows, an empty or relative folder, counts out of their declared bounds, and a
folder another run holds, checked again when the page shows again or on "Check again"."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import QWizard

from engine.io.locks import FolderLocks
from engine.io.platform import UnbufferedProbe
from engine.io.preflight import FolderFacts, Preflight
from engine.model.config import default_config
from tests.ui.test_wizard_checks import _event_loop_turns
from ui.controllers import wizard_services
from ui.controllers.wizard_services import check_machine, same_volume_words
from ui.wizard import PAGE_DATABASES
from ui.wizard.rows import COLUMNS, fix_rows_words

TIMEOUT_S = 30


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _small(base: Path, **overrides):
    """40 mailboxes of 10 MB with a cache smaller than each database: a design any scratch disk holds."""
    values = {"profile": {"mailboxes": 40, "mailbox_size_mb": 10}, "database_cache_min_mb": 8.0, "database_cache_max_mb": 16.0}
    values.update(overrides)
    return default_config(base, **values)


def _open_databases(window, config) -> object:
    window.wizard.load_config(config, session="rows")
    window.wizard.restart_at(PAGE_DATABASES)
    return window.wizard.databases


def _cell(page, row: int, column: int = 3) -> str:
    item = page.table.item(row, column)
    return item.text() if item is not None else ""


def _type(qtbot, field, text: str, enter: bool = False) -> None:
    field.edit.clear()
    qtbot.keyClicks(field.edit, text)
    if enter:
        qtbot.keyClick(field.edit, Qt.Key.Key_Return)


def test_two_databases_in_one_folder_are_named_at_the_row_as_typed_not_ticked(qtbot, window, tmp_path):
    page = _open_databases(window, _small(tmp_path / "data"))
    qtbot.waitUntil(lambda: "✓" in _cell(page, 1) and _next_enabled(window), timeout=10_000)
    page.table.item(1, 0).setText(_cell(page, 0, 0))  # database 2 in database 1's folder
    # at once, from the engine's own rule, before any check of the machine
    assert "databases 1 and 2 share" in _cell(page, 1) and "✓" not in _cell(page, 1)
    assert _cell(page, 1).startswith("Database path: ") and not _next_enabled(window)
    qtbot.waitUntil(lambda: not page.checks.pending, timeout=10_000)
    assert "databases 1 and 2 share" in _cell(page, 1) and "✓" not in _cell(page, 1)
    assert page.table.item(1, 0).foreground().color().name() == page.table.item(1, 3).foreground().color().name()
    assert page.summary.text().endswith("Fix row 2 to continue.</span>") and not _next_enabled(window)
    page.table.item(1, 0).setText(str(tmp_path / "data" / "DB2"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    assert "share" not in _cell(page, 1) and page.summary.text() == ""


def test_a_relative_folder_is_refused_at_its_row_with_a_full_path_to_follow(qtbot, window, tmp_path, monkeypatch):
    checked: list[list[str]] = []
    real = window.wizard_services.check_machine
    monkeypatch.setattr(window.wizard_services, "check_machine",
                        lambda config: checked.append([str(s.database_path) for s in config.databases]) or real(config))
    page = _open_databases(window, _small(tmp_path / "data"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    page.table.item(0, 0).setText("dbrel")
    words = _cell(page, 0)
    assert words.startswith("Database path: give a full path, e.g. ")
    assert ("D:\\Databases\\DB1" if __import__("os").name == "nt" else "/srv/jetwise/DB1") in words
    assert "(dbrel)" in words and "will be created" not in words and not _next_enabled(window)
    assert page.summary.text().endswith("Fix row 1 to continue.</span>")
    assert "Databases and logs page" not in page.summary.text()  # the page itself, not a pointer to it
    page.table.item(0, 1).setText("logs/rel")
    assert "Log path: give a full path, e.g. " in _cell(page, 0)
    assert window.state.config() is None and not page.checks.pending  # nothing to check: no check is wanted
    assert QThreadPool.globalInstance().waitForDone(10_000)
    assert not any("dbrel" in paths for paths in checked)  # never probed relative to wherever the window started
    page.table.item(0, 0).setText(str(tmp_path / "data" / "DB1"))
    page.table.item(0, 1).setText(str(tmp_path / "data" / "Log1"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)


def test_an_empty_folder_is_named_at_its_row_not_at_the_bottom(qtbot, window, tmp_path):
    page = _open_databases(window, _small(tmp_path / "data"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    page.table.item(0, 1).setText("")
    assert _cell(page, 0).startswith("Log path: enter a folder") and not _next_enabled(window)
    assert "will be created" not in _cell(page, 0)
    assert page.summary.text().endswith("Fix row 1 to continue.</span>")
    assert "enter a folder" not in page.summary.text() and "Databases and logs page" not in page.summary.text()


def test_fill_down_waits_for_a_pattern_and_next_follows_the_checks_shown(qtbot, window, tmp_path):
    page = _open_databases(window, _small(tmp_path / "data"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    assert not page.fill_button.isEnabled() and "pattern" in page.fill_button.toolTip()
    page.db_pattern.setText(str(tmp_path / "data" / "DB{n}"))  # the folders the rows already have
    assert page.fill_button.isEnabled()
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    assert "✓" in _cell(page, 0) and "✓" in _cell(page, 1) and _next_enabled(window)
    page.table.item(1, 0).setText(str(tmp_path / "data" / "Other2"))  # a row checked for other folders
    assert _cell(page, 1) == "" and not _next_enabled(window)  # no stale tick: unchecked until its answer is in
    qtbot.waitUntil(lambda: "✓" in _cell(page, 1) and _next_enabled(window), timeout=10_000)


def test_counts_out_of_their_declared_bounds_are_named_not_cut(qtbot, window, tmp_path):
    page = _open_databases(window, _small(tmp_path / "data"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    _type(qtbot, page.count, "999", enter=True)
    assert page.count.edit.text() == "999" and page.table.rowCount() == 2
    assert page.count.error.text() == "at most 256 databases (got 999)"
    assert not _next_enabled(window) and window.wizard.currentId() == PAGE_DATABASES
    _type(qtbot, page.count, "0", enter=True)
    assert page.count.error.text() == "at least 1 database (got 0)" and not _next_enabled(window)
    _type(qtbot, page.count, "12")
    assert not page.count.error.isVisibleTo(page) and page.table.rowCount() == 2 and not _next_enabled(window)
    page.table.setFocus()  # on to another field: the count is entered
    assert page.table.rowCount() == 12
    _type(qtbot, page.count, "3", enter=True)
    assert page.table.rowCount() == 3 and window.wizard.currentId() == PAGE_DATABASES
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    _type(qtbot, page.copies, "99")
    assert page.copies.edit.text() == "99" and "at most 16 copies (got 99)" in page.copies.error.text()
    assert not _next_enabled(window)
    _type(qtbot, page.copies, "16")
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    assert window.state.data["copies_per_database"] == 16 and len(window.state.data["databases"]) == 3


def test_rows_to_fix_and_rows_on_one_volume_are_said_in_one_short_line():
    assert fix_rows_words([1]) == "Fix row 1 to continue."
    assert fix_rows_words([1, 3]) == "Fix rows 1, 3 to continue."
    assert fix_rows_words(list(range(1, 100))) == "Fix rows 1, 2, 3, 4, 5 and 94 more to continue."
    assert same_volume_words([2]) == "same volume as row 2"
    assert same_volume_words([1, 3]) == "same volume as rows 1, 3"
    assert same_volume_words(list(range(2, 100))) == "same volume as 98 other rows"


def test_ninety_nine_databases_on_one_volume_each_say_so_in_a_few_words(tmp_path):
    config = _small(tmp_path / "data", databases=99, thread_count=99)
    (tmp_path / "data").mkdir()
    answer = check_machine(config)
    for row in (0, 50, 98):
        assert ("same volume as 98 other rows", "ok") in answer.rows[row]


def test_a_held_folder_offers_check_again_and_is_checked_again_when_the_page_shows_again(qtbot, window, tmp_path):
    config = _small(tmp_path / "data")
    held = config.databases[0].database_path
    held.mkdir(parents=True)
    with FolderLocks([held], "20261121-other"):
        page = _open_databases(window, config)
        qtbot.waitUntil(lambda: "in use by run 20261121-other" in _cell(page, 0), timeout=10_000)
        assert page.recheck.isVisibleTo(page) and not _next_enabled(window)
        assert "Check again" in page.summary.text()
    qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)  # the other run has ended
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    assert "in use" not in _cell(page, 0) and "✓" in _cell(page, 0) and not page.recheck.isVisibleTo(page)

    with FolderLocks([held], "20261122-again"):
        # the window shows a run, then the wizard again: the page checks its rows again
        window.stack.setCurrentWidget(window.run_view)
        window.stack.setCurrentWidget(window.wizard)
        qtbot.waitUntil(lambda: "in use by run 20261122-again" in _cell(page, 0), timeout=10_000)
        assert not _next_enabled(window)
    window.stack.setCurrentWidget(window.run_view)
    window.stack.setCurrentWidget(window.wizard)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    assert "in use" not in _cell(page, 0)

    with FolderLocks([held], "20261123-third"):  # Back from a later page checks the rows again too
        window.wizard.next()
        window.wizard.back()
        qtbot.waitUntil(lambda: "in use by run 20261123-third" in _cell(page, 0), timeout=10_000)


def test_check_again_runs_off_the_gui_thread(qtbot, window, tmp_path, monkeypatch):
    config = _small(tmp_path / "data")
    held = config.databases[0].database_path
    held.mkdir(parents=True)
    with FolderLocks([held], "20261121-other"):
        page = _open_databases(window, config)
        qtbot.waitUntil(lambda: page.recheck.isVisibleTo(page), timeout=10_000)
    release = threading.Event()
    real = window.wizard_services.check_machine
    monkeypatch.setattr(window.wizard_services, "check_machine", lambda c: release.wait(TIMEOUT_S) and real(c))
    try:
        qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: page.summary.text() == "Checking the database and log folders…", timeout=5000)
        assert not page.recheck.isEnabled() and not _next_enabled(window)
        _event_loop_turns(qtbot)  # the window paints and takes input while the folders are checked
        assert page.checks.pending and not _next_enabled(window)
    finally:
        release.set()
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    assert not page.recheck.isVisibleTo(page)


def test_an_instances_more_database_folders_are_typed_in_its_row_checked_there_and_kept(qtbot, window, tmp_path):
    page = _open_databases(window, _small(tmp_path / "data"))
    more = COLUMNS.index("more_database_paths")
    assert page.table.horizontalHeaderItem(more).text() == "More database paths"
    qtbot.waitUntil(lambda: "✓" in _cell(page, 0) and _next_enabled(window), timeout=10_000)
    page.table.item(0, more).setText(f"{tmp_path / 'data' / 'DB1b'}; relative")
    assert _cell(page, 0).startswith("More database paths: give a full path") and not _next_enabled(window)
    page.table.item(0, more).setText(f"{tmp_path / 'data' / 'DB1b'};  {tmp_path / 'data' / 'DB1c'} ")
    qtbot.waitUntil(lambda: "(and 2 more files of this size)" in _cell(page, 0) and _next_enabled(window), timeout=10_000)
    config = window.wizard.state.config()
    assert config.databases[0].more_database_paths == [tmp_path / "data" / "DB1b", tmp_path / "data" / "DB1c"]
    assert config.databases[1].more_database_paths == [] and config.database_file_count == 4
    page.table.item(1, more).setText(str(tmp_path / "data" / "DB1c"))  # another instance's file's folder
    assert "databases 1 and 2 share" in _cell(page, 1) and not _next_enabled(window)
    page.table.item(1, more).setText("")
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10_000)
    window.wizard.load_config(config, session="rows")  # loaded again, as a saved configuration is
    assert _cell(page, 0, more) == f"{tmp_path / 'data' / 'DB1b'}; {tmp_path / 'data' / 'DB1c'}"


def test_a_rows_tick_says_what_preflight_found_not_a_second_look(tmp_path, monkeypatch):
    config = _small(tmp_path / "data")
    facts = FolderFacts(tmp_path, True, 7, 3 * 1024**4, UnbufferedProbe(True, False, "ok"))
    found = Preflight([], {}, {"databases[0].database_path": facts, "databases[1].database_path": facts})
    monkeypatch.setattr(wizard_services, "check_environment", lambda _config: found)
    rows = check_machine(config).rows
    assert rows[0][0] == ("✓ exists, writable, unbuffered I/O; 3.0 TB free for 200.0 MB", "ok")
    assert same_volume_words([1]) in [text for text, _ in rows[1]]  # the volume preflight found them on
