"""The report of a Database Checksum and a Database Backup run: Jetstress's tables of each database's scan, the
damaged pages by page, offset and kind, what a stopped scan covered; none of a Performance run's target, latency
limits or tuning; the PDF and the CSV. Real runs on tiny databases."""

from __future__ import annotations

import csv
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine.io.file_names import database_file_path
from engine.model import config as model
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.protocol import Phase, ProgressEvent
from engine.results.note_schema import CORRECTABLE_WORDS
from engine.results.scans import megabytes, own_reads_per_s
from engine.results.schema import Outcome
from engine.run.runner import Runner
from reporting.bundle import RunBundle, load_run
from reporting.csv_export import CSV_COLUMNS, SCAN_CSV_COLUMNS, write_csv
from reporting.document import charts, render_html
from reporting.jetstress_files import write_jetstress_files
from tests.conftest import small_config
from tests.engine.test_report import _samples, known_result
from tests.pdf_text import needs_pdftotext, pdf_text
from tests.reporting.reading import html_text

PAGE = PAGE_SIZE_BYTES
DAMAGE = [(5, "Bad checksum", "-1018 JET_errReadVerifyFailure"), (33, "Wrong page number", "-1118 JET_errReadPgnoVerifyFailure"),
          (100, "Uninitialised page", "-1019 JET_errPageNotInitialized")]
PERFORMANCE_ONLY = ["Target Transactional", "Transactional IOPS per interval", "read limit", "Tuning Session",
                    "Thread Count", "SluggishSessions", "Latency Percentiles", "Database Page Fault Stalls/sec",
                    "Pass/Fail Criteria", "Database Sizing and Throughput"]


def _run(config: model.TestConfig, out: Path, emit=lambda _event: None, **kwargs) -> RunBundle:
    Runner(config, out, emit, **kwargs).run()
    return load_run(str(out))


def _stopped(base: Path, out: Path) -> RunBundle:
    """A checksum stopped by the user once it has read something, on a slow device so that it has not finished."""
    from tests.faults.slow_device import SlowDevice

    runner: Runner

    def emit(event: object) -> None:
        if isinstance(event, ProgressEvent) and event.phase == Phase.MEASURING and event.done_bytes:
            runner.request_stop("stopped by the user")

    config = small_config(base, test_type=model.TestType.DATABASE_CHECKSUM)
    runner = Runner(config, out, emit, backend=SlowDevice(out.parent / "spindle.lock", service_ms=4.0))
    runner.run()
    return load_run(str(out))


def _damage(path: Path) -> None:
    """Page 5's body flipped, page 41's contents where page 33 belongs, page 100 zeroed."""
    fd = os.open(path, os.O_RDWR)
    try:
        body = os.pread(fd, 1, 5 * PAGE + 100)
        os.pwrite(fd, bytes([body[0] ^ 0x5A]), 5 * PAGE + 100)
        os.pwrite(fd, os.pread(fd, PAGE, 41 * PAGE), 33 * PAGE)
        os.pwrite(fd, bytes(PAGE), 100 * PAGE)
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, RunBundle]:
    """A clean checksum (which creates the databases), a backup to a folder, a stopped checksum, a damaged checksum."""
    root = tmp_path_factory.mktemp("scans")
    base = root / "data"
    checksum = small_config(base, test_type=model.TestType.DATABASE_CHECKSUM)
    made = {"clean": _run(checksum, root / "clean")}
    backup = small_config(base, test_type=model.TestType.DATABASE_BACKUP, backup_path=root / "copies")
    made["backup"] = _run(backup, root / "backup")
    if sys.platform != "win32":  # the slow device queues on flock
        made["stopped"] = _stopped(base, root / "stopped")
    _damage(database_file_path(checksum.databases[0].database_path, 0))
    made["damaged"] = _run(checksum, root / "damaged")
    return made


def _text(bundle: RunBundle) -> str:
    """The HTML report as read."""
    return html_text(render_html(bundle))


def _in_order(text: str, *headings: str) -> None:
    places = [text.index(h) for h in headings]
    assert places == sorted(places), headings


