"""A test across servers from the window is a run: the Servers page chooses two enrolled servers (the configuration's
servers), Start runs it through the engine process as any run, the run view shows their sum with its running verdict
and each server's line against its own share, and the results view shows the run with its servers table (each
server's share, the paper's aggregate beside the exact figure); it is kept in the tuning session and reopened from it.
Auto-tune across them is the session's tuner on the configuration with servers. While Start waits for the agents,
Review shows who connected and the time left, and Cancel ends the wait at once; an agent that never connects is said
beside Start, which tries again."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialogButtonBox, QWizard

from engine.hosts.keys import KeyStore
from engine.hosts.roster import Roster
from engine.model.validation import HOSTS_FIELD
from engine.results.document import RESULT_FILE, read_result
from engine.results.schema import Outcome, RunKind
from engine.store.paths import hosts_folder
from engine.store.sqlite import Store
from tests.conftest import small_config
from tests.hosts.agents import enrolled, free_port, start_agent, stop_all
from tests.hosts.conftest import keys  # noqa: F401 — the fixture that removes the test's keys afterwards
from tests.ui.scan_runs import choose, wait_for_results
from ui.wizard import PAGE_REVIEW, PAGE_SERVERS, PAGE_TYPE

pytestmark = pytest.mark.slow  # two agents in their own processes and the engine process, over mutual TLS
HOSTS = ["127.0.0.2", "127.0.0.3"]
ENGINE_TIMEOUT_MS = 180_000
HOSTS_FOLDER = "hosts"  # each server's run folder, copied into the run's


@pytest.fixture
def keys_here(tmp_path, monkeypatch, keys):  # noqa: F811
    """The window's data folder under the test's folder, so the keys it makes are removed after it."""
    monkeypatch.setenv("JETWISE_DATA_DIR", str(tmp_path / "controller"))
    return keys


@pytest.fixture
def store(keys_here):
    """The run store in the window's data folder, where the engine processes it starts record their runs too."""
    opened = Store()
    yield opened
    QThreadPool.globalInstance().waitForDone(10_000)
    opened.close()


def _choose(qtbot, window, config, hosts: list[str], *, auto: bool = False, keep: bool = False) -> None:
    """`hosts` chosen on the Servers page, then on to Review; `keep` keeps what the wizard holds (else `config` loaded
    and the thread setting typed, or auto-tuned)."""
    wizard = window.wizard
    if not keep:
        wizard.load_config(config, session="across")
        (wizard.tuning.auto if auto else wizard.tuning.manual).setChecked(True)
    wizard.restart_at(PAGE_SERVERS)
    page = wizard.servers
    page.across.setChecked(True)
    for row in range(page.list.count()):
        item = page.list.item(row)
        item.setCheckState(Qt.CheckState.Checked if item.text() in hosts else Qt.CheckState.Unchecked)
    assert page.selected() == hosts and page.isComplete()
    while wizard.currentId() != PAGE_REVIEW:
        wizard.next()


def _agents(window, tmp_path, *, once: bool) -> dict:
    """The servers enrolled with the window's controller and their agents started; their part runs on the simulated
    device (no folder shared by two)."""
    port = free_port()
    roster = Roster(hosts_folder(), KeyStore())
    datas = {host: enrolled(roster, tmp_path, host, f"tls://127.0.0.1:{port}") for host in HOSTS}
    window.runs.across_port, window.runs.simulate = port, "sas-8x10k"
    return {host: start_agent(datas[host], host, once=once) for host in HOSTS}


def _start(qtbot, window) -> None:
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)


def _results(qtbot, window):
    """The results view once the run ended, and the run shown."""
    view = window.results_view
    qtbot.waitUntil(lambda: window.stack.currentWidget() is view and not window.runs.running, timeout=ENGINE_TIMEOUT_MS)
    assert view.result is not None
    return view, view.result


