"""The messages between the runner and its worker processes: what crosses a process boundary, and what is refused."""

from __future__ import annotations

import multiprocessing
import os
import time
import typing
from types import SimpleNamespace

import psutil
import pytest

from engine.io.platform import default_backend
from engine.model import config as model
from engine.model.sizing import LOG_FILE_SIZE_BYTES
from engine.protocol import IntervalEvent, LogEvent, Phase, PhaseEvent, ProgressEvent
from engine.results.document import RESULT_FILE
from engine.run import worker as worker_module
from engine.run.measurement import Measurement
from engine.run.messages import (
    MESSAGE_VERSION,
    DatabaseProgress,
    IntervalCounters,
    LogsGenerated,
    RecoveryReport,
    ScanReport,
    WorkerChannels,
    WorkerCrash,
    WorkerDone,
    WorkerHello,
    WorkerIoError,
    WorkerLog,
    WorkerMessage,
    WorkerReady,
    WorkerSpec,
)
from engine.run.processes import UnreadableMessage, WorkerProcesses
from engine.run.runner import Runner
from engine.run.sources import pool
from engine.workload.context import RunClock
from engine.workload.histogram import bucket_index
from engine.workload.recovery import RecoveryTally
from engine.workload.scan import ScanTally
from engine.workload.stats import InstanceInterval, StreamStats, ThreadMeter
from tests.conftest import small_config


def _counters() -> dict[str, InstanceInterval]:
    reads = StreamStats()
    reads.count, reads.bytes, reads.sum_ns, reads.max_ns = 3, 3 * 32768, 450_000, 200_000
    reads.hist[40] = 2
    reads.hist[900] = 1
    return {"Instance 1": InstanceInterval("Instance 1", {"db_read": reads}, [5, 1, 0, 0])}


EVERY_KIND: list[WorkerMessage] = [
    WorkerHello(0, 4321),
    DatabaseProgress(1, 3, 1 << 20, 8 << 20),
    WorkerReady(1),
    IntervalCounters(0, 7, _counters()),
    ScanReport(1, 2, ScanTally(pages_total=64, pages_seen=64, pages_damaged={"bad_checksum": 1},
                               first_damaged=[(17, 17 * 32768, "bad_checksum")], complete=True), 123_456_789),
    LogsGenerated(0, 1, 987_654_321),
    RecoveryReport(1, 0, RecoveryTally(log_files=500, log_files_generated=500, log_files_replayed=17, records=9_000,
                                       failure="log file X is damaged")),
    WorkerLog(1, "warning", "Instance 2: log written in 4096-byte sectors"),
    WorkerIoError(0, "Instance 1: I/O error (Input/output error); the test stopped"),
    WorkerCrash(1, "ValueError: no such page", 'Traceback (most recent call last):\n  File "worker.py"'),
    WorkerDone(0),
]


def test_every_message_kind_crosses_a_process_queue_unchanged():
    assert {type(m) for m in EVERY_KIND} == set(typing.get_args(WorkerMessage)), "a message kind has no example here"
    queue = multiprocessing.get_context("spawn").Queue()
    try:
        for message in EVERY_KIND:
            queue.put(message)
        received = [queue.get(timeout=10) for _ in EVERY_KIND]
    finally:
        queue.close()
        queue.join_thread()
    assert received == EVERY_KIND
    assert [type(m) for m in received] == [type(m) for m in EVERY_KIND]
    assert all(not hasattr(m, "__dict__") for m in received)  # slotted: small to pickle, cheap to build
    reads = received[3].counters["Instance 1"].streams["db_read"]
    assert (reads.count, reads.max_ns, reads.hist[40], reads.hist[900]) == (3, 200_000, 2, 1)


