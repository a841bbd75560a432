"""The window on a 1024×768 Remote Desktop screen: every wizard page, every test type's options, the run, the results,
the tuning session and every dialog fit in 1024×700, and every enabled button and field is in sight, directly or by
scrolling, and no narrower than it needs to be."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QScrollArea,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from engine.model import config as model
from engine.model.profile import ServerPart
from engine.model.validation import Problem, Severity
from engine.results.schema import Outcome, ServerResult
from engine.tuning.advisor import advise_session
from tests.conftest import small_config
from tests.engine.test_report import known_result
from tests.hosts.conftest import keys  # noqa: F401 — the fixture that removes the test's keys afterwards
from tests.ui.scan_runs import ENGINE_TIMEOUT_MS, choose, wait_for_results
from tests.ui.sweeps import simulated_sweep
from tests.ui.test_confirmations import _answer
from ui import confirm
from ui.help import show_places
from ui.servers import AddServerDialog
from ui.shell import MainWindow
from ui.widgets.fitting import ScrollContent, scrolled
from ui.wizard import PAGE_PROFILE, PAGE_REVIEW, PAGE_SERVERS, PAGE_TYPE
from ui.wizard.server_folders import ServerFoldersDialog

SCREEN = QSize(1024, 700)
INPUTS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractScrollArea)


def _needed(top: QWidget) -> list[QWidget]:
    """The buttons and fields an engineer uses in `top` as it shows now: visible and enabled."""
    found = [w for w in top.findChildren(QWidget) if isinstance(w, INPUTS) and w.isVisibleTo(top) and w.isEnabled()]
    return [w for w in found if not _part_of_another(w, top)]


def _part_of_another(widget: QWidget, top: QWidget) -> bool:
    """A combo box's or spin box's own line edit, a table's header, a scroll area's scroll bars: part of the field they
    belong to."""
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent, QComboBox | QAbstractSpinBox | QAbstractScrollArea) and not isinstance(parent, QScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def _own_area(widget: QWidget) -> QWidget | None:
    """The scroll area `widget` lies in (None when it lies in none)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea) and parent.widget() is not None and parent.widget().isAncestorOf(widget):
            return parent
        parent = parent.parentWidget()
    return None


def _name(widget: QWidget) -> str:
    words = widget.text() if hasattr(widget, "text") and callable(widget.text) else ""
    return f"{type(widget).__name__} {words!r} {widget.objectName()}".strip()


def out_of_reach(top: QWidget, where: str, size: QSize = SCREEN) -> list[str]:
    """Everything wrong with `top` at `size`: a minimum size larger, a size it does not take, a button or field out of
    sight even after scrolling to it, or squeezed below its own minimum width."""
    top.resize(size)
    QApplication.processEvents()
    problems = []
    least = top.minimumSizeHint().expandedTo(top.minimumSize())
    if least.width() > size.width() or least.height() > size.height():
        problems.append(f"{where}: its minimum size is {least.width()}×{least.height()}")
    if top.size() != size:
        problems.append(f"{where}: resized to {size.width()}×{size.height()} it is {top.width()}×{top.height()}")
    inside = QRect(QPoint(0, 0), size)
    for widget in _needed(top):
        area = _own_area(widget)
        if area is not None:  # scrolled to, the whole of it (ensureWidgetVisible would show a line edit's cursor)
            at = widget.mapTo(area.widget(), QPoint(0, 0))
            half_width, half_height = widget.width() // 2, widget.height() // 2
            area.ensureVisible(at.x() + half_width, at.y() + half_height, half_width + 1, half_height + 1)
            QApplication.processEvents()
        shown = QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())
        # a table's or a plot's own content is drawn in its viewport, which covers the rest of it
        content = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget
        seen = content.visibleRegion().boundingRect().translated(content.mapTo(widget, QPoint(0, 0)))
        whole = area is None or (widget.width() <= area.viewport().width() and widget.height() <= area.viewport().height())
        if not inside.contains(shown if whole else QRect(widget.mapTo(top, seen.topLeft()), seen.size())):
            problems.append(f"{where}: {_name(widget)} lies at {shown.getRect()}, outside the window")
        elif seen.isEmpty() or (whole and not isinstance(widget, QAbstractScrollArea) and seen != widget.rect()):
            problems.append(f"{where}: {_name(widget)} is hidden ({seen.getRect()} of {widget.rect().getRect()} in sight)")
        need = widget.minimumSizeHint()
        if not isinstance(widget, QAbstractScrollArea) and (widget.width() < need.width() or widget.height() < need.height()):
            problems.append(f"{where}: {_name(widget)} is squeezed to {widget.width()}×{widget.height()} "
                            f"(it needs {need.width()}×{need.height()})")
    return problems


