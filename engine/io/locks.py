"""A run owns its folders: an exclusive lock per database, log and output folder for the life of the run.

Each folder gets a small `jetwise.lock` file that Jetwise creates and recognises by its first
line. The run holds an operating-system lock on it (flock on POSIX, LockFile on Windows), so
the lock goes away with the process however it ends, and a second run is refused with who
holds the folder: process, host, start time and run. A lock file left behind by a killed run
holds nothing and is taken over; a file of that name that Jetwise did not write is never
touched.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from engine.io.platform import try_lock, unlock
from engine.io.safety import link_problem, make_folders, open_fd

LOCK_FILE = "jetwise.lock"
LOCK_HEADER = b"JETWISE FOLDER LOCK 1\n"
_HOLDER_BYTES = 4096
TAKE_RETRY_S = 1.0  # a check by `validate` or the window holds a lock for a moment: wait that out


@dataclass(frozen=True)
class Holder:
    """Who holds a folder."""

    pid: int
    host: str
    started: str
    run_id: str

    def describe(self) -> str:
        try:
            started = datetime.fromisoformat(self.started).strftime("%Y-%m-%d %H:%M:%S")
        except ValueError:
            started = self.started
        return f"run {self.run_id} (process {self.pid} on {self.host}, started {started})"


class FolderInUseError(Exception):
    """The folder is locked by another run, or holds a lock file Jetwise did not create."""

    def __init__(self, folder: Path, words: str) -> None:
        super().__init__(f"{folder} {words}")
        self.folder = folder


def _read(fd: int) -> tuple[bool, Holder | None]:
    """(is it ours, the holder it names if any) for an open lock file."""
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, _HOLDER_BYTES)
    if not data:
        return True, None  # just created by a run that has not written its details yet
    if not data.startswith(LOCK_HEADER):
        return False, None
    try:
        return True, Holder(**json.loads(data[len(LOCK_HEADER) :].decode("utf-8")))
    except (ValueError, TypeError):
        return True, None


def _foreign(folder: Path) -> FolderInUseError:
    return FolderInUseError(
        folder, f"holds a file {LOCK_FILE} that Jetwise did not create; Jetwise does not touch it: move it or choose another folder"
    )


def _in_use(folder: Path, holder: Holder | None) -> FolderInUseError:
    who = holder.describe() if holder else "another Jetwise process"
    return FolderInUseError(folder, f"is in use by {who}; wait for it to end or choose another folder")


def folder_problem(folder: Path) -> str | None:
    """Why a run cannot take `folder` now, if it cannot: the check `validate` and the wizard make."""
    path = folder / LOCK_FILE
    if (unsafe := link_problem(path)) is not None:
        return f"{path} {unsafe}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path} cannot be read: {exc.strerror or exc}"
    try:
        ours, holder = _read(fd)
        if not ours:
            return str(_foreign(folder))
        if try_lock(fd):
            unlock(fd)
            return None  # left by a run that ended without removing it: free
        return str(_in_use(folder, holder))
    finally:
        os.close(fd)


class FolderLocks:
    """The locks of one run, taken together and released together (a context manager)."""

    def __init__(self, folders: Iterable[Path], run_id: str) -> None:
        self.folders = list(dict.fromkeys(Path(os.path.abspath(f)) for f in folders))
        self.holder = Holder(pid=os.getpid(), host=socket.gethostname(),
                             started=datetime.now().astimezone().isoformat(timespec="seconds"), run_id=run_id)
        self._held: list[tuple[Path, int]] = []
        self._made: list[Path] = []

    def __enter__(self) -> FolderLocks:
        return self.take()

    def take(self) -> FolderLocks:
        """Lock every folder, or none: raises `FolderInUseError` naming the first one held elsewhere."""
        try:
            for folder in self.folders:
                self._held.append((folder, self._take(folder)))
        except BaseException:
            self.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _take(self, folder: Path) -> int:
        if not folder.is_dir():
            make_folders(folder)  # validation allowed a missing last folder; the run creates it anyway
            self._made.append(folder)
        path = folder / LOCK_FILE
        deadline = time.monotonic() + TAKE_RETRY_S
        while True:
            fd = open_fd(path, os.O_RDWR | os.O_CREAT)  # never through a link planted at its name
            ours, holder = _read(fd)
            if not ours:
                os.close(fd)
                raise _foreign(folder)
            if try_lock(fd):
                if _same_file(fd, path):
                    self._write(fd)
                    return fd
                unlock(fd)  # the previous holder removed it while we opened it: take the new one
            os.close(fd)
            if holder is not None or time.monotonic() > deadline:
                raise _in_use(folder, holder)
            time.sleep(0.05)

    def _write(self, fd: int) -> None:
        os.ftruncate(fd, 0)
        data = LOCK_HEADER + json.dumps(asdict(self.holder)).encode("utf-8") + b"\n"
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data)

    def release(self) -> None:
        """Remove the lock files and let the folders go; a folder this run made and left empty goes too."""
        for folder, fd in reversed(self._held):
            path = folder / LOCK_FILE
            if os.name != "nt":
                _remove(path)  # POSIX: while still locked, so no one takes a file about to vanish
            os.close(fd)
            if os.name == "nt":
                _remove(path)  # Windows: only a closed file can go; one opened since stays, harmlessly
        self._held.clear()
        for folder in reversed(self._made):
            try:
                folder.rmdir()
            except OSError:
                pass  # not empty: the run's files are in it
        self._made.clear()


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
