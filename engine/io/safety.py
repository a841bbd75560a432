"""How Jetwise writes its own files, run as an administrator on a server others use: never through a planted link,
never a file anyone may change, never half a file left behind.

- A name Jetwise will write at must be absent or a regular file: a symbolic link (a dangling one too), a Windows
  reparse point (a junction or a link), a device such as /dev/full or a FIFO is refused with its path
  (`link_problem`, which `validate` also asks).
- Files are opened with `O_NOFOLLOW` (POSIX) and created `O_EXCL` where Jetwise makes them, so a link planted between
  the check and the write is refused by the system too; Windows has no `O_NOFOLLOW` and refuses by the attributes.
- A report, an export or a result is written to a scratch file beside it and renamed over the name at the end
  (`replacing`): a full volume or a crash leaves the previous file as it was, or none, never a truncated one.
- Files are made rw-r--r-- and folders rwxr-xr-x whatever the process's umask; a file only its owner may read (an
  enrolment bundle) rw------- (`PRIVATE_FILE_MODE`). Windows keeps no such bits: a file there takes its folder's
  access list.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TextIO, cast

FILE_MODE = 0o644
PRIVATE_FILE_MODE = 0o600
FOLDER_MODE = 0o755
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class UnsafePathError(OSError):
    """A name Jetwise will not write at, and why."""

    def __init__(self, path: Path, words: str) -> None:
        super().__init__(errno.EPERM, f"{path} {words}")
        self.filename = str(path)
        self.words = f"{path} {words}"

    def __str__(self) -> str:
        return self.words


def link_problem(path: Path) -> str | None:
    """Why Jetwise will not write at `path`, if it will not: it is a link or a reparse point (where it points is not
    followed), or not a regular file. None when it is absent or a regular file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or exc})"
    if stat.S_ISLNK(info.st_mode) or getattr(info, "st_file_attributes", 0) & stat.FILE_ATTRIBUTE_REPARSE_POINT:
        return "is a link; Jetwise does not write through links: remove it or choose another name"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder; give a file to write"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a device or a pipe); give a file to write"
    return None


def refuse_unsafe(path: Path) -> None:
    """Raise `UnsafePathError` if Jetwise will not write at `path`."""
    problem = link_problem(path)
    if problem is not None:
        raise UnsafePathError(path, problem)


def open_fd(path: Path, flags: int, mode: int = FILE_MODE) -> int:
    """`os.open` for writing that never follows a link at `path` (ELOOP from the system becomes the refusal), the file
    made `mode`."""
    refuse_unsafe(path)
    try:
        fd = os.open(path, flags | _NO_FOLLOW, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise UnsafePathError(path, "is a link; Jetwise does not write through links") from None
        raise
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)  # as made, whatever the umask; also a file of an earlier run kept its own mode
    return fd


def append_text(path: Path) -> TextIO:
    """A text file to add lines to (the test log), made if new."""
    return cast(TextIO, os.fdopen(open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "a", encoding="utf-8"))


@contextmanager
def replacing(path: Path, mode: str = "w", *, file_mode: int = FILE_MODE, **options: Any) -> Iterator[IO[Any]]:
    """A file to write `path`'s new content into, made `file_mode`; it becomes `path` only when the block ends without
    an error (`options` as `open` takes them: encoding, newline)."""
    scratch = _scratch(path)
    try:
        with os.fdopen(open_fd(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode), mode, **options) as handle:
            yield handle
        os.replace(scratch, path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str, *, file_mode: int = FILE_MODE) -> None:
    with replacing(path, "w", file_mode=file_mode, encoding="utf-8", newline="") as handle:
        handle.write(text)


