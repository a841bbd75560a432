"""A test across servers as a run: the servers' agents are its interval source, as the worker pool is a run alone's.

Each server's agent runs its share (`engine.hosts.part`: the configuration `for_server` gives it, a run on that server
alone, its own run folder there) at the controller's `Prepare`. Their messages come over their links
(`engine.hosts.controller`), each filed under the host its certificate names. This source:
- keeps a copy of each server's run folder from what it says (`hosts/HOST/` in the test's run folder);
- once every server's databases are ready, gives all of them one start instant `LEAD_S` ahead, each in its own clock
  (the controller reads each server's clock over its link as the test begins);
- hands the measurement each interval once every server has sent it: each server's instances are parts of the one
  measurement (named "HOST Instance N"), so the test's figures and verdict come from the summed counters, and each
  server's share is judged on its own counters (`Measurement._server_shares`);
- stops every server when the engineer stops the test, when a server's part ends early (refused, aborted, in error)
  or when its link ends (its agent killed; frozen or its network cut: no pong for the link's silence limit): the test
  is then aborted, naming the server and why;
- says in the test's log every connection and message the controller refused meanwhile, and refuses a message out
  of turn.
"""

from __future__ import annotations

import math
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.hosts.admission import Refusal
from engine.hosts.checks import SampleCheck, shown
from engine.hosts.controller import Controller, Gone
from engine.hosts.messages import Ended, FromAgent, Go, Lead, PartEvent, Prepare, Ready, Stop
from engine.io.platform import UnbufferedProbe
from engine.model.config import TestConfig
from engine.model.host_names import file_name_of, on_server
from engine.model.validation import Problem, check_rules
from engine.protocol import IntervalEvent, LogEvent, Phase, PhaseEvent, ProgressEvent, ResultEvent
from engine.results.counters import added
from engine.results.host_schema import HostFigures, HostInfo
from engine.results.recovery_schema import RecoveryResult
from engine.results.sample_schema import IntervalSample
from engine.results.scan_schema import ScanResult
from engine.results.schema import Outcome, RunResult, RunTimes, ServerResult
from engine.results.sweep_schema import SweepEnd, SweepStep
from engine.run.gate import SweepLead, Told
from engine.run.host import host_info
from engine.run.measurement import Measurement, RunEnd, stopped_reason
from engine.run.runner import Runner
from engine.run.samples import parts_from_sample
from engine.run.sinks import RunFolderWriter, SinkFailedError
from engine.run.steps import next_of
from engine.run.sweep import Sweep, SweepPlan

GAP_S = 2.0  # a sweep's next step starts this long after a step's last sample: the word reaches every server in time
LEAD_S = 1.0  # the start instant is this far after the last server arrived: time for the word to reach every one
STOP_WAIT_S = 30.0  # after the word to stop, how long a part gets to end and give its result before it counts as lost
RESULT_WAIT_S = 2.0  # a part's last events may follow its result: how long of quiet they get to arrive
HOSTS_FOLDER = "hosts"  # each server's copy of its run folder, in the test's
SAMPLE_LATE_S = 10.0  # a server measuring on the storage whose sample of an interval is this late, its link alive, is lost
READY_QUIET_S = 300.0  # a server whose databases' creation moves less than `READY_STEP_BYTES` this long, not ready, is lost
READY_STEP_BYTES = 1 << 30  # or the rest of what it creates: the least a server's creation counts as progress
INBOX_MESSAGES = 10_000  # the servers' messages waiting to be handled; more waits in the link (its back-pressure)
LOGGED_CHARS = 2_000  # the most of a server's line its copy of its run folder keeps


