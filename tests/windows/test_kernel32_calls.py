"""The real kernel32 behind Jetwise's Windows code: files, the kill-on-close job, the console handler, folder locks.

Wine's file layer does not enforce FILE_FLAG_NO_BUFFERING's alignment, nor write-through to a device: what these
show under Wine is that every call reaches kernel32 with the right types and flags and that its answers are read
right; the alignment itself is held by the backend (tests/engine/test_kernel32.py) and on a real server by Windows."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import psutil
import pytest

from engine.io.capacity import free_bytes
from engine.io.locks import FolderInUseError, FolderLocks
from engine.io.pages import ErrorKind
from engine.io.platform import default_backend, kernel32, lifetime
from engine.io.platform.windows import WindowsBackend
from tests.windows import ROOT, windows_only

pytestmark = windows_only()
GONE_WITHIN_S = 3.0

# A runner in miniature: it joins the job as the worker pool does, then starts a child with no watch of its own.
JOINS_THE_JOB = textwrap.dedent("""
    import ctypes, subprocess, sys, time
    from engine.io.platform import kernel32, lifetime
    print(lifetime.contain_children(), flush=True)
    in_job = ctypes.c_int32()
    k32 = kernel32.load()
    k32.IsProcessInJob(k32.GetCurrentProcess(), None, ctypes.byref(in_job))
    print(in_job.value, flush=True)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    print(child.pid, flush=True)
    time.sleep(300)
""")


def test_the_runner_joins_a_kill_on_close_job_and_its_children_end_with_it(tmp_path):
    runner = subprocess.Popen([sys.executable, "-c", JOINS_THE_JOB], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert runner.stdout is not None
    said, in_job, child = runner.stdout.readline().strip(), runner.stdout.readline().strip(), runner.stdout.readline()
    child_process = psutil.Process(int(child))  # before the kill: the job may end it at once
    runner.kill()  # TerminateProcess: nothing of the runner runs after it
    runner.wait(30)
    _gone, alive = psutil.wait_procs([child_process], timeout=GONE_WITHIN_S)
    for process in alive:
        process.kill()
    assert said == "None", f"the job was not joined: {said}"
    assert in_job == "1"  # IsProcessInJob
    assert not alive, "the child outlived its runner: the job did not end it"


def test_a_file_is_created_written_unbuffered_and_through_and_read_back(tmp_path):
    backend = default_backend()
    assert isinstance(backend, WindowsBackend)
    sector = backend.sector_bytes(tmp_path)
    assert sector >= 512 and sector & (sector - 1) == 0
    path = tmp_path / "Jetwise001.jwdb"
    data = os.urandom(8192)
    buffer = backend.allocate(8192)
    far = (4 << 30) + 8192  # past 4 GiB: the offset's high DWORD reaches ReadFile and WriteFile
    try:
        with backend.open_file(path, create=True, writable=True, unbuffered=True, write_through=True) as handle:
            buffer.view[:] = data
            handle.write_from(buffer, 4096)
            handle.write_from(buffer, far)
            handle.flush()
            assert handle.size_bytes() == far + 8192
            for offset in (4096, far):
                buffer.view[:] = bytes(8192)
                assert handle.read_into(buffer, offset) == 8192
                assert bytes(buffer.view) == data
            with pytest.raises(OSError) as misaligned:
                handle.read_into(buffer, 4096 + sector // 2, 4096)
            assert misaligned.value.errno == errno.EINVAL
        with backend.open_file(path, create=False, writable=False, unbuffered=True, write_through=False) as handle:
            buffer.view[:] = bytes(8192)
            handle.read_into(buffer, far)
            assert bytes(buffer.view) == data
    finally:
        buffer.release()


def test_a_read_windows_fails_with_error_crc_is_a_crc_error_named_at_its_page(tmp_path):
    """ERROR_CRC as kernel32 reports it: ReadFile answers FALSE and the thread's last error is 23, set here by the real
    SetLastError as the disk stack sets it for a sector the drive cannot read back. Jetwise's file raises it with
    winerror 23 and words saying it is a CRC data error, and the run names it -1021, not -1022."""
    from engine.io.platform import windows as win
    from engine.workload.context import failed_io

    words = ctypes.FormatError(win.ERROR_CRC).lower()  # 23 is the CRC error, by the system's own words:
    assert "cyclic redundancy" in words or "crc" in words  # Windows' "Data error (cyclic redundancy check)", Wine's "CRC error"
    real = kernel32.load()
    calls = kernel32.declare(ctypes.WinDLL("kernel32", use_last_error=True), {"SetLastError": (None, [kernel32.DWORD])})

    class BadSector:
        """kernel32, with every read of the file's second page failing as a drive fails a sector it cannot read."""

        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def ReadFile(self, handle: object, address: object, size: int, done: object, overlapped: object) -> int:  # noqa: N802
            if overlapped._obj.Offset == 8192:  # type: ignore[attr-defined]  # byref's OVERLAPPED, at the second page
                calls.SetLastError(win.ERROR_CRC)
                return 0
            return int(real.ReadFile(handle, address, size, done, overlapped))

    path = tmp_path / "Jetwise001.jwdb"
    backend = WindowsBackend(BadSector())
    buffer = backend.allocate(8192)
    try:
        with backend.open_file(path, create=True, writable=True, unbuffered=True, write_through=True) as handle:
            handle.write_from(buffer, 0)
            handle.write_from(buffer, 8192)
            assert handle.read_into(buffer, 0) == 8192
            with pytest.raises(OSError) as failed:
                handle.read_into(buffer, 8192)
            problem = failed_io("db_read", handle, 8192, 8192, "page", 8192, failed.value)
    finally:
        buffer.release()
    error = failed.value
    assert error.winerror == win.ERROR_CRC and error.errno == errno.EIO  # type: ignore[attr-defined]
    assert "CRC data error" in error.strerror and "(Windows error 23)" in error.strerror
    assert (problem.kind, problem.number, problem.offset) == (ErrorKind.CRC_ERROR, 1, 8192)
    assert str(problem).startswith(f"CRC error (ESE -1021 JET_errDiskReadVerificationFailure) reading page 1 of {path}")