def replaced_by(path: Path, produce: Callable[[Path], None], *, valid: Callable[[bytes], bool] | None = None) -> None:
    """`path` written by `produce`, which opens a file by name itself (Qt's PDF writer): into a scratch file Jetwise
    made, then checked (not empty, and `valid` of its last bytes) before it replaces `path`. A writer that wrote
    nothing, as on a full volume, is an error (ENOSPC), not a success."""
    scratch = _scratch(path)
    try:
        os.close(open_fd(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        produce(scratch)
        size = scratch.stat().st_size
        with open(scratch, "rb") as written:
            written.seek(max(0, size - 1024))
            tail = written.read()
        if size == 0 or (valid is not None and not valid(tail)):
            raise OSError(errno.ENOSPC, f"{path} could not be written whole (is its volume full?)", str(path))
        os.replace(scratch, path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def _scratch(path: Path) -> Path:
    refuse_unsafe(path)
    return path.with_name(f".{path.name}.{os.getpid()}.partial")


def make_folders(folder: Path) -> None:
    """`folder` and any missing parents, rwxr-xr-x whatever the umask."""
    missing = []
    for step in (folder, *folder.parents):
        if step.is_dir():
            break
        missing.append(step)
    for step in reversed(missing):
        try:
            step.mkdir(FOLDER_MODE)
        except FileExistsError:
            if not step.is_dir():
                raise
            continue
        os.chmod(step, FOLDER_MODE)


# Folders no run belongs in: the system's own, with everything below them (POSIX), and on Windows the folders its
# environment names; on POSIX also /dev, /run and /var themselves, though not what is below them (a memory-backed
# /dev/shm, which validation names as such, or /var/tmp). The file system's root is refused everywhere, as is a
# folder other files are in (`engine.results`).
_POSIX_SYSTEM = ("/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sbin", "/sys", "/usr")
_POSIX_TOPS = ("/dev", "/run", "/var", "/home", "/opt", "/srv", "/mnt", "/media")
_WINDOWS_SYSTEM = ("SystemRoot", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "ProgramData")


def system_folder_problem(folder: Path) -> str | None:
    """Why no run may write in `folder`, if none may: it is (or resolves through links to) the root of a file system
    or a system folder."""
    found = _system_folder(folder)
    return None if found is None else f"{folder} is {found[0]}; give a folder of its own{found[1]}"


def file_in_the_way(folder: Path) -> str | None:
    """Why no folder can be at `folder`, when a file is there or where a folder above it would be (a-file/DB1): said
    as a file, never as a folder missing."""
    for each in (folder, *folder.parents):
        if each.exists():
            if each.is_dir():
                return None
            return f"{folder} is {'a file' if each == folder else f'below {each}, which is a file'}, not a folder"
    return None


def destination_problem(path: Path, *, folder: bool = False) -> str | None:
    """Why Jetwise writes nothing the engineer asked for at `path`, if it does not: a folder (`folder`) or a file's
    folder that is the root of its file system or a system folder (`system_folder_problem`), a folder that is or is
    below a file (`file_in_the_way`), or a file's name that is a link, a folder or a device (`link_problem`). The one
    rule for every command and window action that writes where the engineer says: a run's, a suite's or a tuning's
    folder, a report, an export, a configuration."""
    if folder:
        return system_folder_problem(path) or file_in_the_way(path)
    if (unsafe := link_problem(path)) is not None:
        return f"{path} {unsafe}"
    where = Path(os.path.abspath(path)).parent
    found = _system_folder(where)
    return None if found is None else f"{path} is in {where}, {found[0]}; write it in a folder of its own{found[1]}"


def refuse_destination(path: Path, *, folder: bool = False) -> None:
    """Raise `UnsafePathError` (an OSError, said where the path was given) if `destination_problem` refuses `path`."""
    if (problem := destination_problem(path, folder=folder)) is not None:
        raise UnsafePathError(path, problem.removeprefix(f"{path} "))


def _system_folder(folder: Path) -> tuple[str, str] | None:
    """What `folder` is when nothing may be written in it (the root of its file system, a system folder, with the
    link it was reached through), and where to write instead ("" or " below it")."""
    resolved = Path(os.path.realpath(folder))
    through = "" if resolved == Path(os.path.abspath(folder)) else f" (through a link, {resolved})"
    if resolved == Path(resolved.anchor):
        return f"the root of its file system{through}", ""
    if os.name == "nt":
        system = [Path(os.path.realpath(value)) for name in _WINDOWS_SYSTEM if (value := os.environ.get(name))]
    else:
        system = [Path(name) for name in _POSIX_SYSTEM]
    for top in system:
        if resolved == top or top in resolved.parents:
            return f"a system folder{through} ({top})", ""
    if os.name != "nt" and str(resolved) in _POSIX_TOPS:
        return f"a system folder{through}", " below it"
    return None
