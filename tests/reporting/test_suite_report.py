"""The combined report of an ESRP suite: the qualification's summary (verdict, server, configuration, lengths, the five
stages in a table), then each stage's own report in the suite's order; an unfinished suite with its stopped stage,
the stages not run and how to resume it; the PDF, the CSV and `jetwise report` on a suite folder, and bad suite
folders refused in a line. The suites run on the simulated device, in virtual time."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.io.config_file import save_config
from engine.model.config import TestConfig
from engine.results.document import RESULT_FILE, read_result
from engine.results.scans import megabytes
from engine.results.schema import Outcome
from engine.run.sources.model import PROFILES, runner_for
from engine.run.suite import PERFORMANCE_S, STRESS_S, SUITE_FILE, Stage, Suite, open_suite, read_suite, write_suite
from reporting.suite import REPORT_FILE, load_suite, render_suite_html
from tests.cli.test_cli import JETWISE
from tests.conftest import small_config
from tests.pdf_text import needs_pdftotext, pdf_pages
from tests.reporting.reading import html_text
from tests.reporting.test_recovery_report import _in_order

TITLES = ["Performance", "Stress", "Database Checksum", "Database Backup", "Soft Recovery"]
# a heading only each stage's own report has, so its section is known to be the stage's
OWN_SECTION = ["Background Database Maintenance I/O Performance", "Background Database Maintenance I/O Performance",
               "Checksum Statistics - All", "Database Backup Statistics - All", "Soft Recovery Statistics - All"]


def _config(base: Path, **overrides: object) -> TestConfig:
    # 30 s samples keep the 26 virtual hours to a few thousand samples
    # the standard threshold sets, as the report's table names them: the simulated device does not stall
    values: dict[str, object] = {"log_files_to_replay": 20, "thresholds": {}, **overrides}
    return small_config(base / "data", sample_interval_s=30.0, warmup_s=60.0,
                        description="Two tiny databases on a simulated NVMe device", **values)


def _jetwise(*args: str, store: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The command line with its run store in `store` (a module's fixture runs outside each test's private store)."""
    return subprocess.run([*JETWISE, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "JETWISE_DATA_DIR": str(store), "QT_QPA_PLATFORM": "offscreen"})


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The suite run through by `jetwise suite` at the published lengths (2 h and 24 h in virtual time): its folder,
    and what the command said."""
    root = tmp_path_factory.mktemp("esrp")
    config = root / "esrp.json"
    save_config(_config(root), config)
    folder = root / "suite"
    done = _jetwise("suite", str(config), "--output", str(folder), "--simulate", "flash", store=root / "store")
    assert done.returncode == 0, done.stderr
    return folder, done


@pytest.fixture(scope="module")
def unfinished(tmp_path_factory) -> Path:
    """A suite stopped as its Stress test begins (a 1 h Performance and a 2 h Stress): Performance passed, Stress
    aborted, the rest not run."""
    root = tmp_path_factory.mktemp("unfinished")
    folder = root / "suite"
    record = open_suite(_config(root), folder, performance_s=3600.0, stress_s=7200.0)
    suite: Suite

    def starting(number: int, _stage: Stage) -> None:
        if number == 1:
            suite.request_stop("stopped by the user")

    suite = Suite(record, folder, lambda config, out: runner_for(PROFILES["flash"], config, out, lambda _event: None),
                  on_stage=starting)
    assert [s.outcome for s in suite.run().stages] == [Outcome.PASS, Outcome.ABORTED, None, None, None]
    return folder


@pytest.fixture(scope="module")
def failed(tmp_path_factory) -> Path:
    """A suite run through whose Strict read limit no device meets: Performance and Soft Recovery fail, the rest pass."""
    root = tmp_path_factory.mktemp("failed")
    folder = root / "suite"
    # 500 log files take the Soft Recovery's load past one sample, so its latency is judged too
    config = _config(root, thresholds={"strict": {"db_read_avg_latency_ms": 0.001}}, log_files_to_replay=500)
    record = open_suite(config, folder, performance_s=3600.0, stress_s=7200.0)
    Suite(record, folder, lambda stage_config, out: runner_for(PROFILES["flash"], stage_config, out, lambda _event: None)).run()
    assert [s.outcome for s in record.stages] == ["fail", "pass", "pass", "pass", "fail"]
    return folder


def _copy(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / folder.name))


def test_jetwise_suite_leaves_the_combined_report_in_its_folder(finished):
    folder, done = finished
    assert f"Combined report: {folder / REPORT_FILE}" in done.stderr
    assert (folder / REPORT_FILE).read_text(encoding="utf-8") == render_suite_html(load_suite(folder))
    assert sorted(p.name for p in folder.iterdir() if not p.is_dir()) == [REPORT_FILE, SUITE_FILE]


def test_the_combined_report_summarises_the_five_stages_then_gives_each_stage_s_report_in_order(finished):
    folder = finished[0]
    html = (folder / REPORT_FILE).read_text(encoding="utf-8")
    text = html_text(html)
    record = read_suite(folder)
    results = [read_result(folder / stage.folder) for stage in record.stages]
    assert html.count("<html") == 1 and html.count("</html>") == 1 and "<title>Jetwise ESRP qualification suite</title>" in html
    # no storage model given: none made up from the test's description, which the line under the title carries
    assert "Overall Result PASS Storage Model — Server simulated device" in text
    assert "Two tiny databases on a simulated NVMe device · suite suite" in text
    assert "All five tests passed." in text and "SIMULATED DEVICE" in text
    assert "ESRP trial" not in text and "A trial, not" not in text  # the published lengths: a qualification
    performance, stress, checksum, backup, recovery = results
    assert recovery.recovery is not None and checksum.scan is not None and backup.scan is not None
    rows = [
        f"1. Performance PASS {performance.summary.achieved_transactional_iops:,.1f} IOPS (target 1.92)",
        f"2. Stress PASS {stress.summary.achieved_transactional_iops:,.1f} IOPS (target 1.92)",
        f"3. Database Checksum PASS {megabytes(checksum.scan.bytes_per_s):,.2f} MB/s per server",
        f"4. Database Backup PASS {megabytes(backup.scan.bytes_per_s):,.2f} MB/s per server",
        f"5. Soft Recovery PASS {recovery.recovery.seconds_per_log_file:.3f} s per log file (limit 6 s)",
    ]
    _in_order(text, rows)
    for row, stage, result in zip(rows, record.stages, results, strict=True):
        start, end = result.times.test_start_utc, result.times.test_end_utc
        assert start is not None and end is not None
        assert f"{row} {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} {stage.folder}" in text
    assert "Mailboxes 16 of 1 MB, 0.100 IOPS each" in text and "Thread Count 2 (for the server), SluggishSessions 1" in text
    assert "Databases 2 (1 copy each), 8 MB each" in text
    assert "Performance 2h, as ESRP publishes it Stress 24h, as ESRP publishes it" in text
    assert "Strict Performance, Soft Recovery (its log generation) 20.0 100.0 10.0 100.0 Lenient Stress 20.0 200.0 10.0 200.0" in text
    assert f"Average time to play one Log file (sec) {recovery.recovery.seconds_per_log_file:.3f}" in text
    assert f"MB read/sec total per server {megabytes(backup.scan.bytes_per_s):,.2f}" in text
    # then each stage's own report, in the suite's order, each with its run and its own sections
    sections = []
    for number, (title, own, result) in enumerate(zip(TITLES, OWN_SECTION, results, strict=True), 1):
        sections += [f"{number}. {title} Test Report", f"run {result.run_id}", "Test Summary", own, "Test Log"]
    _in_order(text, ["Test Result Summary", *sections])
    assert "Tuning Session" not in text and "Not run" not in text and "UNFINISHED" not in text
    assert html.count("<svg") == 8  # IOPS and latency of Performance, Stress and Soft Recovery; each scan's reads


def test_an_unfinished_suite_shows_its_stopped_stage_the_stages_not_run_and_how_to_resume(unfinished):
    text = html_text(render_suite_html(load_suite(unfinished)))
    assert "Overall Result UNFINISHED" in text and "All five tests passed" not in text
    assert ("UNFINISHED : Stress was stopped before its end; Database Checksum, Database Backup and Soft Recovery have "
            "not run.") in text
    assert f"jetwise suite CONFIG.json --output {unfinished} --performance-duration 1h --stress-duration 2h" in text
    _in_order(text, ["1. Performance PASS", "2. Stress ABORTED not measured (target 1.92)", "Run aborted: stopped by the user",
                     "3. Database Checksum NOT RUN — — —", "4. Database Backup NOT RUN", "5. Soft Recovery NOT RUN"])
    _in_order(text, ["1. Performance Test Report", "Overall Test Result PASS", "2. Stress Test Report",
                     "ABORTED : this run did not complete", "Overall Test Result ABORTED", "Test Log",
                     "3. Database Checksum Test Report Not run.", "4. Database Backup Test Report Not run.",
                     "5. Soft Recovery Test Report Not run."])
    assert "The Performance test has not run" not in text and "No database was read through by a Database Backup" in text


def test_a_failed_suite_names_its_failed_stages_and_why(failed):
    text = html_text(render_suite_html(load_suite(failed)))
    assert "Overall Result FAIL" in text and "Every test ran; Performance and Soft Recovery failed." in text
    _in_order(text, ["1. Performance FAIL", "Instance 1: average database read latency", "2. Stress PASS", "5. Soft Recovery FAIL",
                     "1. Performance Test Report", "Overall Test Result FAIL", "5. Soft Recovery Test Report",
                     "Overall Test Result FAIL"])
    assert "Resume the suite" not in text and "Not run" not in text
    assert "Strict Performance, Soft Recovery (its log generation) 0.0 100.0" in text
    assert "The Performance test failed: these are its figures as measured." in text


def test_a_stage_killed_before_its_result_is_reported_aborted_from_its_samples(unfinished, tmp_path):
    folder = _copy(unfinished, tmp_path)
    record = read_suite(folder)
    record.stages[0].outcome, record.stages[0].run_id = None, ""  # as suite.json is left when the process is killed
    write_suite(record, folder)
    (folder / record.stages[0].folder / RESULT_FILE).unlink()
    text = html_text(render_suite_html(load_suite(folder)))
    _in_order(text, ["UNFINISHED : Performance and Stress were stopped before their end", "1. Performance ABORTED",
                     "1. Performance Test Report", "the run ended without writing its result"])


@needs_pdftotext
def test_jetwise_report_writes_the_suite_as_pdf_html_and_csv(finished, tmp_path):
    folder = finished[0]
    pdf, html, table = tmp_path / "esrp.pdf", tmp_path / "esrp.html", tmp_path / "esrp.csv"
    done = _jetwise("report", str(folder), "--pdf", str(pdf), "--html", str(html), "--csv", str(table), store=tmp_path)
    assert done.returncode == 0, done.stderr
    assert html.read_text(encoding="utf-8") == (folder / REPORT_FILE).read_text(encoding="utf-8")
    pages = re.findall(r"\((\d+) pages, A4\)", done.stderr)[0]
    printed = pdf_pages(pdf)
    running = "Jetwise ESRP qualification · suite suite · PASS"
    assert running in printed[0] and f"Page 1 of {pages}" in printed[0] and "ESRP trial" not in printed[0]
    assert "5. Soft Recovery PASS" in printed[0]
    for number, title in enumerate(TITLES, 1):  # each stage's report begins a page
        first = next(page for page in printed if f"{number}. {title} Test Report" in page)
        assert first.strip().startswith(f"{running} {number}. {title} Test Report"), first[:200]
    images = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert len(images.splitlines()) - 2 == 8  # every stage's charts, none lost to another stage's of the same name
    with table.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["stage"] for r in rows] == sorted(r["stage"] for r in rows) and {r["stage"] for r in rows} == set("12345")
    assert {(r["test_type"], r["phase"]) for r in rows if r["phase"] in ("scan", "recovery")} == {
        ("database_checksum", "scan"), ("database_backup", "scan"), ("soft_recovery", "recovery")}
    assert all(r["run_folder"] == f"{r['stage']}-{r['test_type'].replace('_', '-')}" for r in rows)


def _damage(case: str, folder: Path) -> None:
    record = json.loads((folder / SUITE_FILE).read_text())
    if case == "no suite":
        (folder / SUITE_FILE).unlink()
    elif case == "damaged":
        (folder / SUITE_FILE).write_text("{ not json")
    elif case == "newer":
        (folder / SUITE_FILE).write_text(json.dumps({**record, "suite_version": 99}))
    elif case == "stage folder missing":
        shutil.rmtree(folder / "1-performance")
    elif case == "stage result damaged":
        (folder / "1-performance" / RESULT_FILE).write_text("{}")
    elif case == "another run":
        record["stages"][0]["run_id"] = "20200101-000000-000000"
        (folder / SUITE_FILE).write_text(json.dumps(record))


@pytest.mark.parametrize(("case", "says"), [
    ("no suite", "{folder} holds no Jetwise run (result.json or config.json is missing) and no suite (suite.json is missing)"),
    ("damaged", "{folder}/suite.json is not a suite record Jetwise can read"),
    ("newer", "{folder}/suite.json was written by a newer Jetwise (suite record 99"),
    ("stage folder missing", "{folder}/suite.json gives stage 1 (Performance) a verdict but its run folder "
                             "{folder}/1-performance is missing; restore the folder"),
    ("stage result damaged", "stage 1 (Performance): {folder}/1-performance/result.json cannot be read as a Jetwise run's"),
    ("another run", "{folder}/1-performance holds run "),
])
def test_a_bad_suite_folder_is_refused_in_a_line(unfinished, tmp_path, case, says):
    folder = _copy(unfinished, tmp_path)
    _damage(case, folder)
    done = _jetwise("report", str(folder), "--html", str(tmp_path / "r.html"), store=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: " + says.format(folder=folder)), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "r.html").exists()


def test_the_published_lengths_resume_with_no_length_flags(unfinished, tmp_path):
    folder = _copy(unfinished, tmp_path)
    record = read_suite(folder)
    write_suite(record.model_copy(update={"performance_s": PERFORMANCE_S, "stress_s": STRESS_S}), folder)
    text = html_text(render_suite_html(load_suite(folder)))
    assert f"jetwise suite CONFIG.json --output {folder} Stage Result Key figure" in text
    assert "--performance-duration" not in text and "Performance 2h, as ESRP publishes it" in text


@needs_pdftotext
def test_the_summary_page_names_the_customer_the_storage_model_and_the_engineer_and_a_host_bound_stage(unfinished,
                                                                                                      tmp_path):
    folder = _copy(unfinished, tmp_path)
    record = read_suite(folder)
    write_suite(record.model_copy(update={"config": record.config.model_copy(update={"report": record.config.report.model_copy(
        update={"customer": "Contoso Ltd", "storage_model": "Fabrikam FS-9000, 24 x 10k SAS, RAID 10",
                "engineer": "A. Field"})})}), folder)
    performance = folder / record.stages[0].folder / RESULT_FILE
    held = json.loads(performance.read_text())
    held["summary"]["host_bound"] = True  # the host's processors set the pace of the Performance test
    performance.write_text(json.dumps(held))
    pdf = tmp_path / "esrp.pdf"
    done = _jetwise("report", str(folder), "--pdf", str(pdf), store=tmp_path)
    assert done.returncode == 0, done.stderr
    first = " ".join(pdf_pages(pdf)[0].split())
    assert "Customer Contoso Ltd" in first and "Engineer A. Field" in first
    assert "Storage Model Fabrikam FS-9000, 24 x 10k SAS, RAID 10" in first
    assert "Storage Model Two tiny databases" not in first  # the test's description is not the storage's model
    assert "HOST-BOUND: the host's processors were saturated while Performance measured" in first
    # the customer's copy names the suite's folder by its name, in the row and the resume command alike
    assert "Suite Folder suite HOST-BOUND" in first and "--output suite --performance-duration" in first
    assert re.sub(r"\s+", "", str(tmp_path)) not in re.sub(r"\s+", "", first)
    performance_row = first.split("1. Performance PASS ")[1].split("2. Stress")[0]  # its cells, as pdftotext reads them
    assert "host-bound" in performance_row and "host-bound" not in first.split("2. Stress ABORTED")[1]
