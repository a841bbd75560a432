"""An agent's clock, as the controller reads it: a few questions over the link, the reading of the least round trip
kept, so the test's one instant can be said in each server's own clock."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.hosts.link import Peer
from engine.hosts.messages import ClockQuestion, ClockReading

CLOCK_READINGS = 5  # the clock is read this many times; the reading of the least round trip is kept
CLOCK_WAIT_S = 2.0  # one reading's deadline
_NUMBERS = itertools.count()  # every question's number, unique in the controller


@dataclass
class Clock:
    """One agent's clock: the questions asked of it that wait for their answer (in the link's event loop)."""

    waiting: dict[int, asyncio.Future[float]] = field(default_factory=dict)

    def answered(self, reading: ClockReading) -> bool:
        """Take `reading`; False when it answers no question asked."""
        asked = self.waiting.pop(reading.number, None)
        if asked is not None and not asked.done():
            asked.set_result(reading.time_s)
        return asked is not None

    def cancel(self) -> None:
        """Its link ended: no question is answered any more."""
        for asked in self.waiting.values():
            asked.cancel()

    async def offset(self, peer: Peer, linked: Callable[[], bool]) -> float | None:
        """The controller's clock minus the agent's, from the reading of the least round trip, while `linked` (its
        link has not ended); None when no reading came in time."""
        readings = []
        for _ in range(CLOCK_READINGS):
            if not linked():
                break
            number = next(_NUMBERS)
            asked_at, answer = time.time(), self.waiting.setdefault(number, peer.loop.create_future())
            peer.send(ClockQuestion(number=number))
            try:
                theirs = await asyncio.wait_for(answer, CLOCK_WAIT_S)
            except (TimeoutError, asyncio.CancelledError):
                self.waiting.pop(number, None)
                continue
            answered_at = time.time()
            readings.append((answered_at - asked_at, (asked_at + answered_at) / 2 - theirs))
        return min(readings)[1] if readings else None
