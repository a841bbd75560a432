"""Where a run keeps step with others: a test across servers starts every server's measured clock at one instant,
once every server has created or attached its databases, and a load sweep across servers steps every server's load
at the leader's word.

A run alone has no gate and starts as soon as its own workers are ready. With a gate, the run says it has arrived
and keeps serving its workers' messages (and a Stop) until the gate gives the instant to start at.

A sweep alone chooses its own next step. A sweep with a lead (`SweepLead`) measures each step over a fixed window,
says what it measured, and runs its load until the lead's word (`Told`) names the next load and the sample it starts
at, or the sample the sweep ends at: every server's steps begin and end at the same samples.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from engine.results.sweep_schema import SweepEnd, SweepStep


class StartGate(Protocol):
    """What a run asks before its clock starts."""

    def arrived(self) -> None:
        """This run's databases are created or attached and its workers wait: say so to the others."""

    def start_ns(self) -> int | None:
        """The instant to start at on this machine's `time.perf_counter_ns` clock, once every run has arrived;
        None until then."""


def wait_at(gate: StartGate, stopped: Callable[[], bool], poll_s: float = 0.05) -> bool:
    """Arrive at `gate` and wait for its instant (True), or for `stopped` (False); for a source with nothing to
    serve while it waits."""
    gate.arrived()
    while not stopped():
        t0_ns = gate.start_ns()
        if t0_ns is not None:
            time.sleep(max(0.0, (t0_ns - time.perf_counter_ns()) / 1e9))
            return True
        time.sleep(poll_s)
    return False


@dataclass(frozen=True)
class Told:
    """The lead's word for a sweep's next step: its load (threads, SluggishSessions) from sample `at`, or, with no
    load, the sweep's end at sample `at` and why."""

    at: int
    load: tuple[int, int] | None = None
    end: SweepEnd | None = None


class SweepLead(Protocol):
    """Who chooses the steps of a sweep run in lockstep with others."""

    def measured(self, record: SweepStep) -> None:
        """This run's record of a step, once its judged samples are in."""

    def told(self, step: int) -> Told | None:
        """The word for step `step` (counted from 0), None until it came."""
