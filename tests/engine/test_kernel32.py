"""kernel32 is called only through declared signatures, and an unbuffered transfer keeps the Win32 contract.

A stand-in records which functions the Windows backend and the run's lifetime call; each must have its
signature in `kernel32.SIGNATURES` (an undeclared function gets C ints: a 64-bit handle cut to 32 bits).
The real kernel32 is called by the Windows lane (tests/windows, under Wine)."""

from __future__ import annotations

import ctypes
import errno
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.io.platform import AlignedBuffer, kernel32, lifetime
from engine.io.platform import windows as win


class Recorder:
    """kernel32 as a stand-in: every function succeeds, transfers move every byte asked for."""

    def __init__(self) -> None:
        self.called: list[str] = []

    def __getattr__(self, name: str) -> Any:
        def function(*args: Any) -> Any:
            self.called.append(name)
            if name in ("ReadFile", "WriteFile"):
                args[3]._obj.value = args[2]  # lpNumberOfBytesTransferred (a byref): all of them
            if name == "GetDiskFreeSpaceW":
                args[2]._obj.value = 512  # lpBytesPerSector
            return 0x7FFF_0000_1234 if name in ("CreateFileW", "CreateJobObjectW") else 1

        return function


@pytest.fixture(autouse=True)
def no_job(monkeypatch):
    monkeypatch.setattr(lifetime, "_job", None)


def test_every_kernel32_function_jetwise_calls_has_a_declared_signature(tmp_path: Path):
    stand_in = Recorder()
    assert lifetime.contain_children(stand_in) is None
    lifetime.on_console_end(lifetime.ConsoleEndHandler(lambda _: None, threading.Event()), stand_in)()
    backend = win.WindowsBackend(stand_in)
    buffer = AlignedBuffer(4096)
    with backend.open_file(tmp_path / "f", create=True, writable=True, unbuffered=True, write_through=True) as handle:
        handle.write_from(buffer, 4096)
        handle.read_into(buffer, 0)
        handle.flush()
    assert backend.probe_unbuffered(tmp_path).supported
    assert set(stand_in.called) <= set(kernel32.SIGNATURES), set(stand_in.called) - set(kernel32.SIGNATURES)
    assert {"CreateJobObjectW", "AssignProcessToJobObject", "GetCurrentProcess", "CreateFileW", "ReadFile"} <= set(stand_in.called)


def test_handles_travel_at_pointer_width_in_both_directions():
    library = SimpleNamespace(**{name: SimpleNamespace() for name in kernel32.SIGNATURES})
    kernel32.declare(library)
    pointer = ctypes.sizeof(ctypes.c_void_p)
    assert ctypes.sizeof(library.GetCurrentProcess.restype) == pointer  # (HANDLE)-1, not a 32-bit -1
    assert library.GetCurrentProcess.argtypes == []
    assert [ctypes.sizeof(t) for t in library.AssignProcessToJobObject.argtypes] == [pointer, pointer]
    assert ctypes.sizeof(library.CreateJobObjectW.restype) == pointer
    assert ctypes.sizeof(library.CreateFileW.restype) == pointer
    for restype, argtypes in kernel32.SIGNATURES.values():
        assert restype is not None and None not in argtypes


@pytest.mark.parametrize(("offset", "length", "what"), [(4096 + 100, 4096, "offset"), (4096, 1000, "length")])
def test_a_misaligned_unbuffered_transfer_is_refused_before_windows_sees_it(tmp_path, offset, length, what):
    stand_in = Recorder()
    backend = win.WindowsBackend(stand_in)  # 512-byte sectors
    with backend.open_file(tmp_path / "f", create=True, writable=True, unbuffered=True, write_through=True) as handle:
        with pytest.raises(OSError) as info:
            handle.read_into(AlignedBuffer(8192), offset, length)
        assert info.value.errno == errno.EINVAL and what in str(info.value)
        handle.write_from(AlignedBuffer(4096), 4096 + 512, 512)  # a 512-byte sector write keeps the contract
    assert "ReadFile" not in stand_in.called and "WriteFile" in stand_in.called


def test_a_buffered_file_is_not_held_to_the_sector(tmp_path):
    stand_in = Recorder()
    backend = win.WindowsBackend(stand_in)
    with backend.open_file(tmp_path / "f", create=True, writable=True, unbuffered=False, write_through=False) as handle:
        handle.read_into(AlignedBuffer(4096), 100, 1000)
    assert "ReadFile" in stand_in.called and "GetDiskFreeSpaceW" not in stand_in.called
