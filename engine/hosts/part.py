"""A server's part of a test across servers: today's run, on this agent, started, measured and stopped with the others.

The controller's `Prepare` starts it in a thread of the agent (`run_part`). The run is exactly a run alone (its own
worker processes, its own run folder and samples in the agent's data folder), with these differences:
- the database and log folders missing on this server are made first, with the folders above them (the window's Create
  folders makes only its own machine's);
- its events go to the controller as they come, over the agent's link (`PartEvent`: the engine's own events);
- its measured clock starts at the instant the controller gives (`Go`), once every server's databases are ready, given
  in this server's own clock (the controller measured the offset between the two);
- it stops when the controller says so (`Stop`), or when its link to the controller ends (the controller closed the
  test, or was lost: no pong nor word for the link's silence limit);
- a load sweep across servers steps in lockstep: each step's record goes to the controller, and the load runs until
  the controller's word (`Lead`) names the next load and the sample it starts at, or the sweep's end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from engine.hosts.messages import Ended, PartEvent, Prepare, Ready
from engine.io.preflight import make_run_folders
from engine.model.config import DatabaseSource
from engine.protocol import RunEvent
from engine.results.sweep_schema import SweepStep
from engine.run.gate import Told
from engine.run.runner import InvalidConfigError
from engine.run.sources.model import PROFILES, runner_for

BEAT_S = 0.5  # how often the part looks for the word to stop
RUNS_FOLDER = "runs"  # in the agent's data folder: a folder per test, named by its id


class Part:
    """One server's run in a test across servers: its gate, its stop and what it says to the controller."""

    def __init__(self, test_id: str, send: Callable[[BaseModel], None]) -> None:
        self.test_id, self._send = test_id, send
        self._go_at: float | None = None  # the start instant, in this server's time.time()
        self._ended = threading.Event()
        self._told: dict[int, Told] = {}  # a sweep's steps, as the controller chose them
        self.stop_reason: str | None = None

    # what the controller says ----------------------------------------------------------------------------------

    def go(self, at_s: float) -> None:
        self._go_at = at_s

    def stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason

    def tell(self, step: int, told: Told) -> None:
        self._told[step] = told

    # a sweep's lead: the controller ------------------------------------------------------------------------

    def measured(self, record: SweepStep) -> None:
        pass  # the controller measures each step on every server's counters together: this server's is its own

    def told(self, step: int) -> Told | None:
        return self._told.get(step)

    # the gate the run waits at -----------------------------------------------------------------------------

    def arrived(self) -> None:
        self._send(Ready(test_id=self.test_id))

    def start_ns(self) -> int | None:
        if self._go_at is None:
            return None
        return time.perf_counter_ns() + round((self._go_at - time.time()) * 1e9)

    # to the controller -------------------------------------------------------------------------------------

    def emit(self, event: RunEvent) -> None:
        self._send(PartEvent(test_id=self.test_id, event=event))  # type: ignore[arg-type]

    def watch(self, request_stop: Callable[[str], None]) -> None:
        """Until the run ends: stop it once the controller said so, or its link ended."""
        while not self._ended.wait(BEAT_S):
            if self.stop_reason is not None:
                request_stop(self.stop_reason)

    def ended(self) -> None:
        self._ended.set()


def run_part(prepare: Prepare, runs: Path, part: Part) -> Ended:
    """Run this server's part of the test `prepare` names (a load sweep in lockstep when it gives one), its run folder
    in `runs`: its result, its configuration's refusal, or its error."""
    watcher: threading.Thread | None = None
    try:
        # this server's folders are made here, where they live, as the window's Create folders makes this machine's
        unmade = make_run_folders(prepare.config) if prepare.config.database_source == DatabaseSource.CREATE else []
        if unmade:
            return Ended(test_id=prepare.test_id, refused=[(p.field, p.message) for p in unmade])
        runner = runner_for(PROFILES[prepare.simulate] if prepare.simulate else None, prepare.config,
                            runs / prepare.test_id, part.emit, run_id=prepare.test_id, gate=part, sweep=prepare.sweep,
                            lead=part if prepare.sweep is not None else None)
        watcher = threading.Thread(target=part.watch, args=(runner.request_stop,), name="jetwise-part", daemon=True)
        watcher.start()
        try:
            result = runner.run()
        except InvalidConfigError as exc:
            return Ended(test_id=prepare.test_id, refused=[(p.field, p.message) for p in exc.problems])
        return Ended(test_id=prepare.test_id, result=result)
    except Exception as exc:  # said to the controller, which stops every server and names this one
        return Ended(test_id=prepare.test_id, error=f"{type(exc).__name__}: {exc}")
    finally:
        part.ended()
        if watcher is not None:
            watcher.join(timeout=BEAT_S * 4)
