"""The report: every section with the right numbers for a known result, CSV, PDF text, aborted runs."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.io.config_file import save_config
from engine.io.pages import ErrorKind
from engine.model.config import default_config
from engine.results.document import build_result
from engine.results.host_schema import HostFigures, HostInfo
from engine.results.recovery import FILES_REPLAYED, failing_instances
from engine.results.sample_read import SampleList
from engine.results.sample_schema import IntervalSample
from engine.results.schema import Failure, Outcome, RunKind, RunResult, RunTimes
from engine.results.verdict import judge, make_criterion, maximum_note
from engine.workload.errors import STOP_REASON, ErrorTally, IoProblem
from engine.workload.stats import BDM_READ, DB_READ, DB_WRITE, LOG_REPLICATION_READ, LOG_WRITE, StreamStats
from reporting.bundle import RunBundle, load_run
from reporting.csv_export import CSV_COLUMNS, write_csv
from reporting.document import charts, render_html, report_model
from tests.pdf_text import needs_pdftotext, pdf_text
from tests.reporting.reading import html_text

SECTIONS = [
    "Test Summary", "Database Sizing and Throughput", "System Parameters", "Database Configuration",
    "Transactional I/O Performance", "Background Database Maintenance I/O Performance",
    "Log Replication I/O Performance", "Total I/O Performance", "Host System Performance", "Pass/Fail Criteria",
    "I/O Errors", "Throughput and Latency over Time", "Latency Percentiles", "Tuning Session", "Test Log",
]


def _stats(count: int, avg_ms: float, max_ms: float, avg_bytes: int) -> StreamStats:
    stats = StreamStats()
    stats.count, stats.bytes = count, count * avg_bytes
    stats.sum_ns, stats.max_ns = int(count * avg_ms * 1e6), int(max_ms * 1e6)
    stats.hist[1000] = count
    return stats


def known_result(tmp_path: Path, *, slow: bool = False, errors: dict[str, ErrorTally] | None = None,
                 measured_s: float = 100.0, stopped: bool = False, cache_hits: int = 70_000,
                 **design: object) -> RunResult:
    """Two instances over `measured_s` (100 s) with the reference report's shape; Instance 2 reads slowly when `slow`;
    `stopped` at its first I/O error; each instance's 29,168 reads beside `cache_hits` cache hits; `design`: other
    configuration values."""
    config = default_config(tmp_path, databases=2, thread_count=26, copies_per_database=2, description="Known result",
                            profile={"mailboxes": 1000, "iops_per_mailbox": 0.8, "headroom_percent": 0, "mailbox_size_mb": 1024},
                            **design)  # type: ignore[arg-type]
    instances = {}
    for index, name in enumerate(("Instance 1", "Instance 2")):
        instances[name] = {
            DB_READ: _stats(29_168, 22.4 if slow and index else 16.832, 90.0, 33_116),
            DB_WRITE: _stats(19_238, 20.454, 95.0, 34_238),
            LOG_WRITE: _stats(10_109, 0.870, 9.0, 4_832),
            BDM_READ: _stats(1_685, 30.0, 80.0, 261_735),
            LOG_REPLICATION_READ: _stats(200, 1.551, 5.0, 232_557),
        }
    cache = {name: [cache_hits, 29_168, 0] for name in instances}
    failures = [STOP_REASON] if stopped else []
    verdict = judge(config, instances, measured_s, cache=cache, errors=errors, failure_reasons=failures, highest=None)
    return build_result(
        run_id="known-run", config=config, verdict=verdict, instances=instances, cache=cache, measured_s=measured_s,
        host=HostInfo(machine_name="AIE-4240A", operating_system="Windows Server 2022"),
        host_samples=[HostFigures(cpu_percent=20.0, available_memory_mb=27_000.0),
                      HostFigures(cpu_percent=36.0, available_memory_mb=27_500.0)],
        times=RunTimes(test_start_utc="2026-11-21T10:00:00+00:00", test_end_utc="2026-11-21T12:02:00+00:00",
                       collection_start_utc="2026-11-21T10:02:00+00:00", collection_end_utc="2026-11-21T12:02:00+00:00"),
        unbuffered_io=True, io_detail="O_DIRECT", backend_name="posix", device="", notes=[],
        run_kind=RunKind.QUALIFICATION, host_bound=False, errors=errors,
    )


def _samples(count: int = 6) -> SampleList:
    return SampleList([IntervalSample.model_validate(s) for s in _sample_documents(count)])


def _sample_documents(count: int = 6) -> list[dict]:
    return [
        {"interval": i, "phase": "warmup" if i == 0 else "measure", "time_utc": f"2026-11-21T10:00:{i:02d}+00:00",
         "elapsed_s": i + 1.0, "duration_s": 1.0, "host": {"cpu_percent": 30.0, "available_memory_mb": 27_000.0},
         "server": {"streams": {"db_read": {"count": 578 + i, "sum_ns": (578 + i) * 17_000_000},
                                "db_write": {"count": 392}, "log_write": {"count": 202, "sum_ns": 202 * 900_000}}},
         "instances": {n: {"streams": {"db_read": {"count": 292, "sum_ns": 292 * 16_800_000}, "db_write": {"count": 192},
                                       "log_write": {"count": 101, "sum_ns": 101 * 870_000}}}
                       for n in ("Instance 1", "Instance 2")}}
        for i in range(count)
    ]


def _older_sample_documents(count: int = 6) -> list[dict]:
    """Samples as an older version wrote them to samples.jsonl: figures, not counters."""
    return [
        {"interval": i, "phase": "warmup" if i == 0 else "measure", "time_utc": f"2026-11-21T10:00:{i:02d}+00:00",
         "elapsed_s": i + 1.0, "duration_s": 1.0, "host": {"cpu_percent": 30.0, "available_memory_mb": 27_000.0},
         "summary": {"transactional_iops": 970.0 + i, "db_read_avg_latency_ms": 17.0, "log_write_avg_latency_ms": 0.9},
         "instances": [{"name": n, "transactional_iops": 485.0, "db_reads_per_s": 291.7, "db_read_avg_latency_ms": 16.8,
                        "db_writes_per_s": 192.4, "log_writes_per_s": 101.1, "log_write_avg_latency_ms": 0.87}
                       for n in ("Instance 1", "Instance 2")]}
        for i in range(count)
    ]


def test_a_run_the_cache_served_reports_fail_with_its_cache_hit_share_and_what_to_change(tmp_path):
    served = known_result(tmp_path, cache_hits=29_168 * 4_999)  # 99.98 % of the page references
    assert served.verdict == "fail"
    html = render_html(RunBundle(served, _samples(), [], tmp_path))
    assert ">FAIL<" in html
    assert "<td>Database cache hits</td><td>Instance 1</td><td class=\"n\">99.980 %</td>" in html
    assert "≤ 99.000 %</td><td class=\"fail\">Fail</td>" in html
    assert ("Instance 1: 99.98 % of the measured database page references were cache hits, more than 99 %: the "
            "database cache held nearly every page the transactions touched") in html
    assert "raise the mailboxes or the mailbox size" in html and "or lower the database cache" in html
    plain = render_html(RunBundle(known_result(tmp_path / "plain"), _samples(), [], tmp_path / "plain"))
    assert ">PASS<" in plain and "70.587 %</td>" in plain and "cache hits, more than" not in plain  # 70,000 of 99,168


def test_every_section_carries_the_known_numbers(tmp_path):
    html = render_html(RunBundle(known_result(tmp_path), _samples(), ["10:00:00 -- Test begins"], tmp_path))
    for heading in SECTIONS:
        assert f">{heading}</h2>" in html, heading
    for words in [
        ">PASS<", "AIE-4240A", "Windows Server 2022", "Known result", "2026-11-21 10:02:00 UTC",
        "968.120",  # achieved: (29,168 + 19,238) × 2 / 100 s
        "800.000",  # target: 1,000 mailboxes × 0.8 IOPS
        "26 (for the server)", "3,072.0 MB", "384.0 MB", "40%", "70%",
        "16.83", "291.7", "192.4", "33,116", "34,238", "4,832", "101.1",  # transactional I/O
        "16.850", "261,735",  # maintenance reads/s and bytes
        "2.000", "232,557",  # replication reads/s and bytes
        "308.5",  # total DB reads/s: 291.68 + 16.85
        "28.000", "20.000", "36.000",  # host CPU average / minimum / maximum
        "10:00:00 -- Test begins",
    ]:
        assert words in html, words
    assert "<svg" in html and "target 800" in html  # the IOPS chart, self-contained


def test_failing_instances_are_named_with_value_and_limit(tmp_path):
    failed = known_result(tmp_path, slow=True)
    html = render_html(RunBundle(failed, _samples(), [], tmp_path))
    assert ">FAIL<" in html and "Failing instances:</b> Instance 2" in html and failing_instances(failed) == ["Instance 2"]
    # a criterion a stop left unreached (a Soft Recovery's log files to replay) fails no instance
    stopped = failed.model_copy(update={
        "summary": failed.summary.model_copy(update={"verdict": Outcome.ABORTED}),
        "criteria": [*failed.criteria, make_criterion(FILES_REPLAYED, "Instance 1", 3, 6, "", ">=")]})
    assert failing_instances(stopped) == ["Instance 2"]
    assert "Instance 2: average database read latency 22.4 ms &gt; 20.0 ms (Strict)" in html


def test_the_summary_on_the_first_page_says_why_a_run_failed_the_first_five_reasons_and_how_many_more(tmp_path):
    failed = known_result(tmp_path, slow=True)
    summary = html_text(render_html(RunBundle(failed, _samples(), [], tmp_path)))
    summary = summary[summary.index("Test Summary"): summary.index("Machine Name")]
    assert summary == "Test Summary Overall Test Result FAIL Failed On " + " ".join(failed.summary.reasons) + " "
    words = [f"Instance {n}: average database read latency 22.4 ms > 20.0 ms (Strict)" for n in range(1, 9)]
    many = failed.model_copy(update={"summary": failed.summary.model_copy(
        update={"reasons": words, "failures": [Failure(words=reason) for reason in words]})})
    summary = html_text(render_html(RunBundle(many, _samples(), [], tmp_path)))
    summary = summary[summary.index("Failed On"): summary.index("Machine Name")]
    assert "Instance 5:" in summary and "Instance 6:" not in summary and "and 3 more under Pass/Fail Criteria" in summary
    passed = html_text(render_html(RunBundle(known_result(tmp_path), _samples(), [], tmp_path)))
    assert "Overall Test Result PASS Machine Name" in passed


def test_csv_has_a_row_per_interval_for_the_server_and_one_per_instance_where_its_figures_end(tmp_path):
    bundle = RunBundle(known_result(tmp_path), _samples(6), [], tmp_path)
    assert write_csv(bundle, tmp_path / "s.csv") == 6 + 12  # these samples carry each instance every interval
    rows = list(csv.reader((tmp_path / "s.csv").open()))
    assert rows[0] == CSV_COLUMNS and len(rows) == 19
    assert rows[1][:6] == ["0", "warmup", "2026-11-21T10:00:00+00:00", "1.0", "1.0", "_Total"]
    assert rows[2][:6] == ["0", "warmup", "2026-11-21T10:00:00+00:00", "1.0", "1.0", "Instance 1"]
    assert rows[2][CSV_COLUMNS.index("db_reads_per_s")] == "292.0"


def _run_folder(tmp_path: Path, result: RunResult | None) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    save_config(default_config(tmp_path, databases=2), folder / "config.json")
    (folder / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in _older_sample_documents()))
    (folder / "test.log").write_text("2026-11-21 10:00:00 -- Performance test begins\n")
    if result is not None:
        (folder / "result.json").write_text(result.model_dump_json())
    return folder


def test_an_aborted_run_says_so(tmp_path):
    result = known_result(tmp_path)
    result.summary.verdict = Outcome.ABORTED
    result.summary.reasons = ["Run aborted: stopped by the user after 41.0 s of measurement"]
    html = render_html(load_run(str(_run_folder(tmp_path, result))))
    assert "ABORTED</span>: this run did not complete" in html and "stopped by the user after 41.0 s" in html


def test_a_crashed_run_without_a_result_is_rebuilt_from_its_samples_and_marked_aborted(tmp_path):
    bundle = load_run(str(_run_folder(tmp_path, None)))
    assert bundle.result.summary.verdict == "aborted"
    assert bundle.result.summary.measured_s == 5.0
    assert bundle.result.instances[0].db_reads_per_s == pytest.approx(291.7, abs=0.5)  # rebuilt as whole I/Os per sample
    html = render_html(bundle)
    assert "ABORTED" in html and "ended without writing its result" in html and "Performance test begins" in html


@needs_pdftotext
def test_the_pdf_has_every_heading_the_verdict_and_page_numbers(tmp_path, qapp):
    from ui.printing import write_pdf

    bundle = RunBundle(known_result(tmp_path, slow=True), _samples(), ["10:00:00 -- Test begins"], tmp_path)
    for size in ("a4", "letter"):
        pdf = tmp_path / f"report-{size}.pdf"
        pages = write_pdf(bundle, pdf, size)
        text = pdf_text(pdf)
        for heading in SECTIONS:
            assert heading in text, (size, heading)
        assert "FAIL" in text and f"Page {pages} of {pages}" in text and "run known-run" in text
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        assert ("595 x 842" if size == "a4" else "612 x 792") in info


def _tally(*problems: tuple[IoProblem, int]) -> ErrorTally:
    tally = ErrorTally()
    for problem, times in problems:
        for _ in range(times):
            tally.add(problem, 0)
    return tally


def test_io_errors_are_one_row_per_instance_and_kind_naming_the_first(tmp_path):
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, r"F:\sg1\Jetwise001.jwdb", "page", 12, 12 * 32768)
    sector = IoProblem(ErrorKind.WRONG_NUMBER, LOG_REPLICATION_READ, r"G:\log1\Jetwise002.03.jwlog", "log sector", 17,
                       17 * 512, found="log sector 9 of generation 3")
    result = known_result(tmp_path, errors={"Instance 1": _tally((page, 118)), "Instance 2": _tally((sector, 2))})
    assert result.summary.verdict == Outcome.FAIL
    assert result.summary.io_errors == 120 and result.summary.io_errors_by_kind == {"bad_checksum": 118, "wrong_number": 2}
    assert result.summary.reasons[:2] == [
        r"Instance 1: 118 bad checksums (ESE -1018 JET_errReadVerifyFailure) in database pages; the first at page 12 of "
        r"F:\sg1\Jetwise001.jwdb, byte offset 393,216",
        r"Instance 2: 2 wrong log sector numbers (ESE -501 JET_errLogFileCorrupt) in log sectors; the first at log sector 17 of "
        r"G:\log1\Jetwise002.03.jwlog, byte offset 8,704",
    ]
    html = render_html(RunBundle(result, _samples(), [], tmp_path))
    table = html[html.index(">I/O Errors</h2>") :]
    assert ("<tr><td>Instance 1</td><td>Bad checksum</td><td>-1018 JET_errReadVerifyFailure</td><td class=\"n\">118</td>\n"
            "<td>page 12</td><td class=\"n\">393,216</td><td>Database reads</td></tr>\n"
            "<tr><td class=\"path\" colspan=\"7\">in F:\\sg1\\Jetwise001.jwdb</td></tr>") in table  # the file on its own line
    assert "<td>log sector 17</td><td class=\"n\">8,704</td><td>Log replication reads</td>" in table
    assert "Failing instances:</b> Instance 1, Instance 2" in html


def test_a_result_written_before_errors_by_kind_still_reads_and_reports(tmp_path):
    document = known_result(tmp_path).model_dump(mode="json")
    document["schema_version"] = 2
    del document["error_groups"]
    for row in [document["summary"], *document["instances"]]:
        del row["io_errors_by_kind"]
    for errors, words in [(0, "No I/O errors: every page and log sector read back was the one written, checksum included"),
                          (3, "3 I/O error(s); this result was written before errors were counted by kind")]:
        document["summary"]["io_errors"] = errors
        folder = tmp_path / f"v2-{errors}"
        folder.mkdir()
        (folder / "result.json").write_text(json.dumps(document))
        bundle = load_run(str(folder))
        assert bundle.result.schema_version == 2 and bundle.result.error_groups == []
        assert bundle.result.summary.io_errors_by_kind == {}
        assert words in render_html(bundle)


def _criteria_rows(html: str) -> str:
    return html[html.index(">Pass/Fail Criteria</h2>") : html.index(">I/O Errors</h2>")]


def test_counts_are_whole_numbers_in_the_criteria_table(tmp_path):
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, r"F:\sg1\Jetwise001.jwdb", "page", 12, 12 * 32768)
    html = render_html(RunBundle(known_result(tmp_path, errors={"Instance 1": _tally((page, 118))}), _samples(), [], tmp_path))
    rows = _criteria_rows(html)
    assert '<td>I/O errors</td><td>Server</td><td class="n">118</td>\n<td class="n">≤ 0</td>' in rows
    assert '<td>Bad checksums (ESE -1018)</td><td>Instance 1</td><td class="n">118</td>\n<td class="n">≤ 0</td>' in rows
    assert '<td class="n">968.120</td>\n<td class="n">≥ 760.000</td>' in rows  # a rate keeps its decimals
    assert ">118.000<" not in rows and "≤ 0.000<" not in rows


def test_a_run_stopped_by_an_io_error_before_one_sample_interval_reports_iops_and_latency_as_not_measured(tmp_path):
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, r"F:\sg1\Jetwise001.jwdb", "page", 200, 200 * 32768)
    result = known_result(tmp_path, errors={"Instance 1": _tally((page, 1))}, measured_s=0.1, stopped=True)
    html = render_html(RunBundle(result, _samples(), [], tmp_path))
    assert "Achieved Transactional I/O per Second</th><td class=\"n\">not measured (0.1 s, less than one 1 s sample interval)" in html
    rows = _criteria_rows(html)
    for name in ("Achieved transactional IOPS", "Average database read latency", "Maximum log write latency"):
        assert f"<td>{name}</td>" in rows and f"<td>{name}</td><td>" in rows
        row = rows[rows.index(f"<td>{name}</td>") :].split("</tr>")[0]
        assert "not measured" in row and "Not measured" in row and "Pass" not in row, row
    assert rows.count(">Pass<") == 0 and rows.count(">Fail<") == 2  # the bad checksum and the I/O errors
    assert "IOPS and latency were not measured: it stopped 0.1 s into its measured window" in rows


def test_the_session_table_and_curves_leave_out_a_run_with_no_measured_time(tmp_path):
    measured = [known_result(tmp_path / str(i)) for i in range(2)]
    for index, result in enumerate(measured):
        result.run_id = f"run-{index}"
        result.summary.threads = 10 + 10 * index
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, r"F:\sg1\Jetwise001.jwdb", "page", 200, 200 * 32768)
    broken = known_result(tmp_path / "broken", errors={"Instance 1": _tally((page, 1))}, measured_s=0.1, stopped=True)
    broken.run_id, broken.summary.threads = "run-broken", 40
    bundle = RunBundle(broken, _samples(), [], tmp_path, session="s", session_results=[*measured, broken])
    charts_svg = charts(bundle)
    assert charts_svg["session_iops"].count("<circle") == 2  # the 0.1-s run is not a point of the load curve
    model_rows = report_model(bundle)
    assert model_rows.unmeasured_runs == {"run-broken"}
    assert model_rows.advice.status == "io_errors"


def test_a_chart_legend_covers_no_line():
    from reporting.charts import TOP, Level, Line, line_chart

    svg = line_chart("Average latency per interval", "ms",
                     [Line("database reads", [0, 1, 2], [18, 19, 19.5], "#1"), Line("log writes", [0, 1, 2], [9, 9, 9], "#2")],
                     [Level(20.0, "read limit 20 ms", "#1"), Level(10.0, "log limit 10 ms", "#2")])
    legend = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)">(?:database reads|log writes)</text>', svg)]
    assert len(legend) == 2 and all(y < TOP for y in legend)  # above the plot, where no series or limit is drawn
    drawn = [float(v) for v in re.findall(r'<line x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="\1" stroke="#[12]" stroke-width="1.5"', svg)]
    assert len(drawn) == 2 and all(y > TOP for y in drawn)


@needs_pdftotext
def test_the_pdf_tables_break_no_word_and_paths_only_after_a_separator(tmp_path, qapp):
    from ui.printing import write_pdf

    folder = "F:\\ExchangeVolumes\\Mailbox Database Copies\\DB01-Performance-Qualification\\Database Files"
    page = IoProblem(ErrorKind.CHECKSUM, DB_READ, folder + "\\Jetwise001.jwdb", "page", 12, 12 * 32768)
    sector = IoProblem(ErrorKind.UNINITIALISED, LOG_REPLICATION_READ, "/srv/exchange/logs/instance-two/Jetwise002.03.jwlog",
                       "log sector", 17, 17 * 512)
    result = known_result(tmp_path, errors={"Instance 1": _tally((page, 118)), "Instance 2": _tally((sector, 2))})
    pdf = tmp_path / "report.pdf"
    write_pdf(RunBundle(result, _samples(), [], tmp_path), pdf, "a4")
    text = unicodedata.normalize("NFKC", subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                                                        text=True, check=True).stdout)
    words = set(text.split())
    for word in ("Instance", "checksum", "JET_errReadVerifyFailure", "JET_errLogFileCorrupt", "Uninitialised",
                 "Reads/s", "latency", "SluggishSessions", "Jetwise001.jwdb", "Jetwise002.03.jwlog",
                 "DB01-Performance-Qualification\\Database", "F:\\ExchangeVolumes\\Mailbox", "/srv/exchange/logs/instance-two/"):
        assert any(word in w for w in words), word  # whole, on one line
    assert "Database Maintenance I/O Reads/s" in text  # a unit stays with its figure's name
    assert "\u200b" not in text  # the break points do not end up in the text a reader copies


def test_page_one_names_the_customer_the_storage_and_the_engineer_and_the_hosts_local_time(tmp_path):
    """What a customer's copy needs on its first page; the run's times as its host's clock read them, then UTC."""
    from engine.model.profile import ReportDetails
    from reporting.document import local_time

    result = known_result(tmp_path)
    details = ReportDetails(customer="Contoso Ltd", storage_model="ZFS Storage 7320, 2 x 24 SAS", engineer="A. Field")
    config = result.configuration.model_copy(update={"report": details})
    start = datetime(2026, 11, 26, 13, 5, 3, tzinfo=UTC)
    times = result.times.model_copy(update={"test_start_utc": start})
    result = result.model_copy(update={"configuration": config, "times": times,
                                       "host": result.host.model_copy(update={"utc_offset": "+01:00"})})
    html = render_html(RunBundle(result, _samples(), [], tmp_path))
    for heading, value in (("Customer", "Contoso Ltd"), ("Storage Model", "ZFS Storage 7320, 2 x 24 SAS"),
                           ("Engineer", "A. Field")):
        assert f"<tr><th>{heading}</th><td>{value}</td></tr>" in html
    assert "<tr><th>Test Start Time</th><td>2026-11-26 14:05:03 (UTC+01:00) · 13:05:03 UTC</td></tr>" in html
    assert local_time(start, "") == "2026-11-26 13:05:03 UTC"  # an older run, its host's offset not kept: UTC alone
    bare = render_html(RunBundle(known_result(tmp_path / "bare"), _samples(), [], tmp_path))
    assert "<th>Customer</th>" not in bare  # nothing said where nothing was given


def test_the_maximum_note_says_no_database_read_completed_rather_than_a_slowest_read_of_0_ms(tmp_path):
    result = known_result(tmp_path)
    assert "the slowest single database read took 90.0 ms and the slowest single log write took 9.0 ms" in maximum_note(result)
    unread = result.model_copy(update={"summary": result.summary.model_copy(update={"db_reads_per_s": 0.0,
                                                                                     "db_read_max_latency_ms": 0.0})})
    note = maximum_note(unread)
    assert "no database read completed and the slowest single log write took 9.0 ms" in note and "0.0 ms" not in note
