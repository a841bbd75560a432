"""The results page of a run that stopped on a bad checksum before one sample interval was measured: nothing
judged on what it did not measure, counts as whole numbers, and the storage's errors said first. The full-length
test offered at a setting that passed: a passing tuning run's own, or the session's when this run did not qualify."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from engine.io.pages import ErrorKind
from engine.model.config import TestConfig
from engine.results.schema import Outcome, RunKind, RunResult
from engine.tuning.advisor import Advice, advise_session
from engine.tuning.why import FirstRun
from engine.workload.errors import IoProblem
from engine.workload.stats import DB_READ
from tests.engine.test_report import _tally, known_result
from ui.views.results_view import ResultsView
from ui.wizard import PAGE_REVIEW


def test_a_run_stopped_by_a_bad_checksum_at_once_is_judged_on_its_errors_alone(qtbot, tmp_path):
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, "/data/DB1/Jetwise001.jwdb", "page", 200, 200 * 32768)
    result = known_result(tmp_path, errors={"Instance 1": _tally((page, 1))}, measured_s=0.1, stopped=True)
    passed = known_result(tmp_path / "passed")
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(result, advise_session(result.configuration, [passed, result], device=result.device))

    assert view.headline.text().startswith(
        "Nothing measured: 0.1 s of measurement, less than one 1 s sample interval, so IOPS and latency were not judged")
    assert "Achieved" not in view.headline.text()
    rows = {(view.table.item(r, 0).text(), view.table.item(r, 1).text()): [view.table.item(r, c).text() for c in (2, 3, 4)]
            for r in range(view.table.rowCount())}
    assert rows[("Achieved transactional IOPS", "Server")] == ["not measured", "≥ 760.0 IOPS (target 800 − 5 %)",
                                                               "Not measured"]
    assert rows[("Average database read latency", "each instance")] == ["not measured", "≤ 20.00 ms", "Not measured"]
    assert rows[("I/O errors", "Server")] == ["1", "≤ 0", "Fail"]  # a count, whole
    assert rows[("Bad checksums (ESE -1018)", "Instance 1")] == ["1", "≤ 0", "Fail"]
    assert [cells[2] for cells in rows.values()].count("Pass") == 0
    outcomes = [view.table.item(r, 4).text() for r in range(view.table.rowCount())]
    failed = outcomes.count("Fail")
    assert failed == 2 and outcomes[:failed] == ["Fail"] * failed  # what failed, first ...
    from ui.widgets.criteria_table import FAILED_ROW
    assert all(view.table.item(r, 0).background().color() == FAILED_ROW for r in range(failed))  # ... and shaded
    assert view.table.item(failed, 0).background().color() != FAILED_ROW

    text = view.advice.text()
    assert text.startswith("<b>The storage returned corrupt data: 1 bad checksum (ESE -1018 JET_errReadVerifyFailure) "
                           "on Instance 1, the first at page 200 of /data/DB1/Jetwise001.jwdb")
    assert "passes" not in text and "full-length" not in text and not view.apply.isEnabled()
    lines = text.split("<br>")
    assert len(lines) == len(set(lines))


def _as(result: RunResult, **summary: object) -> RunResult:
    return result.model_copy(update={"summary": result.summary.model_copy(update=summary)})


def _session(tmp_path):
    """A tuning session in which 26 threads at SluggishSessions 1 passed, then a run at 30 threads was stopped."""
    passed = _as(known_result(tmp_path / "passed"), run_kind=RunKind.TUNING)
    stopped = _as(known_result(tmp_path / "stopped"), run_kind=RunKind.TUNING, verdict=Outcome.ABORTED, threads=30)
    return passed, stopped


def test_a_tuning_run_that_passed_offers_the_full_length_test_at_its_own_setting(qtbot, tmp_path):
    passed, _ = _session(tmp_path)
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(passed, advise_session(passed.configuration, [passed], device=passed.device))

    assert view.full_length.isVisibleTo(view) and view.full_length_setting == (26, 1)
    assert view.full_length.text() == "Run the full-length test with this setting (26 threads, SluggishSessions 1)"


def test_a_stopped_run_of_a_session_with_a_passing_setting_offers_the_full_length_test_at_that_setting(qtbot, tmp_path):
    passed, stopped = _session(tmp_path)
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(stopped, advise_session(stopped.configuration, [passed, stopped], device=stopped.device))

    assert view.advice.text().startswith("<b>A setting of this session passes: 26 threads, SluggishSessions 1.</b>")
    assert view.full_length.isVisibleTo(view) and view.full_length_setting == (26, 1)
    assert view.full_length.text() == "Run the full-length test with the passing setting (26 threads, SluggishSessions 1)"

    # the same run shown again in a session where nothing passed: no setting to qualify, no button
    view.show_result(stopped, advise_session(stopped.configuration, [stopped], device=stopped.device))
    assert not view.full_length.isVisibleTo(view) and view.full_length_setting is None


def test_a_qualification_run_that_passed_offers_no_full_length_test(qtbot, tmp_path):
    qualified = known_result(tmp_path)
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(qualified, advise_session(qualified.configuration, [qualified], device=qualified.device))

    assert view.advice.text().startswith("<b>This qualification run passed at 26 threads")
    assert not view.full_length.isVisibleTo(view) and view.full_length_setting is None


def test_the_full_length_button_starts_the_standard_length_run_at_the_passing_setting(qtbot, window, tmp_path,
                                                                                      monkeypatch):
    passed, stopped = _session(tmp_path)
    window.runs.config = stopped.configuration.model_copy(update={"thread_count": 30})
    started: list[TestConfig] = []
    monkeypatch.setattr(window.runs, "start_run", started.append)
    window.results_view.show_result(stopped, advise_session(stopped.configuration, [passed, stopped], device=stopped.device))
    window.stack.setCurrentWidget(window.results_view)

    qtbot.mouseClick(window.results_view.full_length, Qt.MouseButton.LeftButton)
    assert not started  # the Review page first: what it says is what Start runs
    assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_REVIEW
    window.start_from_wizard()

    [config] = started
    assert (config.thread_count, config.sluggish_sessions) == (26, 1)
    assert config.duration_s == stopped.configuration.standard_duration_s == 2 * 3600


def test_a_run_the_cache_served_alone_offers_no_run_again_at_the_same_setting_but_what_to_change(qtbot, tmp_path):
    served = _as(known_result(tmp_path), run_kind=RunKind.TUNING, verdict=Outcome.FAIL, db_reads_per_s=0.0,
                 db_read_avg_latency_ms=0.0, reasons=["Instance 1: no database reads completed in the measured window; "
                                                      "the database cache holds the whole database, so test a database "
                                                      "larger than the cache"])
    start = Advice(status="start", threads=26, sluggish_sessions=1, predicted_iops=None, predicted_read_ms=None,
                   predicted_log_ms=None, why=FirstRun(load=(26, 1)))
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(served, start)
    assert view.advice.text().startswith("<b>This run made no database reads: the database cache held the whole database.")
    assert "Mailbox size" in view.advice.text() and "Maximum database cache" in view.advice.text()
    assert not view.apply.isEnabled()  # the same setting again would measure the cache again

    view.show_result(served, replace(start, threads=30))  # a setting other than this run's: worth running
    assert view.advice.text().startswith("<b>Nothing in this session steers the advisor yet") and view.apply.isEnabled()

    view.show_result(served, replace(start, threads=1))
    assert view.advice.text().startswith("<b>Nothing in this session steers the advisor yet; it would start at 1 thread, "
                                         "SluggishSessions 1.")
    # a run that read a little, its page references 99.98 % cache hits: judged FAIL, and the same words of what to change
    hits = _as(known_result(tmp_path / "hits", cache_hits=29_168 * 4_999), run_kind=RunKind.TUNING)
    view.show_result(hits, start)
    assert view.advice.text().startswith("<b>This run was 99.98 % cache hits: the database cache held the database")
    assert "Mailbox size" in view.advice.text() and not view.apply.isEnabled()
    assert "99.98 % of the measured database page references were cache hits" in view.reasons.text()


def test_a_design_the_cache_serves_is_said_not_a_storage_test_with_what_to_change_and_nothing_to_run(qtbot, tmp_path):
    # 1,000 MB databases under the default cache: 1.5 GB an instance holds each whole, though the 100 s measured were
    # 70 % cache hits, under the 99 % the measured guard judges
    held = _as(known_result(tmp_path, database_size_mb=1000.0), run_kind=RunKind.TUNING)
    assert held.verdict == Outcome.FAIL
    assert held.summary.reasons[-1].startswith("The database cache (1.5 GB per instance) holds the whole database")
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(held, advise_session(held.configuration, [held], device=held.device))
    assert "<b>Not a test of the storage:</b> by design the database cache served this test's reads" in view.reasons.text()
    assert "This was a tuning run" not in view.reasons.text()  # no full-length test would qualify it either
    assert view.advice.text().startswith("<b>Not a test of the storage: the database cache serves its reads.</b>")
    assert "at least 2.9 GB" in view.advice.text() and "Maximum database cache" in view.advice.text()
    assert not view.apply.isEnabled() and not view.full_length.isVisibleTo(view)


def test_a_failed_maximum_says_when_its_spike_came_under_the_reasons(qtbot, tmp_path):
    spike = ("Database reads took longer than the Strict maximum of 100 ms in 1 of the 120 measured one-second samples, "
             "at 10:01:14 UTC, 74 s into the measurement; 109.3 ms at most")
    failed = _as(known_result(tmp_path), verdict=Outcome.FAIL, latency_spikes=[spike],
                 reasons=["Instance 1: maximum database read latency 109 ms > 100 ms (Strict)"])
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(failed, advise_session(failed.configuration, [failed], device=failed.device))
    shown = view.reasons.text()
    assert shown.index("maximum database read latency 109 ms") < shown.index(f"<b>When:</b> {spike}.")


def test_a_database_in_the_cache_is_the_headline_not_the_host_its_threads_saturated(qtbot, tmp_path):
    from reporting.bundle import RunBundle
    from reporting.document import render_html
    from tests.engine.test_report import _samples

    cached = _as(known_result(tmp_path), host_bound=True, db_reads_per_s=0.0, db_read_avg_latency_ms=0.0,
                 verdict=Outcome.FAIL)
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(cached, advise_session(cached.configuration, [cached], device=cached.device))
    assert "Host-bound" not in view.reasons.text()
    assert "the database cache held the database" in view.advice.text()
    assert "HOST-BOUND" not in render_html(RunBundle(cached, _samples(), [], tmp_path))
    bound = _as(known_result(tmp_path / "bound"), host_bound=True)
    view.show_result(bound, None)
    assert "Host-bound" in view.reasons.text()  # reads reached the disk: the host is the news


def test_a_run_across_servers_shows_each_server_s_share_and_the_paper_s_aggregate_beside_the_exact_figure(qtbot, tmp_path):
    from engine.model.profile import ServerPart
    from engine.results.schema import ServerResult

    measured = known_result(tmp_path)
    slow = measured.summary.model_copy(update={"db_read_avg_latency_ms": 18.0, "target_transactional_iops": 1.9,
                                               "verdict": Outcome.FAIL})
    fast = measured.summary.model_copy(update={"db_read_avg_latency_ms": 2.0, "target_transactional_iops": 1.9})
    config = measured.configuration.model_copy(update={"servers": [ServerPart(host="mbx1"), ServerPart(host="mbx2"),
                                                                   ServerPart(host="mbx3")]})
    result = measured.model_copy(update={"configuration": config, "servers": [
        ServerResult(host="mbx1", summary=slow), ServerResult(host="mbx2", summary=fast),
        ServerResult(host="mbx3", ended="lost: no heartbeat for 30 s")]})
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(result, None)
    table = view.servers.table
    assert not view.servers.isHidden() and table.rowCount() == 5
    rows = [[table.item(row, column).text() for column in range(table.columnCount())] for row in range(5)]
    assert rows[0][:3] == ["mbx1", "FAIL", "1.9"] and rows[1][:3] == ["mbx2", "PASS", "1.9"]  # a small target to the tenth
    assert rows[2][:3] == ["mbx3", "NONE", "nothing measured: lost: no heartbeat for 30 s"]
    # the paper's aggregate: the latency averaged across the servers measured; the exact one is the run's own
    assert rows[3][0] == "All servers (ESRP paper)" and rows[3][7] == "10.00"  # DB read avg: after the rates
    assert rows[4][0] == "All servers (exact)" and rows[4][7] == f"{measured.summary.db_read_avg_latency_ms:.2f}"
    view.show_result(measured, None)  # a run on one server has no servers' table
    assert view.servers.isHidden()
