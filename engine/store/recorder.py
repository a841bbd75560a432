"""The store as an event sink: a run's events, recorded as they come."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.protocol import ResultEvent, RunEvent, StartEvent
from engine.run.sinks import SinkFailedError
from engine.store.sqlite import Store


class RunRecorder:
    """Writes one run's events into the store as they happen: use it in the Runner's emit.

    The run is opened when it starts (a configuration refused by validation leaves no
    run behind), with its run folder, which alone keeps its samples and its test log (written
    line by line, so a run that dies keeps all it said); the result, when it comes, closes the
    run with its verdict.
    When the store cannot be written (its volume is full, its disk failed) the recorder says
    so once (`SinkFailedError`), which stops the run; the run folder still gets everything,
    and the store takes the result from there when it is next opened.
    """

    def __init__(self, store: Store, session: str, output_dir: Path) -> None:
        self.store = store
        self.session = session
        self.output_dir = output_dir
        self.run_id: str | None = None
        self.failed = False

    def __call__(self, event: RunEvent) -> None:
        if self.failed:
            return
        try:
            self._record(event)
        except (sqlite3.Error, OSError) as exc:
            self.failed = True
            raise SinkFailedError(f"the run store {self.store.path} could not be written ({exc})") from None

    def _record(self, event: RunEvent) -> None:
        if isinstance(event, StartEvent):
            self.run_id = event.run_id
            self.store.begin_run(self.store.session_for(self.session, event.config), event.run_id, event.config,
                                 self.output_dir)
        elif self.run_id is None:
            return
        elif isinstance(event, ResultEvent):
            self.store.finish_run(self.run_id, event.result)
