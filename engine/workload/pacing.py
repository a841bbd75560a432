"""How a transaction thread spends its time besides its own I/O: Jetstress's thread weight and SluggishSessions.

A thread count must carry what the same count carries in Jetstress. A Jetstress thread does
not spend its time waiting on database reads: in the ESRP paper's Performance report each
instance's 13 threads read 292.6 pages/s at 17.16 ms, so each thread waited on reads
22.5 × 17.16 ms = 0.386 of its time; its forced commits (30 % of 65 % of its transactions,
each waiting about one 0.87 ms log write) and its CPU add under 0.01. The other 0.61 of its time is
ESE's work that the counters do not name (the paper and Microsoft publish no breakdown).

That remainder grows with the storage's latency rather than being a fixed cost per transaction:
- the paper's Stress report, at 16.72 ms reads, carried 39.0 transfers per thread per second,
  where a remainder proportional to the read wait gives 38.4 (37.4 × 17.16 / 16.72);
- Microsoft's table for Jetstress 2010 has one thread carrying 107 transfers/s on faster storage.
  A fixed 27 ms per read (the paper's remainder) would cap a thread at 37 reads/s,
  about 61 transfers/s.

So under `ThreadWeight.JETSTRESS` a thread, after each transaction, spends
`JETSTRESS_REST_PER_READ_WAIT` times the time that transaction waited on reads before it starts
the next. Jetwise reproduces the time, not its unknown cause. Together with the
read wait, a thread then spends 1 / (1 + 1.58) = 0.39 of its cycle on reads, as the paper's
threads did, and at the same latency carries the same transfers. `bench/thread_weight.py`
measures both. `ThreadWeight.READS_ONLY` leaves the remainder out: the thread of results before schema 10.

SluggishSessions s then stretches the whole cycle (busy time and remainder) s times.
"""

from __future__ import annotations

from engine.model.config import ThreadWeight

# The paper's Performance report: (1 - 0.386 - 0.005) / 0.386
JETSTRESS_REST_PER_READ_WAIT = 1.58
# A thread that slept past its pause makes it up over later pauses, but never by more than this (ns), so a long
# stall (a paused virtual machine) does not become a burst afterwards.
MAX_CREDIT_NS = 200_000_000


def rest_per_read_wait(weight: ThreadWeight) -> float:
    """What a thread spends besides its I/O, per unit of time it waited on database reads."""
    return JETSTRESS_REST_PER_READ_WAIT if weight == ThreadWeight.JETSTRESS else 0.0


def pause_ns(busy_ns: int, read_wait_ns: int, rest: float, sluggish: int) -> float:
    """The pause after a transaction that took `busy_ns`, `read_wait_ns` of it waiting on database reads.

    The thread's cycle is its busy time plus `rest` times its read wait (the Jetstress thread's remainder), stretched
    `sluggish` times by SluggishSessions; the pause is the cycle less the busy time already spent.
    """
    return sluggish * (busy_ns + rest * read_wait_ns) - busy_ns


def cycle_ms(read_wait_ms: float, other_ms: float, rest: float, sluggish: int) -> float:
    """A transaction's whole cycle on a thread, in ms, for a model that knows its waits (the simulated device)."""
    return sluggish * (read_wait_ms * (1 + rest) + other_ms)
