"""An instance's log as its writer's own rule plays it: group commit, for the simulated device.

`engine.run.streams.mix_of` says a log write per forced commit and one per two lazy records. The real writer
(`engine.workload.logstream.LogWriter`) does otherwise, by timing: a forced commit forces the buffer and waits for the
write, and every record pending when a write starts rides along with it; lazy records wait until the buffer holds
`LAZY_FLUSH_BYTES` or `LAZY_FLUSH_S` has passed since the writer last began to wait; a write is whole sectors from
the one holding the first unwritten byte, at most `LOG_MAX_WRITE_BYTES` and never across a log file, each one write
after another. So the faster the instance commits and the slower each log write, the more records a write carries.

`played_log` plays that rule in virtual time against the instance's transaction threads, a closed loop: each thread
spends what the rest of its cycle takes (drawn around its mean), appends its transaction's record if it updates, and
waits for the write that carries it if its commit is forced. It gives the log writes per transaction, the bytes per
write, and a forced commit's wait, which the simulated device's fixed point (`engine.run.sources.model.solve`) feeds
back into the threads' cycle.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass
from functools import lru_cache

from engine.model.config import TestConfig
from engine.model.growth import INSERT_LOG_BYTES
from engine.model.sizing import LOG_DATA_BYTES
from engine.workload.instance import DELETE_LOG_BYTES, REPLACE_LOG_BYTES
from engine.workload.logstream import LAZY_FLUSH_BYTES, LAZY_FLUSH_S, LOG_MAX_WRITE_BYTES

PLAYED_SECTOR_BYTES = 512  # the simulated device's log sectors (the reference report's 4.8 KB writes are on 512)
PLAYED_LOG_TRANSACTIONS = 6000  # counted, after as many again to settle


@dataclass(frozen=True)
class LogPlay:
    """An instance's log as played."""

    writes: float  # log writes per transaction
    bytes_per_write: float
    commit_wait_ms: float  # a forced commit's wait for the write that carries it, on average


def played_log(config: TestConfig, threads: int, other_ms: float, log_ms: float) -> LogPlay:
    """The log of an instance whose `threads` each spend `other_ms` per transaction besides their commit's wait, on a
    log whose writes take `log_ms` each (the figures rounded to three significant figures, so that close ones play once)."""
    mix = config.operation_mix
    return _played(max(1, threads), _rounded(other_ms), _rounded(log_ms), round(mix.insert_percent * 100),
                   round(mix.delete_percent * 100), round(mix.replace_percent * 100),
                   round(mix.lazy_commit_percent * 100))


def _rounded(ms: float) -> float:
    return float(f"{max(ms, 1e-6):.3g}")


def write_pieces(start: int, end: int, sector: int = PLAYED_SECTOR_BYTES) -> list[int]:
    """The writes (their bytes) that carry the log's stream bytes [start, end): whole sectors from the one holding
    `start`, each at most `LOG_MAX_WRITE_BYTES` and within one log file, as `LogWriter._write` cuts them."""
    low, high = start // sector * sector, -(-end // sector) * sector
    pieces = []
    while low < high:
        length = min(high - low, LOG_DATA_BYTES - low % LOG_DATA_BYTES, LOG_MAX_WRITE_BYTES)
        pieces.append(length)
        low += length
    return pieces


@lru_cache(maxsize=1024)
def _played(threads: int, other_ms: float, log_ms: float, inserts: int, deletes: int, replaces: int,
            lazy: int) -> LogPlay:
    """The shares in hundredths of a percent; times in ms."""
    insert_cut = inserts / 10_000
    delete_cut = insert_cut + deletes / 10_000
    update_cut = delete_cut + replaces / 10_000
    lazy_share = lazy / 10_000
    rng = random.Random(threads * 7919 + inserts)
    chance = rng.random
    lazy_ms = LAZY_FLUSH_S * 1000.0

    def spent() -> float:  # what a thread's transaction takes besides its commit's wait: around its mean
        return other_ms * (0.5 + chance())

    due = [(spent(), n) for n in range(threads)]  # each thread's next append: (when, thread)
    heapq.heapify(due)
    appended = taken = 0  # stream positions: after the last record; up to which a write has begun
    force = False
    waiting: list[tuple[int, float, int]] = []  # forced commits: (their record's end, when appended, thread)
    busy_until = math.inf  # the write in progress ends then; inf: the writer waits
    write_end = 0
    deadline = lazy_ms
    counted = settled = 0
    tally = [0, 0, 0.0, 0]  # writes, bytes, forced commits' wait (ms), forced commits
    now = 0.0

    def begin(at: float) -> None:
        nonlocal taken, force, busy_until, write_end
        pieces = write_pieces(taken, appended)
        if settled >= PLAYED_LOG_TRANSACTIONS:
            tally[0] += len(pieces)
            tally[1] += sum(pieces)
        taken, write_end, force = appended, appended, False
        busy_until = at + len(pieces) * log_ms

    while counted < PLAYED_LOG_TRANSACTIONS:
        thread_at = due[0][0] if due else math.inf
        if busy_until <= thread_at:  # the write ends: its forced commits go on; the writer waits again
            now, busy_until = busy_until, math.inf
            still = []
            for end, since, thread in waiting:
                if end <= write_end:
                    if settled >= PLAYED_LOG_TRANSACTIONS:
                        tally[2] += now - since
                        tally[3] += 1
                    heapq.heappush(due, (now + spent(), thread))
                else:
                    still.append((end, since, thread))
            waiting = still
            deadline = now + lazy_ms
            if force or appended - taken >= LAZY_FLUSH_BYTES:
                begin(now)
            continue
        if busy_until == math.inf and deadline <= thread_at:  # the lazy deadline: what is pending is written
            now = deadline
            if appended > taken:
                begin(now)
            else:
                deadline = now + lazy_ms
            continue
        now, thread = heapq.heappop(due)
        if settled < PLAYED_LOG_TRANSACTIONS:
            settled += 1
        else:
            counted += 1
        kind = chance()
        if kind >= update_cut:  # a read: no record
            heapq.heappush(due, (now + spent(), thread))
            continue
        appended += INSERT_LOG_BYTES if kind < insert_cut else DELETE_LOG_BYTES if kind < delete_cut else REPLACE_LOG_BYTES
        if chance() >= lazy_share:
            force = True
            waiting.append((appended, now, thread))
        else:
            heapq.heappush(due, (now + spent(), thread))
        if busy_until == math.inf and (force or appended - taken >= LAZY_FLUSH_BYTES):
            begin(now)
    writes, written, waited, forced = tally
    return LogPlay(writes=writes / counted, bytes_per_write=written / writes if writes else float(PLAYED_SECTOR_BYTES),
                   commit_wait_ms=waited / forced if forced else log_ms)