def _dialog_out_of_reach(dialog: QWidget, where: str) -> list[str]:
    """A dialog opens no larger than the screen, and as it opens everything in it is in reach."""
    QApplication.processEvents()
    opened = dialog.size()
    if opened.width() > SCREEN.width() or opened.height() > SCREEN.height():
        return [f"{where}: it opens at {opened.width()}×{opened.height()}"]
    return out_of_reach(dialog, where, opened)


def _walk_wizard(qtbot, window, when: str) -> list[str]:
    """Every page of the wizard, and the Test type page with each test type and with More settings open."""
    wizard, problems = window.wizard, []
    window.stack.setCurrentWidget(wizard)
    for page_id in wizard.pageIds():
        if page_id == PAGE_SERVERS and not wizard.servers.wanted():
            continue
        wizard.restart_at(page_id)
        problems += out_of_reach(window, f"{when}, {wizard.currentPage().TITLE} page")
    wizard.restart_at(PAGE_TYPE)
    page = wizard.test_type
    for kind in model.TestType:
        choose(qtbot, page.buttons[kind])
        problems += out_of_reach(window, f"{when}, Test type page, {kind.value}")
    choose(qtbot, page.esrp)
    problems += out_of_reach(window, f"{when}, Test type page, ESRP qualification")
    page.more.expand()
    problems += out_of_reach(window, f"{when}, Test type page, More settings open")
    page.more.toggle.setChecked(False)
    choose(qtbot, page.performance)
    return problems


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the import report comes to the front
def test_every_wizard_page_and_its_dialogs_fit_a_small_screen(qtbot, window, tmp_path, monkeypatch, keys):  # noqa: F811
    monkeypatch.setenv("JETWISE_DATA_DIR", str(tmp_path / "controller"))  # the keys made are removed after the test
    window.wizard.load_config(small_config(tmp_path / "data" / "dbs"), session="small")
    problems = _walk_wizard(qtbot, window, "Before a server")

    servers = window.show_servers()
    problems += _dialog_out_of_reach(servers, "Servers…")
    assert servers.add("mbx1", "tls://controller:8786", tmp_path) is not None
    code = next(box for box in servers.findChildren(QMessageBox) if box.isVisible())
    problems += _dialog_out_of_reach(code, "Servers…, the enrolment code")
    code.close()
    servers.close()
    window.wizard.restart_at(PAGE_SERVERS)
    problems += out_of_reach(window, "Servers page")
    page = window.wizard.servers
    page.across.setChecked(True)
    page.list.item(0).setCheckState(Qt.CheckState.Checked)
    page.list.setCurrentRow(0)
    problems += out_of_reach(window, "Servers page, a server chosen")
    config = window.state.config()
    assert config is not None
    folders = ServerFoldersDialog("mbx1", config, None, window)
    folders.show()
    problems += _dialog_out_of_reach(folders, "Folders on the chosen server…")
    folders.close()
    add = AddServerDialog(window)
    add.show()
    problems += _dialog_out_of_reach(add, "Servers…, Add server…")
    add.close()
    said = [Problem("ThreadCount", "Jetstress's thread count is kept as this test's setting", Severity.NOTE)] * 12
    window.files.report.show_report("JetstressConfig.xml opened", "<b>What the import said</b>", said)
    problems += _dialog_out_of_reach(window.files.report, "The import report of a JetstressConfig.xml")
    window.files.report.close()
    places = show_places(window, tmp_path, window.store.path)
    problems += _dialog_out_of_reach(places, "Where Jetwise keeps things…")
    places.close()
    assert not problems, "\n".join(problems)


