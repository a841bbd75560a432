"""Walking the wizard as an engineer would: bad values are named at the field and block Next."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWizard

from engine.model import config as model
from ui.widgets.style import ERROR_STYLE, severity_qcolor
from ui.wizard import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _type(qtbot, field, text: str) -> None:
    field.edit.clear()
    qtbot.keyClicks(field.edit, text)


def _go_next(qtbot, window) -> None:
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    qtbot.mouseClick(window.wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)


def test_bad_values_are_named_at_the_field_and_good_ones_reach_review(qtbot, window, tmp_path):
    wizard = window.wizard
    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_PROFILE
    mailboxes = wizard.profile.fields["profile.mailboxes"]

    _type(qtbot, mailboxes, "-5")
    assert mailboxes.error.isVisible() and "at least 1 mailbox (got -5)" in mailboxes.error.text()
    assert not _next_enabled(window)
    _type(qtbot, mailboxes, "lots")
    assert mailboxes.error.text() == "enter a whole number" and not _next_enabled(window)
    _type(qtbot, mailboxes, "20")
    size = wizard.profile.fields["profile.mailbox_size_mb"]
    _type(qtbot, size, "400")  # 4 GB databases: their 1.5 GB of cache leaves the storage most of the reads
    assert not mailboxes.error.isVisible() and _next_enabled(window)
    assert "Target: <b>2.4 transactional IOPS</b>" in wizard.profile.readout.text()  # 20 × 0.1 + 20 %

    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_TUNING
    wizard.tuning.manual.setChecked(True)
    threads = wizard.tuning.fields["thread_count"]
    _type(qtbot, threads, "0")
    assert "at least 1 thread (got 0)" in threads.error.text() and not _next_enabled(window)
    _type(qtbot, threads, "1")
    assert "cannot serve 2 databases" in threads.error.text()  # the engine's own cross-field rule
    _type(qtbot, threads, "2")
    assert "Advisor's starting point" in wizard.tuning.suggestion.text()

    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_DATABASES
    page = wizard.databases
    page.db_pattern.setText(str(tmp_path / "nowhere" / "deeper" / "DB{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(page.row_messages), timeout=5000)
    assert "does not exist" in page.table.item(0, 3).text() and not _next_enabled(window)
    page.db_pattern.setText(str(tmp_path / "data" / "DB{n}"))
    page.log_pattern.setText(str(tmp_path / "data" / "Log{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    assert "✓ will be created, writable" in page.table.item(1, 3).text()
    assert "same volume as row 1" in page.table.item(1, 3).text()

    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_TYPE
    wizard.test_type.duration.setCurrentText("soon")
    assert "cannot read duration 'soon'" in wizard.test_type.fields["duration_s"].error.text() and not _next_enabled(window)
    wizard.test_type.duration.setCurrentText("10s")
    _go_next(qtbot, window)
    assert wizard.currentId() == PAGE_REVIEW
    review = wizard.review.text.toPlainText()
    assert "2.4 transactional IOPS" in review and "2 threads, SluggishSessions 1" in review and "10s measured" in review
    assert "Checking the database and log folders" in wizard.review.status.text()  # off the GUI thread
    qtbot.waitUntil(lambda: _finish_enabled(window), timeout=5000)

    # nothing is lost going back
    wizard.back()
    wizard.back()
    wizard.back()
    wizard.back()
    assert wizard.currentId() == PAGE_PROFILE
    assert mailboxes.edit.text() == "20" and size.edit.text() == "400"


def test_a_configuration_file_opens_into_the_wizard(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from engine.io.config_file import save_config
    from engine.model.config import default_config

    path = tmp_path / "design.json"
    save_config(default_config(tmp_path / "data", databases=3, profile={"mailboxes": 777}), path)
    assert window.load_config_file(path)
    assert window.state.data["profile"]["mailboxes"] == 777 and window.state.session == "design"
    window.wizard.next()
    assert window.wizard.profile.fields["profile.mailboxes"].edit.text() == "777"
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warnings.append(text))
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    assert not window.load_config_file(bad)
    assert warnings and "broken.json" in warnings[0]
    assert window.state.data["profile"]["mailboxes"] == 777  # nothing lost


def test_a_configuration_dropped_on_the_window_opens(qtbot, window, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from engine.io.config_file import save_config
    from engine.model.config import default_config

    path = tmp_path / "dropped.json"
    save_config(default_config(tmp_path / "data", profile={"mailboxes": 4321}), path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.state.data["profile"]["mailboxes"] == 4321 and window.state.session == "dropped"


def _window_with_a_session(qtbot, tmp_path, store):
    """A window whose run store holds one tuning session with one run at 6 threads / SluggishSessions 3."""
    from engine.model.config import default_config
    from tests.ui.conftest import open_window

    config = default_config(tmp_path / "data", thread_count=6, sluggish_sessions=3, profile={"mailboxes": 2500})
    store.begin_run(store.session_for("SAN tier 2", config), "r-1", config, tmp_path / "out")
    window = open_window(qtbot, tmp_path, store)
    qtbot.waitExposed(window, timeout=5000)
    return window


def _not_loaded(window) -> bool:
    return window.state.session == "" and window.state.data["profile"]["mailboxes"] != 2500


def test_a_tuning_session_is_continued_by_clicking_it_on_the_welcome_page(qtbot, tmp_path, store):
    window = _window_with_a_session(qtbot, tmp_path, store)
    sessions = window.wizard.welcome.sessions
    assert sessions.count() == 1
    assert "SAN tier 2" in sessions.item(0).text() and "last: Performance (6 threads, SluggishSessions 3): " in sessions.item(0).text()
    rect = sessions.visualItemRect(sessions.item(0))
    qtbot.mouseClick(sessions.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.wizard.welcome.resume.isChecked()
    assert window.state.session == "SAN tier 2" and window.state.data["profile"]["mailboxes"] == 2500
    assert window.state.data["thread_count"] == 6
    assert "Continuing 'SAN tier 2'" in window.wizard.welcome.loaded.text()


def test_focus_or_a_current_row_alone_loads_no_session(qtbot, tmp_path, store):
    window = _window_with_a_session(qtbot, tmp_path, store)
    welcome = window.wizard.welcome
    sessions = welcome.sessions
    window.activateWindow()
    sessions.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(sessions.hasFocus, timeout=5000)
    qtbot.keyClick(sessions, Qt.Key.Key_Down)  # moving through the list is not a choice either
    sessions.setCurrentRow(0)
    assert sessions.currentItem() is sessions.item(0)
    assert _not_loaded(window) and not welcome.resume.isChecked()

    # Enter on the row is a choice
    qtbot.keyClick(sessions, Qt.Key.Key_Return)
    assert window.state.session == "SAN tier 2" and window.state.data["profile"]["mailboxes"] == 2500


def test_choosing_continue_with_a_selected_session_loads_it(qtbot, tmp_path, store):
    window = _window_with_a_session(qtbot, tmp_path, store)
    welcome = window.wizard.welcome
    welcome.sessions.setCurrentRow(0)
    assert welcome.sessions.item(0).isSelected() and _not_loaded(window)
    qtbot.mouseClick(welcome.resume, Qt.MouseButton.LeftButton, pos=welcome.resume.rect().topLeft() + QPoint(6, 8))
    assert welcome.resume.isChecked()
    assert window.state.session == "SAN tier 2" and window.state.data["thread_count"] == 6


def _small(base, **overrides):
    """A design that fits any scratch disk: 40 mailboxes of 10 MB, a cache smaller than each database."""
    from engine.model.config import default_config

    values = {"profile": {"mailboxes": 40, "mailbox_size_mb": 10}, "database_cache_min_mb": 8.0,
              "database_cache_max_mb": 16.0}
    values.update(overrides)
    return default_config(base, **values)


def _to_review(window) -> None:
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()


def _to_page(window, page_id: int) -> None:
    """From the Welcome page to `page_id` with Next, whatever page shows now."""
    window.wizard.restart()
    while window.wizard.currentId() != page_id:
        window.wizard.next()


def _finish_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.FinishButton).isEnabled()


def test_review_names_every_error_at_its_field_and_start_waits_for_none(qtbot, window, tmp_path):
    # 2 threads cannot serve 4 databases: a file may say so, and Next() past each page reaches Review
    config = _small(tmp_path / "data", databases=4, thread_count=2)
    window.wizard.load_config(config, session="four")
    _to_review(window)
    review = window.wizard.review
    text = review.text.toPlainText()
    assert "Error — Thread count (Thread tuning page): 2 thread(s) cannot serve 4 databases" in text
    assert not _finish_enabled(window)
    qtbot.waitUntil(lambda: "1 error(s) listed above must be corrected" in review.status.text(), timeout=5000)
    assert not _finish_enabled(window)

    # the same file in auto-tune mode: the advisor's starting setting is what runs, and it is valid
    window.wizard.tuning.auto.setChecked(True)
    qtbot.waitUntil(lambda: _finish_enabled(window), timeout=5000)
    text = review.text.toPlainText()
    assert "cannot serve" not in text and "starting at 4 threads" in text


def test_review_lists_warnings_in_amber_and_still_starts(qtbot, window, tmp_path):

    # the first database's folder is a link to a folder elsewhere: the files go there, which the engineer may mean
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "DB1").symlink_to(tmp_path / "elsewhere")
    config = _small(tmp_path / "data")
    window.wizard.load_config(config, session="small")
    _to_review(window)
    review = window.wizard.review
    qtbot.waitUntil(lambda: _finish_enabled(window), timeout=5000)
    text = review.text.toPlainText()
    assert "Warning — " in text and f"resolves through a link to {tmp_path / 'elsewhere'}: the files go there" in text
    assert "#8a5a00" in review.text.toHtml()  # amber, not an error's red
    assert "warning(s) listed above" in review.status.text()


def test_review_says_a_database_the_cache_holds_is_judged_fail_as_validate_and_the_verdict_do(qtbot, window, tmp_path):
    from engine.model.validation import check_rules

    config = _small(tmp_path / "data", profile={"mailboxes": 8, "mailbox_size_mb": 4}, database_cache_max_mb=64.0)
    window.wizard.load_config(config, session="cached")
    _to_review(window)
    review = window.wizard.review
    qtbot.waitUntil(lambda: _finish_enabled(window), timeout=5000)
    text = " ".join(review.text.toPlainText().split())
    [rule] = [p.message for p in check_rules(config) if p.field == "database_cache_max_mb"]  # what validate prints
    assert "Warning — " in text and rule in text
    assert "this design is not a test of the storage, and a run of it is judged FAIL at any length" in rule and "can only fail" not in text
    assert "warning(s) listed above" in review.status.text()


def test_review_runs_the_machine_checks_and_blocks_start_on_them(qtbot, window, tmp_path):
    config = _small(tmp_path / "nowhere" / "deeper", thread_count=2)
    window.wizard.load_config(config, session="lost")
    _to_review(window)
    review = window.wizard.review
    qtbot.waitUntil(lambda: "Database 1 path (Databases and logs page)" in review.text.toPlainText(), timeout=5000)
    assert "does not exist" in review.text.toPlainText()
    assert not _finish_enabled(window)
    (tmp_path / "nowhere" / "deeper").mkdir(parents=True)
    window.wizard.back()
    window.wizard.next()
    qtbot.waitUntil(lambda: _finish_enabled(window), timeout=5000)
    assert "does not exist" not in review.text.toPlainText()


def test_attaching_existing_databases_checks_every_row_again(qtbot, window, tmp_path):
    wizard = window.wizard
    wizard.load_config(_small(tmp_path / "data"))
    _to_page(window, PAGE_DATABASES)
    page = wizard.databases
    page.db_pattern.setText(str(tmp_path / "data" / "DB{n}"))
    page.log_pattern.setText(str(tmp_path / "data" / "Log{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    assert "✓ will be created" in page.table.item(0, 3).text()

    page.source.setCurrentIndex(page.source.findData("attach"))
    assert not _next_enabled(window)  # until the rows are checked again
    qtbot.waitUntil(lambda: "there is no database to attach" in page.table.item(0, 3).text(), timeout=5000)
    assert "there is no database to attach" in page.table.item(1, 3).text()
    assert "Fix rows 1, 2" in page.summary.text() and not _next_enabled(window)

    page.source.setCurrentIndex(page.source.findData("create"))
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    assert "✓ will be created" in page.table.item(0, 3).text()


def test_a_loaded_configuration_opens_in_manual_mode_with_its_setting_and_its_session(qtbot, window, tmp_path):
    wizard = window.wizard
    assert wizard.tuning.auto.isChecked()
    _to_review(window)
    assert wizard.review.session.text() == window.state.session != "x"
    # a file opened (or dropped) while Review shows
    wizard.load_config(_small(tmp_path / "data", thread_count=6, sluggish_sessions=3), session="x")
    assert wizard.review.session.text() == "x" and window.state.session == "x"
    _to_page(window, PAGE_TUNING)
    tuning = wizard.tuning
    assert tuning.manual.isChecked() and not window.state.auto_tune
    threads, sluggish = tuning.fields["thread_count"], tuning.fields["sluggish_sessions"]
    assert threads.isEnabled() and threads.edit.text() == "6" and sluggish.edit.text() == "3"
    _to_review(window)
    assert wizard.review.session.text() == "x" and window.state.session == "x"
    assert "6 threads, SluggishSessions 3" in wizard.review.text.toPlainText()


def test_a_bad_warm_up_is_named_under_its_field(qtbot, window):
    wizard = window.wizard
    _to_page(window, PAGE_TYPE)
    page = wizard.test_type
    page.warmup.setCurrentText("abc")
    assert page.fields["warmup_s"].error.isVisibleTo(page) and "cannot read duration 'abc'" in page.fields["warmup_s"].error.text()
    assert not _next_enabled(window)
    page.warmup.setCurrentText("-5m")
    assert page.fields["warmup_s"].error.text() and not _next_enabled(window)
    page.warmup.setCurrentText("2m")
    assert not page.fields["warmup_s"].error.isVisibleTo(page) and _next_enabled(window)
    assert window.state.data["warmup_s"] == 120.0


def test_a_duration_the_engine_refuses_is_named_under_its_field_and_on_the_databases_page(qtbot, window):
    wizard = window.wizard
    _to_page(window, PAGE_TYPE)
    page = wizard.test_type
    page.duration.setCurrentText("40d")  # reads as a duration, but longer than the engine allows
    assert page.fields["duration_s"].error.text() == "must be at most 30 days (got 40 days)" and not _next_enabled(window)
    wizard.back()
    assert wizard.currentId() == PAGE_DATABASES
    qtbot.waitUntil(lambda: "Duration (s) (Test type page)" in wizard.databases.summary.text(), timeout=5000)
    assert not _next_enabled(window)


def test_a_duration_shorter_than_a_verdict_needs_is_said_under_it_and_still_runs(qtbot, window):
    wizard = window.wizard
    _to_page(window, PAGE_TYPE)
    page = wizard.test_type
    page.duration.setCurrentText("20s")
    assert page.window_note.isVisibleTo(page) and _next_enabled(window)  # said, not refused: a run to check the paths
    assert page.window_note.text().startswith("<span") and ("Duration: a verdict needs at least 30 s measured "
                                                            "(Shortest measured window judged): a run measuring 20 s "
                                                            "ends FAIL, not enough measured") in page.window_note.text()
    page.duration.setCurrentText("30s")
    assert not page.window_note.isVisibleTo(page)
    page.duration.setCurrentText("20s")
    window.state.set("thresholds.minimum_measured_s", 0.0)  # More settings: any length judged
    page.refresh()
    assert not page.window_note.isVisibleTo(page)


def test_each_threshold_set_is_described_by_every_limit_its_verdict_judges(qtbot, window):
    """A Stress test fails on an average read latency over 20 ms as well: its description says so (Jetstress's sets)."""
    _to_page(window, PAGE_TYPE)
    buttons = window.wizard.test_type.buttons
    assert "database reads ≤ 20 ms average, ≤ 100 ms maximum; log writes ≤ 10 ms / 100 ms" in buttons[model.TestType.PERFORMANCE].text()
    assert "database reads ≤ 20 ms average, ≤ 200 ms maximum; log writes ≤ 10 ms / 200 ms" in buttons[model.TestType.STRESS].text()


def test_missing_folders_are_created_from_the_page_and_a_folder_made_outside_is_seen_on_check_again(qtbot, window,
                                                                                                      tmp_path):
    """The suggested folders on a new machine are two levels deep in a folder not yet there: no dead end."""
    wizard = window.wizard
    wizard.load_config(_small(tmp_path / "new" / "deeper", thread_count=2))
    _to_page(window, PAGE_DATABASES)
    page = wizard.databases
    qtbot.waitUntil(lambda: page.make.isVisibleTo(page), timeout=5000)
    assert "does not exist (nor does" in page.table.item(0, 3).text() and not _next_enabled(window)
    assert "Create folders makes them" in page.summary.text() and page.recheck.isVisibleTo(page)
    # nothing was typed wrong: the folders not made yet are said, not shown as an error in red
    assert page.table.item(0, 3).foreground().color() != severity_qcolor("error") and ERROR_STYLE not in page.summary.text()
    qtbot.mouseClick(page.make, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    assert all((tmp_path / "new" / "deeper" / f"{kind}{n}").is_dir() for kind in ("DB", "Log") for n in (1, 2))
    assert not page.make.isVisibleTo(page) and not page.recheck.isVisibleTo(page)

    # the engineer makes the folders in Explorer instead: Check again sees them, no value changed
    page.db_pattern.setText(str(tmp_path / "elsewhere" / "deeper" / "DB{n}"))
    page.log_pattern.setText(str(tmp_path / "elsewhere" / "deeper" / "Log{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.recheck.isVisibleTo(page) and page.recheck.isEnabled(), timeout=5000)
    (tmp_path / "elsewhere" / "deeper").mkdir(parents=True)
    qtbot.mouseClick(page.recheck, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)

    # a folder that cannot be made (a file stands where a folder above it would go) is said as such, not as missing:
    # Create folders is not offered for it
    (tmp_path / "a-file").write_text("not a folder")
    page.db_pattern.setText(str(tmp_path / "a-file" / "deeper" / "DB{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    said = f"{tmp_path / 'a-file' / 'deeper' / 'DB1'} is below {tmp_path / 'a-file'}, which is a file, not a folder"
    qtbot.waitUntil(lambda: said in page.table.item(0, 3).text(), timeout=5000)
    assert not page.make.isVisibleTo(page) and not _next_enabled(window)
    assert (tmp_path / "a-file").read_text() == "not a folder"  # the file is as it was


def test_reviews_auto_tune_line_names_where_auto_tune_starts_for_the_session_named(qtbot, window, tmp_path):
    from tests.ui.test_reports import record_run
    from ui.wizard import PAGE_REVIEW

    record_run(window.store, "answered", tmp_path / "runs" / "a", threads=2)  # 2 threads passed in this session
    window.runs.simulate = "flash"  # on the device it ran on: a run of another device answers nothing
    window.wizard.load_config(window.store.runs("answered")[-1].config, session="answered")
    window.state.set("profile.iops_per_mailbox", 1.0)
    window.state.set("profile.mailboxes", 1000)  # 1,200 IOPS: Microsoft's rule starts at 9 threads
    window.state.set_auto_tune(True)
    window.wizard.restart_at(PAGE_REVIEW)
    review = window.wizard.review

    def line() -> str:
        return next(row for row in review.text.toPlainText().splitlines() if row.startswith("Auto-tune"))

    assert line().startswith("Auto-tune: this session already has its answer (converged), 2 threads, "
                             "SluggishSessions 1, run at the planned length")
    review.session.setText("a new design")  # a session with no runs: auto-tune starts afresh
    assert line().startswith("Auto-tune (calibration runs until a setting passes), starting at 9 threads, "
                             "SluggishSessions 1 (first run: one thread per 135 target IOPS (Microsoft's rule, Jetstress 2010's")
    assert window.runs.first_setting(window.state.config()).threads == 9  # what Start runs
