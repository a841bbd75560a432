"""The results page of a run that stopped on a bad checksum before one sample interval was measured: nothing
judged on what it did not measure, counts as whole numbers, and the storage's errors said first."""

from __future__ import annotations

from engine.io.pages import ErrorKind
from engine.tuning.advisor import advise_session
from engine.workload.errors import IoProblem
from engine.workload.stats import DB_READ
from tests.engine.test_report import _tally, known_result
from ui.views.results_view import ResultsView


def test_a_run_stopped_by_a_bad_checksum_at_once_is_judged_on_its_errors_alone(qtbot, tmp_path):
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, "/data/DB1/Jetwise001.jwdb", "page", 200, 200 * 32768)
    result = known_result(tmp_path, errors={"Instance 1": _tally((page, 1))}, measured_s=0.1, stopped=True)
    passed = known_result(tmp_path / "passed")
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(result, advise_session(result.configuration, [passed, result]))

    assert view.headline.text().startswith(
        "Nothing measured: 0.1 s of measurement, less than one 1 s sample interval, so IOPS and latency were not judged")
    assert "Achieved" not in view.headline.text()
    rows = {(view.table.item(r, 0).text(), view.table.item(r, 1).text()): [view.table.item(r, c).text() for c in (2, 3, 4)]
            for r in range(view.table.rowCount())}
    assert rows[("Achieved transactional IOPS", "Server")] == ["not measured", "≥ 760.00", "Not measured"]
    assert rows[("Average database read latency", "each instance")] == ["not measured", "≤ 20.00 ms", "Not measured"]
    assert rows[("I/O errors", "Server")] == ["1", "≤ 0", "Fail"]  # a count, whole
    assert rows[("Bad checksums (ESE -1018)", "Instance 1")] == ["1", "≤ 0", "Fail"]
    assert [cells[2] for cells in rows.values()].count("Pass") == 0

    text = view.advice.text()
    assert text.startswith("<b>The storage returned corrupt data: 1 bad checksum (ESE -1018 JET_errReadVerifyFailure) "
                           "on Instance 1, the first at page 200 of /data/DB1/Jetwise001.jwdb")
    assert "passes" not in text and "full-length" not in text and not view.apply.isEnabled()
    lines = text.split("<br>")
    assert len(lines) == len(set(lines))
