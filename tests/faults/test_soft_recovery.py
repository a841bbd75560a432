"""Soft Recovery on real files: the log generated under load is replayed into the database, every logged update is on
disk afterwards and a checksum pass finds the database whole; the test runs again, stops, and meets damage."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from engine.io.file_names import database_file_path, log_file_path
from engine.io.pages import HEADER_BYTES, SECTOR_BYTES, log_records, page_sequence, read_database_header, read_log_header
from engine.io.platform import AlignedBuffer, IoBackend, IoFile, UnbufferedProbe, default_backend
from engine.model import config as model
from engine.model.sizing import LOG_DATA_BYTES, LOG_FILE_SIZE_BYTES, PAGE_SIZE_BYTES
from engine.protocol import IntervalEvent, Phase, PhaseEvent, ProgressEvent
from engine.results.document import read_samples
from engine.results.schema import Outcome
from engine.run.runner import Runner
from engine.workload.instance import InstancePlan
from engine.workload.recovery import RecoveryTally, Replay
from reporting.bundle import load_run
from tests.conftest import small_config
from tests.faults.pass_through import PassThroughBackend, PassThroughFile

FILES = 6
pytestmark = pytest.mark.slow  # real files: each test generates and replays log files under load


def _soft_recovery(base: Path, out: Path, emit=lambda _event: None, **overrides: object):
    config = small_config(base, test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=FILES, **overrides)
    runner = Runner(config, out, emit)
    return config, runner, runner.run()


def _newest_logged(config: model.TestConfig, index: int) -> dict[int, int]:
    """page -> the newest sequence any record of the instance's log files gave it, read straight from the files."""
    newest: dict[int, int] = {}
    for generation in range(FILES):
        path = log_file_path(config.databases[index].log_path, index, generation)
        sector = read_log_header(path).sector_bytes
        data = path.read_bytes()
        for at in range(SECTOR_BYTES, LOG_FILE_SIZE_BYTES, sector):
            for page, sequence in log_records(memoryview(data)[at:]):
                newest[page] = max(sequence, newest.get(page, 0))
    return newest


