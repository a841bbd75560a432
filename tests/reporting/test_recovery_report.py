"""The report of a Soft Recovery run: Jetstress's transactional sections of the log generation, then each instance's
replay and the average time to play one log file against its limit; a run stopped while generating, one stopped while
replaying and one killed say how far they got; the PDF and the CSV. Real runs on tiny databases."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest

from engine.model import config as model
from engine.model.sizing import LOG_FILE_SIZE_BYTES
from engine.protocol import LogEvent, Phase, ProgressEvent
from engine.results.document import RESULT_FILE
from engine.results.scans import megabytes
from engine.results.schema import Outcome, RunResult
from engine.run.runner import Runner
from reporting.bundle import RunBundle, load_run
from reporting.csv_export import CSV_COLUMNS, RECOVERY_CSV_COLUMNS, write_csv
from reporting.document import render_html
from tests.conftest import small_config
from tests.engine.test_report import _samples, known_result
from tests.pdf_text import needs_pdftotext, pdf_text
from tests.reporting.reading import html_text

FILES = 4
LIMIT_S = 60.0
# Limits a busy test machine cannot break by a hiccup: the figures, not the verdict on this machine, are under test.
ROOMY = {"strict": {"db_read_avg_latency_ms": 1000, "db_read_max_latency_ms": 10_000, "log_write_avg_latency_ms": 1000,
                    "log_write_max_latency_ms": 10_000}}
SECTIONS = ["Jetwise Soft Recovery Test Report", "Test Summary", "Database Sizing and Throughput", "System Parameters",
            "Database Configuration", "Transactional I/O Performance", "Soft Recovery Statistics - All", "Replay I/O",
            "Transaction Log Recovery/Replay Performance", "Host System Performance", "Pass/Fail Criteria", "I/O Errors",
            "Throughput and Latency over Time", "Latency Percentiles", "Test Log"]
NOT_OF_RECOVERY = ["Background Database Maintenance I/O Performance", "Log Replication I/O Performance",
                   "Total I/O Performance", "Tuning Session", "Load Sweep", "Checksum Statistics", "Backup Statistics"]


def _stopping(base: Path, out: Path, when, files: int) -> RunBundle:
    """A soft recovery stopped by the user at the first event `when` accepts."""
    runner: Runner

    def emit(event: object) -> None:
        if when(event):
            runner.request_stop("stopped by the user")

    runner = Runner(_config(base, files), out, emit)
    runner.run()
    return load_run(str(out))


def _config(base: Path, files: int) -> model.TestConfig:
    return small_config(base, test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=files, replay_limit_s=LIMIT_S,
                        thresholds=ROOMY)


def _first_replay_ends(event: object) -> bool:
    """Some way into the replay: one instance has played its log files (the test log says so), the other may not."""
    return isinstance(event, LogEvent) and "log files replayed in" in event.message


def _two_files_generated(event: object) -> bool:
    """Two log files' worth written, of 80: some way into the log generation (its progress comes once a second)."""
    return isinstance(event, ProgressEvent) and event.phase == Phase.MEASURING and event.done_bytes >= 2 * LOG_FILE_SIZE_BYTES


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, RunBundle]:
    """A soft recovery run through, one stopped as its replay starts, one stopped as its load starts, and the first
    again as a killed engine leaves it (no result written)."""
    root = tmp_path_factory.mktemp("recovery")
    base = root / "data"
    Runner(_config(base, FILES), root / "passed", lambda _event: None).run()
    shutil.copytree(root / "passed", root / "killed")
    (root / "killed" / RESULT_FILE).unlink()
    return {
        "passed": load_run(str(root / "passed")),
        "replaying": _stopping(base, root / "replaying", _first_replay_ends, FILES),
        "generating": _stopping(base, root / "generating", _two_files_generated, 40),
        "killed": load_run(str(root / "killed")),
    }


def _achieved(result: RunResult) -> str:
    """The report's achieved IOPS row: the figure, or why there is none (a fast disk writes the load's few log
    files within one sample interval)."""
    summary, interval = result.summary, result.configuration.sample_interval_s
    if summary.measured_s >= interval:
        return f"Achieved Transactional I/O per Second {summary.achieved_transactional_iops:,.3f}"
    return (f"Achieved Transactional I/O per Second not measured ({summary.measured_s:.1f} s, less than one "
            f"{interval:g} s sample interval)")


