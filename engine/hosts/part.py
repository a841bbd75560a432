"""A server's part of a test across servers: today's run, on this agent, started, measured and stopped with the others.

The controller sends `run_part` to each agent's worker as a task pinned to its host. The run is exactly a run alone
(its own worker processes, its own run folder and samples in the agent's data folder), with three differences:
- its events go to the controller as they come, on the test's topic (Dask's structured events, over the worker's
  connection), beside a beat every half second;
- its measured clock starts at the instant the controller gives (`go`), once every server's databases are ready,
  in the controller's time turned into this server's by the clock offset Dask measures at each heartbeat;
- it stops when the controller says so (`stop`), or when the controller is lost: no answer for `LOST_S`;
- a load sweep across servers steps in lockstep: each step's record goes to the controller, and the load runs until
  the controller's word (`lead`) names the next load and the sample it starts at, or the sweep's end.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from distributed import Worker, get_worker
from distributed.core import Status

from engine.model.config import TestConfig
from engine.protocol import RunEvent, to_json_line
from engine.results.sweep_schema import SweepEnd, SweepStep
from engine.run.gate import Told
from engine.run.runner import InvalidConfigError
from engine.run.simulation import PROFILES, runner_for
from engine.run.sweep import SweepPlan

BEAT_S = 0.5  # how often a part says it is alive, and asks whether its controller is
LOST_S = 3.0  # a controller that has not answered for this long is lost: the part stops
ASK_TIMEOUT_S = 10.0  # a question to the controller unanswered this long is given up (others are asked meanwhile)
RUNS_FOLDER = "runs"  # in the agent's data folder: a folder per test, named by its id
_RUNS: list[Path] = [Path.cwd() / RUNS_FOLDER]  # this agent's (`keep_runs_in`)

_PARTS: dict[str, Part] = {}  # the test id -> the part this agent runs of it
_PARTS_LOCK = threading.Lock()


def topic(test_id: str) -> str:
    """The Dask event topic a test's parts speak on."""
    return f"jetwise-test-{test_id}"


class Part:
    """One server's run in a test across servers: its gate, its stop and its link to the controller."""

    def __init__(self, worker: Worker, test_id: str, host: str) -> None:
        self.worker, self.test_id, self.host = worker, test_id, host
        self._go_at: float | None = None  # the start instant, in the controller's time.time()
        self._stop: str | None = None
        self._ended = threading.Event()
        self._answered = time.monotonic()  # when the controller last answered a question
        self._told: dict[int, Told] = {}  # a sweep's steps, as the controller chose them
        self.stop_reason: str | None = None

    # what the controller says (`go`, `stop`, run on the worker by client.run) -----------------------------------

    def go(self, at: float) -> None:
        self._go_at = at

    def stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason

    def tell(self, step: int, told: Told) -> None:
        self._told[step] = told

    # a sweep's lead: the controller ------------------------------------------------------------------------

    def measured(self, record: SweepStep) -> None:
        self.say({"step": record.model_dump_json()})

    def told(self, step: int) -> Told | None:
        return self._told.get(step)

    # the gate the run waits at -----------------------------------------------------------------------------

    def arrived(self) -> None:
        self.say({"ready": True, "offset_s": self.offset_s})

    def start_ns(self) -> int | None:
        if self._go_at is None:
            return None
        local = self._go_at - self.offset_s  # the controller's instant on this server's clock
        return time.perf_counter_ns() + round((local - time.time()) * 1e9)

    @property
    def offset_s(self) -> float:
        """The controller's clock minus this server's (Dask measures it at each heartbeat)."""
        return float(self.worker.scheduler_delay)

    # to the controller -------------------------------------------------------------------------------------

    def say(self, message: dict[str, Any]) -> None:
        self.worker.log_event(topic(self.test_id), {"host": self.host, **message})

    def emit(self, event: RunEvent) -> None:
        self.say({"event": to_json_line(event)})

    def watch(self, request_stop: Callable[[str], None]) -> None:
        """Until the run ends: beat, and stop the run when the controller says so or is lost (none of the questions
        asked every beat answered for `LOST_S`: however long one takes, a controller that answers any is there)."""
        self._answered = time.monotonic()
        while not self._ended.wait(BEAT_S):
            if self.stop_reason is not None:
                request_stop(self.stop_reason)
            if self.worker.status not in (Status.running, Status.paused):
                request_stop("the controller closed the test or its connection was lost")
                continue
            self.say({"beat": time.time()})
            self._ask_controller()
            if time.monotonic() - self._answered > LOST_S:
                request_stop(f"the controller was lost (no answer for {LOST_S:g} s)")

    def _ask_controller(self) -> None:
        """Ask the controller who it is, without waiting: its answer, when it comes, is noted."""
        async def ask() -> None:
            try:
                await asyncio.wait_for(self.worker.scheduler.identity(), ASK_TIMEOUT_S)
            except Exception:  # a timeout, a closed connection: this question goes unanswered
                return
            self._answered = time.monotonic()

        asyncio.run_coroutine_threadsafe(ask(), self.worker.loop.asyncio_loop)  # type: ignore[attr-defined]

    def ended(self) -> None:
        self._ended.set()


def run_part(test_id: str, host: str, config_json: str, simulate: str | None, sweep: SweepPlan | None = None) -> str:
    """Run this server's part of test `test_id` (a Dask task on its agent), a load sweep in lockstep when `sweep` is
    given: its result document, or the refusal (`{"refused": [[field, words], ...]}`) as JSON."""
    worker = get_worker()
    part = Part(worker, test_id, host)
    with _PARTS_LOCK:
        _PARTS[test_id] = part
    watcher: threading.Thread | None = None
    try:
        config = TestConfig.model_validate_json(config_json)
        folder = _RUNS[0] / test_id
        runner = runner_for(PROFILES[simulate] if simulate else None, config, folder, part.emit, run_id=test_id,
                            gate=part, sweep=sweep, lead=part if sweep is not None else None)
        watcher = threading.Thread(target=part.watch, args=(runner.request_stop,), name="jetwise-part", daemon=True)
        watcher.start()
        try:
            result = runner.run()
        except InvalidConfigError as exc:
            return json.dumps({"refused": [[p.field, p.message] for p in exc.problems]})
        return result.model_dump_json()
    finally:
        part.ended()
        if watcher is not None:
            watcher.join(timeout=BEAT_S * 4)
        with _PARTS_LOCK:
            _PARTS.pop(test_id, None)


def keep_runs_in(folder: Path) -> None:
    """Where this agent keeps each test's run folder (its data folder's `runs`), set as it starts serving."""
    _RUNS[:] = [folder]


def _part(test_id: str) -> Part | None:
    with _PARTS_LOCK:
        return _PARTS.get(test_id)


def go(test_id: str, at: float) -> bool:
    """The controller's word to start measuring at `at` (its time.time()); False when no part of that test runs."""
    part = _part(test_id)
    if part is not None:
        part.go(at)
    return part is not None


def stop(test_id: str, reason: str) -> bool:
    """The controller's word to stop this server's part, with the reason its result keeps."""
    part = _part(test_id)
    if part is not None:
        part.stop(reason)
    return part is not None


def lead(test_id: str, step: int, at: int, load: tuple[int, int] | None, end_json: str | None) -> bool:
    """The controller's word for step `step` of this server's sweep: its load from sample `at`, or the end there."""
    part = _part(test_id)
    if part is not None:
        end = SweepEnd.model_validate_json(end_json) if end_json else None
        part.tell(step, Told(at, tuple(load) if load is not None else None, end))  # type: ignore[arg-type]
    return part is not None