def _on_disk(config: model.TestConfig, index: int) -> dict[int, int]:
    data = database_file_path(config.databases[index].database_path, index).read_bytes()
    # every page the file holds: the planned ones and those the load grew it by
    return {page: page_sequence(memoryview(data)[page * PAGE_SIZE_BYTES :]) for page in range(1, len(data) // PAGE_SIZE_BYTES)}


def test_every_logged_update_is_on_disk_after_replay_and_a_checksum_then_passes(tmp_path):
    base = tmp_path / "data"
    for run in ("first", "again"):  # run twice: the second generates over the first's logs and replays them too
        events: list[object] = []
        config, _runner, result = _soft_recovery(base, tmp_path / run, events.append)
        assert result.verdict == Outcome.PASS, result.summary.reasons
        replay = next(i for i, e in enumerate(events) if isinstance(e, PhaseEvent) and e.phase == Phase.REPLAYING)
        assert events[replay].message == "Replaying log files"
        progress = [(i, e) for i, e in enumerate(events)
                    if isinstance(e, ProgressEvent) and e.phase in (Phase.MEASURING, Phase.REPLAYING)]
        assert all((e.phase == Phase.REPLAYING) == (i > replay) for i, e in progress)  # each phase's progress its own
        # the generation's progress counts log data bytes, the replay's whole files: none of one comes in the other's phase
        assert progress and all(e.total_bytes % LOG_DATA_BYTES == 0 for i, e in progress if i < replay)
        assert all(e.total_bytes % LOG_FILE_SIZE_BYTES == 0 for i, e in progress if i > replay)
        assert [e.done_bytes for i, e in progress if i > replay][-1] == 2 * FILES * LOG_FILE_SIZE_BYTES
        assert {e.total_bytes for i, e in progress if i > replay} == {2 * FILES * LOG_FILE_SIZE_BYTES}  # known ahead
        assert not [e for e in events[replay:] if isinstance(e, IntervalEvent)]  # the generation's samples come first
        for row in result.recovery.instances:
            assert row.log_files_generated == row.log_files_replayed == FILES and row.complete
            assert row.records > 1000 and row.pages_redone > 0 and row.pages_current > 0  # the crash lost some updates
            assert row.records == row.pages_redone + row.pages_current and row.errors == 0
            assert row.log_bytes_read == FILES * LOG_FILE_SIZE_BYTES and row.page_reads > 0 and row.pages_written > 0
        assert result.recovery.seconds_per_log_file > 0
        passed = {(c.name, c.instance) for c in result.criteria if c.passed}
        assert ("seconds to play one log file", "Instance 1") in passed
        assert ("log files replayed", "Instance 2") in passed
        assert any(c.name.startswith("average database read latency") for c in result.criteria)  # the load is judged too
        for index in range(2):
            newest, on_disk = _newest_logged(config, index), _on_disk(config, index)
            assert len(newest) > 100
            behind = [page for page, sequence in newest.items() if on_disk[page] < sequence]
            assert behind == []  # every update the logs hold is on its page
        assert read_samples(tmp_path / run)
        assert load_run(str(tmp_path / run)).result.recovery == result.recovery
    checksum = small_config(base, test_type=model.TestType.DATABASE_CHECKSUM)
    checked = Runner(checksum, tmp_path / "checksum", lambda _event: None).run()
    assert checked.verdict == Outcome.PASS, checked.summary.reasons
    assert all(d.seen_pages == d.pages and d.log_files == FILES for d in checked.scan.databases)
    fewer = checksum.model_copy(update={"log_files_to_checksum": 2})  # Jetstress's LogFilesToChecksum
    checked = Runner(fewer, tmp_path / "checksum-2", lambda _event: None).run()
    assert checked.verdict == Outcome.PASS and [d.log_files for d in checked.scan.databases] == [2, 2]


HOLD_LIMIT_S = 60.0  # the replay's phase is announced within a second or two of its start, on a loaded machine too


class _HeldReplay(PassThroughBackend):
    """Holds the replay's log files until the run is told to stop (`stopped`, a file the worker processes see),
    then opens each a fifth of a second late: a small replay cannot end before the stop reaches it. A replay held
    `HOLD_LIMIT_S` without the stop (the runner never announced it) fails to open its log, and the test says so."""

    def __init__(self, stopped: Path) -> None:
        super().__init__()
        self.stopped = stopped

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        if path.suffix == ".jwlog" and not writable:  # the replay reads them; nothing else does with one copy
            deadline = time.monotonic() + HOLD_LIMIT_S
            while not self.stopped.exists():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"held {HOLD_LIMIT_S:g} s: the runner never announced the replay")
                time.sleep(0.01)
            time.sleep(0.2)
        return super().open_file(path, create=create, writable=writable, unbuffered=unbuffered,
                                 write_through=write_through)


def test_a_stop_during_replay_reports_what_was_replayed_and_the_next_run_passes(tmp_path):
    runner: Runner
    stopped = tmp_path / "stopped-asked"

    def emit(event: object) -> None:
        if isinstance(event, PhaseEvent) and event.phase == Phase.REPLAYING:
            runner.request_stop("stopped by the user")
            stopped.touch()

    config = small_config(tmp_path / "data", test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=FILES)
    runner = Runner(config, tmp_path / "stopped", emit, backend=_HeldReplay(stopped))
    result = runner.run()
    assert result.verdict == Outcome.ABORTED, result.summary.reasons
    reason = result.summary.reasons[0]
    assert "while replaying the log files" in reason and f"{2 * FILES} of {2 * FILES} log files were generated" in reason
    assert all(row.log_files_generated == FILES and not row.complete for row in result.recovery.instances)
    assert read_samples(tmp_path / "stopped")
    assert load_run(str(tmp_path / "stopped")).result.recovery == result.recovery
    _config, _runner, again = _soft_recovery(tmp_path / "data", tmp_path / "again")
    assert again.verdict == Outcome.PASS, again.summary.reasons


class _HungReplay(PassThroughBackend):
    """Reads of the replay's log files that do not complete until `released` exists (a storage that stops answering),
    or `HOLD_LIMIT_S` has gone by; the first to start says so (`reading`, a file the worker processes see)."""

    def __init__(self, reading: Path, released: Path) -> None:
        super().__init__()
        self.reading, self.released = reading, released

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        handle = super().open_file(path, create=create, writable=writable, unbuffered=unbuffered,
                                   write_through=write_through)
        return _HungFile(handle, self) if path.suffix == ".jwlog" and not writable else handle


class _HungFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: _HungReplay) -> None:
        super().__init__(inner)
        self.device = device

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        self.device.reading.touch()
        deadline = time.monotonic() + HOLD_LIMIT_S
        while not self.device.released.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return super().read_into(buffer, offset, length)


