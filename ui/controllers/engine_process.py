"""The engine in its own process: `jetwise engine` under QProcess, its events as signals.

The window never runs I/O itself. It starts the same executable with the `engine`
sub-command (frozen: the executable itself; from source: `python -m app`), reads one
JSON event per line from its stdout and turns each into a signal. Stop writes `stop`
to the engine's stdin; an engine that has not ended 5 s later is killed (an ESRP suite's, 30 s
later: it writes the combined report once the test running has stopped).

What to run is one `RunRequest` (the configuration, a test, a load sweep, a calibration run or the ESRP suite, its
simulated device and servers, its folder and session), written as a request file in the temporary folder and removed
once the engine ends (a run's folder keeps its configuration, a suite's record the suite's).

An engine that refuses the configuration logs each problem as an error, "field: words",
and ends with exit code 2 before its run begins: the outcome carries those problems, each
at its field. A run that never began leaves nothing behind: the folders the window made for
it while nothing else is in them are removed; nothing else is ever touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from engine.io.safety import make_folders
from engine.model.validation import RUN_FOLDER_FIELD, Problem
from engine.protocol import (
    PROTOCOL_VERSION,
    STOP_COMMAND,
    ExitCode,
    HelloEvent,
    RefusalEvent,
    ResultEvent,
    StartEvent,
    from_json_line,
)
from engine.results.schema import RunResult
from engine.run.request import REQUEST_SUFFIX, RunRequest

KILL_AFTER_MS = 5000
SUITE_KILL_AFTER_MS = 30_000


def engine_command(executable: str | None = None, *, frozen: bool | None = None) -> tuple[str, list[str]]:
    """The program and leading arguments that run Jetwise itself (by default this process's executable).

    Frozen on Windows, the window is `jetwisew.exe` (no console); its engine is `jetwise.exe` beside it, a
    console program whose standard streams are the pipes the window reads (QProcess starts it without a
    console window when the window has none)."""
    executable = sys.executable if executable is None else executable
    if not (getattr(sys, "frozen", False) if frozen is None else frozen):
        return executable, ["-m", "app"]
    program = Path(executable)
    console = program.with_name(program.name.replace("jetwisew", "jetwise", 1))
    if program.stem.lower() == "jetwisew" and console.is_file():
        return str(console), []
    return executable, []


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
        self.began = False  # the engine said the run begins (its start event)
        self._refusal: list[Problem] = []  # the errors it logged before the run began
        self._made: list[Path] = []  # the folders this window made for the run, deepest first
        self._kill_after_ms = KILL_AFTER_MS
        self._temporary: list[Path] = []  # the request files, removed once the engine ends

    @property
    def running(self) -> bool:
        return self.process.state() != QProcess.ProcessState.NotRunning

    def start(self, request: RunRequest) -> None:
        """Run `request` (a test, a load sweep, a calibration run, or the ESRP suite in its folder, new or resumed):
        the window writes it as a request file and the engine reads it."""
        self.began = False
        output_dir = request.output
        try:
            request_path = self._write_request(request)
        except OSError as exc:  # said as the engine says a refusal, once the caller listens
            problem = Problem(RUN_FOLDER_FIELD, f"{output_dir} cannot be written: {exc.strerror or exc}")
            self.stderr_line.emit(problem.located)
            outcome = EngineOutcome(None, False, None, started=False, began=False, problems=(problem,))
            QTimer.singleShot(0, lambda: self.finished.emit(outcome))
            return
        program, lead = engine_command()
        self._kill_after_ms = KILL_AFTER_MS if request.work != "suite" else SUITE_KILL_AFTER_MS
        self.output_dir = output_dir
        self.result = None
        self.session = None
        self._refusal = []
        self._stop_requested = False
        self.process.setProcessEnvironment(QProcessEnvironment.systemEnvironment())
        self.process.start(program, [*lead, "engine", str(request_path)])

    def _write_request(self, request: RunRequest) -> Path:
        """The request, in the temporary folder; a run's folder made first (a suite's folder takes nothing but the
        suite, which its engine makes), the folders made noted so that a run that never begins leaves nothing (raises
        OSError, having removed what it made)."""
        self._made = []
        missing = request.output
        while request.work != "suite" and not missing.exists() and missing.parent != missing:
            self._made.append(missing)
            missing = missing.parent
        handle, name = tempfile.mkstemp(prefix="jetwise-", suffix=f"-{REQUEST_SUFFIX}")
        os.close(handle)
        path = Path(name)
        self._temporary.append(path)
        try:
            if self._made:
                make_folders(request.output)
            path.write_text(request.model_dump_json(indent=1), encoding="utf-8")
        except OSError:
            self._discard_output()
            self._remove_temporary()
            raise
        return path

    def stop(self) -> None:
        """Ask the engine to stop; it keeps what it measured. Killed if it does not end in time."""
        if not self.running:
            return
        self._stop_requested = True
        self.process.write(f"{STOP_COMMAND}\n".encode())
        self._kill_timer.start(self._kill_after_ms)

    def cancel(self) -> None:
        """End at once an engine whose run has not begun (a test across servers waiting for its agents): nothing of the
        run exists yet, and what the window wrote for it is removed as for any run that never began."""
        if self.running and not self.began:
            self._stop_requested = True
            self.process.kill()

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
                self.began = True
            elif isinstance(event, RefusalEvent):
                self._refusal += event.problems
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
        if not self.began:
            self._discard_output()
        self._remove_temporary()
        self.finished.emit(EngineOutcome(code if normal else None, self._stop_requested, self.result,
                                         began=self.began, problems=tuple(self._refusal)))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.stderr_line.emit(f"the engine could not start: {self.process.errorString()}")
            self._discard_output()
            self._remove_temporary()
            self.finished.emit(EngineOutcome(None, self._stop_requested, None, started=False))

    def _discard_output(self) -> None:
        """The run never began: remove the folders this window made for it, each only while empty (rmdir), deepest
        first, so a file anyone put there (the engine's, another run's) keeps its folder."""
        for folder in self._made:
            try:
                folder.rmdir()
            except OSError:
                break  # not empty: kept, with every folder above it
        self._made = []

    def _remove_temporary(self) -> None:
        for path in self._temporary:
            path.unlink(missing_ok=True)
        self._temporary = []



@dataclass(frozen=True)
class EngineOutcome:
    """How an engine process ended, in words a field engineer reads (`str(outcome)`)."""

    code: int | None  # its exit code; None when it crashed or was killed
    stop_requested: bool
    result: RunResult | None
    started: bool = True  # the engine process started
    began: bool = True  # the run began (the engine's start event)
    problems: tuple[Problem, ...] = ()  # what it refused the configuration for, each at its field

    @property
    def refused(self) -> bool:
        return self.code == ExitCode.INVALID

    @property
    def refused_before_start(self) -> bool:
        """The run did not begin, and why is said field by field (the engine's refusal, or a run folder not writable)."""
        return not self.began and bool(self.problems)

    def __str__(self) -> str:
        if not self.started:
            return "the engine could not start"
        if self.code is None:
            after = " after Stop (it did not end in time)" if self.stop_requested else ""
            return f"the engine was killed or crashed{after}"
        if self.code in {int(code) for code in ExitCode}:
            return f"the engine {ExitCode(self.code).words()} (exit code {self.code})"
        return f"the engine ended unexpectedly (exit code {self.code})"
