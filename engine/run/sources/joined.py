"""A test across servers' intervals put together: each interval once every server still measuring has sent it, to
the measurement, each server's instances its parts ("HOST Instance N"), at the controller's timing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from engine.model.host_names import on_server
from engine.results.counters import added
from engine.results.host_schema import HostFigures
from engine.results.sample_schema import IntervalSample
from engine.results.schema import RunResult
from engine.run.measurement import Measurement
from engine.run.samples import parts_from_sample


class Timing(Protocol):
    """The test's intervals by the controller's clock (`engine.hosts.checks.SampleCheck`)."""

    interval_s: float
    started_at: float | None

    def duration_s(self, index: int, stopped_at: float | None) -> float: ...


class Sending(Protocol):
    """A server still in the test, as the samples it sent and its result, if it ended."""

    @property
    def name(self) -> str: ...
    @property
    def samples(self) -> dict[int, IntervalSample]: ...
    @property
    def result(self) -> RunResult | None: ...


@dataclass
class Joined:
    """The test's intervals as they are put together: how far, how long measured, and the measured window's first and
    last sample times; `measuring` is called once as the measured window begins."""

    measurement: Measurement
    check: Timing
    measuring_begins: Callable[[], None]
    wall0: datetime = field(default_factory=lambda: datetime.now(UTC))
    next_interval: int = 0
    measured_s: float = 0.0
    measuring: bool = False
    collection: list[datetime] = field(default_factory=list)

    def add(self, servers: list[Sending], stopped_at: float | None) -> None:
        """Each interval every one of `servers` that still measures has sent, in turn, to the measurement; the test
        was stopped at `stopped_at` (the controller's time.time()), if it was. Servers on the simulated device play a
        long run a window at a time, each instance's counters with the window's last sample: such a window goes in
        whole, once every server sent it."""
        measurement, check = self.measurement, self.check
        while self.next_interval < measurement.total_intervals:
            index = self.next_interval
            live = [s for s in servers if s.result is None or index in s.samples]
            last = window_end(live, index)
            if last is None:
                return
            got = [[s.samples.pop(i) for i in range(index, last + 1)] for s in live]
            parts = {on_server(s.name, name): part for s, samples in zip(live, got, strict=True)
                     for name, part in parts_from_sample(samples[-1]).items()}
            # the test's timing is the controller's: no server's length or clock of an interval stands for the test's
            duration = check.duration_s(last, stopped_at)
            span = check.interval_s * (last - index) + duration
            elapsed = check.interval_s * last + duration
            began = check.started_at if check.started_at is not None else self.wall0.timestamp()
            ended_at = datetime.fromtimestamp(began + elapsed, UTC)
            host = HostFigures(cpu_percent=max(sample.host.cpu_percent for samples in got for sample in samples))
            measured = index >= measurement.warmup_intervals
            if measured and not self.measuring:
                self.measuring = True
                self.measuring_begins()
            if last == index:
                measurement.add(index, parts, duration_s=duration, elapsed_s=elapsed, time_utc=ended_at, host=host)
            else:
                seconds = [added(samples[k].server for samples in got) for k in range(last - index + 1)]
                measurement.add_window(index, parts, seconds, duration_s=check.interval_s,
                                       elapsed_s=check.interval_s * (index + 1), start=datetime.fromtimestamp(began, UTC),
                                       host=host)
            if measured:
                self.measured_s += span
                self.collection[1:] = [ended_at]
                if len(self.collection) == 1:
                    self.collection.insert(0, ended_at - timedelta(seconds=span))
            self.next_interval = last + 1


def at_controller_time(sample: IntervalSample, offset_s: float | None) -> IntervalSample:
    """A server's sample at the controller's time: the server's clock plus its offset (None: not read)."""
    if sample.time_utc is None or not offset_s:
        return sample
    return sample.model_copy(update={"time_utc": sample.time_utc + timedelta(seconds=offset_s)})


def window_end(live: list[Sending], index: int) -> int | None:
    """The last interval of what starts at `index` on every server in `live`: `index` itself, or a simulated window's
    last sample (the one with its instances' counters) when every server played the same window; None until every
    server has sent it."""
    if not live:
        return None
    ends = set()
    for server in live:
        at = index
        while at in server.samples and not server.samples[at].instances:
            at += 1
        if at not in server.samples:
            return None
        ends.add(at)
    return ends.pop() if len(ends) == 1 else index  # windows not shared: each interval as it is
