"""The checks of the machine run off the GUI thread: a slow volume never freezes the window, Next and Start wait for
the answer about the values shown now, and an answer about values that changed meanwhile is dropped."""

from __future__ import annotations

import threading

from PySide6.QtCore import QCoreApplication, QThreadPool, QTimer
from PySide6.QtWidgets import QWizard

from ui.wizard import PAGE_DATABASES, PAGE_REVIEW
from ui.wizard.services import MachineCheck

TIMEOUT_S = 30  # a blocked check gives up after this; every test releases it long before


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _finish_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.FinishButton).isEnabled()


def _to_page(window, page_id: int) -> None:
    window.wizard.restart()
    while window.wizard.currentId() != page_id:
        window.wizard.next()


def _event_loop_turns(qtbot) -> None:
    """A timer of the GUI thread fires a few times: nothing blocks the event loop."""
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    try:
        qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=5000)
    finally:
        timer.stop()


def _answer(config, words: str) -> MachineCheck:
    return MachineCheck([], {row: [(words, "ok")] for row in range(len(config.databases))})


def test_a_blocked_folder_check_leaves_the_page_editable_and_next_waits_for_it(qtbot, window, monkeypatch):
    release = threading.Event()
    asked: list[int] = []

    def blocked(config):
        asked.append(config.copies_per_database)
        release.wait(TIMEOUT_S)
        return _answer(config, f"checked with {config.copies_per_database} copies")

    monkeypatch.setattr(window.wizard_services, "check_machine", blocked)
    page = window.wizard.databases
    try:
        _to_page(window, PAGE_DATABASES)
        qtbot.waitUntil(lambda: asked == [1], timeout=5000)
        assert page.summary.text() == "Checking the database and log folders…" and not _next_enabled(window)
        _event_loop_turns(qtbot)
        page.copies.set_value(2)  # the page takes edits while the check is blocked
        assert window.state.data["copies_per_database"] == 2 and not _next_enabled(window)
        qtbot.waitUntil(lambda: asked == [1, 2], timeout=5000)  # the new values are checked in turn
        _event_loop_turns(qtbot)
        assert not _next_enabled(window)
    finally:
        release.set()
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    assert page.table.item(0, 3).text() == "checked with 2 copies" and page.summary.text() == ""


def test_an_answer_for_values_that_changed_meanwhile_is_dropped(qtbot, window, monkeypatch):
    first_may_answer = threading.Event()
    asked: list[int] = []

    def check(config):
        asked.append(config.copies_per_database)
        if config.copies_per_database == 1:
            first_may_answer.wait(TIMEOUT_S)
        return _answer(config, f"checked with {config.copies_per_database} copies")

    monkeypatch.setattr(window.wizard_services, "check_machine", check)
    page = window.wizard.databases
    try:
        _to_page(window, PAGE_DATABASES)
        qtbot.waitUntil(lambda: asked == [1], timeout=5000)
        page.copies.set_value(2)
        qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)  # the second answer is in; the first is not
        assert page.table.item(0, 3).text() == "checked with 2 copies"
    finally:
        first_may_answer.set()
    assert QThreadPool.globalInstance().waitForDone(5000)  # the first answer has been sent to the GUI thread...
    QCoreApplication.processEvents()  # ...and delivered: it is about values no longer shown
    assert page.table.item(0, 3).text() == "checked with 2 copies" and _next_enabled(window)


def test_a_check_that_fails_says_so_and_keeps_next_disabled(qtbot, window, monkeypatch):
    def unreachable(_config):
        raise OSError("the SAN path did not answer")

    monkeypatch.setattr(window.wizard_services, "check_machine", unreachable)
    _to_page(window, PAGE_DATABASES)
    page = window.wizard.databases
    qtbot.waitUntil(lambda: "could not be checked" in page.summary.text(), timeout=5000)
    assert "the SAN path did not answer" in page.summary.text() and not _next_enabled(window)


def test_start_waits_for_the_reviews_check_and_the_session_can_be_named_meanwhile(qtbot, window, monkeypatch, tmp_path):
    from engine.model.config import default_config

    window.wizard.load_config(default_config(tmp_path / "data", profile={"mailboxes": 40, "mailbox_size_mb": 10}))
    release = threading.Event()
    asked: list[int] = []

    def blocked(config):
        asked.append(config.database_count)
        release.wait(TIMEOUT_S)
        return _answer(config, "ok")

    monkeypatch.setattr(window.wizard_services, "check_machine", blocked)
    review = window.wizard.review
    try:
        _to_page(window, PAGE_REVIEW)
        qtbot.waitUntil(lambda: len(asked) >= 1 and review.checks.pending, timeout=5000)
        assert "Checking the database and log folders" in review.status.text() and not _finish_enabled(window)
        _event_loop_turns(qtbot)
        review.session.clear()
        qtbot.keyClicks(review.session, "Array A")
        assert window.state.session == "Array A" and not _finish_enabled(window)
    finally:
        release.set()
    qtbot.waitUntil(lambda: _finish_enabled(window), timeout=5000)
    assert "Checking" not in review.status.text()


def test_a_folder_another_run_holds_is_named_at_its_row_with_the_holder(qtbot, window, tmp_path):
    from engine.io.locks import FolderLocks
    from engine.model.config import default_config

    config = default_config(tmp_path / "data", profile={"mailboxes": 40, "mailbox_size_mb": 10})
    window.wizard.load_config(config)
    held = config.databases[0].database_path
    held.mkdir(parents=True)
    page = window.wizard.databases
    with FolderLocks([held], "20261121-other"):
        _to_page(window, PAGE_DATABASES)
        qtbot.waitUntil(lambda: "in use by run 20261121-other" in _row_words(page, 0), timeout=10000)
        assert "in use" not in _row_words(page, 1) and not _next_enabled(window)
    window.wizard.restart()
    _to_page(window, PAGE_DATABASES)  # the other run ended: the folder is free again
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=10000)
    assert "in use" not in _row_words(page, 0)


def _row_words(page, row: int) -> str:
    return " ".join(page.table.item(row, column).toolTip() + " " + page.table.item(row, column).text()
                    for column in range(page.table.columnCount()) if page.table.item(row, column) is not None)