def _in_order(text: str, headings: list[str]) -> None:
    """Each heading stands after the one before it (a mention earlier, in a note, does not count)."""
    at = 0
    for heading in headings:
        found = text.find(heading, at)
        assert found >= 0, f"{heading} is missing or out of order"
        at = found + len(heading)


def test_a_soft_recovery_has_jetstress_sections_in_order_with_each_instance_replay(runs):
    bundle = runs["passed"]
    result, recovery = bundle.result, bundle.result.recovery
    assert result.verdict == Outcome.PASS and recovery is not None
    text = html_text(render_html(bundle))
    _in_order(text, SECTIONS)
    for words in NOT_OF_RECOVERY:
        assert words not in text, words
    assert "Test Type Soft Recovery (Strict thresholds)" in text
    assert _achieved(result) in text
    assert f"Log Files to Replay {FILES} per instance, 1 MiB each Replay Limit 60.000 s" in text
    assert f"Each instance generated its {FILES} log files of 1 MiB under the load" in text
    for r in recovery.instances:
        assert r.complete and r.log_files_replayed == FILES
        assert (f"{r.instance} {FILES} {r.generation_seconds:.3f} {FILES} {r.replay_seconds:.3f} "
                f"{r.seconds_per_log_file:.3f} {r.records:,} {r.pages_redone:,} 0 complete") in text
        assert (f"{r.instance} {r.log_reads} {r.log_read_avg_ms:.3f} {megabytes(r.log_bytes_per_s):,.1f} {r.page_reads:,} "
                f"{r.page_reads_per_s:,.1f} {r.page_read_avg_ms:.3f} {r.page_writes:,} {r.page_writes_per_s:,.1f} "
                f"{r.page_write_avg_ms:.3f} {r.pages_written:,} {r.pages_verified:,}") in text
        assert f"Seconds to play one log file {r.instance} {r.seconds_per_log_file:.3f} s ≤ 60.000 s Pass" in text
    assert (f"Average time to play one Log file (sec) {recovery.seconds_per_log_file:.3f} Limit (sec) ≤ 60.000 "
            f"Log files played {2 * FILES} of {2 * FILES} Result Within the limit") in text
    assert f"the average over the {2 * FILES} log files of 1 MiB played by 2 instances" in text
    assert "ABORTED" not in text and "Not reached" not in text


def test_a_failed_replay_names_its_failure_under_its_row_and_an_average_over_the_limit(runs):
    bundle = runs["passed"]
    assert bundle.result.recovery is not None
    recovery = bundle.result.recovery.model_copy(update={"limit_s": 0.001}, deep=True)
    first = recovery.instances[0]
    first.failure, first.damaged, first.complete = "log file E00.log is damaged at byte 3,584 (ESE -612)", 1, False
    failed = bundle.result.model_copy(update={"recovery": recovery})
    text = html_text(render_html(RunBundle(failed, bundle.samples, bundle.log, bundle.folder)))
    assert f"{first.records:,} {first.pages_redone:,} 1 failed Log file E00.log is damaged at byte 3,584 (ESE -612)" in text
    assert "Limit (sec) ≤ 0.001" in text and "Result Over the limit" in text
    assert "Not every instance got to the end: Instance 1 (see its row)" in text


def test_a_run_stopped_while_replaying_says_what_was_generated_and_replayed(runs):
    bundle = runs["replaying"]
    recovery = bundle.result.recovery
    assert bundle.result.verdict == Outcome.ABORTED and recovery is not None
    text = html_text(render_html(bundle))
    _in_order(text, SECTIONS)
    replayed = recovery.log_files_replayed
    assert "ABORTED : this run did not complete" in text and "stopped by the user" in text
    if replayed < 2 * FILES:  # the stop reached the other instance's replay before its end, as it mostly does
        assert (f"The test stopped while replaying the log files: all {2 * FILES} were generated and {replayed} replayed"
                in text)
        assert "Log files replayed" in text and "Not reached" in text and "Failing instances" not in text
    else:
        assert "Every log file was generated and replayed before the test stopped" in text
    for r in recovery.instances:
        state = "complete" if r.complete else "stopped"
        shown = f"{r.log_files_replayed}" + ("" if r.log_files_replayed == FILES else f" of {FILES}")
        assert re.search(rf"{r.instance} {FILES} [\d.]+ {shown} [\d.]+ [\d.—]+ [\d,]+ [\d,]+ 0 {state}", text), r.instance
    assert replayed > 0 and f"Average time to play one Log file (sec) {recovery.seconds_per_log_file:.3f}" in text
    assert f"Log files played {replayed} of {2 * FILES}" in text