def test_a_test_across_two_servers_from_the_window_twice(qtbot, window, tmp_path, keys_here, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    agents = _agents(window, tmp_path, once=False)
    config = small_config(tmp_path / "dbs", sample_interval_s=1.0, warmup_s=1.0, duration_s=5.0)
    runs: list[str] = []
    try:
        for attempt in (1, 2):
            _choose(qtbot, window, config, HOSTS)
            with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
                _start(qtbot, window)
            assert window.stack.currentWidget() is window.run_view
            view, result = _results(qtbot, window)
            folder = window.runs.last_output
            assert folder is not None and (folder / RESULT_FILE).is_file() and read_result(folder) == result
            assert [share.host for share in result.servers] == HOSTS and result.configuration.server_names == HOSTS
            assert all(share.summary is not None and share.summary.verdict in (Outcome.PASS, Outcome.FAIL)
                       for share in result.servers)
            assert all((folder / HOSTS_FOLDER / host / RESULT_FILE).is_file() for host in HOSTS)
            table = view.servers.table
            assert not view.servers.isHidden() and table.rowCount() == 4  # two servers, the paper's, the exact
            assert [table.item(row, 0).text() for row in range(4)] == [*HOSTS, "All servers (ESRP paper)",
                                                                        "All servers (exact)"]
            assert table.item(3, 1).text() == result.summary.verdict.value.upper()
            assert float(table.item(3, 3).text().replace(",", "")) == pytest.approx(
                result.summary.achieved_transactional_iops, abs=0.05)
            assert result.summary.verdict.value.upper() in view.verdict.text()
            plots = window.run_view.plots
            assert plots.iops.n >= 6  # every interval of the servers together, warm-up and measured
            assert list(plots.server_rates) == HOSTS and all(plots.server_rates[host].n >= 1 for host in HOSTS)
            # each server's line is its own instances' IOPS, and together they make every instance's
            last = [plots.server_rates[host].view()[1][-1] for host in HOSTS]
            every = sum(series.view()[1][-1] for series in plots.instance_iops.values())
            assert sum(last) == pytest.approx(every, rel=1e-6) and min(last) > 0 and len(plots.instance_iops) == 4
            running = window.run_view.criteria["iops"].text()  # the running verdict read every server's instances
            assert not window.run_view.criteria_box.isHidden() and " 0.00 " not in running and "IOPS" in running
            qtbot.mouseClick(view.run_buttons[0], Qt.MouseButton.LeftButton)  # Open report: the run's, with its servers
            report = opened[-1]
            assert "Individual Server Metrics" in open(report, encoding="utf-8").read()
            assert len(list(folder.parent.glob("*"))) == attempt  # a folder of its own each time
            runs.append(result.run_id)
            window.new_test()
            assert window.stack.currentWidget() is window.wizard
        # both are runs of the tuning session, and reopen from it with their servers
        assert all(window.store.result(run) is not None and window.store.result(run).servers for run in runs)
        assert len({window.store.run(run).session for run in runs}) == 1
        window.show_session()
        assert window.stack.currentWidget() is window.session_view
        assert {run.run_id for run in window.session_view.runs} >= set(runs)
        window.session_view.report_requested.emit(runs[0])
        assert "Individual Server Metrics" in open(opened[-1], encoding="utf-8").read()
    finally:
        stop_all(list(agents.values()))


def test_auto_tune_across_two_servers_steps_them_together_and_ends_on_the_last_test_with_the_setting(
        qtbot, window, tmp_path, keys_here):
    agents = _agents(window, tmp_path, once=False)
    config = small_config(tmp_path / "dbs", sample_interval_s=1.0, warmup_s=1.0, duration_s=5.0)
    try:
        _choose(qtbot, window, config, HOSTS, auto=True)
        window.state.calibration_s = 20.0  # short confirmations
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            _start(qtbot, window)
        view, last = _results(qtbot, window)
        assert window.runs.tuner is None and any("load sweep" in line for line in window.runs.tuning_log)
        kept = sorted(window.store.results(window.store.run(last.run_id).session), key=lambda result: result.run_id)
        assert len(kept) >= 2 and all(result.servers for result in kept)  # each run across both, kept in the session
        sweep = kept[0].sweep
        assert sweep is not None and len(sweep.steps) >= 2  # every server stepped together, the source leading
        for step in sweep.steps:  # each step measured on their counters together: each server's share of it
            assert step.transactional_iops > 0
        assert last.run_id == kept[-1].run_id and last.servers and not view.servers.isHidden()
        assert last.summary.run_kind == RunKind.TUNING and "tuning run" in view.verdict.text()
        confirmation = last.configuration
        assert confirmation.server_names == HOSTS and last.sweep is None
        # a confirmation across servers lasts its fixed length: every measured sample is judged, none settled away
        assert last.summary.measured_s == pytest.approx(confirmation.duration_s, abs=confirmation.sample_interval_s)
        window.new_test()  # and the next test is the engineer's again
        _choose(qtbot, window, config, HOSTS)
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            _start(qtbot, window)
        qtbot.waitUntil(lambda: window.results_view.result is not last and not window.runs.running,
                        timeout=ENGINE_TIMEOUT_MS)
        again = window.results_view.result
        assert again is not None and again.sweep is None and again.configuration.duration_s == config.duration_s
    finally:
        stop_all(list(agents.values()))


def test_a_server_with_folders_of_its_own_runs_in_them_and_the_others_in_this_server_s(qtbot, window, tmp_path,
                                                                                        keys_here):
    agents = _agents(window, tmp_path, once=True)
    config = small_config(tmp_path / "dbs", sample_interval_s=1.0, warmup_s=1.0, duration_s=3.0)
    try:
        wizard = window.wizard
        _choose(qtbot, window, config, HOSTS)
        wizard.restart_at(PAGE_SERVERS)
        page = wizard.servers
        page.list.setCurrentRow(1)  # the second server's disks are lettered otherwise
        qtbot.mouseClick(page.folders_button, Qt.MouseButton.LeftButton)
        dialog = page.folders_dialog
        assert dialog is not None and dialog.table.rowCount() == config.database_count
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        dialog.table.item(0, 0).setText("")  # said at the row, and OK waits
        assert not ok.isEnabled() and dialog.message.text().startswith("Row 1: enter a folder")
        own = tmp_path / "other-disks"
        for row in range(dialog.table.rowCount()):
            dialog.table.item(row, 0).setText(str(own / f"DB{row + 1}"))
            dialog.table.item(row, 1).setText(str(own / f"Log{row + 1}"))
        assert ok.isEnabled(), dialog.message.text()
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
        assert HOSTS[1] in page.own_words.text() and HOSTS[0] not in page.own_words.text()
        parts = page.parts()  # the configuration's servers, the second with its own folders
        assert [part.host for part in parts] == HOSTS and parts[0].databases == []
        assert [spec.database_path for spec in parts[1].databases] == [own / f"DB{n + 1}" for n in range(2)]
        while wizard.currentId() != PAGE_REVIEW:
            wizard.next()
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            _start(qtbot, window)
        _view, result = _results(qtbot, window)
        folder = window.runs.last_output
        assert folder is not None and result.configuration.servers == parts  # the file the engine ran names them
        ran = {host: read_result(folder / HOSTS_FOLDER / host).configuration for host in HOSTS}
        assert [spec.database_path for spec in ran[HOSTS[0]].databases] == [s.database_path for s in config.databases]
        assert [spec.database_path for spec in ran[HOSTS[1]].databases] == [own / f"DB{n + 1}" for n in range(2)]
        assert [spec.log_path for spec in ran[HOSTS[1]].databases] == [own / f"Log{n + 1}" for n in range(2)]
    finally:
        stop_all(list(agents.values()))


def test_agents_that_do_not_connect_are_said_on_review_and_start_tries_again(qtbot, window, tmp_path, keys_here):
    roster = Roster(hosts_folder(), KeyStore())
    for host in HOSTS:
        roster.add(host, "tls://127.0.0.1:1", tmp_path)  # enrolled; no agent will run
    window.runs.across_port, window.runs.across_wait_s = free_port(), 2.0
    config = small_config(tmp_path / "dbs", sample_interval_s=1.0, warmup_s=1.0, duration_s=5.0)
    _choose(qtbot, window, config, HOSTS[:1])
    _start(qtbot, window)
    review = window.wizard.review
    said = f"No agent connected for {HOSTS[0]} within 2 s"
    qtbot.waitUntil(lambda: said in review.status.text(), timeout=ENGINE_TIMEOUT_MS)  # beside Start, where it was pressed
    assert "Servers (Servers page)" in review.text.toPlainText() and review.wait_words.isHidden()
    assert not window.runs.running and not list((tmp_path / "runs").rglob(RESULT_FILE))
    qtbot.waitUntil(review.isComplete, timeout=5000)  # a warning: the agent may run by the next Start
    _start(qtbot, window)  # Start again: what was said of the last try is past while this one waits
    assert said not in review.status.text() and not window.state.refusal
    qtbot.waitUntil(lambda: said in review.status.text(), timeout=ENGINE_TIMEOUT_MS)
    window.wizard.restart_at(PAGE_SERVERS)
    window.wizard.servers.across.setChecked(False)  # this server alone after all: what was said of the servers is past
    assert HOSTS_FIELD not in [problem.field for problem in review.review_problems()]
    assert os.environ["JETWISE_DATA_DIR"].endswith("controller")


def test_the_wait_for_the_agents_shows_who_connected_and_the_time_left_and_cancel_ends_it(qtbot, window, tmp_path,
                                                                                          keys_here):
    port = free_port()
    roster = Roster(hosts_folder(), KeyStore())
    data = enrolled(roster, tmp_path, HOSTS[0], f"tls://127.0.0.1:{port}")
    roster.add(HOSTS[1], f"tls://127.0.0.1:{port}", tmp_path)  # enrolled; its agent never runs
    window.runs.across_port, window.runs.across_wait_s, window.runs.simulate = port, 600.0, "sas-8x10k"
    agent = start_agent(data, HOSTS[0], once=False)
    config = small_config(tmp_path / "dbs", sample_interval_s=1.0, warmup_s=1.0, duration_s=5.0)
    try:
        _choose(qtbot, window, config, HOSTS)
        _start(qtbot, window)
        review = window.wizard.review
        assert review.wait_words.isVisible() and review.cancel.isVisible()
        assert f"waiting for {HOSTS[0]}, {HOSTS[1]}" in review.wait_words.text() and "10m left" in review.wait_words.text()
        qtbot.waitUntil(lambda: f"{HOSTS[0]} connected; waiting for {HOSTS[1]}" in review.wait_words.text(),
                        timeout=60_000)
        assert "left" in review.wait_words.text() and window.state.starting
        assert "once all their agents have connected" in review.status.text()
        qtbot.mouseClick(review.cancel, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not window.runs.running, timeout=5000)  # at once, not after the wait's 10 minutes
        assert review.wait_words.isHidden() and review.cancel.isHidden() and not window.state.starting
        assert window.wizard.currentId() == PAGE_REVIEW and not window.state.refusal
        assert not [p for p in (tmp_path / "runs").rglob("*") if p.is_file()]  # nothing began, nothing is left
        qtbot.waitUntil(review.isComplete, timeout=10_000)  # ready to Start again
    finally:
        stop_all([agent])


def test_the_esrp_qualification_across_two_servers_from_the_window_stopped_resumed_and_shown(
        qtbot, window, tmp_path, keys_here, monkeypatch):
    """Chosen on the Test type page with the servers on the Servers page: each of its five tests runs across both, the
    run view showing their sum. Stopped, it keeps what ran; Resume runs on with the same servers. The suite's verdicts
    show with each test's figures across the servers, a test opens as a run with its servers' table and leads back,
    and the combined report has each server's."""
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    agents = _agents(window, tmp_path, once=False)
    config = small_config(tmp_path / "dbs", sample_interval_s=1.0, warmup_s=1.0, duration_s=5.0, log_files_to_replay=20)
    wizard = window.wizard
    try:
        wizard.load_config(config, session="esrp-across")
        wizard.restart_at(PAGE_TYPE)
        choose(qtbot, wizard.test_type.esrp)
        for kind in ("performance", "stress"):
            wizard.test_type.lengths[kind].combo.setCurrentText("20s")
        assert (window.suite.performance_s, window.suite.stress_s) == (20, 20)
        _choose(qtbot, window, config, HOSTS, keep=True)
        titles: list[str] = []
        begin = window.run_view.begin
        window.run_view.begin = lambda *a, **k: (titles.append(a[1]), begin(*a, **k))[1]  # every test's title
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            _start(qtbot, window)
        # stopped as the first test begins: each test waits a second for its one start instant, and a simulated test
        # then plays in virtual time, so a later Stop may come after the last
        qtbot.mouseClick(window.run_view.stop, Qt.MouseButton.LeftButton)
        wait_for_results(qtbot, window)
        results = window.results_view
        stopped = results.suite
        assert stopped is not None and not stopped.record.finished and stopped.record.hosts == HOSTS
        # stopped in the test it was in, or (the simulated device being quick) before the next: what ran is kept
        outcomes = [stage.outcome for stage in stopped.record.stages]
        ran = [outcome for outcome in outcomes if outcome is not None]
        assert ran and outcomes[:len(ran)] == ran and set(outcomes[len(ran):]) == {None}
        assert all(outcome in (Outcome.PASS, Outcome.FAIL) for outcome in ran[:-1])
        assert sorted(stopped.results) == list(range(len(ran))) and all(r.servers for r in stopped.results.values())
        assert results.suite_table.resume.isVisibleTo(results)
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            qtbot.mouseClick(results.suite_table.resume, Qt.MouseButton.LeftButton)
        wait_for_results(qtbot, window)
        summary = results.suite
        assert summary is not None and summary.folder == stopped.folder and summary.record.finished
        assert summary.record.hosts == HOSTS and sorted(summary.results) == [0, 1, 2, 3, 4]
        assert summary.folder.name.endswith("-esrp-across-2")
        names = ("Performance", "Stress", "Database checksum", "Database backup", "Soft recovery")
        shown = {title.split(":")[0] for title in titles if title.split(" test across")[0] in names}
        assert shown == {f"{name} test across 2 servers ({', '.join(HOSTS)})" for name in names}
        assert all([share.host for share in test.servers] == HOSTS for test in summary.results.values())
        for stage in summary.record.stages:  # each server's run folder under each test's
            assert stage.outcome in (Outcome.PASS, Outcome.FAIL)
            assert all((summary.folder / stage.folder / HOSTS_FOLDER / host / "result.json").is_file() for host in HOSTS)
        table = results.suite_table.table
        cells = [[table.item(row, column).text() for column in (1, 2)] for row in range(5)]
        assert [verdict for verdict, _figure in cells] == [stage.outcome.value.upper() for stage in summary.record.stages]
        assert cells[0][1].startswith("2 servers: ") and "transactional IOPS" in cells[0][1]
        assert cells[2][1].startswith("2 servers: ") and "pages read" in cells[2][1]
        table.cellDoubleClicked.emit(1, 0)  # the Stress test: the results view with each server's share
        servers = results.servers
        assert window.stack.currentWidget() is results and results.result is summary.results[1]
        assert servers.table.rowCount() == 4 and not results.back.isHidden()
        assert window.runs.last_output == summary.folder / summary.record.stages[1].folder
        assert servers.table.horizontalHeaderItem(3).text() == "Achieved\nIOPS"
        qtbot.mouseClick(results.back, Qt.MouseButton.LeftButton)
        assert results.suite_table.isVisibleTo(results)
        table.cellDoubleClicked.emit(2, 0)  # the checksum: no transactional load, but what each server read
        assert servers.table.horizontalHeaderItem(3).text() == "Pages read" and servers.table.rowCount() == 3
        assert [servers.table.item(row, 0).text() for row in range(3)] == [*HOSTS, "All servers"]
        pages = [int(servers.table.item(row, 3).text().replace(",", "")) for row in range(3)]
        assert pages[0] > 0 and pages[2] == pages[0] + pages[1]  # each server's own databases, summed
        qtbot.mouseClick(results.back, Qt.MouseButton.LeftButton)
        table.cellDoubleClicked.emit(4, 0)  # the Soft Recovery: the log files each replayed
        assert servers.table.horizontalHeaderItem(3).text() == "Log files\nreplayed" and servers.table.rowCount() == 2
        qtbot.mouseClick(results.back, Qt.MouseButton.LeftButton)
        qtbot.mouseClick(results.suite_table.report, Qt.MouseButton.LeftButton)
        report = summary.folder / "esrp-report.html"
        assert opened[-1] == str(report) and "Individual Server Metrics" in report.read_text(encoding="utf-8")
    finally:
        stop_all(list(agents.values()))


def test_after_a_test_across_servers_the_advisor_reads_the_session_and_apply_runs_the_next_across_them(
        qtbot, window, tmp_path, keys_here):
    agents = _agents(window, tmp_path, once=False)
    # one thread for a target more than one thread carries on the simulated array: the advisor asks for more
    config = small_config(tmp_path / "dbs", databases=1, sample_interval_s=1.0, warmup_s=1.0, duration_s=30.0,
                          thread_count=1, profile={"mailboxes": 2000, "iops_per_mailbox": 0.1, "mailbox_size_mb": 1})
    try:
        _choose(qtbot, window, config, HOSTS)
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            _start(qtbot, window)
        view, first = _results(qtbot, window)
        assert first.servers and not view.advice_box.isHidden()
        advice = view.suggestion
        assert advice is not None and advice.status == "next" and view.apply.isEnabled()
        with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
            qtbot.mouseClick(view.apply, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.stack.currentWidget() is view and view.result is not first
                        and not window.runs.running, timeout=ENGINE_TIMEOUT_MS)
        second = view.result
        assert second is not None and second.configuration.server_names == HOSTS
        assert (second.configuration.thread_count, second.configuration.sluggish_sessions) == (
            advice.threads, advice.sluggish_sessions)  # every server at the setting applied
        for host in HOSTS:
            ran = read_result(window.runs.last_output / HOSTS_FOLDER / host).configuration
            assert (ran.thread_count, ran.sluggish_sessions) == (advice.threads, advice.sluggish_sessions)
        ids = {result.run_id for result in window.store.results(window.store.run(second.run_id).session)}
        assert {first.run_id, second.run_id} <= ids  # the advisor reads both from the session
    finally:
        stop_all(list(agents.values()))
