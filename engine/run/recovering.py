"""A worker's side of a Soft Recovery test: watching its instances generate their log files, then replaying them.

While the load runs, each instance's log fills its files; the runner hears how far (progress)
and when an instance has written its last one (`LogsGenerated`), and that instance's load stops
there. Once the runner has heard it of every instance it ends the measured run; the worker's
instances stop without flushing their caches, as a crash does, and each is replayed on a thread
of its own (`engine.workload.recovery`), all at once. Each replay's tally goes back in a
`RecoveryReport`, however it ended: a stopped test reports what was replayed so far, or that the
log generation never finished.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable

from engine.io.platform import IoBackend
from engine.model.config import TestConfig
from engine.model.sizing import LOG_DATA_BYTES, LOG_FILE_SIZE_BYTES
from engine.run.messages import DatabaseProgress, LogsGenerated, RecoveryReport, WorkerMessage
from engine.workload.context import Say
from engine.workload.instance import Instance, InstancePlan
from engine.workload.recovery import RecoveryTally, Replay

PROGRESS_EVERY_S = 1.0
STOP_CHECK_S = 0.1  # how often a worker waiting for its replays looks for a stop
STOP_GRACE_S = 10.0  # a stopped replay ends within a batch of records; one not ended by then waits on the storage

Send = Callable[[WorkerMessage], None]


class Generation:
    """Watches a worker's instances generate their log files (called from the worker's measuring loop)."""

    def __init__(self, worker_id: int, instances: list[Instance], t0_ns: int, send: Send) -> None:
        self.worker_id = worker_id
        self.instances = instances
        self.t0_ns = t0_ns
        self.send = send
        self.ended: dict[int, int] = {}  # instance index -> when its last log file was written
        self._next_progress = 0.0

    def watch(self) -> None:
        now = time.monotonic()
        report = now >= self._next_progress
        if report:
            self._next_progress = now + PROGRESS_EVERY_S
        for instance in self.instances:
            index, log = instance.plan.index, instance.log
            if index in self.ended or not log.limit:
                continue  # its generation was reported whole: what it sends next is its replay's progress
            if log.full.is_set():
                self.ended[index] = ended = time.perf_counter_ns()
                instance.load.set(0, 1)  # its logs are written: it waits, dirty pages and all, for the crash
                self.send(DatabaseProgress(self.worker_id, index, log.limit, log.limit))
                self.send(LogsGenerated(self.worker_id, index, ended))
            elif report:
                self.send(DatabaseProgress(self.worker_id, index, min(log.flushed, log.limit), log.limit))

    def tally(self, instance: Instance) -> RecoveryTally:
        """What the instance generated: every file when it got to the end, else the files it filled."""
        index, log = instance.plan.index, instance.log
        ended = self.ended.get(index)
        files = log.file_count if ended is not None else min(log.file_count, log.flushed // LOG_DATA_BYTES)
        seconds = ((ended or time.perf_counter_ns()) - self.t0_ns) / 1e9
        return RecoveryTally(log_files=log.file_count, log_files_generated=files, generation_seconds=max(0.0, seconds))


def replay_instances(
    backend: IoBackend, config: TestConfig, plans: list[InstancePlan], tallies: dict[int, RecoveryTally], *,
    worker_id: int, unbuffered: bool, should_stop: Callable[[], bool], send: Send, say: Say,
) -> None:
    """Replay each instance whose logs were all generated, all at once; report every instance's tally. Once the test
    is stopped, a replay that has not ended within `STOP_GRACE_S` (an I/O the storage does not complete) is reported
    as it stands, and not waited for: the stop ends the test whatever the storage does."""

    def replay(plan: InstancePlan) -> None:
        tally = tallies[plan.index]
        try:
            if tally.log_files_generated == tally.log_files and not should_stop():
                say(f"{plan.name}: replaying {tally.log_files} log files", "info")

                def progress(done: int, total: int) -> None:
                    send(DatabaseProgress(worker_id, plan.index, done, total))

                Replay(backend, plan, config, tally, unbuffered=unbuffered, should_stop=should_stop, say=say,
                       progress=progress).run()
                say(replay_words(plan.name, tally), "info")
        except OSError as exc:
            tally.failure = tally.failure or f"the replay could not go on ({exc.strerror or exc})"
            say(f"{plan.name}: {tally.failure}", "error")
        except Exception as exc:  # an engine error ends this replay, says why, and still reports
            tally.failure = tally.failure or f"the replay ended on an engine error: {type(exc).__name__}: {exc}"
            say(f"{plan.name}: {tally.failure}\n{traceback.format_exc()}", "error")
        finally:
            send(RecoveryReport(worker_id, plan.index, tally))

    threads = [threading.Thread(target=replay, args=(plan,), name=f"{plan.name} recovery", daemon=True) for plan in plans]
    for thread in threads:
        thread.start()
    stopped_at: float | None = None
    for thread in threads:
        while thread.is_alive():
            if stopped_at is None and should_stop():
                stopped_at = time.monotonic()
            left = STOP_CHECK_S if stopped_at is None else stopped_at + STOP_GRACE_S - time.monotonic()
            if left <= 0:
                break
            thread.join(min(STOP_CHECK_S, left))
    for plan, thread in zip(plans, threads, strict=True):
        if thread.is_alive():
            tally = tallies[plan.index]
            tally.failure = tally.failure or f"the replay did not end within {STOP_GRACE_S:g} s of the stop: an I/O did not complete"
            say(f"{plan.name}: {tally.failure}", "warning")
            send(RecoveryReport(worker_id, plan.index, tally))


def replay_words(name: str, tally: RecoveryTally) -> str:
    """One instance's replay in one line, for the test log."""
    per_file = tally.replay_seconds / tally.log_files_replayed if tally.log_files_replayed else 0.0
    return (f"{name}: {tally.log_files_replayed} of {tally.log_files} log files replayed in {tally.replay_seconds:.1f} s "
            f"({per_file:.2f} s per log file): {tally.records:,} records, {tally.pages_redone:,} updates redone, "
            f"{tally.page_reads:,} pages read, {tally.pages_written:,} written and {tally.pages_verified:,} read back; "
            f"{tally.log_bytes_read / LOG_FILE_SIZE_BYTES:,.0f} MiB of log read")
