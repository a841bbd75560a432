"""The engine in its own process: `jetwise engine` under QProcess, its events as signals.

The window never runs I/O itself. It starts the same executable with the `engine`
sub-command (frozen: the executable itself; from source: `python -m app`), reads one
JSON event per line from its stdout and turns each into a signal. Stop writes `stop`
to the engine's stdin; an engine that has not ended 5 s later is killed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from engine.model.config import TestConfig, save_config
from engine.protocol import PROTOCOL_VERSION, STOP_COMMAND, ExitCode, HelloEvent, ResultEvent, StartEvent, from_json_line
from engine.results.schema import RunResult

KILL_AFTER_MS = 5000


def engine_command() -> tuple[str, list[str]]:
    """The program and leading arguments that run Jetwise itself."""
    if getattr(sys, "frozen", False):
        return sys.executable, []
    return sys.executable, ["-m", "app"]


class EngineProcess(QObject):
    """One engine run. Signals carry the engine's events as parsed objects."""

    event_received = Signal(object)  # one of engine.protocol's events (not `event`: that is QObject's own method)
    stderr_line = Signal(str)
    finished = Signal(object)  # an EngineOutcome

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.process = QProcess(self)
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.SeparateChannels)
        self.process.readyReadStandardOutput.connect(self._read_stdout)
        self.process.readyReadStandardError.connect(self._read_stderr)
        self.process.finished.connect(self._on_finished)
        self.process.errorOccurred.connect(self._on_error)
        self._buffer = b""
        self._errors = b""
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._kill)
        self.result: RunResult | None = None
        self._stop_requested = False
        self.session: str | None = None  # the tuning session the engine recorded the run in
        self.output_dir: Path | None = None

    @property
    def running(self) -> bool:
        return self.process.state() != QProcess.ProcessState.NotRunning

    def start(
        self,
        config: TestConfig,
        output_dir: Path,
        session: str,
        *,
        calibrate_s: float | None = None,
        simulate: str | None = None,
    ) -> None:
        output_dir.mkdir(parents=True, exist_ok=True)
        config_path = output_dir / "requested-config.json"
        save_config(config, config_path)
        program, lead = engine_command()
        args = [*lead, "engine", str(config_path), "--output", str(output_dir), "--session", session]
        if calibrate_s is not None:
            args += ["--calibrate", f"{calibrate_s:g}s"]
        if simulate is not None:
            args += ["--simulate", simulate]
        self.output_dir = output_dir
        self.result = None
        self.session = None
        self._stop_requested = False
        self.process.setProcessEnvironment(QProcessEnvironment.systemEnvironment())
        self.process.start(program, args)

    def stop(self) -> None:
        """Ask the engine to stop; it keeps what it measured. Killed if it does not end in 5 s."""
        if not self.running:
            return
        self._stop_requested = True
        self.process.write(f"{STOP_COMMAND}\n".encode())
        self._kill_timer.start(KILL_AFTER_MS)

    def _kill(self) -> None:
        if self.running:
            self.process.kill()

    def _read_stdout(self) -> None:
        self._buffer += bytes(self.process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                event = from_json_line(line.decode("utf-8"))
            except ValueError:
                self.stderr_line.emit(line.decode("utf-8", "replace"))
                continue
            if isinstance(event, HelloEvent) and event.protocol != PROTOCOL_VERSION:
                self.stderr_line.emit(f"the engine (Jetwise {event.tool_version}) speaks event protocol {event.protocol}; "
                                      f"this window speaks {PROTOCOL_VERSION}: install matching versions")
                self.process.kill()
                continue
            if isinstance(event, ResultEvent):
                self.result = event.result
            elif isinstance(event, StartEvent):
                self.session = event.session
            self.event_received.emit(event)

    def _read_stderr(self) -> None:
        self._errors += bytes(self.process.readAllStandardError().data())
        *lines, self._errors = self._errors.split(b"\n")
        for line in lines:
            if line.strip():
                self.stderr_line.emit(line.decode("utf-8", "replace"))

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._kill_timer.stop()
        self._read_stdout()
        self._read_stderr()
        normal = status == QProcess.ExitStatus.NormalExit
        self.finished.emit(EngineOutcome(code if normal else None, self._stop_requested, self.result))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.stderr_line.emit(f"the engine could not start: {self.process.errorString()}")
            self.finished.emit(EngineOutcome(None, self._stop_requested, None, started=False))


@dataclass(frozen=True)
class EngineOutcome:
    """How an engine process ended, in words a field engineer reads (`str(outcome)`)."""

    code: int | None  # its exit code; None when it crashed or was killed
    stop_requested: bool
    result: RunResult | None
    started: bool = True

    @property
    def refused(self) -> bool:
        return self.code == ExitCode.INVALID

    def __str__(self) -> str:
        if not self.started:
            return "the engine could not start"
        if self.code is None:
            after = " after Stop (it did not end in time)" if self.stop_requested else ""
            return f"the engine was killed or crashed{after}"
        if self.code in {int(code) for code in ExitCode}:
            return f"the engine {ExitCode(self.code).words()} (exit code {self.code})"
        return f"the engine ended unexpectedly (exit code {self.code})"
