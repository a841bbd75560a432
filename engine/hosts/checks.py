"""What a server's message must be to count in a test across servers, beyond its schema: checked against the test.

A message that validates is a well-formed message, not a true one. Before a server's sample counts, it is checked
against the test as the controller runs it (`SampleCheck`): an interval the test has, each once and in turn, none
before its interval has ended by the controller's clock (for a run on the storage: a simulated device plays its run
ahead of time), as long as the controller's interval (only a server's last sample, as its part ends, may be shorter),
naming only the instances that server runs, and every figure finite and not negative. The test's timing is the
controller's own: no server's `duration_s` stands for the test's or another server's. A part's phases go forward, its
test's work only from the test's start (`phase_problem`); a server not ready is preparing only while its databases'
creation moves, and a scan's or a replay's part is working only while its work does (`Progress`): no wait of a test
is without a deadline, however much a server says.
Whatever a server says that a log, the console, a report or the window shows is shown escaped and bounded (`shown`),
so no line break or control character of a peer writes a line in another's name, and no peer's words are longer than
a line.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.protocol import Phase
from engine.results.sample_schema import IntervalSample
from engine.results.schema import RunResult

READY_QUIET_S = 300.0  # a server whose databases' creation moves less than `READY_STEP_BYTES` this long, not ready, is lost
READY_STEP_BYTES = 1 << 30  # or the rest of what it creates: the least a server's creation counts as progress
WORK_PHASES = (Phase.WARMING_UP, Phase.MEASURING, Phase.REPLAYING)  # a part's, from the test's start instant
SHOWN_CHARS = 300  # the most of a peer's words a line shows
EARLY_S = 0.5  # a sample may arrive this much before its interval ends by the controller's clock: the clocks' error
DURATION_SLACK = 1e-6  # a full interval's length, as each server's clock counts it exactly


def shown(text: object, limit: int = SHOWN_CHARS) -> str:
    """A peer's words as a line may show them: every control character visible (a line break as \\n), at most
    `limit` characters, and how many more there were."""
    words = str(text)
    cut = words[:limit]
    visible = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in cut)
    return visible + (f"… ({len(words) - limit:,} more characters)" if len(words) > limit else "")


def out_of_range(value: object, where: str = "") -> str | None:
    """Where in `value` (a message's plain data) the first figure that is not a finite number of at least zero is,
    and what it is; None when every figure is."""
    stack: list[tuple[str, object]] = [(where, value)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, (int, float)):
            if not math.isfinite(item) or item < 0:
                return f"{at or 'a figure'} is {item!r}"
        elif isinstance(item, Mapping):
            stack.extend((f"{at}.{key}" if at else str(key), inner) for key, inner in item.items())
        elif isinstance(item, Sequence):
            stack.extend((f"{at}[{i}]", inner) for i, inner in enumerate(item))
    return None


@dataclass
class SampleCheck:
    """The test's intervals as the controller runs them, against which each server's samples are checked."""

    interval_s: float
    total_intervals: int
    real_time: bool  # the storage at its paths: no sample arrives before its interval has ended
    started_at: float | None = None  # the start instant, in the controller's time.time()

    def problem(self, sample: IntervalSample, *, after: int, short_s: float | None, instances: Iterable[str],
                now: float) -> str | None:
        """Why `sample` from a server does not fit the test, in words; None when it does. `after` is the last interval
        the server sent (-1: none yet), `short_s` the length of a shorter one it sent (a part's last: None, none),
        `instances` the instance names it runs."""
        index = sample.interval
        if index >= self.total_intervals:
            return f"a sample for interval {index:,}, which the test does not have (it has {self.total_intervals:,})"
        if index <= after:
            return f"a sample for interval {index:,} after one for interval {after:,} (each is sent once, in turn)"
        if short_s is not None:
            return (f"a sample for interval {index:,} after one {short_s!r} s long, for an interval of "
                    f"{self.interval_s:g} s (only a part's last, as it stops, is shorter)")
        if self.started_at is None:
            return f"a sample for interval {index:,} before the test started"
        if not 0 < sample.duration_s <= self.interval_s + DURATION_SLACK:
            return (f"a sample {sample.duration_s!r} s long for an interval of {self.interval_s:g} s (the test's "
                    "interval is the controller's)")
        ends = self.started_at + index * self.interval_s + sample.duration_s  # a part's last ends as its run does
        if self.real_time and now < ends - EARLY_S:
            return (f"a sample for interval {index:,} {ends - now:.1f} s before that interval ends by the controller's "
                    "clock")
        unknown = sorted(set(sample.instances) - set(instances))
        if unknown:
            return f"a sample naming instance {shown(unknown[0], 80)}, which it does not run"
        # its counters and figures (its own clock's elapsed time, which no one reads, may be below zero)
        if (where := out_of_range(sample.model_dump(mode="python", include={"server", "instances", "host",
                                                                             "latency"}))) is not None:
            return f"a sample whose figure {shown(where, 120)}"
        return None

    def overdue(self, last: int, now: float, late_s: float) -> str | None:
        """Why a server measuring on the storage whose last sample was for interval `last` is lost at `now`: no sample
        for the next interval `late_s` after it ended by the controller's clock; None while it is not."""
        assert self.started_at is not None
        ended = math.floor((now - late_s - self.started_at) / self.interval_s) - 1
        due = last + 1
        if due <= min(ended, self.total_intervals - 1):
            return f"it sent no sample for interval {due:,}, {late_s:g} s after that interval ended by the controller's clock"
        return None

    def result_problem(self, result: RunResult, instances: Iterable[str], *, stopped: bool) -> str | None:
        """Why a server's part's `result` does not fit the test (`instances` the instance names it runs; `stopped`:
        the word to stop went out); None when it does."""
        if self.started_at is None and not stopped:
            return "a result before the test started"
        unknown = sorted({row.name for row in result.instances} - set(instances))
        return f"a result naming instance {shown(unknown[0], 80)}, which it does not run" if unknown else None

    def short(self, sample: IntervalSample) -> bool:
        """Whether `sample` is shorter than the interval: a part's last, as it stops."""
        return sample.duration_s < self.interval_s - DURATION_SLACK

    def duration_s(self, index: int, stopped_at: float | None) -> float:
        """How long interval `index` of the test lasted by the controller's clock: the interval, or up to the moment
        the test was stopped when that fell within it."""
        if self.started_at is None or stopped_at is None:
            return self.interval_s
        begins = self.started_at + index * self.interval_s
        return min(self.interval_s, max(1e-9, stopped_at - begins))


def phase_problem(phase: Phase, after: Phase, started: bool) -> str | None:
    """Why a server's part saying `phase` after `after` is out of turn (`started`: the test's start instant has come);
    None when it is in turn."""
    order = list(Phase)
    if order.index(phase) < order.index(after):
        return f"a phase '{phase.value}' after '{after.value}' (a part's phases go forward)"
    if not started and phase in WORK_PHASES:
        return f"a phase '{phase.value}' before the test started"
    return None


@dataclass
class Progress:
    """A server's part moving, as it says: its databases' creation before it is ready (`creates` the bytes it creates:
    it moved when it moved `READY_STEP_BYTES` more, or the rest), or a scan's or a replay's work once the test started
    (`creates` None: when a sample counted, or its progress moved at all within the total it says, as a slow replay
    that still passes its limit moves little)."""

    creates: int | None
    at: float = field(default_factory=time.monotonic)  # when it last moved
    done: int = 0  # how far it had moved then

    def _step(self, creates: int) -> int:
        return min(READY_STEP_BYTES, creates - self.done)

    def progress(self, phase: Phase, done_bytes: int, total_bytes: int) -> None:
        if self.creates is None:  # a scan's or a replay's work
            if phase in WORK_PHASES and self.done < done_bytes <= total_bytes:
                self.at, self.done = time.monotonic(), done_bytes
            return
        step = self._step(self.creates)
        if phase == Phase.PREPARING and step > 0 and min(done_bytes, self.creates) >= self.done + step:
            self.at, self.done = time.monotonic(), self.done + step

    def sampled(self) -> None:
        self.at = time.monotonic()

    def stalled(self) -> str | None:
        """Why the server is lost, once its part did not move for `READY_QUIET_S`; else None."""
        if time.monotonic() - self.at <= READY_QUIET_S:
            return None
        if self.creates is None:
            return f"its scan or replay moved nothing for {READY_QUIET_S:g} s: no sample, and no progress"
        step = self._step(self.creates)
        if step <= 0:
            return f"it created its databases and was not ready {READY_QUIET_S:g} s later"
        amount = f"{step / (1 << 30):g} GiB" if step >= 1 << 30 else f"{step / (1 << 20):,.0f} MiB"
        return f"its databases' creation did not move {amount} in {READY_QUIET_S:g} s, and it is not ready"