def test_a_clean_checksum_has_jetstress_tables_in_order_and_nothing_of_a_performance_run(runs):
    bundle = runs["clean"]
    scan = bundle.result.scan
    assert bundle.result.verdict == Outcome.PASS and scan is not None
    text = _text(bundle)
    _in_order(text, "Jetwise Database Checksum Test Report", "Test Summary", "Test Result", "Checksum Statistics - All",
              "Disk Subsystem Performance (of checksum)", "Read Throughput over Time", "Host System Performance",
              "I/O Errors", "Test Log")
    assert "Every page of every database was read and none was damaged, nor any log sector" in text
    assert "all on one volume, so read one after another, 64 reads in flight" in text  # the test's one volume
    assert "the databases were read one after another, all on one volume" in text
    for row in scan.databases:
        mbytes, seconds = megabytes(row.pages * PAGE), row.seconds
        lost = "—" if row.flush_map else "0"  # read without a flush map its last test kept: none could be told
        words = f"{row.seen_pages:,} 0 0 0 0 0 0 {lost} {mbytes:,.0f} Mbytes / {seconds:.1f} sec {megabytes(row.bytes_per_s):,.1f}"
        assert f"{row.instance} {words} {row.database_file}" in text
    total = sum(r.pages for r in scan.databases)
    assert f"(Sum) {total:,} 0 0 0 0 0 0 0 {megabytes(total * PAGE):,.0f} Mbytes" in text
    logs = sum(r.log_files for r in scan.databases)
    assert f"Log files checked: {logs} files, {sum(r.log_sectors_seen for r in scan.databases):,} sectors read, 0 damaged" in text
    assert "Damaged pages: none: every page read back" in text and CORRECTABLE_WORDS in text
    scanned = {row.instance: row for row in scan.databases}
    for instance in bundle.result.instances:  # the disk table: the instance's database reads, 64 KiB each
        assert f"{instance.name} Database reads {instance.db_read_avg_latency_ms:.3f}" in text
        # reads per second over its own database's scan: a checksum reads the databases of a volume one after another
        own = own_reads_per_s(instance, scanned[instance.name], bundle.result.summary.measured_s)
        assert own > instance.db_reads_per_s and f"{own:,.3f} 65,536" in text
    for words in PERFORMANCE_ONLY:
        assert words not in text, words
    assert set(charts(bundle)) == {"scan_reads"} and "Read throughput per interval" in render_html(bundle)


def test_a_damaged_checksum_lists_each_damaged_page_with_its_offset_kind_and_ese_error(runs):
    bundle = runs["damaged"]
    assert bundle.result.verdict == Outcome.FAIL
    text = _text(bundle)
    _in_order(text, "Test Result", "Instance 1: 3 damaged pages", "Checksum Statistics - All", "Damaged pages",
              "Disk Subsystem Performance")
    damaged, clean = bundle.result.scan.databases
    assert f"{damaged.instance} {damaged.seen_pages:,} 1 0 1 1 0 " in text
    assert f"{clean.instance} {clean.seen_pages:,} 0 0 0 0 0 " in text
    assert f"(Sum) {damaged.seen_pages + clean.seen_pages:,} 1 0 1 1 0 " in text
    listed = re.findall(r"Instance (\d) ([\d,]+) ([\d,]+) ([A-Z][a-z ]+?) (-\d+ JET_\w+)", text)
    assert [(int(p.replace(",", "")), int(o.replace(",", "")), kind, ese) for _i, p, o, kind, ese in listed] == [
        (page, page * PAGE, kind, ese) for page, kind, ese in DAMAGE]
    assert "Damaged database pages Instance 1 3 ≤ 0 Fail" in text


