"""How far a long phase has come over every database: the creation of the files, or a scan's read.

Each database reports its bytes done and its bytes in all; the rate counts from the phase's
first report (bytes a resumed creation had already written are not counted as speed), so a
scan that follows a creation starts its rate and its time to go afresh (`restart`).
"""

from __future__ import annotations

import time

from engine.protocol import Phase, ProgressEvent


class ProgressMeter:
    def __init__(self) -> None:
        self._parts: dict[int, tuple[int, int]] = {}
        self._started: float | None = None
        self._base = 0

    def restart(self) -> None:
        self._parts.clear()
        self._started = None
        self._base = 0

    def report(self, phase: Phase, index: int, done_bytes: int, total_bytes: int, *,
               planned_total: int | None = None) -> ProgressEvent:
        """Database `index` has done `done_bytes` of `total_bytes`; the phase's total is `planned_total` when
        known ahead (creation), else what the databases have reported (a scan reads them as they are)."""
        now = time.monotonic()
        if self._started is None:
            self._started = now
            self._base = done_bytes  # bytes a resumed creation had already written
        self._parts[index] = (done_bytes, total_bytes)
        done = sum(d for d, _ in self._parts.values())
        total = planned_total if planned_total is not None else sum(t for _, t in self._parts.values())
        rate = max(0, done - self._base) / max(1e-3, now - self._started)
        return ProgressEvent(phase=phase, done_bytes=done, total_bytes=total, rate_bytes_per_s=rate,
                             eta_s=(total - done) / rate if rate > 0 else None)
