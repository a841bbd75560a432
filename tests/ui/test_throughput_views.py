"""The disk subsystem throughput scenario in the window: chosen on the Welcome page, the profile page turning into
the throughput questions, the databases sized from the free space as their folders are entered (and again when
what the size comes from changes), and auto-tune on a simulated device ending in the most the storage passes."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from engine.model.config import Scenario
from tests.ui.test_runs import _wait_for_results
from tests.ui.test_wizard_loop import _go_next, _type, fill_folders
from ui.wizard import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE


def _choose_throughput(qtbot, wizard) -> None:
    button = wizard.welcome.scenario_buttons[Scenario.DISK_THROUGHPUT]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert wizard.state.get("scenario") == "disk_throughput"


def test_the_scenario_changes_the_profile_page_and_the_databases_are_sized_from_the_free_space(qtbot, window, tmp_path):
    wizard = window.wizard
    _choose_throughput(qtbot, wizard)
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_PROFILE
    page = wizard.profile
    assert page.title() == "Disk subsystem throughput"
    assert page.fields["throughput_percent"].isVisible() and not page.fields["profile.mailboxes"].isVisible()
    assert "Target: <b>none</b>" in page.readout.text()
    percent = 100 * 2**20 / shutil.disk_usage(tmp_path).free * 100  # about 100 MB
    _type(qtbot, page.fields["capacity_percent"], f"{percent:.6f}")
    _type(qtbot, page.fields["throughput_percent"], "60")
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_TUNING
    _go_next(qtbot, wizard)
    assert wizard.currentId() == PAGE_DATABASES
    fill_folders(qtbot, wizard.databases, tmp_path / "data")
    config = wizard.state.config()
    assert config is not None and config.database_size_mb is not None
    assert f"{float(f'{percent:.6f}'):g} % of the" in wizard.state.sizing and str(tmp_path / "data") in wizard.state.sizing
    first = config.database_size_mb
    wizard.back()
    wizard.back()
    assert wizard.currentId() == PAGE_PROFILE
    assert "each database is" in page.readout.text()
    _type(qtbot, page.fields["capacity_percent"], f"{2 * percent:.6f}")  # another capacity: sized again
    sized = wizard.state.config()
    assert sized is not None and sized.database_size_mb is not None and sized.database_size_mb > first
    while wizard.currentId() != PAGE_REVIEW:
        _go_next(qtbot, wizard)
    review = wizard.review.text.toPlainText()
    assert "none: disk throughput, the most transactional IOPS that pass" in review and "60 %" in review
    # back to the mailbox profile: its own target and size again
    wizard.restart()
    qtbot.mouseClick(wizard.welcome.scenario_buttons[Scenario.MAILBOX_PROFILE], Qt.MouseButton.LeftButton)
    profile = wizard.state.config()
    assert profile is not None and profile.database_size_mb is None and profile.target_transactional_iops > 0
    _go_next(qtbot, wizard)
    assert page.title() == "Mailbox profile" and page.fields["profile.mailboxes"].isVisible()


def test_auto_tune_in_the_window_ends_at_the_most_the_storage_passes(qtbot, window, tmp_path):
    window.runs.simulate = "sata-2x7k"  # the sweep and its confirmation answer in virtual time
    wizard = window.wizard
    _choose_throughput(qtbot, wizard)
    wizard.state.set("database_cache_min_mb", 16.0)
    wizard.state.set("database_cache_max_mb", 32.0)
    wizard.state.set_databases([{"database_path": str(tmp_path / "data" / "DB1"), "log_path": str(tmp_path / "data" / "L1")}])
    wizard.state.set("database_size_mb", 200.0)  # larger than the cache: reads reach the (simulated) disk
    wizard.tuning.auto.setChecked(True)
    wizard.tuning.calibration.set_value("15s")
    while wizard.currentId() != PAGE_REVIEW:
        assert wizard.currentId() != PAGE_TYPE or wizard.test_type.isComplete(), wizard.test_type.check()
        wizard.next()
    finish = wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    _wait_for_results(qtbot, window)
    assert window.results_view.suggestion is not None and window.results_view.suggestion.status == "converged"
    result = window.runs.last_result
    assert result.configuration.seeks_maximum and result.verdict == "pass"
    advice = window.results_view.advice.text()
    assert "The most this storage passes" in advice and "mailboxes at 0.1 IOPS each" in advice
    assert "disk throughput: no target" in window.results_view.headline.text()