def _across_out_of_reach(window, measured) -> list[str]:
    """The results of a test across three servers (each server's share the suite's Performance test's, one failed, one
    lost), as the results view shows a run with servers: each server's row, the paper's aggregate and the exact one."""
    hosts = ("mbx1.contoso.local", "mbx2.contoso.local", "mbx3.contoso.local")
    failed = measured.summary.model_copy(update={"verdict": Outcome.FAIL, "reasons": [
        "Average database read latency 25.10 ms on Instance 1 is over the 20 ms limit"] * 3})
    shares = [ServerResult(host=hosts[0], summary=measured.summary, clock_offset_s=0.0, run_folder=rf"hosts\{hosts[0]}"),
              ServerResult(host=hosts[1], summary=failed, clock_offset_s=0.0, run_folder=rf"hosts\{hosts[1]}"),
              ServerResult(host=hosts[2], ended="lost: no heartbeat for 30 s")]
    config = measured.configuration.model_copy(update={"servers": [ServerPart(host=host) for host in hosts]})
    test = measured.model_copy(update={"servers": shares, "configuration": config})
    window.results_view.show_result(test, None, "Test 1 of 5 of the ESRP trial.")
    window.stack.setCurrentWidget(window.results_view)
    assert window.results_view.servers.table.rowCount() == 5  # three servers, the paper's aggregate, the exact one
    return out_of_reach(window, "A test across three servers")


