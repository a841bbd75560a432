"""An ESRP suite run from the window: the engine process runs it (`jetwise engine --suite`), telling each stage
with a suite event before the stage's own run events, and once more at the end.

`SuiteRun` follows those events: which stage runs, and each stage's result as it comes. Once the
engine ends, `summary()` reads the suite's record as the engine last wrote it (a killed engine
sends no last event) and the results of the stages an earlier start ran. A suite across servers
(`jetwise engine --suite --hosts`) runs each stage as a run across them: its result carries each server's share.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from engine.model.config import TIMED_TEST_TYPES, TestConfig
from engine.model.units import compact_duration
from engine.protocol import ResultEvent, SuiteEvent
from engine.results.document import RESULT_FILE, read_result
from engine.results.schema import RunResult
from engine.results.suite import SuiteRecord
from engine.run.suite import SuiteError, read_suite
from ui.scans import across_words, setting_words, type_words
from ui.suite import SuiteSummary


class StageDisplay(Protocol):
    """Where a stage shows as it runs: the run view."""

    def begin(self, config: TestConfig, title: str, *, keep_log: bool = False) -> None: ...
    def show_suite(self, record: SuiteRecord | None, stage: int | None) -> None: ...


class SuiteRun:
    """The suite in `folder` as the engine runs it, stage by stage."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.record: SuiteRecord | None = None  # as the last suite event carried it
        self.stage: int | None = None  # the stage running, numbered from 0
        self.results: dict[int, RunResult] = {}  # the stages this start ran, by number

    def on_event(self, event: object, display: StageDisplay) -> None:
        """Follow an engine event: a stage that begins shows on `display` as a run of its own test type, under the
        suite's stage, with the log of the stages before it kept."""
        if isinstance(event, ResultEvent) and self.stage is not None:
            self.results[self.stage] = event.result
        if not isinstance(event, SuiteEvent):
            return
        self.record, self.stage = event.record, event.stage
        if event.stage is None:
            return
        stage = event.record.stages[event.stage]
        config = event.record.stage_config(stage.test_type)
        timed = f", {compact_duration(config.duration_s)}" if stage.test_type in TIMED_TEST_TYPES else ""
        hosts = event.record.hosts
        across = across_words(hosts) if hosts else ""
        display.begin(config, f"{type_words(stage.test_type)} test{across}: {setting_words(config)}{timed}", keep_log=True)
        display.show_suite(event.record, event.stage)

    def summary(self) -> SuiteSummary | None:
        """The suite as the engine left it; None when it never wrote its record (it refused the folder)."""
        record: SuiteRecord | None = self.record
        try:
            record = read_suite(self.folder)  # written after every stage, even when no last event came
        except SuiteError:
            pass
        if record is None:
            return None
        results = dict(self.results)
        for number, stage in enumerate(record.stages):
            folder = self.folder / stage.folder
            if not stage.folder:
                continue
            try:
                if number not in results and (folder / RESULT_FILE).is_file():
                    results[number] = read_result(folder)  # a stage an earlier start of the suite ran
            except (OSError, ValidationError):
                continue  # its own report says what is wrong with it
        return SuiteSummary(self.folder, record, results)