def test_a_stop_during_a_replay_whose_read_never_completes_ends_the_test_and_says_so(tmp_path):
    reading, released = tmp_path / "reading", tmp_path / "released"
    config = small_config(tmp_path / "data", test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=FILES)
    runner = Runner(config, tmp_path / "stopped", lambda _event: None, backend=_HungReplay(reading, released))

    def stop_once_a_read_hangs() -> None:
        deadline = time.monotonic() + HOLD_LIMIT_S
        while not reading.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        runner.request_stop("stopped by the user")

    stopper = threading.Thread(target=stop_once_a_read_hangs, daemon=True)
    stopper.start()
    try:
        result = runner.run()
        assert reading.exists() and not released.exists()  # the test ended with a read still held
    finally:
        released.touch()
        stopper.join(HOLD_LIMIT_S)
    assert result.verdict == Outcome.ABORTED, result.summary.reasons
    assert "while replaying the log files" in result.summary.reasons[0]
    assert all(not row.complete and row.log_files_replayed == 0 for row in result.recovery.instances)
    hung = "the replay did not end within 10 s of the stop: an I/O did not complete"
    assert hung in [row.failure for row in result.recovery.instances]  # the one held, or both
    assert hung in (tmp_path / "stopped" / "test.log").read_text()


def test_a_stop_during_log_generation_replays_nothing_and_says_how_far_it_got(tmp_path):
    runner: Runner

    def emit(event: object) -> None:  # stopped once a few log files are written
        if isinstance(event, ProgressEvent) and event.phase == Phase.MEASURING and event.done_bytes >= 4 * LOG_FILE_SIZE_BYTES:
            runner.request_stop("stopped by the user")

    config = small_config(tmp_path / "data", test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=40)
    runner = Runner(config, tmp_path / "stopped", emit)
    result = runner.run()
    assert result.verdict == Outcome.ABORTED
    assert "of 80 log files were generated and 0 replayed" in result.summary.reasons[0]
    assert all(row.log_files_generated < 40 and row.log_files_replayed == 0 for row in result.recovery.instances)
    assert sum(row.log_files_generated for row in result.recovery.instances) >= 2


def _plan(config: model.TestConfig, index: int) -> InstancePlan:
    spec = config.databases[index]
    db = database_file_path(spec.database_path, index)
    logs = [log_file_path(spec.log_path, index, n) for n in range(FILES)]
    header = read_database_header(db)
    return InstancePlan(index, config.instance_name(index), [db], logs, header.db_id, [header.pages_planned],
                        config.threads_for_database(index), read_log_header(logs[0]).sector_bytes)


def _replay(config: model.TestConfig, backend: IoBackend | None = None) -> tuple[RecoveryTally, list[str]]:
    said: list[str] = []
    tally = RecoveryTally(log_files=FILES, log_files_generated=FILES)
    Replay(backend or default_backend(), _plan(config, 0), config, tally, unbuffered=not config.allow_buffered_io,
           should_stop=lambda: False, say=lambda text, _level: said.append(text), progress=lambda _d, _t: None).run()
    return tally, said


def test_a_damaged_log_sector_stops_the_replay_and_says_where(tmp_path):
    config, _runner, result = _soft_recovery(tmp_path / "data", tmp_path / "out", databases=1)
    assert result.verdict == Outcome.PASS, result.summary.reasons
    log = log_file_path(config.databases[0].log_path, 0, 2)
    at = 7 * SECTOR_BYTES + HEADER_BYTES + 30
    fd = os.open(log, os.O_RDWR)
    try:
        os.pwrite(fd, bytes([os.pread(fd, 1, at)[0] ^ 0x5A]), at)
    finally:
        os.close(fd)
    tally, said = _replay(config)
    assert tally.log_files_replayed == 2 and tally.damaged == 1 and not tally.complete
    assert f"log file {log} is damaged at byte {7 * SECTOR_BYTES:,}" in tally.failure and "ESE -612" in tally.failure
    assert any(tally.failure in line for line in said)