def test_a_worker_started_with_spawn_says_hello_first_and_done_last(disk_dir):
    config = small_config(disk_dir / "data", databases=1)
    workers = WorkerProcesses()
    received: list[object] = []
    children: set[int] = set()
    try:
        workers.start(WorkerSpec(0, config.model_dump_json(), (0,), False, 1, 4))
        deadline = time.monotonic() + 60
        while not any(isinstance(m, WorkerDone) for m in received) and time.monotonic() < deadline:
            message = workers.receive(0.1)
            if message is not None:
                received.append(message)
                if isinstance(message, WorkerHello):
                    children = {child.pid for child in psutil.Process().children()}
                    workers.stop_now()  # the hello is all this test wants from the worker
    finally:
        received += workers.reap(lambda text: None)
    hello = received[0]
    assert isinstance(hello, WorkerHello) and hello.version == MESSAGE_VERSION and hello.worker_id == 0
    assert hello.pid != os.getpid() and hello.pid in children
    assert isinstance(received[-1], WorkerDone)
    assert not any(isinstance(m, (WorkerCrash, UnreadableMessage)) for m in received), received


def test_a_worker_of_another_message_version_ends_the_run_aborted(disk_dir, monkeypatch):
    # Workers are spawned and import the engine afresh: they still speak MESSAGE_VERSION, the runner no longer does.
    monkeypatch.setattr(pool, "MESSAGE_VERSION", MESSAGE_VERSION + 1)
    events: list = []
    out = disk_dir / "out"
    result = Runner(small_config(disk_dir / "data"), out, events.append).run()
    reason = result.summary.reasons[0]
    assert result.summary.verdict.value == "aborted"
    assert f"message version {MESSAGE_VERSION}," in reason and f"this runner version {MESSAGE_VERSION + 1}" in reason
    assert not any(isinstance(e, IntervalEvent) for e in events)
    log = (out / "test.log").read_text()
    assert "Worker refused" in log and "Traceback" not in log
    assert (out / RESULT_FILE).exists()


def _pool_run(disk_dir, events: list) -> pool._PoolRun:
    runner = Runner(small_config(disk_dir / "data"), disk_dir / "out", events.append)
    return pool._PoolRun(runner, Measurement(runner.config, None, events.append, runner.log), True, True, "")


def test_a_refused_worker_is_not_listened_to_until_it_is_done(disk_dir):
    events: list = []
    pool_run = _pool_run(disk_dir, events)
    try:
        pool_run._dispatch(WorkerHello(1, 4321, MESSAGE_VERSION + 1))
        pool_run._dispatch(WorkerLog(1, "info", "Instance 2: log written in 4096-byte sectors"))
        pool_run._dispatch(WorkerIoError(1, "Instance 2: I/O error"))
        pool_run._dispatch(WorkerDone(1))
    finally:
        pool_run.workers.reap(lambda text: None)
    assert pool_run.workers.stopping and pool_run.refused == {1} and pool_run.done == {1}
    assert pool_run.engine_error is not None and "version" in pool_run.engine_error
    assert pool_run.failures == []
    assert not any(isinstance(e, LogEvent) and "sectors" in e.message for e in events)


class _Unreadable:
    """Pickles, but cannot be unpickled: what a worker of another Jetwise might send."""

    def __reduce__(self) -> tuple[typing.Any, ...]:
        return (_refuse_to_load, ())


def _refuse_to_load() -> None:
    raise TypeError("no such message here")


@pytest.mark.parametrize("sent", [("log", 0, "info", "a line in the old tuple form"), _Unreadable()], ids=["tuple", "unpicklable"])
def test_a_message_the_runner_does_not_know_is_reported_not_raised(disk_dir, sent):
    events: list = []
    pool_run = _pool_run(disk_dir, events)
    try:
        pool_run.workers.messages.put(sent)
        deadline = time.monotonic() + 10
        message = None
        while message is None and time.monotonic() < deadline:
            message = pool_run.workers.receive(0.1)
        pool_run._dispatch(message)
    finally:
        left = pool_run.workers.reap(lambda text: None)
    assert left == []
    errors = [e.message for e in events if isinstance(e, LogEvent) and e.level == "error"]
    assert len(errors) == 1 and "does not know" in errors[0]
    assert ("old tuple form" in errors[0]) if isinstance(sent, tuple) else ("no such message here" in errors[0])
    assert not pool_run.workers.stopping and pool_run.engine_error is None



class _Outbox:
    """A worker's message queue, read in the order it was written."""

    def __init__(self) -> None:
        self.sent: list[WorkerMessage] = []

    def put(self, message: WorkerMessage) -> None:
        self.sent.append(message)