def test_a_run_stopped_while_generating_says_how_far_it_got_and_that_nothing_was_replayed(runs):
    bundle = runs["generating"]
    recovery = bundle.result.recovery
    assert bundle.result.verdict == Outcome.ABORTED and recovery is not None
    generated = sum(r.log_files_generated for r in recovery.instances)
    assert 0 < generated < 80 and recovery.log_files_replayed == 0
    text = html_text(render_html(bundle))
    _in_order(text, SECTIONS)
    assert f"The test stopped while generating the log files: {generated} of 80 were generated and none was replayed" in text
    for r in recovery.instances:
        assert re.search(rf"{r.instance} {r.log_files_generated} of 40 [\d.]+ 0 of 40 0.000 — 0 0 0 not generated", text)
    assert "Average time to play one Log file (sec) not measured: no log file was replayed" in text
    assert "No log file was played against the databases before the test stopped" in text
    assert "Log files replayed Instance 1 0 ≥ 40 Not reached" in text
    assert "Failing instances" not in text  # not reached is no failure of the storage
    assert _achieved(bundle.result) in text


def test_a_killed_run_is_reported_from_its_samples_and_says_its_replay_is_not_known(runs):
    bundle = runs["killed"]
    assert bundle.result.verdict == Outcome.ABORTED and bundle.result.recovery is not None
    text = html_text(render_html(bundle))
    _in_order(text, SECTIONS)
    assert "the run ended without writing its result" in text and "samples show the log generation only" in text
    assert "No instance reported its log generation or replay" in text
    for r in bundle.result.recovery.instances:
        assert f"{r.instance} not reported" in text
    assert _achieved(bundle.result) in text


def test_the_csv_of_a_soft_recovery_has_its_samples_then_a_row_per_instance(runs, tmp_path):
    bundle = runs["passed"]
    assert bundle.result.recovery is not None
    written = write_csv(bundle, tmp_path / "recovery.csv")
    with (tmp_path / "recovery.csv").open(encoding="utf-8") as handle:
        header = next(csv.reader(handle))
        handle.seek(0)
        rows = list(csv.DictReader(handle))
    assert header == CSV_COLUMNS + RECOVERY_CSV_COLUMNS and written == len(rows)
    samples = [r for r in rows if r["phase"] != "recovery"]
    replays = [r for r in rows if r["phase"] == "recovery"]
    assert len(samples) == sum(1 + len(s.instances) for s in bundle.samples) and samples  # the server's and each instance's
    assert all(r[name] == "" for r in samples for name in RECOVERY_CSV_COLUMNS)
    assert all(r[name] == "" for r in replays for name in CSV_COLUMNS if name not in ("phase", "instance"))
    for row, instance in zip(replays, bundle.result.recovery.instances, strict=True):
        assert row["instance"] == instance.instance and row["log_path"] == instance.log_path
        assert (row["log_files_generated"], row["log_files_replayed"], row["complete"], row["failure"]) == (
            str(FILES), str(FILES), "True", "")
        assert float(row["seconds_per_log_file"]) == pytest.approx(instance.seconds_per_log_file)
        assert int(row["records"]) == instance.records and int(row["pages_verified"]) == instance.pages_verified
        assert float(row["log_read_mbytes_per_s"]) == pytest.approx(megabytes(instance.log_bytes_per_s), abs=1e-3)


def test_a_performance_report_keeps_its_title_and_has_no_replay(tmp_path):
    text = html_text(render_html(RunBundle(known_result(tmp_path), _samples(), [], tmp_path)))
    assert "Jetwise Test Report" in text and "Test Type Performance (Strict thresholds)" in text
    assert "Soft Recovery" not in text and "Log Files to Replay" not in text and "Not reached" not in text


@needs_pdftotext
@pytest.mark.parametrize("name", ["passed", "generating"])
def test_the_pdf_of_a_soft_recovery_has_its_sections_in_order(runs, name, tmp_path, qapp):
    from ui.printing import write_pdf

    bundle = runs[name]
    pdf = tmp_path / f"{name}.pdf"
    pages = write_pdf(bundle, pdf, "a4")
    text = pdf_text(pdf)
    assert f"Page {pages} of {pages}" in text and bundle.result.verdict.value.upper() in text
    _in_order(text, SECTIONS)
    recovery = bundle.result.recovery
    assert recovery is not None
    if name == "passed":
        assert f"Average time to play one Log file (sec) {recovery.seconds_per_log_file:.3f}" in text
    else:
        assert "The test stopped while generating the log files" in text
