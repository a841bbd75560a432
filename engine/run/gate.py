"""Where a run waits for others before its clock starts: a test across servers starts every server's measured clock
at one instant, once every server has created or attached its databases.

A run alone has no gate and starts as soon as its own workers are ready. With a gate, the run says it has arrived
and keeps serving its workers' messages (and a Stop) until the gate gives the instant to start at.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


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