class _ForgetfulDevice(IoBackend):
    """Acknowledges database writes and, once the replay reads its first log file, keeps none of them: every flush is
    lost. The replay is the only reader of log files here (one copy per database: no replication reads them). The
    workers are processes: `replaying` is a file they all see."""

    name = "forgetful"

    def __init__(self, replaying: Path) -> None:
        self.inner = default_backend()
        self.replaying = replaying

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        inner = self.inner.open_file(path, create=create, writable=writable, unbuffered=unbuffered, write_through=write_through)
        if path.suffix == ".jwlog" and not writable:
            self.replaying.touch()
        return _Forgetful(inner, self.replaying) if path.suffix == ".jwdb" else inner

    def allocate(self, size: int) -> AlignedBuffer:
        return self.inner.allocate(size)

    def probe_unbuffered(self, directory: Path) -> UnbufferedProbe:
        return self.inner.probe_unbuffered(directory)


class _Forgetful(PassThroughFile):
    def __init__(self, inner: IoFile, replaying: Path) -> None:
        super().__init__(inner)
        self.replaying = replaying

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if self.replaying.exists():
            return length if length is not None else buffer.size
        return super().write_from(buffer, offset, length)


def test_writes_the_storage_acknowledged_and_lost_during_replay_are_found_as_lost_flushes(tmp_path):
    config = small_config(tmp_path / "data", test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=FILES)
    assert config.copies_per_database == 1
    device = _ForgetfulDevice(tmp_path / "replaying")
    result = Runner(config, tmp_path / "out", lambda _event: None, backend=device).run()
    assert device.replaying.exists()
    assert result.verdict == Outcome.FAIL
    assert sum(row.lost_flushes for row in result.recovery.instances) > 0
    assert any("lost flushes, ESE -1119" in reason for reason in result.summary.reasons)
    failed = {c.name for c in result.criteria if not c.passed}
    assert failed == {"replay errors"}


def test_a_killed_soft_recovery_is_rebuilt_from_its_samples_of_the_log_generation(tmp_path):
    from engine.run.samples import rebuild_result

    config, _runner, finished = _soft_recovery(tmp_path / "data", tmp_path / "done")
    rebuilt = rebuild_result(config, read_samples(tmp_path / "done"), finished.run_id, "the engine process was killed")
    assert rebuilt.verdict == Outcome.ABORTED and "the engine process was killed" in rebuilt.summary.reasons[0]
    assert rebuilt.recovery is not None and rebuilt.recovery.log_files_replayed == 0
    assert any(note.what == "replay_not_sampled" for note in rebuilt.notes)
    assert rebuilt.summary.achieved_transactional_iops > 0


def test_a_replay_that_ends_before_the_window_is_told_of_it_still_shows_how_far_it_got(tmp_path, monkeypatch):
    from engine.run.sources import pool

    announce = pool._PoolRun._announce_replay

    def only_at_the_end(self, shown: bool = False) -> None:  # as when the generation's last sample comes late
        if shown:
            announce(self, shown)

    monkeypatch.setattr(pool._PoolRun, "_announce_replay", only_at_the_end)
    events: list[object] = []
    _config, _runner, result = _soft_recovery(tmp_path / "data", tmp_path / "late", events.append)
    assert result.verdict == Outcome.PASS, result.summary.reasons
    replay = next(i for i, e in enumerate(events) if isinstance(e, PhaseEvent) and e.phase == Phase.REPLAYING)
    shown = [e for e in events[replay:] if isinstance(e, ProgressEvent) and e.phase == Phase.REPLAYING]
    assert shown and shown[-1].done_bytes == shown[-1].total_bytes == 2 * FILES * LOG_FILE_SIZE_BYTES
