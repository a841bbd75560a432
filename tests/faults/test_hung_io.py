"""An I/O the storage holds past the hung I/O threshold is said while it hangs, by its file, page and offset (ESE's
event 532 for a read, 533 for a write), and fails the test without waiting for it: by default the test stops there, and
when it continues despite I/O errors it runs to its end, its other I/Os measured, the hung one failing it.

The hang is real: `tests.faults.hanging_device` holds one database read, or one page flush, of a real file under real
unbuffered I/O for two minutes, far longer than the test waits. The same design through the same device, with nothing
held, passes with no error beside it. The threshold is ESE's lowest, 11 s (30 s by default), so each test is short.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import pytest

from app.cli.console import print_result
from engine.io.pages import ErrorKind
from engine.model.config import TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.protocol import IntervalEvent, LogEvent
from engine.results.schema import Outcome, RunResult
from engine.run.runner import Runner
from reporting.bundle import load_run
from reporting.document import render_html
from tests.conftest import small_config
from tests.reporting.reading import html_text

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="the faulty devices are built on the POSIX backend"),
              pytest.mark.slow]

THRESHOLD_S = 11.0  # ESE's lowest hung I/O threshold
HOLD_S = 120.0  # how long the device holds the I/O: the test must end long before


def _config(folder: Path, **changes: object) -> TestConfig:
    values: dict[str, object] = {"duration_s": 40.0, "background_maintenance": False, "seed": 5,
                                 "hung_io_threshold_s": THRESHOLD_S, **changes}
    return small_config(folder, databases=1, **values)


def _hung_run(tmp_path: Path, name: str, config: TestConfig, *, writes: bool) -> tuple[RunResult, list[str], object]:
    from tests.faults.hanging_device import HangingDevice

    ask = tmp_path / f"{name}.hang"
    device = HangingDevice(ask, HOLD_S, writes=writes)
    said_while_held: list[str] = []

    def emit(event: object) -> None:
        if isinstance(event, IntervalEvent) and event.sample.phase == "measure":
            ask.touch()  # measuring: the next database read (or flush) hangs
        if isinstance(event, LogEvent) and ": hung " in event.message:
            said_while_held.append(f"{'held' if not device.completed() else 'completed'}: {event.message}")

    started = time.monotonic()
    try:
        result = Runner(config, tmp_path / f"{name}-run", emit, backend=device).run()
        waited = not device.completed()
        assert waited, "the run waited for the hung I/O to complete"
    finally:
        device.release.touch()  # the held I/O completes; its worker is gone by now
    assert time.monotonic() - started < HOLD_S / 2
    return result, said_while_held, device


def _the_hung_group(result: RunResult, kind: ErrorKind, held: tuple[str, int, int]):
    [group] = [g for g in result.error_groups if g.kind == kind]
    path, offset, _length = held
    assert (group.first_file, group.first_offset, group.first_number) == (path, offset, offset // PAGE_SIZE_BYTES)
    assert group.count == 1  # the one I/O held, and no other I/O of the run taken for hung
    return group


def test_a_read_held_past_the_threshold_is_said_while_it_hangs_and_stops_the_test_failed_beside_a_clean_control(tmp_path):
    from tests.faults.hanging_device import HangingDevice

    control = Runner(_config(tmp_path / "clean", duration_s=3.0), tmp_path / "clean-run", lambda _e: None,
                     backend=HangingDevice(tmp_path / "never", HOLD_S)).run()
    assert control.verdict == Outcome.PASS, control.summary.reasons
    assert control.error_groups == []

    result, said, device = _hung_run(tmp_path, "read", _config(tmp_path / "read"), writes=False)
    held = device.held()
    assert held is not None, "the device held no read"
    group = _the_hung_group(result, ErrorKind.HUNG_READ, held)
    assert (group.ese_error, group.ese_name, group.title) == (532, "IOMGR_HUNG_READ_IO_DETECTED_ID", "hung read")
    path, offset, length = held
    assert group.first_message.startswith(
        f"hung read (ESE event 532 IOMGR_HUNG_READ_IO_DETECTED_ID) reading page {offset // PAGE_SIZE_BYTES} of {path} "
        f"at byte offset {offset:,}: the read of {length:,} bytes has not completed ")
    assert "past the hung I/O threshold of 11 s: the storage is holding it" in group.first_message
    # said in the test log while the storage still held it
    assert said and said[0].startswith("held: Instance 1: hung read (ESE event 532"), said
    # it fails the test, which stopped there: long before its 40 s, not waiting for the read
    assert result.verdict == Outcome.FAIL
    assert any("hung read" in reason and "ESE event 532" in reason for reason in result.summary.reasons)
    assert any("stopped at a hung I/O without waiting for it" in reason for reason in result.summary.reasons)
    assert result.summary.measured_s < 40.0 - 10
    # the console and the report say it as the test log does
    console = io.StringIO()
    print_result(result, console)
    assert "1 hung read (ESE event 532 IOMGR_HUNG_READ_IO_DETECTED_ID) in database pages" in console.getvalue()
    page = html_text(render_html(load_run(str(tmp_path / "read-run"))))
    assert "Hung read event 532 IOMGR_HUNG_READ_IO_DETECTED_ID 1" in page, page[page.find("I/O Errors"):][:600]


def test_a_flush_held_past_the_threshold_fails_a_test_that_continues_despite_errors_which_runs_to_its_end(tmp_path):
    config = _config(tmp_path / "write", duration_s=16.0, continue_on_errors=True)
    result, said, device = _hung_run(tmp_path, "write", config, writes=True)
    held = device.held()
    assert held is not None, "the device held no flush"
    group = _the_hung_group(result, ErrorKind.HUNG_WRITE, held)
    assert (group.ese_error, group.ese_name, group.title) == (533, "IOMGR_HUNG_WRITE_IO_DETECTED_ID", "hung write")
    assert group.first_message.startswith("hung write (ESE event 533 IOMGR_HUNG_WRITE_IO_DETECTED_ID) writing page ")
    assert said and said[0].startswith("held: Instance 1: hung write"), said
    assert result.verdict == Outcome.FAIL
    assert any("hung write" in reason for reason in result.summary.reasons)
    assert not any("stopped at" in reason for reason in result.summary.reasons)  # it ran on, as asked
    [row] = result.instances
    assert row.db_reads_per_s > 0  # the other threads' I/O went on, measured
    assert result.summary.measured_s >= 16.0 - 1


def test_a_checksum_read_held_past_the_threshold_stops_the_scan_failed_even_when_it_continues_despite_errors(tmp_path):
    from engine.model.config import TestType
    from tests.faults.hanging_device import HangingDevice

    made = Runner(_config(tmp_path / "db", duration_s=1.0), tmp_path / "made", lambda _e: None).run()
    assert made.verdict == Outcome.PASS, made.summary.reasons
    config = _config(tmp_path / "db", test_type=TestType.DATABASE_CHECKSUM, continue_on_errors=True)
    ask = tmp_path / "scan.hang"
    ask.touch()  # the scan's first database read past the header hangs
    device = HangingDevice(ask, HOLD_S)
    started = time.monotonic()
    try:
        result = Runner(config, tmp_path / "scan-run", lambda _e: None, backend=device).run()
        assert not device.completed(), "the scan waited for the hung read to complete"
    finally:
        device.release.touch()
    assert time.monotonic() - started < HOLD_S / 2
    held = device.held()
    assert held is not None
    group = _the_hung_group(result, ErrorKind.HUNG_READ, held)
    assert group.ese_error == 532
    assert result.verdict == Outcome.FAIL
    assert any("scan stopped at a hung I/O without waiting for it" in reason for reason in result.summary.reasons)
    assert result.scan is not None and not any(database.complete for database in result.scan.databases)
