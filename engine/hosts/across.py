"""A test across servers, from the controller: each server's part started, measured and stopped together, judged per
server and as a whole.

Each server's agent runs its part (`engine.hosts.part`) at the controller's `Prepare`. The parts' messages come over
their links (`engine.hosts.controller`), each filed under the host its certificate names; the controller keeps a copy
of each server's run folder from what they say (`hosts/HOST/` in its run folder: samples, test log, result), sums
their intervals for the front end as they come, and:
- once every server's databases are ready, gives all of them one start instant `LEAD_S` ahead, each in its own
  clock (the controller reads each server's clock over its link as the test begins);
- stops every part when the engineer stops the test, when a part ends early (refused, aborted, in error) or when a
  server's link ends (its agent killed; frozen or its network cut: no pong for the link's silence limit): the test
  is then aborted, naming the server and why;
- leads a load sweep across servers (`engine.hosts.sweep_across`): every server steps at its word;
- says in the test's log every connection and message it refused meanwhile, and refuses a message out of turn.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

from engine.hosts.controller import Controller, Gone, Refusal
from engine.hosts.messages import Ended, FromAgent, Go, Lead, PartEvent, Prepare, Ready, Stepped, Stop
from engine.hosts.sweep_across import SweepLeader
from engine.io.safety import append_text, make_folders, write_text
from engine.model.config import TestConfig
from engine.protocol import IntervalEvent, ResultEvent, RunEvent
from engine.results.across_schema import (
    ACROSS_FILE,
    HOSTS_FOLDER,
    AcrossResult,
    ServerEnd,
    ServerRow,
)
from engine.results.counters import added
from engine.results.document import new_run_id, write_result
from engine.results.schema import IntervalSample, Outcome, RunResult
from engine.results.sweep_schema import SweepStep
from engine.run.sinks import RunFolderWriter, SinkFailedError
from engine.run.steps import step_words
from engine.run.sweep import SweepPlan

LEAD_S = 1.0  # the start instant is this far after the last server arrived: time for the word to reach every one
STOP_WAIT_S = 30.0  # after the word to stop, how long a part gets to end and give its result before it counts as lost
RESULT_WAIT_S = 2.0  # a part's last events may follow its result: how long of quiet they get to arrive
TEST_LOG = "test.log"  # the controller's own lines, beside each server's

# What may differ between servers' configurations, and what must be the test's own (one start, one end, one verdict
# rule). A field not named here is the server's own: its databases, paths, profile, threads, cache.
SHARED = ("test_type", "duration_s", "warmup_s", "sample_interval_s", "thresholds")


class AcrossView(Protocol):
    """A front end of a test across servers."""

    def host_event(self, host: str, event: RunEvent) -> None:
        """An event of one server's run, as it ran it."""

    def summed(self, sample: IntervalSample) -> None:
        """An interval of every server added up, once each server has sent it; its parts (`instances`) are each
        server's counters, by the server's name."""

    def said(self, line: str) -> None:
        """A line of the controller's own: who arrived, the start, who stopped the test and why."""


def shared_problems(configs: dict[str, TestConfig]) -> list[tuple[str, str]]:
    """Each (host, words) whose configuration differs from the first server's in what the test shares."""
    hosts = list(configs)
    first = configs[hosts[0]]
    problems = []
    for host in hosts[1:]:
        for name in SHARED:
            if getattr(configs[host], name) != getattr(first, name):
                problems.append((host, f"its {name} differs from {hosts[0]}'s: a test across servers starts, measures "
                                       "and judges every server over the same time with the same thresholds"))
    return problems


def first_interval_s(configs: dict[str, TestConfig]) -> float:
    """The test's sample interval (every server's: it is shared)."""
    return next(iter(configs.values())).sample_interval_s


@dataclass
class _Host:
    name: str
    address: str
    folder: RunFolderWriter
    ended: bool = False  # its part said it ended
    heard: float = field(default_factory=time.monotonic)
    ready: bool = False
    offset_s: float | None = None
    result: RunResult | None = None
    result_event: bool = False
    refused: list[list[str]] | None = None
    lost: str | None = None
    samples: dict[int, IntervalSample] = field(default_factory=dict)