def test_a_backup_has_its_statistics_read_only_rates_files_and_transactional_table(runs):
    bundle = runs["backup"]
    scan = bundle.result.scan
    assert bundle.result.verdict == Outcome.PASS and scan is not None
    text = _text(bundle)
    _in_order(text, "Jetwise Database Backup Test Report", "Test Result", "Database Backup Statistics - All",
              "Database Read-only Performance", "Backup Files", "Transactional I/O Performance",
              "Read Throughput over Time", "Host System Performance", "Test Log")
    for row in scan.databases:
        size = megabytes(row.pages * PAGE)
        assert re.search(rf"{row.instance} {size:,.2f} 00:00:\d\d\.\d\d {megabytes(row.bytes_per_s):,.2f}", text), row.instance
        assert row.backup_file and row.bytes_written == row.pages * PAGE
        assert f"{row.instance} {row.backup_file} {row.bytes_written:,}" in text
    average = sum(megabytes(r.bytes_per_s) for r in scan.databases) / len(scan.databases)
    assert f"MB read/sec per database {average:,.2f}" in text
    assert f"MB read/sec total per server {megabytes(scan.bytes_per_s):,.2f}" in text
    assert "262,144" in text  # the transactional table's database reads, 256 KiB each
    assert "Checksum Statistics" not in text and "Log files checked" not in text
    for words in PERFORMANCE_ONLY:
        assert words not in text, words


@pytest.mark.skipif(sys.platform == "win32", reason="the slow device queues on flock")
def test_a_stopped_scan_says_how_it_ended_and_what_it_covered(runs):
    bundle = runs["stopped"]
    scan = bundle.result.scan
    assert bundle.result.verdict == Outcome.ABORTED and scan is not None
    seen, pages = sum(r.seen_pages for r in scan.databases), sum(r.pages for r in scan.databases)
    assert 0 < seen < pages
    text = _text(bundle)
    assert "ABORTED : this run did not complete" in text and "stopped by the user" in text
    assert f"The test stopped before it read every page: {seen:,} of {pages:,} pages" in text
    for row in scan.databases:
        state = "complete" if row.complete else f"incomplete, {100 * row.seen_pages / row.pages:.0f} %"
        assert f"{row.instance} {row.seen_pages:,} {row.pages:,} {state} {row.database_file}" in text
    assert "Not reached" in text and " Fail " not in text
    assert sum(r.log_files for r in scan.databases) == 0  # stopped among the database pages, before the logs
    assert "Log files checked: none: the test stopped before it reached the log files" in text
    assert f"Damaged pages: none among the {seen:,} pages read" in text


def test_the_csv_of_a_scan_has_its_samples_then_a_row_per_database(runs, tmp_path):
    bundle = runs["damaged"]
    written = write_csv(bundle, tmp_path / "scan.csv")
    rows = list(csv.DictReader((tmp_path / "scan.csv").open(encoding="utf-8")))
    assert written == len(rows)
    samples = [r for r in rows if r["phase"] != "scan"]
    scans = [r for r in rows if r["phase"] == "scan"]
    assert len(samples) == sum(1 + len(s.instances) for s in bundle.samples) and samples  # the server's and each instance's
    assert all(r[name] == "" for r in samples for name in SCAN_CSV_COLUMNS)
    assert [r["instance"] for r in scans] == ["Instance 1", "Instance 2"]
    first = scans[0]
    assert (first["bad_pages"], first["wrong_page_number_pages"], first["uninitialised_pages"], first["damaged_pages"]) == (
        "1", "1", "1", "3")
    assert first["first_damaged"] == f"5@{5 * PAGE}:bad_checksum 33@{33 * PAGE}:wrong_number 100@{100 * PAGE}:uninitialised"
    assert first["complete"] == "True" and int(first["seen_pages"]) == int(first["pages"])
    assert all(r[name] == "" for r in scans for name in CSV_COLUMNS if name not in ("phase", "instance"))
    write_csv(RunBundle(known_result(tmp_path), _samples(2), [], tmp_path), tmp_path / "plain.csv")
    assert next(csv.reader((tmp_path / "plain.csv").open(encoding="utf-8"))) == CSV_COLUMNS  # a Performance run's CSV keeps its columns


def test_a_performance_report_has_no_scan_section(tmp_path):
    text = re.sub(r"<[^>]+>", " ", render_html(RunBundle(known_result(tmp_path), _samples(), [], tmp_path)))
    assert "Jetwise Test Report" in text and "Database Page Fault Stalls/sec" in text
    assert "Checksum Statistics" not in text and "Backup Statistics" not in text and "Read Throughput" not in text


