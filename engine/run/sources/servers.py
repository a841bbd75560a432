"""A test across servers as a run: the servers' agents are its interval source, as the worker pool is a run alone's.

Each server's agent runs its share (`engine.hosts.part`: the configuration `for_server` gives it, a run on that server
alone, its own run folder there) at the controller's `Prepare`. Their messages come over their links
(`engine.hosts.controller`), each filed under the host its certificate names and checked against the test
(`engine.hosts.checks`). This source keeps a copy of each server's run folder (`hosts/HOST/`); once every server's
databases are ready, gives all of them one start instant `LEAD_S` ahead, each in its own clock; hands the measurement
each interval once every server has sent it (`joined`: the test's figures and verdict from the summed counters, each
server's share judged on its own); and stops every server when the engineer stops the test, when a server's part ends
early (refused, aborted, in error) or its link ends (killed, frozen, cut off): the test is then aborted, naming the
server and why. Every refusal of the controller meanwhile is said in the test's log.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engine.hosts.admission import Refusal
from engine.hosts.checks import Progress, SampleCheck, phase_problem, shown
from engine.hosts.controller import Controller, Gone
from engine.hosts.messages import Ended, FromAgent, Go, Lead, PartEvent, Prepare, Ready, Stop
from engine.io.platform import UnbufferedProbe
from engine.model.config import TestConfig
from engine.model.host_names import file_name_of, on_server
from engine.model.validation import Problem, check_rules
from engine.protocol import IntervalEvent, LogEvent, Phase, PhaseEvent, ProgressEvent, ResultEvent
from engine.results.host_schema import HostInfo
from engine.results.sample_schema import IntervalSample
from engine.results.schema import Outcome, RunResult, RunTimes, ServerEnd, ServerResult
from engine.results.servers import merged_recovery, merged_scan
from engine.run.gate import SweepLead, Told
from engine.run.host import host_info
from engine.run.measurement import Measurement
from engine.run.run_end import RunEnd, stopped_reason
from engine.run.runner import Runner
from engine.run.sinks import RunFolderWriter, SinkFailedError
from engine.run.sources.joined import Joined, at_controller_time
from engine.run.sources.sweep_word import SweepWord

LEAD_S = 1.0  # the start instant is this far after the last server arrived: time for the word to reach every one
STOP_WAIT_S = 30.0  # after the word to stop, how long a part gets to end and give its result before it counts as lost
RESULT_WAIT_S = 2.0  # a part's last events may follow its result: how long of quiet they get to arrive
HOSTS_FOLDER = "hosts"  # each server's copy of its run folder, in the test's
SAMPLE_LATE_S = 10.0  # a server measuring on the storage whose sample of an interval is this late, its link alive, is lost
INBOX_MESSAGES = 10_000  # the servers' messages waiting to be handled; more waits in the link (its back-pressure)
LOGGED_CHARS = 2_000  # the most of a server's line its copy of its run folder keeps


@dataclass
class _Server:
    name: str
    folder: RunFolderWriter
    moving: Progress  # its creation, then a scan's or a replay's work
    ended: bool = False  # its part said it ended
    heard: float = field(default_factory=time.monotonic)
    ready: bool = False
    phase: Phase = Phase.VALIDATING  # the last phase its part said
    offset_s: float | None = None
    result: RunResult | None = None
    result_event: bool = False
    end: ServerEnd | None = None  # how its part ended when not with the test
    why: str = ""  # why, in words
    samples: dict[int, IntervalSample] = field(default_factory=dict)
    instances: frozenset[str] = frozenset()  # the instances it runs, by their names on it
    last: int = -1  # the last interval it sent
    short_s: float | None = None  # the length of an interval it sent shorter than the test's: its last

    @property
    def out(self) -> bool:
        """It gives no more samples: lost, refused or ended in error."""
        return self.end is not None


class HostsSource:
    """Intervals from the servers of a test across servers, through their agents (`TestConfig.servers`)."""

    def __init__(self, controller: Controller, *, simulate: str | None = None) -> None:
        self.controller = controller
        self.simulate = simulate  # each server runs on this simulated device (engine.run.sources.model)
        self.device = simulate or ""  # every server's: a simulated one, or each server's own storage
        self.name = f"{simulate} on each server" if simulate else "each server's own, through its agent"
        self.word: SweepWord | None = None  # a load sweep's lead, once the run asked for it

    def host(self) -> HostInfo:
        return HostInfo.model_validate(host_info())  # the controller's: each server's own is in its share's folder

    def validate(self, config: TestConfig) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
        """The model's rules here; each server checks its own machine as it prepares, and a refusal ends the test
        naming the server."""
        problems = check_rules(config)
        if not config.servers:
            problems.append(Problem("servers", "a test across servers names at least one enrolled server"))
        return problems, {}

    def lead(self) -> SweepLead:
        """A load sweep across servers is led here, from the servers' summed counters (`SweepWord`)."""
        self.word = SweepWord()
        return self.word

    def run(self, runner: Runner, measurement: Measurement, probes: dict[Path, UnbufferedProbe]) -> RunEnd:
        return _HostsRun(self, runner, measurement).execute()


