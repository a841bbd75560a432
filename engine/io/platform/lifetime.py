"""A run's processes end with it, and a closing console stops it: the Windows side.

On Windows the process that starts the workers puts itself in a job object with
kill-on-close (`contain_children`): if it dies, however it dies, Windows closes the job's
handle and ends every worker with it. A console window closed, a logoff or a shutdown
(`on_console_end`) stops the run like Ctrl-C and waits for its aborted result, inside the
few seconds Windows allows. On POSIX both are no-ops: workers watch their runner's
sentinel (`engine.run.worker`) and SIGHUP/SIGTERM stop the run (`app.cli.signals`).

The structures, flags and the order of calls are tested on every platform with a stand-in
for kernel32; the Windows lane (`tests/windows`, under Wine) calls the real one.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable
from typing import Any

from engine.io.platform import kernel32 as k32
from engine.io.platform.kernel32 import DWORD

JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9

CTRL_C_EVENT = 0
CTRL_BREAK_EVENT = 1
CTRL_CLOSE_EVENT = 2
CTRL_LOGOFF_EVENT = 5
CTRL_SHUTDOWN_EVENT = 6

CONSOLE_REASONS: dict[int, str] = {CTRL_CLOSE_EVENT: "stopped because the console window that started it was closed",
                                   CTRL_LOGOFF_EVENT: "stopped because the user who started it logged off",
                                   CTRL_SHUTDOWN_EVENT: "stopped because Windows is shutting down"}
CONSOLE_GRACE_S = 4.5  # Windows ends the process 5 s after a close event; the result must be written by then


class IO_COUNTERS(ctypes.Structure):  # noqa: N801 (the Win32 name)
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
        "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]


class JOBOBJECT_BASIC_LIMIT_INFORMATION(ctypes.Structure):  # noqa: N801
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_longlong),
        ("PerJobUserTimeLimit", ctypes.c_longlong),
        ("LimitFlags", DWORD),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", DWORD),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", DWORD),
        ("SchedulingClass", DWORD),
    ]


class JOBOBJECT_EXTENDED_LIMIT_INFORMATION(ctypes.Structure):  # noqa: N801
    _fields_ = [
        ("BasicLimitInformation", JOBOBJECT_BASIC_LIMIT_INFORMATION),
        ("IoInfo", IO_COUNTERS),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


_job: int | None = None  # the job's handle, open for the life of the process: closing it ends the workers


def kill_on_close_limits() -> JOBOBJECT_EXTENDED_LIMIT_INFORMATION:
    info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION()
    info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    return info


def contain_children(kernel32: Any = None) -> str | None:
    """Put this process in a kill-on-close job, once, before it starts workers.

    Returns why it could not (for the test log), or None. The children it starts from now on
    are in the job too, and end when this process ends.
    """
    global _job
    if _job is not None:
        return None
    if kernel32 is None:
        if sys.platform != "win32":
            return None
        kernel32 = k32.load()
    job = kernel32.CreateJobObjectW(None, None)
    if not job:
        return f"cannot create a job object (Windows error {k32.last_error()})"
    info = kill_on_close_limits()
    if not kernel32.SetInformationJobObject(
        job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS, ctypes.byref(info), ctypes.sizeof(info)
    ) or not kernel32.AssignProcessToJobObject(job, kernel32.GetCurrentProcess()):
        error = k32.last_error()
        kernel32.CloseHandle(job)
        return f"cannot put the run in a job object (Windows error {error}); workers rely on their own watch"
    _job = job
    return None


class ConsoleEndHandler:
    """What a console control handler does: stop the run with the event's reason, then wait for its end.

    Ctrl-C and Ctrl-Break are left to Python's signal handling (False: not handled here).
    """

    def __init__(self, stop: Callable[[str], None], ended: threading.Event, grace_s: float = CONSOLE_GRACE_S) -> None:
        self.stop = stop
        self.ended = ended
        self.grace_s = grace_s

    def __call__(self, event: int) -> bool:
        reason = CONSOLE_REASONS.get(event)
        if reason is None:
            return False
        self.stop(reason)
        self.ended.wait(self.grace_s)  # returning lets Windows end the process: the result first
        return True


_registered: list[Any] = []  # the ctypes callbacks must outlive their registration


def on_console_end(handler: ConsoleEndHandler, kernel32: Any = None) -> Callable[[], None]:
    """Register `handler` for console close, logoff and shutdown; returns the function that removes it."""
    if kernel32 is None:
        if sys.platform != "win32":
            return lambda: None
        kernel32 = k32.load()
    routine = k32.HANDLER_ROUTINE(lambda event: bool(handler(int(event))))
    _registered.append(routine)
    kernel32.SetConsoleCtrlHandler(routine, True)

    def remove() -> None:
        kernel32.SetConsoleCtrlHandler(routine, False)
        _registered.remove(routine)

    return remove
