"""Event sinks: where a run's events go besides the front end.

`RunFolderWriter` keeps the run folder (config.json, test.log, samples.jsonl,
result.json) from the events alone, so the CLI, the engine sub-command and the window
get the same artefacts; the store's `RunRecorder` sits beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel

from engine.protocol import IntervalEvent, LogEvent, ResultEvent, StartEvent
from engine.results.document import CONFIG_FILE, LOG_FILE, SAMPLES_FILE, write_result


class RunFolderWriter:
    """Writes one run's folder as its events arrive; files are flushed line by line."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._log: TextIO | None = None
        self._samples: TextIO | None = None

    def __call__(self, event: BaseModel) -> None:
        if isinstance(event, StartEvent):
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / CONFIG_FILE).write_text(event.config.model_dump_json(indent=2) + "\n", encoding="utf-8")
            self._log = open(self.folder / LOG_FILE, "a", encoding="utf-8")
            self._samples = open(self.folder / SAMPLES_FILE, "a", encoding="utf-8")
        elif isinstance(event, LogEvent) and self._log is not None:
            stamp = datetime.fromisoformat(event.time)
            self._log.write(f"{stamp:%Y-%m-%d %H:%M:%S} -- {event.message}\n")
            self._log.flush()
        elif isinstance(event, IntervalEvent) and self._samples is not None:
            self._samples.write(event.sample.model_dump_json() + "\n")
            self._samples.flush()
        elif isinstance(event, ResultEvent):
            write_result(event.result, self.folder)

    def close(self) -> None:
        for handle in (self._log, self._samples):
            if handle is not None:
                handle.close()
        self._log = self._samples = None


def fan_out(*sinks: Callable[[BaseModel], None]) -> Callable[[BaseModel], None]:
    """One emit callback that hands every event to each sink in turn (e.g. the store, then the console)."""

    def emit(event: BaseModel) -> None:
        for sink in sinks:
            sink(event)

    return emit
