"""Corruption is found, named, counted and reported: real faults injected into real database and log files.

Database faults are injected between two runs of the real engine (the first creates the
files, the second reads them). The runs read only: a write would replace a corrupted page
before a read met it. Log faults are injected into a log file the real log writer has just
closed, before log replication reads it back, since a run rewrites its log files as it starts.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from engine.io.file_names import database_file_path
from engine.io.log_files import log_sector_bytes, prepare_logs
from engine.io.pages import ErrorKind
from engine.io.platform import default_backend
from engine.model.sizing import LOG_DATA_BYTES, PAGE_SIZE_BYTES
from engine.protocol import LogEvent
from engine.results.document import RESULT_FILE, read_result, read_samples
from engine.results.schema import RESULT_SCHEMA_VERSION
from engine.run.runner import Runner
from engine.run.samples import rebuild_result
from engine.workload.background import Replication
from engine.workload.context import InstanceContext, RunClock
from engine.workload.errors import STOP_REASON, ErrorTally, IoProblem
from engine.workload.logstream import LOG_DATA_START, LogWriter
from engine.workload.stats import ThreadMeter
from reporting.bundle import load_run
from reporting.document import render_html
from tests.conftest import small_config

READS_ONLY = {"insert_percent": 0, "delete_percent": 0, "replace_percent": 0, "read_percent": 100}
INSIDE = 1000  # bytes into a page: past its header, before the next sector's stamp
PAGES = 256  # of each small database: page 0 is the file header
# Instance 1's database: pages flipped inside, zeroed whole, and one holding another page's content
FLIPPED, ZEROED, MISPLACED = (17, 101, 230), (44, 199), {60: 12}  # target page: the page written there
TRUNCATED_AT = 250 * PAGE_SIZE_BYTES + 1000  # Instance 2's database ends inside page 250
EXPECTED = (
    {("Instance 1", "bad checksum", page) for page in FLIPPED}
    | {("Instance 1", "uninitialised page", page) for page in ZEROED}
    | {("Instance 1", "wrong page number", page) for page in MISPLACED}
)
LINE = re.compile(r"^(Instance \d+): (.+?) \(ESE (-\d+) (\w+)\) reading (page|log sector) (\d+) of (.+?) at byte offset ([\d,]+): ")


def _run(config, out: Path) -> tuple:
    events: list = []
    result = Runner(config, out, events.append).run()
    return result, [e for e in events if isinstance(e, LogEvent)]


def _created(disk_dir: Path, **overrides):
    """Two small databases made by a first, clean run; the configuration to read them again."""
    config = small_config(disk_dir / "data", operation_mix=READS_ONLY, **overrides)
    clean, _ = _run(config, disk_dir / "create")
    assert clean.summary.verdict == "pass" and clean.error_groups == [], clean.summary.reasons
    return config


def _database(config, index: int) -> Path:
    return database_file_path(config.databases[index].database_path, index)


def _flip(handle, at: int, count: int = 16) -> None:
    handle.seek(at)
    data = handle.read(count)
    handle.seek(at)
    handle.write(bytes(b ^ 0xFF for b in data))


def _corrupt_pages(path: Path) -> None:
    with path.open("r+b") as handle:
        for page in FLIPPED:
            _flip(handle, page * PAGE_SIZE_BYTES + INSIDE)
        for page in ZEROED:
            handle.seek(page * PAGE_SIZE_BYTES)
            handle.write(bytes(PAGE_SIZE_BYTES))
        for target, source in MISPLACED.items():
            handle.seek(source * PAGE_SIZE_BYTES)
            content = handle.read(PAGE_SIZE_BYTES)
            handle.seek(target * PAGE_SIZE_BYTES)
            handle.write(content)


def _logged(log: list[LogEvent]) -> list[tuple[str, ...]]:
    """Each error line of the test log, parsed: instance, kind, ESE error, its name, unit, number, file, offset."""
    found = [LINE.match(e.message) for e in log if e.level == "error"]
    assert all(found), [e.message for e in log if e.level == "error"]
    return [m.groups() for m in found if m]


def test_every_corrupted_page_is_found_with_its_kind_and_counted_per_instance(disk_dir):
    config = _created(disk_dir, continue_on_errors=True, duration_s=3.0)
    _corrupt_pages(_database(config, 0))
    with _database(config, 1).open("r+b") as handle:
        handle.truncate(TRUNCATED_AT)

    result, log = _run(config, disk_dir / "corrupted")
    # it continues despite errors, counting them, and they fail it: one reason per instance and kind
    assert result.summary.verdict == "fail"
    assert {r.split(":")[0] for r in result.summary.reasons} == {"Instance 1", "Instance 2"}
    lines = _logged(log)
    first = {(instance, kind, int(number)) for instance, kind, *_, number, _path, _offset in lines if instance == "Instance 1"}
    assert first == EXPECTED  # every corrupted page with its kind, and nothing else
    assert len([line for line in lines if line[0] == "Instance 1"]) == len(EXPECTED)  # each logged once
    for instance, kind, code, name, unit, number, path, offset in lines:
        assert unit == "page" and int(offset.replace(",", "")) == int(number) * PAGE_SIZE_BYTES
        assert path == str(_database(config, 0 if instance == "Instance 1" else 1))
        assert (code, name) == {"bad checksum": ("-1018", "JET_errReadVerifyFailure"),
                                "uninitialised page": ("-1019", "JET_errPageNotInitialized"),
                                "wrong page number": ("-1118", "JET_errReadPgnoVerifyFailure"),
                                "short read": ("-4001", "JET_errFileIOBeyondEOF")}[kind]
    short = {int(number) for instance, kind, *_, number, _path, _offset in lines if instance == "Instance 2"}
    assert 250 in short and short <= set(range(250, PAGES))  # maintenance names the page the file ends in
    assert all(kind == "short read" for instance, kind, *_ in lines if instance == "Instance 2")
    assert any("it holds page 12" in e.message for e in log)

    groups = {(g.instance, g.kind): g for g in result.error_groups}
    assert set(groups) == {("Instance 1", ErrorKind.CHECKSUM), ("Instance 1", ErrorKind.UNINITIALISED),
                           ("Instance 1", ErrorKind.WRONG_NUMBER), ("Instance 2", ErrorKind.SHORT_READ)}
    for (instance, kind), group in groups.items():
        assert group.count >= {ErrorKind.CHECKSUM: 3, ErrorKind.UNINITIALISED: 2}.get(kind, 1)
        assert (instance, group.title, group.first_number) in EXPECTED or group.first_number in short
        assert group.first_offset == group.first_number * PAGE_SIZE_BYTES and group.unit == "page"
    one, two = result.instances
    assert one.io_errors_by_kind == {k.value: groups[("Instance 1", k)].count
                                     for k in (ErrorKind.CHECKSUM, ErrorKind.UNINITIALISED, ErrorKind.WRONG_NUMBER)}
    assert two.io_errors_by_kind == {"short_read": groups[("Instance 2", ErrorKind.SHORT_READ)].count}
    assert result.summary.io_errors == one.io_errors + two.io_errors == sum(g.count for g in groups.values())
    saved = read_result(disk_dir / "corrupted")
    assert saved.summary.io_errors_by_kind == result.summary.io_errors_by_kind and saved.error_groups == result.error_groups


def test_a_corrupted_page_fails_the_run_with_one_reason_per_kind_in_result_and_report(disk_dir):
    config = _created(disk_dir)
    for index in (0, 1):
        _corrupt_pages(_database(config, index))

    result, log = _run(config, disk_dir / "corrupted")
    assert result.summary.verdict == "fail"
    assert STOP_REASON in result.summary.reasons  # the test stops at the first error
    kinds = {"bad_checksum": "bad checksum", "uninitialised": "uninitialised page", "wrong_number": "wrong page number"}
    grouped = [r for r in result.summary.reasons if r != STOP_REASON and re.match(r"Instance \d: \d+ ", r)]
    assert len(grouped) == len(result.error_groups) >= 1 and len(result.summary.reasons) <= len(grouped) + 3
    for group in result.error_groups:
        assert (group.instance, kinds[group.kind], group.first_number) in {(f"Instance {i}", k, p) for i in (1, 2)
                                                                            for _, k, p in EXPECTED}
        assert any(r.startswith(f"{group.instance}: {group.count} {group.title}") and f"page {group.first_number} of" in r
                   for r in grouped)
        failed = [c for c in result.criteria if c.instance == group.instance and c.name.startswith(group.title)]
        assert [(c.value, c.passed) for c in failed] == [(group.count, False)]
    assert any(e.level == "error" for e in log)

    document = (disk_dir / "corrupted" / RESULT_FILE).read_text()
    assert f'"schema_version": {RESULT_SCHEMA_VERSION}' in document and '"error_groups"' in document
    html = render_html(load_run(str(disk_dir / "corrupted")))
    table = html[html.index(">I/O Errors</h2>") :]
    for group in result.error_groups:
        row = (f"<tr><td>{group.instance}</td><td>{group.title[:1].upper() + group.title[1:]}</td>"
               f"<td>{group.ese_error} {group.ese_name}</td><td class=\"n\">{group.count:,}</td>")
        assert row in table, row
        assert f"<td>page {group.first_number}</td><td class=\"n\">{group.first_offset:,}</td>" in table


def test_a_flood_of_bad_pages_is_one_counted_row_per_instance_and_a_bounded_log(disk_dir):
    config = _created(disk_dir, continue_on_errors=True)
    for index in (0, 1):
        with _database(config, index).open("r+b") as handle:
            for page in range(1, PAGES):
                _flip(handle, page * PAGE_SIZE_BYTES + INSIDE)

    result, log = _run(config, disk_dir / "flood")
    assert [(g.instance, g.kind) for g in sorted(result.error_groups, key=lambda g: g.instance)] == [
        ("Instance 1", ErrorKind.CHECKSUM), ("Instance 2", ErrorKind.CHECKSUM)]
    assert all(g.count >= 100 for g in result.error_groups)
    errors = [e for e in log if e.level == "error"]
    assert len(errors) <= 2 * 20  # each worker shows 20 bad pages, then says the rest are counted
    assert any("counted by kind but not logged" in e.message for e in log)
    assert result.summary.verdict == "fail" and len(result.summary.reasons) == 2  # one per instance and kind
    criterion = next(c for c in result.criteria if c.name.startswith("I/O errors"))
    assert criterion.value == result.summary.io_errors > 200 and "continued despite them" in criterion.name
    assert not criterion.passed


class _ClosedLogs:
    """The real log writer over fresh log files, run until two files are closed, and replication to read them."""

    DB_ID = b"C" * 16

    def __init__(self, folder: Path, *, verify: bool = True) -> None:
        backend = default_backend()
        unbuffered = backend.probe_unbuffered(folder).supported
        self.paths = prepare_logs(backend, folder, 0, self.DB_ID, unbuffered=unbuffered)
        self.sector = log_sector_bytes(backend, self.paths[0], unbuffered=unbuffered)
        now = time.perf_counter_ns()
        self.clock = RunClock(t0_ns=now, interval_ns=10**12, stop_at_ns=now + 10**13, stop=threading.Event())
        self.problems: list[IoProblem] = []
        ctx = InstanceContext(backend, "Instance 1", self.clock, lambda _name, p: self.problems.append(p),
                              lambda *_: None, unbuffered, verify)
        self.writer = LogWriter(ctx, ThreadMeter("Instance 1", now, 10**12), self.paths, self.DB_ID, self.sector)
        self.meter = ThreadMeter("Instance 1", now, 10**12)
        self.replication = Replication(ctx, self.meter, self.paths, self.DB_ID, self.sector, 1,
                                       lambda: self.writer.newest_generation)
        self.writer.thread.start()
        while self.writer.generation < 2:  # each commit returns once written: files 0 and 1 are closed
            self.writer.append(64 * 1024, commit=True)
        assert not self.problems

    def offset(self, sector: int) -> int:
        """The byte offset of the `sector`-th sector of log data."""
        return LOG_DATA_START + sector * self.sector

    def ship(self) -> ErrorTally:
        """Replicate files 0 and 1 and stop; the errors counted, by kind."""
        try:
            assert self.replication.ship(0) and self.replication.ship(1)
        finally:
            self.clock.stop.set()
            self.writer.thread.join(5)
            self.writer.close()
            self.replication.close()
        tally = ErrorTally()
        for bucket in self.meter.take(1 << 62):
            tally.merge(bucket.errors)
        return tally


@pytest.mark.parametrize("verify", [True, False])
def test_every_corrupted_log_sector_is_found_with_its_kind_when_replication_reads_it(tmp_path, verify):
    logs = _ClosedLogs(tmp_path, verify=verify)
    flipped, zeroed, source, target = 3, 40, 7, 100
    with logs.paths[0].open("r+b") as handle:
        _flip(handle, logs.offset(flipped) + 100)
        handle.seek(logs.offset(zeroed))
        handle.write(bytes(logs.sector))
        handle.seek(logs.offset(source))
        content = handle.read(logs.sector)
        handle.seek(logs.offset(target))
        handle.write(content)
    size = LOG_DATA_START + LOG_DATA_BYTES // 2 + 100  # file 1 ends inside a sector, halfway
    with logs.paths[1].open("r+b") as handle:
        handle.truncate(size)

    tally = logs.ship()
    number = logs.offset(0) // logs.sector  # the first sector of log data, counted from the file's start
    expected = {
        (ErrorKind.UNINITIALISED, str(logs.paths[0]), number + zeroed),
        (ErrorKind.WRONG_NUMBER, str(logs.paths[0]), number + target),
        (ErrorKind.SHORT_READ, str(logs.paths[1]), size // logs.sector),
    } | ({(ErrorKind.CHECKSUM, str(logs.paths[0]), number + flipped)} if verify else set())
    assert {(p.kind, p.path, p.number) for p in logs.problems} == expected
    assert all(p.unit == "log sector" and p.offset == p.number * logs.sector for p in logs.problems)
    wrong = next(p for p in logs.problems if p.kind == ErrorKind.WRONG_NUMBER)
    assert f"it holds log sector {number + source} of generation 0" in str(wrong)
    assert str(next(p for p in logs.problems if p.kind == ErrorKind.UNINITIALISED)).startswith(
        "uninitialised log sector (ESE -501 JET_errLogFileCorrupt) reading log sector")
    if verify:
        assert str(next(p for p in logs.problems if p.kind == ErrorKind.CHECKSUM)).startswith(
            f"bad checksum (ESE -612 JET_errLogReadVerifyFailure) reading log sector {number + flipped} of {logs.paths[0]}")
    assert tally.by_kind() == {kind.value: 1 for kind, _, _ in expected}


def test_log_sectors_replicated_untouched_pass_their_check(tmp_path):
    logs = _ClosedLogs(tmp_path)
    tally = logs.ship()
    assert logs.problems == [] and not tally


def test_a_result_rebuilt_from_the_samples_is_the_one_the_run_wrote(disk_dir):
    """As after a kill: the samples hold the run's counters, so the rebuilt result has the written one's figures,
    each instance's percentiles and its I/O errors by kind."""
    config = _created(disk_dir, continue_on_errors=True, duration_s=3.0)
    _corrupt_pages(_database(config, 0))
    written, _ = _run(config, disk_dir / "corrupted")
    assert written.error_groups and all(row.latency_percentiles_ms for row in written.instances)
    rebuilt = rebuild_result(config, read_samples(disk_dir / "corrupted"), written.run_id, "the engine process ended")
    assert rebuilt.summary.verdict == "aborted"
    # it says how it ended, and knows the databases' lengths at the end only
    own = {"verdict", "database_bytes_initial"}
    assert [row.model_dump(exclude=own) for row in rebuilt.instances] == \
        [row.model_dump(exclude=own) for row in written.instances]
    judged = {"verdict", "reasons", "failures"}  # it says how it ended
    assert rebuilt.summary.model_dump(exclude=judged) == written.summary.model_dump(exclude=judged)
    assert rebuilt.error_groups == written.error_groups and rebuilt.criteria == written.criteria