@dataclass
class _Server:
    name: str
    folder: RunFolderWriter
    ended: bool = False  # its part said it ended
    heard: float = field(default_factory=time.monotonic)
    ready: bool = False
    prepared: tuple[float, int] = (0.0, 0)  # when its databases' creation last moved `READY_STEP_BYTES`, and how far
    phase: Phase = Phase.VALIDATING  # the last phase its part said
    offset_s: float | None = None
    result: RunResult | None = None
    result_event: bool = False
    why: str = ""  # how its part ended when not with the test: lost, refused, in error
    samples: dict[int, IntervalSample] = field(default_factory=dict)
    instances: frozenset[str] = frozenset()  # the instances it runs, by their names on it
    last: int = -1  # the last interval it sent
    short_s: float | None = None  # the length of an interval it sent shorter than the test's: its last

    @property
    def out(self) -> bool:
        """It gives no more samples: lost, refused or ended in error."""
        return bool(self.why)


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


class SweepWord:
    """A load sweep across servers: on shared storage the servers' loads add up, so the limit it looks for is theirs
    together. The test's measurement steps through the sweep in lockstep on the servers' summed counters (`SweepSteps`
    with this lead): each step it measures is chosen from as a sweep alone chooses (`next_of`), and the word (the next
    load and the sample it starts at, `GAP_S` after the step's last, or the end) goes to every server, whose share
    settles and judges the same samples and runs its load until the word."""

    def __init__(self) -> None:
        self.records: list[SweepStep] = []
        self._told: dict[int, Told] = {}
        self._schedule: Sweep | None = None
        self._gap = 1
        self._tell: Callable[[int, Told], None] = lambda _step, _told: None

    def begin(self, plan: SweepPlan, interval_s: float, tell: Callable[[int, Told], None]) -> None:
        self._schedule = Sweep(plan.loads, plan.start, plan.max_steps)
        self._gap = max(1, math.ceil(GAP_S / interval_s - 1e-9))
        self._tell = tell

    def measured(self, record: SweepStep) -> None:
        assert self._schedule is not None
        self.records.append(record)
        at = record.last_interval + 1 + self._gap
        following = next_of(self._schedule, self.records)
        if isinstance(following, SweepEnd):
            told = Told(at, end=following)
        else:
            told = Told(at, load=(following.threads, following.sluggish))
        self._told[record.step + 1] = told
        self._tell(record.step + 1, told)

    def told(self, step: int) -> Told | None:
        return self._told.get(step)


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
                                      instances=frozenset(self.config.for_server(host).instance_names))
                        for host in self.config.server_names}
        self.creates = {host: self.config.for_server(host).database_size_bytes * self.config.for_server(host).database_file_count
                        for host in self.servers}  # the bytes each server's databases' creation counts to
        self.check = SampleCheck(self.config.sample_interval_s, measurement.total_intervals,
                                 real_time=source.simulate is None)
        self.stopped_at: float | None = None  # when the word to stop went out, in the controller's time.time()
        self.ended_by = ""  # the first reason the test ended early: the test's
        self.stop_sent: float | None = None
        self.started_at: float | None = None  # the start instant, in the controller's time.time()
        self.next_interval = 0
        self.measured_s = 0.0
        self.measuring = False
        self.wall0 = datetime.now(UTC)
        self.collection: list[datetime] = []  # the measured window's first and last sample times

    # the run ----------------------------------------------------------------------------------------------------

    def execute(self) -> RunEnd:
        runner = self.runner
        runner.emit(PhaseEvent(phase=Phase.PREPARING, message=f"Preparing the databases on {len(self.servers)} servers"))
        if self.source.word is not None and runner.sweep is not None:
            self.source.word.begin(runner.sweep, self.config.sample_interval_s, self._tell)
        self.controller.begin(runner.run_id, {host: len(server.instances) for host, server in self.servers.items()},
                              self._arrived)
        try:
            missing = [host for host in self.servers if host not in self.controller.agents()]
            for host in missing:
                self._out(self.servers[host], "lost", "its agent is not connected")
            runner.log(f"Test across {len(self.servers)} servers: {', '.join(self.servers)}"
                       + (f" (simulated: {self.source.simulate})" if self.source.simulate else ""))
            for server in self.servers.values():
                if server.out:
                    continue
                server.offset_s = self.controller.clock_offset(server.name)
                server.prepared = (time.monotonic(), 0)
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
        known = self.servers.get(host)
        if known is not None:
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
            for server in self._pending() if self.started_at is None else ():
                if not server.ready and time.monotonic() - server.prepared[0] > READY_QUIET_S:
                    self._out(server, "lost", self._not_ready(server))
            self._lose_the_late()
            if self.runner.stop_reason is not None and self.stop_sent is None:
                self._stop_all(self.runner.stop_reason, by_user=True)
            if self.stop_sent is not None and time.monotonic() - self.stop_sent > STOP_WAIT_S:
                for server in self._pending():
                    self._out(server, "lost", f"it did not end its run within {STOP_WAIT_S:g} s of the word to stop")
            self._start_when_ready()

    def _lose_the_late(self) -> None:
        """A server measuring on the storage for a test's length that sends no sample for an interval `SAMPLE_LATE_S`
        after it ended by the controller's clock is lost, whatever its link answers: such a test never waits on one
        server's silence."""
        if self.started_at is None or self.stop_sent is not None or not self.check.real_time or self.config.open_ended:
            return  # a scan's or a recovery's part ends when its work is done, each in its own time
        ended = math.floor((time.time() - SAMPLE_LATE_S - self.started_at) / self.check.interval_s) - 1
        for server in self._pending():
            due = server.last + 1
            if due <= min(ended, self.measurement.total_intervals - 1) and server.short_s is None:
                self._out(server, "lost", f"it sent no sample for interval {due:,}, {SAMPLE_LATE_S:g} s after that "
                                          "interval ended by the controller's clock")

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
        self._out(server, "rejected", why)

    def _take(self, arrived: tuple[str, FromAgent | Gone | Refusal]) -> None:
        name, message = arrived
        if isinstance(message, Refusal):  # a connection or a message the controller refused meanwhile
            self.runner.log(message.words[:1].upper() + message.words[1:], "warning")
            return
        server = self.servers[name]
        if isinstance(message, Gone):
            if not server.ended:
                self._out(server, "lost", message.why)
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
            if message.result is not None and self.started_at is None and self.stop_sent is None:
                self._reject(server, "a result before the test started")
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
            event = IntervalEvent(sample=self._aligned(server, sample))
            server.samples[sample.interval] = event.sample
            self._add_whole()
        elif isinstance(event, ResultEvent):
            server.result_event = True
        elif isinstance(event, ProgressEvent) and not server.ready:
            self._preparing(server, event)
        elif isinstance(event, PhaseEvent) and (why := self._out_of_turn(server, event.phase)) is not None:
            self._reject(server, why)
            return
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

    def _preparing(self, server: _Server, event: ProgressEvent) -> None:
        """A server's databases' creation moved: it counts once it moved `READY_STEP_BYTES` (or the rest it creates),
        so a server that never gets ready is lost however much else it says."""
        _at, done = server.prepared
        step = min(READY_STEP_BYTES, self.creates[server.name] - done)
        if event.phase == Phase.PREPARING and step > 0 and min(event.done_bytes, self.creates[server.name]) >= done + step:
            server.prepared = (time.monotonic(), done + step)

    def _not_ready(self, server: _Server) -> str:
        step = min(READY_STEP_BYTES, self.creates[server.name] - server.prepared[1])
        if step <= 0:
            return f"it created its databases and was not ready {READY_QUIET_S:g} s later"
        amount = f"{step / (1 << 30):g} GiB" if step >= 1 << 30 else f"{step / (1 << 20):,.0f} MiB"
        return f"its databases' creation did not move {amount} in {READY_QUIET_S:g} s, and it is not ready"

    def _out_of_turn(self, server: _Server, phase: Phase) -> str | None:
        """Why a server's part saying `phase` now is out of turn: its phases go forward, and its test's work begins at
        the test's start instant; None when it is in turn."""
        order = list(Phase)
        if order.index(phase) < order.index(server.phase):
            return f"a phase '{phase.value}' after '{server.phase.value}' (a part's phases go forward)"
        if self.started_at is None and phase in (Phase.WARMING_UP, Phase.MEASURING, Phase.REPLAYING):
            return f"a phase '{phase.value}' before the test started"
        server.phase = phase
        return None

    def _aligned(self, server: _Server, sample: IntervalSample) -> IntervalSample:
        """A sample at the controller's time: the server's clock plus its offset."""
        if sample.time_utc is None or not server.offset_s:
            return sample
        return sample.model_copy(update={"time_utc": sample.time_utc + timedelta(seconds=server.offset_s)})

    def _add_whole(self) -> None:
        """Each interval every server still measuring has sent, in turn, to the measurement: one interval of the test,
        each server's instances its parts. Servers on the simulated device play a long run a window at a time, each
        instance's counters with the window's last sample: such a window goes in whole, once every server sent it."""
        measurement = self.measurement
        while self.next_interval < measurement.total_intervals:
            index = self.next_interval
            live = [s for s in self.servers.values() if not s.out and (s.result is None or index in s.samples)]
            last = _window_end(live, index)
            if last is None:
                return
            got = [[s.samples.pop(i) for i in range(index, last + 1)] for s in live]
            parts = {on_server(s.name, name): part for s, samples in zip(live, got, strict=True)
                     for name, part in parts_from_sample(samples[-1]).items()}
            # the test's timing is the controller's: no server's length or clock of an interval stands for the test's
            duration = self.check.duration_s(last, self.stopped_at)
            span = self.check.interval_s * (last - index) + duration
            elapsed = self.check.interval_s * last + duration
            began = self.started_at if self.started_at is not None else self.wall0.timestamp()
            ended_at = datetime.fromtimestamp(began + elapsed, UTC)
            host = HostFigures(cpu_percent=max(sample.host.cpu_percent for samples in got for sample in samples))
            measured = index >= measurement.warmup_intervals
            if measured and not self.measuring:
                self.measuring = True
                self.runner.emit(PhaseEvent(phase=Phase.MEASURING, message="Measuring on every server"))
                self.runner.log("Measurement begins")
            if last == index:
                measurement.add(index, parts, duration_s=duration, elapsed_s=elapsed, time_utc=ended_at, host=host)
            else:
                seconds = [added(samples[k].server for samples in got) for k in range(last - index + 1)]
                measurement.add_window(index, parts, seconds, duration_s=self.check.interval_s,
                                       elapsed_s=self.check.interval_s * (index + 1), start=datetime.fromtimestamp(began, UTC),
                                       host=host)
            if measured:
                self.measured_s += span
                self.collection[1:] = [ended_at]
                if len(self.collection) == 1:
                    self.collection.insert(0, ended_at - timedelta(seconds=span))
            self.next_interval = last + 1

    def _start_when_ready(self) -> None:
        if self.started_at is not None or self.stop_sent is not None:
            return
        if not all(server.ready for server in self.servers.values()):
            return
        at = time.time() + LEAD_S
        self.started_at = self.check.started_at = at
        start = datetime.fromtimestamp(at, UTC).astimezone()
        self.runner.log(f"Every server's databases are ready: the test starts on all of them at {start:%H:%M:%S.%f}"[:-3])
        warm = self.measurement.warmup_intervals > 0 or self.measurement.window.settle is not None
        self.runner.emit(PhaseEvent(phase=Phase.WARMING_UP if warm else Phase.MEASURING,
                                    message="Warming up on every server" if warm else "Measuring on every server"))
        for server in self.servers.values():  # the instant in each server's own clock
            self.controller.send(server.name, Go(test_id=self.runner.run_id, at_s=at - (server.offset_s or 0.0)))

    def _out(self, server: _Server, how: str, why: str) -> None:
        """A server gives no more: lost, refused its part or ended in error; the test stops, naming it."""
        if server.out:
            return
        server.why = f"{how}: {why}"
        words = {"lost": f"{server.name} was lost", "refused": f"{server.name} refused its part",
                 "error": f"{server.name}'s run ended in error", "aborted": f"{server.name}'s run was aborted",
                 "rejected": f"{server.name} was refused"}[how]
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
            self._out(server, "refused", shown("; ".join(f"{where}: {words}" for where, words in ended.refused)))
        elif ended.result is None:
            self._out(server, "error", shown(ended.error or "its part ended with no result"))
        else:
            unknown = sorted({row.name for row in ended.result.instances} - server.instances)
            if unknown:
                self._reject(server, f"a result naming instance {shown(unknown[0], 80)}, which it does not run")
                return
            server.result = ended.result
            verdict = ended.result.summary.verdict
            self.runner.log(f"{server.name} ended: {verdict.value.upper()}")
            if verdict == Outcome.ABORTED and self.stop_sent is None:
                self._out(server, "aborted", shown("; ".join(ended.result.summary.reasons)))
        self._add_whole()

    def _drain(self) -> None:
        """Every message that arrived is handled, and each part's last events get `RESULT_WAIT_S` of quiet to
        arrive."""
        while any(s.result is not None and not s.result_event for s in self.servers.values()) or not self.inbox.empty():
            try:
                self._take_guarded(self.inbox.get(timeout=0.05))
            except queue.Empty:
                if time.monotonic() - max(s.heard for s in self.servers.values()) > RESULT_WAIT_S:
                    break
        self._add_whole()

    def _end(self) -> RunEnd:
        runner = self.runner
        aborted = None
        if self.ended_by:
            aborted = f"Run aborted: {self.ended_by}"
        elif runner.stop_reason is not None:
            phase = Phase.MEASURING if self.measuring else Phase.WARMING_UP if self.started_at else Phase.PREPARING
            aborted = stopped_reason(runner.stop_reason, phase, self.measured_s)
        times = RunTimes(test_start_utc=self.wall0, test_end_utc=datetime.now(UTC),
                         collection_start_utc=self.collection[0] if self.collection else None,
                         collection_end_utc=self.collection[-1] if self.collection else None)
        folder = runner.output_dir / HOSTS_FOLDER
        whole = self.config.open_ended  # a scan or a replay: each server's own verdict on what it read or replayed
        shares = [ServerResult(host=s.name, ended=s.why, clock_offset_s=s.offset_s, run_folder=str(folder / file_name_of(s.name)),
                               summary=s.result.summary if whole and s.result is not None else None)
                  for s in self.servers.values()]
        results = {s.name: s.result for s in self.servers.values() if s.result is not None}
        return RunEnd(measured_s=self.measured_s, aborted_reason=aborted, host=self.source.host(), times=times,
                      unbuffered_io=all(r.unbuffered_io for r in results.values()),
                      io_detail="; ".join(sorted({r.unbuffered_io_detail for r in results.values() if r.unbuffered_io_detail})),
                      servers=shares, scan=merged_scan(results), recovery=merged_recovery(results),
                      database_bytes={on_server(host, row.name): (row.database_bytes_initial, row.database_bytes_final)
                                      for host, result in results.items() for row in result.instances})


def _window_end(live: list[_Server], index: int) -> int | None:
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


def merged_scan(results: dict[str, RunResult]) -> ScanResult | None:
    """The servers' scans as one: every database each read, named by its server; None when none scanned."""
    scans = {host: r.scan for host, r in results.items() if r.scan is not None}
    if not scans:
        return None
    first = next(iter(scans.values()))
    return first.model_copy(update={
        "databases": [d.model_copy(update={"instance": on_server(host, d.instance)}) for host, scan in scans.items()
                      for d in scan.databases],
        "seconds": max(scan.seconds for scan in scans.values())})


def merged_recovery(results: dict[str, RunResult]) -> RecoveryResult | None:
    """The servers' Soft Recoveries as one: every instance each generated and replayed, named by its server."""
    recoveries = {host: r.recovery for host, r in results.items() if r.recovery is not None}
    if not recoveries:
        return None
    first = next(iter(recoveries.values()))
    return first.model_copy(update={"instances": [i.model_copy(update={"instance": on_server(host, i.instance)})
                                                  for host, recovery in recoveries.items() for i in recovery.instances]})