class _HostsRun:
    """The mechanics of one test across servers: the parts' messages, the start instant, the stop."""

    def __init__(self, source: HostsSource, runner: Runner, measurement: Measurement) -> None:
        self.source, self.runner, self.measurement = source, runner, measurement
        self.controller = source.controller
        self.config = runner.config
        self.inbox: queue.Queue[tuple[str, FromAgent | Gone | Refusal]] = queue.Queue(INBOX_MESSAGES)
        self.closed = False  # the test is over: nothing more is put in its inbox
        self.dropped = 0  # refusals that found the inbox full: counted, not said
        self.servers = {host: _Server(host, RunFolderWriter(runner.output_dir / HOSTS_FOLDER / file_name_of(host)),
                                      instances=frozenset(part.instance_names),
                                      moving=Progress(part.database_size_bytes * part.database_file_count))
                        for host, part in ((host, self.config.for_server(host)) for host in self.config.server_names)}
        self.check = SampleCheck(self.config.sample_interval_s, measurement.total_intervals,
                                 real_time=source.simulate is None)
        self.stopped_at: float | None = None  # when the word to stop went out, in the controller's time.time()
        self.ended_by = ""  # the first reason the test ended early: the test's
        self.stop_sent: float | None = None
        self.joined = Joined(measurement, self.check, self._measuring)

    # the run ----------------------------------------------------------------------------------------------------

    def execute(self) -> RunEnd:
        runner = self.runner
        runner.emit(PhaseEvent(phase=Phase.PREPARING, message=f"Preparing the databases on {len(self.servers)} servers"))
        if self.source.word is not None and runner.sweep is not None:
            self.source.word.begin(runner.sweep, self.config.sample_interval_s, self._tell)
        self.controller.begin(runner.run_id, {host: len(server.instances) for host, server in self.servers.items()},
                              self._arrived)
        try:
            for host in [host for host in self.servers if host not in self.controller.agents()]:
                self._out(self.servers[host], ServerEnd.LOST, "its agent is not connected")
            runner.log(f"Test across {len(self.servers)} servers: {', '.join(self.servers)}"
                       + (f" (simulated: {self.source.simulate})" if self.source.simulate else ""))
            for server in self.servers.values():
                if server.out:
                    continue
                server.offset_s = self.controller.clock_offset(server.name)
                server.moving.at = time.monotonic()
                self.controller.send(server.name, Prepare(test_id=runner.run_id, config=self.config.for_server(server.name),
                                                          simulate=self.source.simulate, sweep=runner.sweep))
            self._loop()
            self._drain()
        finally:
            self.closed = True
            self.controller.end()
            for server in self.servers.values():
                server.folder.close()
        return self._end()

    def _arrived(self, host: str, message: FromAgent | Gone | Refusal) -> None:
        """A part's message, as it arrives (the link's thread): the server is heard now, however long the message then
        waits to be handled."""
        if (known := self.servers.get(host)) is not None:
            known.heard = time.monotonic()
        if isinstance(message, Refusal):  # said in the link's own loop, which never waits
            try:
                self.inbox.put_nowait((host, message))
            except queue.Full:
                self.dropped += 1
            return
        while not self.closed:  # a server's message waits here, and its link's reading behind it, until there is room
            try:
                self.inbox.put((host, message), timeout=0.1)
                return
            except queue.Full:
                continue

    def _pending(self) -> list[_Server]:
        return [s for s in self.servers.values() if not s.out and not s.ended]

    def _loop(self) -> None:
        while self._pending():
            try:
                self._take_guarded(self.inbox.get(timeout=0.1))
            except queue.Empty:
                pass
            working = self.config.open_ended and self.check.real_time and self.stop_sent is None  # its own end, its own time
            for server in self._pending():
                if (not server.ready if self.check.started_at is None else working) and (why := server.moving.stalled()):
                    self._out(server, ServerEnd.LOST, why)
            self._lose_the_late()
            if self.runner.stop_reason is not None and self.stop_sent is None:
                self._stop_all(self.runner.stop_reason, by_user=True)
            if self.stop_sent is not None and time.monotonic() - self.stop_sent > STOP_WAIT_S:
                for server in self._pending():
                    self._out(server, ServerEnd.LOST, f"it did not end its run within {STOP_WAIT_S:g} s of the word to stop")
            self._start_when_ready()

    def _lose_the_late(self) -> None:
        """A server measuring on the storage for a test's length that sends no sample for an interval `SAMPLE_LATE_S`
        after it ended by the controller's clock is lost, whatever its link answers: such a test never waits on one
        server's silence."""
        if self.check.started_at is None or self.stop_sent is not None or not self.check.real_time or self.config.open_ended:
            return  # a scan's or a recovery's part ends when its work is done, each in its own time
        for server in self._pending():
            if server.short_s is None and (why := self.check.overdue(server.last, time.time(), SAMPLE_LATE_S)) is not None:
                self._out(server, ServerEnd.LOST, why)

    def _take_guarded(self, arrived: tuple[str, FromAgent | Gone | Refusal]) -> None:
        """`_take`: whatever a server's message raises refuses that server, and the test ends with a result naming
        it."""
        try:
            self._take(arrived)
        except Exception as exc:
            server = self.servers.get(arrived[0])
            if server is None:
                raise
            self._reject(server, f"its message could not be taken ({type(exc).__name__}: {shown(exc)})")

    def _reject(self, server: _Server, why: str) -> None:
        """A message of `server`'s that does not fit the test: it is refused, said, its link closed, and the test
        stops, naming it."""
        self.controller.refuse(server.name, why)
        self._out(server, ServerEnd.REJECTED, why)

    def _take(self, arrived: tuple[str, FromAgent | Gone | Refusal]) -> None:
        name, message = arrived
        if isinstance(message, Refusal):  # a connection or a message the controller refused meanwhile
            self.runner.log(message.words[:1].upper() + message.words[1:], "warning")
            return
        server = self.servers[name]
        if isinstance(message, Gone):
            if not server.ended:
                self._out(server, ServerEnd.LOST, message.why)
            return
        if server.ended:  # its part said it ended: nothing of it follows
            self.controller.refuse(name, f"a '{message.kind}' message after its part ended")
            return
        if isinstance(message, PartEvent):
            self._event(server, message)
        elif isinstance(message, Ready):
            if server.ready:
                self.controller.refuse(name, "a second 'ready'")
                return
            server.ready = True
            clock = f"{server.offset_s * 1000:+.1f} ms from" if server.offset_s is not None else "not read: taken as"
            self.runner.log(f"{name}: databases ready (its clock is {clock} the controller's)")
        elif isinstance(message, Ended):
            if message.result is not None and (why := self.check.result_problem(
                    message.result, server.instances, stopped=self.stop_sent is not None)) is not None:
                self._reject(server, why)
                return
            server.ended = True
            self._ended(server, message)
        else:  # a Hello or a clock reading reach no test
            self.controller.refuse(name, f"a '{message.kind}' message in a test")

    def _tell(self, step: int, told: Told) -> None:
        """The word for a sweep's next step, to every server still in the test, and said in the test's log."""
        if told.load is None:
            self.runner.log(f"Load sweep across servers ends at sample {told.at}")
        else:
            self.runner.log(f"Step {step + 1}: {told.load[0]} threads / SluggishSessions {told.load[1]} on every server "
                            f"from sample {told.at}")
        for server in self.servers.values():
            if not server.out and not server.ended:
                self.controller.send(server.name, Lead(test_id=self.runner.run_id, step=step, at=told.at,
                                                       load=told.load, end=told.end))

    def _event(self, server: _Server, message: PartEvent) -> None:
        event = message.event
        if isinstance(event, IntervalEvent):
            sample = event.sample
            why = self.check.problem(sample, after=server.last, short_s=server.short_s, instances=server.instances,
                                     now=time.time())
            if why is not None:
                self._reject(server, why)
                return
            server.last = sample.interval
            server.short_s = sample.duration_s if self.check.short(sample) else None
            event = IntervalEvent(sample=at_controller_time(sample, server.offset_s))
            server.samples[sample.interval] = event.sample
            server.moving.sampled()
            self._add_whole()
        elif isinstance(event, ResultEvent):
            server.result_event = True
        elif isinstance(event, ProgressEvent):
            server.moving.progress(event.phase, event.done_bytes, event.total_bytes)
        elif isinstance(event, PhaseEvent):
            started = self.check.started_at is not None or self.stop_sent is not None  # a part stopping says its way out
            if (why := phase_problem(event.phase, server.phase, started)) is not None:
                self._reject(server, why)
                return
            server.phase = event.phase
        if isinstance(event, (PhaseEvent, LogEvent)):  # its words, escaped and bounded wherever they are shown
            event = event.model_copy(update={"message": shown(event.message, LOGGED_CHARS)})
            if isinstance(event, PhaseEvent) and event.phase not in (Phase.VALIDATING, Phase.FINISHING, Phase.DONE):
                self.runner.log(f"{server.name}: {shown(event.message)}")
            elif isinstance(event, LogEvent) and event.level != "info":
                self.runner.log(f"{server.name}: {shown(event.message)}", event.level)
        try:
            server.folder(event)
        except SinkFailedError as exc:
            self.runner.request_stop(f"the controller cannot keep {server.name}'s samples: {exc.reason}")

    def _add_whole(self) -> None:
        self.joined.add([s for s in self.servers.values() if not s.out], self.stopped_at)

    def _measuring(self) -> None:
        self.runner.emit(PhaseEvent(phase=Phase.MEASURING, message="Measuring on every server"))
        self.runner.log("Measurement begins")

    def _start_when_ready(self) -> None:
        if self.check.started_at is not None or self.stop_sent is not None or not all(s.ready for s in self.servers.values()):
            return
        at = time.time() + LEAD_S
        self.check.started_at = at
        start = datetime.fromtimestamp(at, UTC).astimezone()
        self.runner.log(f"Every server's databases are ready: the test starts on all of them at {start:%H:%M:%S.%f}"[:-3])
        warm = self.measurement.warmup_intervals > 0 or self.measurement.window.settle is not None
        self.runner.emit(PhaseEvent(phase=Phase.WARMING_UP if warm else Phase.MEASURING,
                                    message="Warming up on every server" if warm else "Measuring on every server"))
        for server in self.servers.values():  # the instant in each server's own clock; its work watched from there
            server.moving = Progress(None)
            self.controller.send(server.name, Go(test_id=self.runner.run_id, at_s=at - (server.offset_s or 0.0)))

    def _out(self, server: _Server, how: ServerEnd, why: str) -> None:
        """A server gives no more: lost, refused its part or ended in error; the test stops, naming it."""
        if server.out:
            return
        server.end, server.why = how, why
        words = how.said_of(server.name)
        self.runner.log(f"{words}: {why}", "error")
        self._stop_all(f"{words} ({why})")

    def _stop_all(self, reason: str, *, by_user: bool = False) -> None:
        """Stop every part still running, saying why; the first reason is the test's."""
        if not self.ended_by and not by_user:
            self.ended_by = reason
        if self.stop_sent is not None:
            return
        self.stop_sent = time.monotonic()
        self.stopped_at = time.time()
        self.runner.log(f"Stopping every server: {reason}", "warning")
        for server in self.servers.values():  # a lost one too: it may only be cut off, and hear it when it is back
            if not server.ended:
                self.controller.send(server.name, Stop(test_id=self.runner.run_id, reason=reason))

    def _ended(self, server: _Server, ended: Ended) -> None:
        """A part ended: its result, its refusal or its error; one that ends before the others stops them."""
        if ended.refused is not None:
            self._out(server, ServerEnd.REFUSED, shown("; ".join(f"{where}: {words}" for where, words in ended.refused)))
        elif ended.result is None:
            self._out(server, ServerEnd.ERROR, shown(ended.error or "its part ended with no result"))
        else:
            server.result = ended.result
            verdict = ended.result.summary.verdict
            self.runner.log(f"{server.name} ended: {verdict.value.upper()}")
            if verdict == Outcome.ABORTED and self.stop_sent is None:
                self._out(server, ServerEnd.ABORTED, shown("; ".join(ended.result.summary.reasons)))
        self._add_whole()

    def _drain(self) -> None:
        """Every message that arrived is handled; each part's last events get `RESULT_WAIT_S` of quiet to arrive."""
        while any(s.result is not None and not s.result_event for s in self.servers.values()) or not self.inbox.empty():
            try:
                self._take_guarded(self.inbox.get(timeout=0.05))
            except queue.Empty:
                if time.monotonic() - max(s.heard for s in self.servers.values()) > RESULT_WAIT_S:
                    break
        self._add_whole()

    def _end(self) -> RunEnd:
        runner = self.runner
        if self.dropped:
            runner.log(f"{self.dropped:,} more refusals came while the test's messages waited, and are not said", "warning")
        aborted = None
        if self.ended_by:
            aborted = f"Run aborted: {self.ended_by}"
        elif runner.stop_reason is not None:
            phase = Phase.MEASURING if self.joined.measuring else Phase.WARMING_UP if self.check.started_at else Phase.PREPARING
            aborted = stopped_reason(runner.stop_reason, phase, self.joined.measured_s)
        collection = self.joined.collection
        times = RunTimes(test_start_utc=self.joined.wall0, test_end_utc=datetime.now(UTC),
                         collection_start_utc=collection[0] if collection else None,
                         collection_end_utc=collection[-1] if collection else None)
        folder = runner.output_dir / HOSTS_FOLDER
        whole = self.config.open_ended  # a scan or a replay: each server's own verdict on what it read or replayed
        shares = [ServerResult(host=s.name, end=s.end, ended=s.why, clock_offset_s=s.offset_s,
                               run_folder=str(folder / file_name_of(s.name)),
                               summary=s.result.summary if whole and s.result is not None else None)
                  for s in self.servers.values()]
        results = {s.name: s.result for s in self.servers.values() if s.result is not None}
        return RunEnd(measured_s=self.joined.measured_s, aborted_reason=aborted, host=self.source.host(), times=times,
                      unbuffered_io=all(r.unbuffered_io for r in results.values()),
                      io_detail="; ".join(sorted({r.unbuffered_io_detail for r in results.values() if r.unbuffered_io_detail})),
                      servers=shares, scan=merged_scan(results), recovery=merged_recovery(results),
                      database_bytes={on_server(host, row.name): (row.database_bytes_initial, row.database_bytes_final)
                                      for host, result in results.items() for row in result.instances})