def test_create_never_replaces_and_missing_files_are_named_in_words(tmp_path):
    backend = default_backend()
    path = tmp_path / "kept.bin"
    path.write_bytes(b"not Jetwise's")
    with pytest.raises(OSError) as exists:
        backend.open_file(path, create=True, writable=True, unbuffered=True, write_through=True)
    assert exists.value.errno == errno.EEXIST and "already exists" in str(exists.value)
    assert path.read_bytes() == b"not Jetwise's"
    with pytest.raises(OSError) as missing:
        backend.open_file(tmp_path / "absent.bin", create=False, writable=False, unbuffered=True, write_through=False)
    assert missing.value.errno == errno.ENOENT and "does not exist" in str(missing.value)
    with pytest.raises(OSError) as no_folder:
        backend.open_file(tmp_path / "absent" / "f.bin", create=True, writable=True, unbuffered=True, write_through=True)
    assert no_folder.value.errno == errno.ENOENT and "folder does not exist" in str(no_folder.value)


def test_the_unbuffered_probe_says_yes_and_leaves_nothing_behind(tmp_path):
    probe = default_backend().probe_unbuffered(tmp_path)
    assert probe.supported and probe.representative and "FILE_FLAG_NO_BUFFERING accepted" in probe.detail
    assert list(tmp_path.iterdir()) == []


def test_free_space_is_the_volumes(tmp_path):
    free = free_bytes(tmp_path)
    assert 0 < free == pytest.approx(shutil.disk_usage(Path(tmp_path.anchor)).free, rel=0.01)


def test_a_drive_letter_path_and_an_extended_length_path_name_the_same_file(tmp_path):
    assert tmp_path.drive and tmp_path.anchor.endswith("\\")
    backend = default_backend()
    extended = Path("\\\\?\\" + str(tmp_path)) / "Jetwise001.jwdb"
    buffer = backend.allocate(4096)
    try:
        with backend.open_file(extended, create=True, writable=True, unbuffered=True, write_through=True) as handle:
            handle.write_from(buffer, 0)
    finally:
        buffer.release()
    assert (tmp_path / "Jetwise001.jwdb").stat().st_size == 4096


def test_the_console_handler_is_registered_with_windows_and_removed(monkeypatch):
    registered: list[tuple[object, int]] = []
    real = kernel32.load()

    class Watching:
        def SetConsoleCtrlHandler(self, routine: object, add: int) -> int:  # noqa: N802 (the Win32 name)
            answer = real.SetConsoleCtrlHandler(routine, add)
            registered.append((routine, answer))
            return int(answer)

    stops: list[str] = []
    remove = lifetime.on_console_end(lifetime.ConsoleEndHandler(stops.append, threading.Event(), grace_s=0), Watching())
    remove()
    assert [answer for _routine, answer in registered] == [1, 1]  # Windows took the routine, then let it go
    routine = registered[0][0]
    assert routine(lifetime.CTRL_CLOSE_EVENT) == 1 and stops and "console window" in stops[0]  # through the C ABI
    assert routine(lifetime.CTRL_C_EVENT) == 0  # left to Python's own Ctrl-C


HOLDS_A_FOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engine.io.locks import FolderLocks
    with FolderLocks([Path(sys.argv[1])], "20261125-holder"):
        print("held", flush=True)
        sys.stdin.readline()
""")


def test_a_folder_lock_is_refused_to_a_second_process_and_freed_when_its_holder_is_killed(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDS_A_FOLDER, str(tmp_path)], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(FolderInUseError, match=f"process {holder.pid}"):
            FolderLocks([tmp_path], "second").take()
    finally:
        holder.kill()
        holder.wait(30)
    with FolderLocks([tmp_path], "third"):
        assert (tmp_path / "jetwise.lock").read_bytes().startswith(b"JETWISE FOLDER LOCK")


def test_kernel32_is_declared_on_jetwises_own_instance():
    loaded = kernel32.load()
    assert loaded is kernel32.load()
    assert loaded.GetCurrentProcess.restype is ctypes.c_void_p
    assert loaded.GetCurrentProcess() == ctypes.c_void_p(-1).value  # the pseudo-handle, all 64 bits of it
    assert sys.maxsize > 2**32


def test_the_memory_counters_reach_pdh_and_what_it_lacks_reads_none():
    """The real pdh.dll: the query opens, each counter is asked by its English path, and a sample carries the four
    figures (a number where the system gives the counter, None where it does not: Wine gives none of them)."""
    from engine.io.platform import pdh
    from engine.run.host import HostSampler

    counters = pdh.MemoryCounters()
    figures = counters.read()
    counters.close()
    assert set(figures) == set(pdh.WINDOWS_MEMORY_COUNTERS)
    assert all(value is None or value >= 0 for value in figures.values())
    assert set(figures) - set(counters.available) == {name for name, value in figures.items() if value is None}
    sample = HostSampler().sample()
    assert sample["cpu_percent"] is not None and set(figures) <= set(sample)