def test_the_run_results_session_and_their_dialogs_fit_a_small_screen_and_leave_the_wizard_small(qtbot, window, tmp_path):
    window.runs.simulate = "flash"
    config = small_config(tmp_path / "data" / "dbs", sample_interval_s=30.0, warmup_s=60.0, duration_s=60.0,
                          log_files_to_replay=20)
    window.wizard.load_config(config, session="esrp")
    window.wizard.restart_at(PAGE_TYPE)
    choose(qtbot, window.wizard.test_type.esrp)
    window.wizard.test_type.lengths["performance"].combo.setCurrentText("1h")
    window.wizard.test_type.lengths["stress"].combo.setCurrentText("2h")
    window.wizard.restart_at(PAGE_REVIEW)
    finish = window.wizard.button(window.wizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
        qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    problems = out_of_reach(window, "The run view")
    wait_for_results(qtbot, window)

    results = window.results_view
    problems += out_of_reach(window, "The ESRP suite's results")
    for number, name in enumerate(("Performance", "Stress", "Database checksum", "Database backup", "Soft recovery")):
        results.suite_table.table.cellDoubleClicked.emit(number, 0)
        problems += out_of_reach(window, f"The suite's {name} test's results")
        qtbot.mouseClick(results.back, Qt.MouseButton.LeftButton)

    problems += _across_out_of_reach(window, results.suite.results[0])
    slow = known_result(tmp_path / "slow", slow=True)  # failed: the advisor's box with Apply
    results.show_result(slow, advise_session(slow.configuration, [slow], device=slow.device))
    window.stack.setCurrentWidget(results)
    problems += out_of_reach(window, "A run that failed, with the advisor's next setting")
    swept = simulated_sweep(tmp_path / "sweep")  # auto-tune's load sweep: its steps' table under the criteria
    results.show_result(swept.result, swept.tuner.advice)
    problems += out_of_reach(window, "Auto-tune's load sweep")

    window.show_session()
    problems += out_of_reach(window, "The tuning session view")
    view = window.session_view
    view.table.selectRow(0)
    view.table.selectionModel().select(view.table.model().index(1, 0), view.table.selectionModel().SelectionFlag.Select
                                       | view.table.selectionModel().SelectionFlag.Rows)
    assert view.compare.isEnabled()
    qtbot.mouseClick(view.compare, Qt.MouseButton.LeftButton)
    compare = next(d for d in window.findChildren(QDialog) if d.isVisible())
    problems += _dialog_out_of_reach(compare, "Compare…")
    compare.close()

    window.new_test()  # the wizard again, after the suite's views were shown: as small as before
    assert window.wizard.currentId() == PAGE_PROFILE
    problems += _walk_wizard(qtbot, window, "After an ESRP suite")
    assert not problems, "\n".join(problems)


def test_a_choice_whose_words_wrap_is_chosen_by_a_click_on_its_words_and_as_tall_as_they_are(qtbot, window, tmp_path):
    window.wizard.load_config(small_config(tmp_path / "data" / "dbs"), session="small")
    window.wizard.restart_at(PAGE_TYPE)
    esrp = window.wizard.test_type.esrp
    window.resize(SCREEN)
    QApplication.processEvents()
    lines = esrp.words.fontMetrics().height()
    assert esrp.height() >= 2 * lines and esrp.width() < esrp.words.fontMetrics().horizontalAdvance(esrp.text())  # wrapped
    qtbot.mouseClick(esrp, Qt.MouseButton.LeftButton, pos=QPoint(esrp.width() // 3, esrp.height() - lines // 2))
    assert esrp.isChecked() and window.suite.chosen


def test_content_with_wrapped_words_scrolls_only_when_its_minimum_does_not_fit(qtbot):
    """A scroll area gives content whose words wrap its preferred height (a table as tall as all its rows): it scrolls
    although it would fit. Scrolled content is as tall as the area, and scrolls below its minimum."""
    content = ScrollContent()
    layout = QVBoxLayout(content)
    words = QLabel("A long line of words that wraps at the width of a small window. " * 4)
    words.setWordWrap(True)
    layout.addWidget(words)
    layout.addWidget(QTableWidget(40, 3), 1)  # prefers its 40 rows, needs a few
    area = scrolled(content)
    qtbot.addWidget(area)
    area.resize(400, 220)
    area.show()
    QApplication.processEvents()
    assert content.height() == area.viewport().height() and area.verticalScrollBar().maximum() == 0
    area.resize(400, 90)
    QApplication.processEvents()
    assert content.height() > area.viewport().height() and area.verticalScrollBar().maximum() > 0


def test_the_first_window_is_no_larger_than_the_screen_it_opens_on(qtbot, qapp, tmp_path, monkeypatch, store):
    """1100×780 where there is room; a 1024×768 Remote Desktop session's screen (less its taskbar) where there is not."""
    monkeypatch.setattr(QScreen, "availableGeometry", lambda _screen: QRect(0, 0, 1024, 728))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    qapp.setOrganizationName("JetwiseTests")
    main = MainWindow(store, runs_root=tmp_path / "runs", data_base=tmp_path / "data")  # no geometry saved
    qtbot.addWidget(main)
    assert main.size() == QSize(1024, 728)


def test_a_question_listing_many_folders_fits_and_lists_them_all_under_its_details(qtbot):
    """Delete test files… of a test on 60 database folders: the question fits the screen, its answers in reach, and
    Show Details… lists every folder."""
    parent = QWidget()
    qtbot.addWidget(parent)
    folders = "\n".join(f"  D:\\Exchange\\DB{n:02}" for n in range(60))
    text = (f"Delete 120 Jetwise test file(s), 1.2 TB, from:\n{folders}\n\nOnly files with a Jetwise header are "
            "deleted; the next test creates its databases again.")
    found: list[str] = []

    def look(box: QMessageBox) -> None:
        found.extend(_dialog_out_of_reach(box, "Delete test files…"))
        found.append(box.detailedText())
        next(b for b in box.buttons() if b.text() == "Keep them").click()

    seen = _answer(qtbot, look)
    assert confirm.ask(parent, "Delete test files?", text, yes="Delete them", no="Keep them") is False
    assert seen == ["Keep them"] and found == [text]  # nothing out of reach; every folder in the details