@needs_pdftotext
@pytest.mark.parametrize("name", ["clean", "damaged", "backup", "stopped"])
def test_the_pdf_of_a_scan_is_a_pdf_with_its_tables(runs, name, tmp_path, qapp):
    from ui.printing import write_pdf

    if name not in runs:
        pytest.skip("no stopped scan on this platform")
    bundle = runs[name]
    pdf = tmp_path / f"{name}.pdf"
    pages = write_pdf(bundle, pdf, "a4")
    assert pdf.read_bytes()[:5] == b"%PDF-" and pages >= 1
    text = pdf_text(pdf)
    assert f"Page {pages} of {pages}" in text and bundle.result.verdict.value.upper() in text
    headings = ["Database Backup Statistics - All", "Database Read-only Performance"] if name == "backup" else [
        "Checksum Statistics - All", "(Sum)", "Disk Subsystem Performance (of checksum)"]
    for heading in [*headings, "Host System Performance", "Test Log"]:
        assert heading in text, heading
    if name == "damaged":
        assert f"Instance 1 33 {33 * PAGE:,} Wrong page number -1118" in text
    for word in PERFORMANCE_ONLY:
        assert word not in text, word


@pytest.mark.parametrize("name", ["clean", "backup"])
def test_the_jetstress_layout_files_of_a_scan_carry_the_papers_tables_and_agree_with_the_report(runs, tmp_path, name):
    """As the ESRP paper's Checksum and Backup files: the statistics (a checksum's wrong page-number column, a backup's
    elapsed time), the System Parameters, each instance's Transactional I/O over its own database's time and the disk
    table per volume; the server's MB/s the same in both files as in Jetwise's own report."""
    result = runs[name].result
    scan = result.scan
    assert scan is not None
    written = write_jetstress_files(result, [], tmp_path)
    root = ET.fromstring(next(p for p in written if p.suffix == ".xml").read_text(encoding="utf-8").split("-->", 1)[1])
    html = next(p for p in written if p.suffix == ".html").read_text(encoding="utf-8")
    assert root.find("jetstress-system/element[@name='Thread Count']") is not None
    tag = "checksum-statistics" if name == "clean" else "backup-statistics"
    rows = {i.get("name"): {c.get("name"): c.get("average") for c in i.iter("counter")}
            for i in root.iterfind(f"{tag}/object/instance")}
    server = f"{megabytes(scan.bytes_per_s):.3f}"
    assert rows["MB read/sec total per server"] == {"MB read/sec" if name == "clean" else "Mbytes Transferred/sec": server}
    # Jetwise's own report: a checksum's (Sum) row, a backup's total per server
    said = f"{megabytes(scan.bytes_per_s):,.1f}</td></tr>" if name == "clean" else f"{megabytes(scan.bytes_per_s):,.2f}"
    assert said in render_html(runs[name]) and server in html
    for row in scan.databases:
        if name == "clean":
            assert rows[row.database_file]["Wrong Page-Number Pages"] == "0"
            assert rows[row.database_file]["File Length / Seconds Taken"].endswith(f"Mbytes / {round(row.seconds)} sec")
        else:
            assert rows[row.instance]["Elapsed Backup Time"].count(":") == 2
    measured = result.summary.measured_s
    figures = {i.name: i for i in result.instances}
    transactional = {i.get("name"): {c.get("name"): float(c.get("average")) for c in i.iter("counter")}
                     for i in root.iterfind("disk-subsystem-transactional/object/instance")}
    for row in scan.databases:
        own = own_reads_per_s(figures[row.instance], row, measured)
        assert transactional[row.instance]["I/O Database Reads/sec"] == pytest.approx(own, abs=0.0005)
    kind = "checksum" if name == "clean" else "backup"
    disks = {i.get("name"): {c.get("name"): float(c.get("average")) for c in i.iter("counter")}
             for i in root.iterfind(f"disk-subsystem-of-{kind}/object/instance")}
    assert set(disks) == {row.volume for row in scan.databases} and all(row.volume for row in scan.databases)
    assert all(d["Avg. Disk Bytes/Read"] == pytest.approx(scan.read_bytes, rel=0.01) for d in disks.values())