class TestAcross:
    """One test across servers. Call `run()` once; `request_stop()` from anywhere."""

    def __init__(self, controller: Controller, configs: dict[str, TestConfig], output: Path, view: AcrossView, *,
                 simulate: str | None = None, test_id: str | None = None, sweep: SweepPlan | None = None) -> None:
        self.controller = controller
        self.configs = configs
        self.output = output
        self.view = view
        self.simulate = simulate
        self.test_id = test_id or new_run_id()
        self._inbox: queue.Queue[tuple[str, FromAgent | Gone | Refusal]] = queue.Queue()
        self._stop_reason: str | None = None
        self._ended_by: ServerEnd | None = None
        self._stop_sent: float | None = None
        self._started_at: float | None = None
        self._next_sum = 0
        self.hosts: dict[str, _Host] = {}
        self.sweep = sweep
        self.leader = SweepLeader(sweep, first_interval_s(configs), list(configs)) if sweep is not None else None

    def request_stop(self, reason: str = "stopped by the user") -> None:
        if self._stop_reason is None:
            self._stop_reason = reason

    def say(self, line: str) -> None:
        stamp = datetime.now().astimezone().replace(microsecond=0)
        self._log.write(f"{stamp:%Y-%m-%d %H:%M:%S} -- {line}\n")
        self._log.flush()
        self.view.said(line)

    # the run --------------------------------------------------------------------------------------------------

    def run(self) -> AcrossResult:
        make_folders(self.output / HOSTS_FOLDER)
        self._log = append_text(self.output / TEST_LOG)
        addresses = self.controller.wait_for(list(self.configs), timeout_s=0)
        for name, address in addresses.items():
            self.hosts[name] = _Host(name, address, RunFolderWriter(self.output / HOSTS_FOLDER / name))
        started = datetime.now(UTC)
        self._unfinished(started)
        self.controller.begin(self.test_id, list(self.hosts), self._arrived)
        try:
            self.say(f"Test {self.test_id} across {len(self.hosts)} servers: {', '.join(self.hosts)}"
                     + (f" (simulated: {self.simulate})" if self.simulate else ""))
            if self.sweep is not None:
                self.say(f"{self.sweep.describe(first_interval_s(self.configs), lockstep=True)}; every server steps "
                         "together, at the controller's word, from what all of them measured")
            for host in self.hosts.values():
                host.offset_s = self.controller.clock_offset(host.name)
                self.controller.send(host.name, Prepare(test_id=self.test_id, config=self.configs[host.name],
                                                        simulate=self.simulate, sweep=self.sweep))
            self._loop()
            self._drain()
        finally:
            self.controller.end()
            for host in self.hosts.values():
                host.folder.close()
        try:
            return self._judged(started)
        finally:
            self._log.close()

    def _arrived(self, host: str, message: FromAgent | Gone | Refusal) -> None:
        """A part's message, as it arrives (the link's thread): the server is heard now, however long the message then
        waits to be handled."""
        known = self.hosts.get(host)
        if known is not None:
            known.heard = time.monotonic()
        self._inbox.put((host, message))

    def _pending(self) -> list[_Host]:
        return [h for h in self.hosts.values() if h.lost is None and not h.ended]

    def _loop(self) -> None:
        while self._pending():
            try:
                self._take(self._inbox.get(timeout=0.1))
            except queue.Empty:
                pass
            now = time.monotonic()
            if self._stop_reason is not None and self._stop_sent is None:
                self._stop_all(ServerEnd(host="", why="stopped", detail=self._stop_reason), self._stop_reason)
            for host in self._pending():
                if self._stop_sent is not None and now - self._stop_sent > STOP_WAIT_S:
                    host.lost = f"it did not end its run within {STOP_WAIT_S:g} s of the word to stop"
                    self.say(f"{host.name} is lost: {host.lost}")
            self._start_when_ready()

    def _take(self, arrived: tuple[str, FromAgent | Gone | Refusal]) -> None:
        name, message = arrived
        if isinstance(message, Refusal):  # a connection or a message the controller refused meanwhile
            self.say(message.words[:1].upper() + message.words[1:])
            return
        host = self.hosts[name]
        if isinstance(message, Gone):
            self._gone(host, message.why)
            return
        if host.ended:  # its part said it ended: nothing of it follows
            self.controller.refuse(name, f"a '{message.kind}' message after its part ended")
            return
        if isinstance(message, PartEvent):
            event = message.event
            if isinstance(event, IntervalEvent):
                event = IntervalEvent(sample=self._aligned(host, event.sample))
                self._sum(host, event.sample)
            if isinstance(event, ResultEvent):
                host.result_event = True
            try:
                host.folder(event)
            except SinkFailedError as exc:
                self.request_stop(f"the controller cannot keep {host.name}'s samples: {exc.reason}")
            self.view.host_event(host.name, event)
        elif isinstance(message, Stepped):
            if self.leader is None:
                self.controller.refuse(name, "a sweep's step in a test that sweeps nothing")
                return
            self._stepped(host, message.record)
        elif isinstance(message, Ready):
            if host.ready:
                self.controller.refuse(name, "a second 'ready'")
                return
            host.ready = True
            clock = f"{host.offset_s * 1000:+.1f} ms from" if host.offset_s is not None else "not read: taken as"
            self.say(f"{host.name}: databases ready (its clock is {clock} the controller's)")
        elif isinstance(message, Ended):
            host.ended = True
            self._ended(host, message)
        else:  # a Hello or a clock reading reach no test
            self.controller.refuse(name, f"a '{message.kind}' message in a test")

    def _gone(self, host: _Host, why: str) -> None:
        """A server's link ended before its part did: it is lost, and the test stops."""
        if host.ended or host.lost is not None:
            return
        host.lost = why
        self.say(f"{host.name} is lost: {why}")
        self._stop_all(ServerEnd(host=host.name, why="lost", detail=why), f"{host.name} was lost")

    def _stepped(self, host: _Host, record: SweepStep) -> None:
        """A server measured a step of the sweep; once all have, the step as a whole and the word for every one."""
        if self.leader is None:
            return
        live = [h.name for h in self.hosts.values() if h.lost is None and h.refused is None and h.result is None]
        told = self.leader.measured(host.name, record, live)
        if told is None:
            return
        whole = self.leader.steps[-1]
        self.say(f"Step {whole.step + 1} on every server, {whole.threads} threads / SluggishSessions "
                 f"{whole.sluggish_sessions}: {step_words(whole)}")
        if told.load is None:
            assert told.end is not None
            self.say(f"Load sweep across servers ends at sample {told.at}: {told.end.words}")
        else:
            self.say(f"Step {whole.step + 2}: {told.load[0]} threads / SluggishSessions {told.load[1]} on every "
                     f"server from sample {told.at}")
        for each in self.hosts.values():
            self.controller.send(each.name, Lead(test_id=self.test_id, step=whole.step + 1, at=told.at, load=told.load,
                                                 end=told.end))

    def _aligned(self, host: _Host, sample: IntervalSample) -> IntervalSample:
        """A sample at the controller's time: the server's clock plus its offset."""
        if sample.time_utc is None or not host.offset_s:
            return sample
        return sample.model_copy(update={"time_utc": sample.time_utc + timedelta(seconds=host.offset_s)})

    def _sum(self, host: _Host, sample: IntervalSample) -> None:
        """Keep `sample` until every server has sent its interval; then show their sum."""
        host.samples[sample.interval] = sample
        while True:
            # a server whose part ended (a scan done before the others') is in no later sum
            live = [h for h in self.hosts.values() if h.lost is None and h.refused is None
                    and (h.result is None or self._next_sum in h.samples)]
            parts = [h.samples.get(self._next_sum) for h in live]
            if not live or any(part is None for part in parts):
                return
            got = [part for part in parts if part is not None]
            for h in live:
                h.samples.pop(self._next_sum, None)
            first = got[0]
            times = [part.time_utc for part in got if part.time_utc is not None]
            self.view.summed(IntervalSample(  # each server's counters as the parts of the sum, by its name
                interval=first.interval, phase=first.phase, time_utc=max(times) if times else None,
                elapsed_s=first.elapsed_s, duration_s=first.duration_s, remaining_s=first.remaining_s,
                server=added(part.server for part in got),
                instances={h.name: part.server for h, part in zip(live, got, strict=True)}))
            self._next_sum += 1

    def _start_when_ready(self) -> None:
        if self._started_at is not None or self._stop_sent is not None:
            return
        if not all(host.ready for host in self.hosts.values()):
            return
        at = time.time() + LEAD_S
        self._started_at = at
        start = datetime.fromtimestamp(at, UTC).astimezone()
        self.say(f"Every server's databases are ready: the test starts on all of them at {start:%H:%M:%S.%f}"[:-3])
        for host in self.hosts.values():  # the instant in each server's own clock
            self.controller.send(host.name, Go(test_id=self.test_id, at_s=at - (host.offset_s or 0.0)))

    def _stop_all(self, end: ServerEnd, reason: str) -> None:
        """Stop every part still running, saying why; the first reason is the test's."""
        if self._ended_by is None:
            self._ended_by = end
        if self._stop_sent is not None:
            return
        self._stop_sent = time.monotonic()
        self.say(f"Stopping every server: {end.words}")
        for host in self.hosts.values():  # a lost one too: it may only be cut off, and hear it when it is back
            if not host.ended:
                self.controller.send(host.name, Stop(test_id=self.test_id, reason=reason))

    def _ended(self, host: _Host, ended: Ended) -> None:
        """A part ended: its result, its refusal or its error; one that ends before the others stops them."""
        if ended.error is not None or (ended.result is None and ended.refused is None):
            host.lost = ended.error or "its part ended with no result"
            self.say(f"{host.name}'s part ended in error: {host.lost}")
            self._stop_all(ServerEnd(host=host.name, why="failed_part", detail=host.lost), f"{host.name}'s run ended in error")
            return
        if ended.refused is not None:
            host.refused = [list(problem) for problem in ended.refused]
            detail = "; ".join(f"{where}: {words}" for where, words in ended.refused)
            self.say(f"{host.name} refused its part: {detail}")
            self._stop_all(ServerEnd(host=host.name, why="refused", detail=detail), f"{host.name} refused its part")
            return
        assert ended.result is not None
        host.result = ended.result
        verdict = host.result.summary
        self.say(f"{host.name} ended: {verdict.verdict.value.upper()}")
        if verdict.verdict == Outcome.ABORTED and self._stop_sent is None:
            detail = "; ".join(verdict.reasons)
            self._stop_all(ServerEnd(host=host.name, why="aborted_part", detail=detail), f"{host.name}'s run was aborted")

    def _drain(self) -> None:
        """Every message that arrived is handled, and each part's last events get `RESULT_WAIT_S` of quiet to arrive; a
        result whose event never came is kept from the part's word that it ended."""
        while any(h.result is not None and not h.result_event for h in self.hosts.values()) or not self._inbox.empty():
            try:
                self._take(self._inbox.get(timeout=0.05))
            except queue.Empty:
                if time.monotonic() - max(h.heard for h in self.hosts.values()) > RESULT_WAIT_S:
                    break
        for host in self.hosts.values():
            if host.result is not None and not host.result_event:
                write_result(host.result, self.output / HOSTS_FOLDER / host.name)

    def _unfinished(self, started: datetime) -> None:
        """The test's document as it stands while it runs, replaced at its end: a controller killed or stopped with its
        machine leaves a test that says so, reported as a whole from what reached it."""
        first = next(iter(self.configs.values()))
        unfinished = AcrossResult.judged(
            test_id=self.test_id, test_type=first.test_type.value, simulated=bool(self.simulate),
            rows=[ServerRow(host=host.name, run_folder=str(self.output / HOSTS_FOLDER / host.name))
                  for host in self.hosts.values()],
            ended_by=ServerEnd(host="", why="controller", detail=(
                "it ended before the test did (killed, or its machine stopped): what reached it is in hosts/, and each "
                "server keeps its own run folder")), start_utc=started, end_utc=None)
        write_text(self.output / ACROSS_FILE, unfinished.model_dump_json(indent=2) + "\n")

    def _judged(self, started: datetime) -> AcrossResult:
        rows = []
        for host in self.hosts.values():
            folder = str(self.output / HOSTS_FOLDER / host.name)
            if host.result is not None:
                rows.append(ServerRow.of(host.name, host.result, clock_offset_s=host.offset_s, run_folder=folder))
            else:
                rows.append(ServerRow(host=host.name, clock_offset_s=host.offset_s, run_folder=folder))
        first = next(iter(self.configs.values()))
        result = AcrossResult.judged(test_id=self.test_id, test_type=first.test_type.value, simulated=bool(self.simulate),
                                     rows=rows, ended_by=self._ended_by, start_utc=started, end_utc=datetime.now(UTC),
                                     sweep=self.leader.record() if self.leader is not None else None)
        write_text(self.output / ACROSS_FILE, result.model_dump_json(indent=2) + "\n")
        self.say(f"Test ends: {result.outcome.value.upper()}" + "".join(f"; {words}" for words in result.reasons))
        return result
