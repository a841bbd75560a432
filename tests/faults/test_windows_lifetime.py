"""The Windows side of a run's lifetime: the kill-on-close job and the console control events.

kernel32 cannot be called here; a stand-in records the calls, so the structures, the flags
and the order of calls are checked on every platform. On Windows itself these paths are
flagged as not yet run.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import pytest

from engine.io.platform import lifetime


class FakeKernel32:
    def __init__(self, *, assign_ok: bool = True) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.assign_ok = assign_ok
        self.routines: list[Any] = []

    def CreateJobObjectW(self, attributes: Any, name: Any) -> int:  # noqa: N802 (Win32 names)
        self.calls.append(("CreateJobObjectW", (attributes, name)))
        return 1234

    def SetInformationJobObject(self, job: int, info_class: int, info: Any, size: int) -> bool:  # noqa: N802
        limits = ctypes.cast(info, ctypes.POINTER(lifetime.JOBOBJECT_EXTENDED_LIMIT_INFORMATION)).contents
        self.calls.append(("SetInformationJobObject", (job, info_class, limits.BasicLimitInformation.LimitFlags, size)))
        return True

    def GetCurrentProcess(self) -> int:  # noqa: N802
        return -1

    def AssignProcessToJobObject(self, job: int, process: int) -> bool:  # noqa: N802
        self.calls.append(("AssignProcessToJobObject", (job, process)))
        return self.assign_ok

    def CloseHandle(self, handle: int) -> bool:  # noqa: N802
        self.calls.append(("CloseHandle", handle))
        return True

    def SetConsoleCtrlHandler(self, routine: Any, add: bool) -> bool:  # noqa: N802
        self.calls.append(("SetConsoleCtrlHandler", add))
        if add:
            self.routines.append(routine)
        else:
            self.routines.remove(routine)
        return True


@pytest.fixture(autouse=True)
def no_job(monkeypatch):
    monkeypatch.setattr(lifetime, "_job", None)


def test_the_job_limit_structure_has_the_win32_layout():
    if ctypes.sizeof(ctypes.c_void_p) == 8:
        assert ctypes.sizeof(lifetime.JOBOBJECT_BASIC_LIMIT_INFORMATION) == 64
        assert ctypes.sizeof(lifetime.JOBOBJECT_EXTENDED_LIMIT_INFORMATION) == 144
    assert ctypes.sizeof(lifetime.IO_COUNTERS) == 48
    assert lifetime.kill_on_close_limits().BasicLimitInformation.LimitFlags == 0x2000


def test_the_runner_joins_a_kill_on_close_job_once_before_its_workers_start():
    kernel32 = FakeKernel32()
    assert lifetime.contain_children(kernel32) is None
    size = ctypes.sizeof(lifetime.JOBOBJECT_EXTENDED_LIMIT_INFORMATION)
    assert kernel32.calls == [
        ("CreateJobObjectW", (None, None)),
        ("SetInformationJobObject", (1234, 9, 0x2000, size)),
        ("AssignProcessToJobObject", (1234, -1)),
    ]  # and the handle stays open: closing it, when the process ends, ends the workers
    assert lifetime.contain_children(kernel32) is None
    assert len(kernel32.calls) == 3


def test_a_job_that_cannot_be_joined_is_said_and_its_handle_closed():
    kernel32 = FakeKernel32(assign_ok=False)
    words = lifetime.contain_children(kernel32)
    assert words is not None and "job object" in words
    assert kernel32.calls[-1] == ("CloseHandle", 1234)
    assert lifetime._job is None


def test_off_windows_nothing_is_done():
    assert lifetime.contain_children() is None
    remove = lifetime.on_console_end(lifetime.ConsoleEndHandler(lambda _: None, threading.Event()))
    remove()


@pytest.mark.parametrize(("event", "words"), [
    (lifetime.CTRL_CLOSE_EVENT, "console window"), (lifetime.CTRL_LOGOFF_EVENT, "logged off"),
    (lifetime.CTRL_SHUTDOWN_EVENT, "shutting down"),
])
def test_closing_the_console_logging_off_or_shutting_down_stops_the_run_and_waits_for_its_result(event, words):
    kernel32 = FakeKernel32()
    stops: list[str] = []
    ended = threading.Event()
    handler = lifetime.ConsoleEndHandler(stops.append, ended, grace_s=30)
    remove = lifetime.on_console_end(handler, kernel32)
    (routine,) = kernel32.routines
    answer: list[int] = []
    console = threading.Thread(target=lambda: answer.append(routine(event)))
    console.start()  # Windows calls the routine on a thread of its own
    console.join(0.2)
    assert console.is_alive(), "the handler returned before the run ended: Windows would end the process"
    ended.set()  # the run wrote its result
    console.join(10)
    assert answer == [1] and len(stops) == 1 and words in stops[0]
    remove()
    assert kernel32.routines == [] and kernel32.calls[-1] == ("SetConsoleCtrlHandler", False)


def test_ctrl_c_and_ctrl_break_are_left_to_python_signals():
    stops: list[str] = []
    handler = lifetime.ConsoleEndHandler(stops.append, threading.Event())
    assert handler(lifetime.CTRL_C_EVENT) is False and handler(lifetime.CTRL_BREAK_EVENT) is False
    assert stops == []
