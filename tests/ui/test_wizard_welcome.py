"""The Welcome page: "Continue a tuning session" waits, and says so, until a session is chosen; a session continued
comes back in the tuning mode its runs were started in."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWizard

from engine.model.config import default_config
from tests.conftest import small_config
from tests.ui.conftest import open_window
from ui.wizard import PAGE_PROFILE, PAGE_REVIEW, PAGE_WELCOME

ENGINE_TIMEOUT_MS = 120_000


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _window_with_sessions(qtbot, tmp_path, store, *names: str):
    """A window whose run store holds a session with one run (6 threads, SluggishSessions 3) per name."""
    for name in names:
        config = default_config(tmp_path / "data", thread_count=6, sluggish_sessions=3, profile={"mailboxes": 2500})
        store.begin_run(store.session_for(name, config), f"r-{name}", config, tmp_path / "out")
    window = open_window(qtbot, tmp_path, store)
    qtbot.waitExposed(window, timeout=5000)
    return window


def _click_row(qtbot, window, row: int) -> None:
    sessions = window.wizard.welcome.sessions
    qtbot.mouseClick(sessions.viewport(), Qt.MouseButton.LeftButton, pos=sessions.visualItemRect(sessions.item(row)).center())


def _tick(qtbot, radio) -> None:
    qtbot.mouseClick(radio, Qt.MouseButton.LeftButton, pos=radio.rect().topLeft() + QPoint(6, 8))  # on its circle


def _tick_continue(qtbot, window) -> None:
    _tick(qtbot, window.wizard.welcome.resume)


def test_continue_with_no_session_chosen_keeps_next_disabled_and_says_why(qtbot, tmp_path, store):
    window = _window_with_sessions(qtbot, tmp_path, store, "SAN tier 2")
    welcome = window.wizard.welcome
    assert _next_enabled(window) and welcome.reason.text() == ""
    _tick_continue(qtbot, window)
    assert welcome.resume.isChecked() and not _next_enabled(window)
    assert "Choose the session to continue" in welcome.reason.text()
    assert window.state.session == ""  # nothing loaded, nothing started with defaults
    _click_row(qtbot, window, 0)
    assert _next_enabled(window) and welcome.reason.text() == ""
    assert window.state.session == "SAN tier 2" and window.state.data["thread_count"] == 6
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)
    assert window.wizard.currentId() == PAGE_PROFILE
    assert window.wizard.profile.fields["profile.mailboxes"].edit.text() == "2500"


def test_continue_with_no_session_at_all_says_there_is_none(qtbot, tmp_path, store):
    window = _window_with_sessions(qtbot, tmp_path, store)
    welcome = window.wizard.welcome
    # no empty white box: the words in its place say why the list is empty
    assert welcome.no_sessions.isVisible() and not welcome.sessions.isVisible()
    assert welcome.no_sessions.text().startswith("No tuning sessions yet.")
    _tick_continue(qtbot, window)
    assert not _next_enabled(window) and "no tuning session to continue yet" in welcome.reason.text()
    _tick(qtbot, welcome.new_test)
    assert _next_enabled(window) and welcome.reason.text() == ""

    # once a run has begun a session, the list is back, with it
    config = default_config(tmp_path / "data", thread_count=6, sluggish_sessions=3)
    store.begin_run(store.session_for("first design", config), "r-first", config, tmp_path / "out")
    welcome.fill_sessions()
    assert welcome.sessions.isVisible() and not welcome.no_sessions.isVisible() and welcome.sessions.count() == 1


def test_a_continued_session_comes_back_in_its_own_tuning_mode(qtbot, tmp_path, store):
    window = _window_with_sessions(qtbot, tmp_path, store, "manual design", "tuned design")
    window.runs.modes.remember("manual design", False)
    window.runs.modes.remember("tuned design", True)
    welcome = window.wizard.welcome
    welcome.fill_sessions()
    names = [welcome.sessions.item(row).data(Qt.ItemDataRole.UserRole) for row in range(welcome.sessions.count())]
    assert window.state.auto_tune  # a new window plans in auto-tune
    _click_row(qtbot, window, names.index("manual design"))
    assert not window.state.auto_tune and "Manual" in welcome.loaded.text()
    window.wizard.restart_at(PAGE_REVIEW)
    assert window.wizard.tuning.manual.isChecked() and window.wizard.tuning.fields["thread_count"].edit.text() == "6"
    assert "6 threads, SluggishSessions 3" in window.wizard.review.text.toPlainText()
    window.wizard.restart_at(PAGE_WELCOME)
    _click_row(qtbot, window, names.index("tuned design"))
    assert window.state.auto_tune and window.wizard.tuning.auto.isChecked()


def test_a_manual_run_from_the_window_is_continued_in_manual(qtbot, window, tmp_path):
    window.runs.simulate = "sas-8x10k"
    window.wizard.load_config(small_config(tmp_path / "data" / "dbs", thread_count=3), session="by hand")
    window.wizard.restart_at(PAGE_REVIEW)
    assert not window.state.auto_tune
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.results_view, timeout=ENGINE_TIMEOUT_MS)
    assert window.runs.modes.of("by hand") is False
    window.state.set_auto_tune(True)  # the engineer plans something else meanwhile
    window.stack.setCurrentWidget(window.wizard)
    window.wizard.restart_at(PAGE_WELCOME)
    window.wizard.welcome.fill_sessions()
    _click_row(qtbot, window, 0)
    assert window.state.session == "by hand" and not window.state.auto_tune
    assert window.state.data["thread_count"] == 3


def test_back_on_welcome_after_new_test_lists_the_sessions_the_runs_began(qtbot, tmp_path, store):
    """After runs, New test → Back to Welcome used to say "There is no tuning session to continue yet" with Next
    disabled until the window was restarted."""
    window = _window_with_sessions(qtbot, tmp_path, store)
    welcome = window.wizard.welcome
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)
    config = default_config(tmp_path / "data", thread_count=6, sluggish_sessions=3)
    store.begin_run(store.session_for("first design", config), "r-first", config, tmp_path / "out")  # a run, meanwhile
    window.new_test()
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.BackButton), Qt.MouseButton.LeftButton)
    assert window.wizard.currentId() == PAGE_WELCOME
    assert welcome.sessions.isVisible() and welcome.sessions.count() == 1
    _tick_continue(qtbot, window)
    assert "Choose the session to continue" in welcome.reason.text()
    _click_row(qtbot, window, 0)
    assert _next_enabled(window) and window.state.session == "first design"
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.BackButton), Qt.MouseButton.LeftButton)
    assert welcome.sessions.item(0).isSelected() and _next_enabled(window)  # back again: still chosen


def test_the_window_title_follows_the_session_continued_or_named(qtbot, tmp_path, store):
    window = _window_with_sessions(qtbot, tmp_path, store, "SAN tier 2", "JBOD")
    assert window.windowTitle().startswith("Jetwise ") and "—" not in window.windowTitle()
    _tick_continue(qtbot, window)
    sessions = window.wizard.welcome.sessions
    _click_row(qtbot, window, [sessions.item(i).data(Qt.ItemDataRole.UserRole) for i in range(2)].index("SAN tier 2"))
    assert window.windowTitle().endswith("— SAN tier 2")
    window.state.session = "SAN tier 3"  # named anew on the Review page
    assert window.windowTitle().endswith("— SAN tier 3")


def test_the_sessions_last_run_says_its_test_and_whether_the_host_set_the_pace(qtbot, tmp_path, store):
    from engine.model.config import TestType
    from tests.ui.test_reports import record_run

    checksum = record_run(store, "checked", tmp_path / "runs" / "c", test_type=TestType.DATABASE_CHECKSUM)
    tuned = record_run(store, "tuned", tmp_path / "runs" / "t", threads=3)
    store.finish_run(tuned.run_id, tuned.model_copy(update={"summary": tuned.summary.model_copy(
        update={"host_bound": True})}))
    window = open_window(qtbot, tmp_path, store)
    sessions = window.wizard.welcome.sessions
    lines = {sessions.item(i).data(Qt.ItemDataRole.UserRole): sessions.item(i).text() for i in range(sessions.count())}
    verdict = checksum.verdict.value.upper()
    assert "last: Database checksum (2 databases in " in lines["checked"] and lines["checked"].endswith(f"): {verdict}")
    assert "threads" not in lines["checked"]  # a checksum reads each database once: no thread count it failed at
    assert (f"last: Performance (3 threads, SluggishSessions 1): {tuned.verdict.value.upper()}, host-bound"
            in lines["tuned"])

    window.show_session()  # the session table: the checksum's row names no setting, the host-bound run says so
    view = window.session_view
    view.chooser.activated.emit([view.chooser.itemText(i) for i in range(view.chooser.count())].index("checked"))
    cells = [view.table.item(0, column).text() for column in range(view.table.columnCount())]
    assert cells[2] == "Database checksum" and cells[4:7] == ["—", "—", "—"]
    view.chooser.activated.emit([view.chooser.itemText(i) for i in range(view.chooser.count())].index("tuned"))
    cells = [view.table.item(0, column).text() for column in range(view.table.columnCount())]
    assert cells[4:6] == ["3", "1"] and cells[-2] == f"{tuned.verdict.value} (host-bound)"