def _worker(config, worker_id: int, t0_ns: int, busy: range) -> tuple[worker_module._Worker, SimpleNamespace, _Outbox]:
    """A worker of one instance whose threads completed a read in each interval of `busy`, and in no other."""
    outbox = _Outbox()
    spec = WorkerSpec(worker_id, config.model_dump_json(), (worker_id,), True, 1, 100)
    worker = worker_module._Worker(WorkerChannels(spec, outbox, *[None] * 6), default_backend())
    interval_ns = round(config.sample_interval_s * 1e9)
    worker.clock = RunClock(t0_ns=t0_ns, interval_ns=interval_ns, stop_at_ns=t0_ns + 100 * interval_ns)
    meter = ThreadMeter(config.instance_name(worker_id), t0_ns, interval_ns)
    for index in busy:
        reads = meter.bucket_for(t0_ns + index * interval_ns + interval_ns // 2).stream("db_read")
        reads.count, reads.bytes, reads.sum_ns, reads.max_ns = 1, 32768, 400_000, 400_000
        reads.hist[bucket_index(400_000)] += 1
    return worker, SimpleNamespace(name=meter.instance, meters=[meter]), outbox


def test_a_soft_recovery_s_replay_is_announced_as_it_runs_though_a_worker_was_idle_as_the_generation_ended(
    disk_dir, monkeypatch,
):
    """Instance 1 (worker 0) writes its last log file in interval 1 and then waits idle; Instance 2 (worker 1) writes
    its last in interval 3, which ends the measured run there. Both workers stop at that end before their collectors
    sent intervals 2 and 3: what each sends then must still complete them, or the runner never shows the generation's
    last interval and says nothing of the replay while it runs."""
    config = small_config(disk_dir / "data", test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=6)
    events: list = []
    runner = Runner(config, disk_dir / "out", events.append)
    pool_run = pool._PoolRun(runner, Measurement(config, None, events.append, runner.log), True, True, "")
    monkeypatch.setattr(WorkerProcesses, "__len__", lambda _self: 2)  # the two workers below, never started
    interval_ns = pool_run.interval_ns
    t0 = pool_run.t0_ns = time.perf_counter_ns()
    workers = [_worker(config, 0, t0, range(2)), _worker(config, 1, t0, range(4))]
    try:
        for worker, instance, _outbox in workers:  # each collector sends intervals 0 and 1 as they end
            for index in range(2):
                worker._send_interval(index, {instance.name: [b for m in instance.meters for b in m.take(index)]})
                worker.collected = index + 1
        for message in (*workers[0][2].sent, *workers[1][2].sent):
            pool_run._dispatch(message)
        pool_run._dispatch(LogsGenerated(0, 0, t0 + interval_ns + interval_ns // 2))
        end = t0 + 3 * interval_ns + interval_ns // 2
        pool_run._dispatch(LogsGenerated(1, 1, end))
        assert pool_run.measurement.total_intervals == 4
        for worker, instance, outbox in workers:  # each stops at the end it was told, then replays its instance
            worker.clock.stop_at_ns = end
            outbox.sent.clear()
            worker._send_remaining([instance])
            worker.send(DatabaseProgress(worker.worker_id, worker.worker_id, LOG_FILE_SIZE_BYTES, 6 * LOG_FILE_SIZE_BYTES))
        for message in (*workers[0][2].sent, *workers[1][2].sent):  # worker 0 says all it has to say first
            pool_run._dispatch(message)
    finally:
        pool_run.workers.reap(lambda text: None)
    assert [e.sample.interval for e in events if isinstance(e, IntervalEvent)] == [0, 1, 2, 3]
    replay = next(i for i, e in enumerate(events) if isinstance(e, PhaseEvent) and e.phase == Phase.REPLAYING)
    shown = [e for e in events[replay:] if isinstance(e, ProgressEvent)]
    assert [(e.phase, e.done_bytes, e.total_bytes) for e in shown] == [  # the replay's own progress, whole files
        (Phase.REPLAYING, n * LOG_FILE_SIZE_BYTES, 2 * 6 * LOG_FILE_SIZE_BYTES) for n in (1, 2)]
