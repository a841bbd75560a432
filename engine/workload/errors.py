"""I/O errors of a named kind: what one says, how an instance counts them, which the test log shows.

Every I/O that fails, and every block read back that fails its check, becomes one
`IoProblem`: its kind (`ErrorKind`), the stream that did it, the file, the page or log
sector and its byte offset, and the ESE error a database engine raises for it. The
threads of an instance count them in their interval counters (`ErrorTally`: a count and
the first of each kind), so a flood of bad pages becomes one row with a count in the
result and the report; `ErrorLines` decides which the test log shows: each bad block
once, a bounded number, and the first of every kind whatever the bound.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from engine.io.pages import ErrorKind

Unit = Literal["page", "log sector"]
PAGE: Final = "page"
LOG_SECTOR: Final = "log sector"

# The error ESE raises for each kind, by what was read: a database page or a log sector.
ESE_ERRORS: dict[tuple[ErrorKind, str], tuple[int, str]] = {
    (ErrorKind.CHECKSUM, PAGE): (-1018, "JET_errReadVerifyFailure"),
    (ErrorKind.CHECKSUM, LOG_SECTOR): (-612, "JET_errLogReadVerifyFailure"),
    (ErrorKind.WRONG_NUMBER, PAGE): (-1118, "JET_errReadPgnoVerifyFailure"),
    (ErrorKind.WRONG_NUMBER, LOG_SECTOR): (-501, "JET_errLogFileCorrupt"),
    (ErrorKind.UNINITIALISED, PAGE): (-1019, "JET_errPageNotInitialized"),
    (ErrorKind.UNINITIALISED, LOG_SECTOR): (-501, "JET_errLogFileCorrupt"),
    (ErrorKind.SHORT_READ, PAGE): (-4001, "JET_errFileIOBeyondEOF"),
    (ErrorKind.SHORT_READ, LOG_SECTOR): (-4001, "JET_errFileIOBeyondEOF"),
    (ErrorKind.DISK_IO, PAGE): (-1022, "JET_errDiskIO"),
    (ErrorKind.DISK_IO, LOG_SECTOR): (-1022, "JET_errDiskIO"),
    (ErrorKind.CRC_ERROR, PAGE): (-1021, "JET_errDiskReadVerificationFailure"),
    (ErrorKind.CRC_ERROR, LOG_SECTOR): (-1021, "JET_errDiskReadVerificationFailure"),
    (ErrorKind.LOST_FLUSH, PAGE): (-1119, "JET_errReadLostFlushVerifyFailure"),
    (ErrorKind.TOO_NEW, PAGE): (-567, "JET_errDbTimeTooNew"),
    # ESE raises no error for a hung I/O: it logs an event, and the I/O goes on (docs/ese-source.md section 3)
    (ErrorKind.HUNG_READ, PAGE): (532, "IOMGR_HUNG_READ_IO_DETECTED_ID"),
    (ErrorKind.HUNG_READ, LOG_SECTOR): (532, "IOMGR_HUNG_READ_IO_DETECTED_ID"),
    (ErrorKind.HUNG_WRITE, PAGE): (533, "IOMGR_HUNG_WRITE_IO_DETECTED_ID"),
    (ErrorKind.HUNG_WRITE, LOG_SECTOR): (533, "IOMGR_HUNG_WRITE_IO_DETECTED_ID"),
}
_TITLES = {
    ErrorKind.CHECKSUM: "bad checksum",
    ErrorKind.WRONG_NUMBER: "wrong {unit} number",
    ErrorKind.UNINITIALISED: "uninitialised {unit}",
    ErrorKind.SHORT_READ: "short read",
    ErrorKind.DISK_IO: "I/O error",
    ErrorKind.CRC_ERROR: "CRC error",
    ErrorKind.LOST_FLUSH: "lost flush",
    ErrorKind.TOO_NEW: "{unit} newer than any write",
    ErrorKind.HUNG_READ: "hung read",
    ErrorKind.HUNG_WRITE: "hung write",
}
_WHY = {
    ErrorKind.CHECKSUM: "its checksum does not match its contents: they changed on the way to or from the disk",
    ErrorKind.WRONG_NUMBER: "it holds {found}: a write went to the wrong place, or the read returned another block",
    ErrorKind.UNINITIALISED: "it reads back as all zeros: a write that never reached the disk, or a blank block returned",
    ErrorKind.SHORT_READ: "{detail}",
    ErrorKind.DISK_IO: "the operating system says: {detail}",
    ErrorKind.CRC_ERROR: "the operating system failed the read for a data error, the drive could not read it back as "
                         "written: {detail}",
    ErrorKind.LOST_FLUSH: ("it reads back older than its last write, which the storage acknowledged ({found}): the "
                           "storage lost a write it said it made"),
    ErrorKind.TOO_NEW: ("its write sequence (dbtime) is newer than any the test gave it ({found}): the storage returned "
                        "a write that was never made here, or made elsewhere"),
    ErrorKind.HUNG_READ: "{detail}",
    ErrorKind.HUNG_WRITE: "{detail}",
}
STOP_REASON = "the test stopped at its first I/O error, as it does unless it continues despite I/O errors"
HUNG_STOP_REASON = ("the test stopped at a hung I/O without waiting for it to complete, as it does unless it continues "
                    "despite I/O errors")
HUNG_SCAN_STOP_REASON = ("the scan stopped at a hung I/O without waiting for it to complete: it cannot go past a read "
                         "that does not complete")
PATCHED = "patched: written again and read back good"  # a CRC error's page, mended (`engine.workload.patching`)


def title(kind: ErrorKind, unit: str) -> str:
    """The kind in the field's words: 'bad checksum', 'wrong page number', 'uninitialised log sector'."""
    return _TITLES[kind].format(unit=unit)


def ese_error(kind: ErrorKind, unit: str) -> tuple[int, str]:
    """The ESE error number and name for a kind of error on a page or a log sector; for a hung I/O, for which ESE
    raises no error, the number and name of the event it logs (positive, where errors are negative)."""
    return ESE_ERRORS[(kind, unit)]


def ese_words(code: int, name: str = "") -> str:
    """'ESE -1018 JET_errReadVerifyFailure', or for an event 'ESE event 532 IOMGR_HUNG_READ_IO_DETECTED_ID'."""
    return " ".join(part for part in ("ESE", "event" if code > 0 else "", str(code), name) if part)


@dataclass(frozen=True, slots=True)
class IoProblem:
    """One I/O error: its kind, the stream that met it, and where: file, page or log sector, byte offset."""

    kind: ErrorKind
    stream: str
    path: str
    unit: Unit
    number: int  # the page, or the log sector (in the log's sector size) in its file
    offset: int  # bytes from the start of the file
    found: str = ""  # a wrong number: what the block holds instead
    detail: str = ""  # a short read or an operating system error: what happened, in words
    patched: bool = False  # a CRC error's page was written again and read back good (`engine.workload.patching`)
    not_patched: str = ""  # a CRC error's page was not: why, in words

    @property
    def patch(self) -> str:
        """What page patching did about a CRC error, in words: "patched: ..." or "not patched: why"; else ""."""
        if self.patched:
            return PATCHED
        return f"not patched: {self.not_patched}" if self.not_patched else ""

    @property
    def title(self) -> str:
        return title(self.kind, self.unit)

    def __str__(self) -> str:
        code, name = ese_error(self.kind, self.unit)
        doing = "writing" if self.stream.endswith("write") else "reading"
        why = _WHY[self.kind].format(found=self.found, detail=self.detail)
        patch = f"; {self.patch}" if self.patch else ""
        return (f"{self.title} ({ese_words(code, name)}) {doing} {self.unit} {self.number} of {self.path} "
                f"at byte offset {self.offset:,}: {why}{patch}")


@dataclass
class KindCount:
    """How many errors of one kind, and the first of them (by the time it was met, `first_ns`); of CRC errors, how many
    page patching mended (`patched`)."""

    count: int
    first_ns: int
    first: IoProblem
    patched: int = 0


@dataclass(slots=True)
class ErrorTally:
    """An instance's I/O errors by kind and by what was read (page or log sector): counted, with the first of each.

    Kept per thread and interval beside the stream counters and merged like them; it
    grows only when an error is met, by one entry per kind at the most.
    """

    groups: dict[tuple[ErrorKind, str], KindCount] = field(default_factory=dict)

    @classmethod
    def of(cls, groups: Iterable[KindCount]) -> ErrorTally:
        """The groups a sample carries (`engine.results.counters.Counters.errors`), to add up; each copied."""
        tally = cls()
        for group in groups:
            tally.add_group(group)
        return tally

    def __bool__(self) -> bool:
        return bool(self.groups)

    def add(self, problem: IoProblem, t_ns: int) -> None:
        self.add_group(KindCount(count=1, first_ns=t_ns, first=problem, patched=int(problem.patched)), keep=True)

    def merge(self, other: ErrorTally) -> None:
        for group in other.groups.values():
            self.add_group(group)

    def add_group(self, theirs: KindCount, *, keep: bool = False) -> None:
        """Count a group of errors in: a kind new to the tally is a copy of `theirs`, or `theirs` itself with `keep`
        (made for this tally, held by nothing else)."""
        key = (theirs.first.kind, theirs.first.unit)
        mine = self.groups.get(key)
        if mine is None:
            self.groups[key] = theirs if keep else replace(theirs)
            return
        mine.count += theirs.count
        mine.patched += theirs.patched
        if theirs.first_ns < mine.first_ns:
            mine.first, mine.first_ns = theirs.first, theirs.first_ns

    @property
    def total(self) -> int:
        return sum(group.count for group in self.groups.values())

    def by_kind(self) -> dict[str, int]:
        """Counts by kind, pages and log sectors together."""
        counts: dict[str, int] = {}
        for (kind, _unit), group in self.groups.items():
            counts[kind.value] = counts.get(kind.value, 0) + group.count
        return counts

    def ordered(self) -> list[KindCount]:
        """The groups in the order their first error was met."""
        return sorted(self.groups.values(), key=lambda group: group.first_ns)

    def copied(self) -> list[KindCount]:
        """The groups, each copied: a sample's (`engine.results.counters.Counters.errors`)."""
        return [replace(group) for group in self.groups.values()]


def patch_words(group: KindCount) -> str:
    """What page patching did about a group of CRC errors, in words ("" for another kind)."""
    if group.first.kind is not ErrorKind.CRC_ERROR:
        return ""
    if group.patched == group.count:
        return PATCHED if group.count == 1 else f"each {PATCHED}"
    if group.patched:
        return f"{group.patched:,} of them {PATCHED}"
    return group.first.patch


def describe(group: KindCount) -> str:
    """A group in one line: how many, of what kind, what page patching did about them, and where the first was."""
    first = group.first
    code, name = ese_error(first.kind, first.unit)
    plural = "" if group.count == 1 else "s"
    blocks = "database pages" if first.unit == PAGE else "log sectors"
    patch = patch_words(group)
    patch = f", {patch}" if patch else ""
    return (f"{group.count:,} {first.title}{plural} ({ese_words(code, name)}) in {blocks}{patch}; the first at {first.unit} "
            f"{first.number} of {first.path}, byte offset {first.offset:,}")


LogLine = Callable[[str, str], None]  # text, level


class ErrorLines:
    """Which I/O errors a worker's test log shows: each bad block once, up to `limit` of them, and the
    first of every instance's kinds beyond it; then one line saying the rest are counted, not shown.

    Thread-safe: every I/O thread of the worker reports through one.
    """

    def __init__(self, log: LogLine, limit: int = 20) -> None:
        self._log = log
        self._limit = limit
        self._lock = threading.Lock()
        self._shown: set[tuple[str, str, int, ErrorKind]] = set()
        self._kinds: set[tuple[str, ErrorKind, str]] = set()
        self._said_more = False
        self.met = 0

    def note(self, instance: str, problem: IoProblem) -> bool:
        """Log `problem` if it is to be shown; True for the first error this worker met."""
        block = (instance, problem.path, problem.number, problem.kind)
        kind = (instance, problem.kind, problem.unit)
        with self._lock:
            self.met += 1
            first = self.met == 1
            if block in self._shown:
                return first
            if len(self._shown) < self._limit or kind not in self._kinds:
                self._shown.add(block)
                self._kinds.add(kind)
                line: tuple[str, str] | None = (f"{instance}: {problem}", "error")
            elif not self._said_more:
                self._said_more = True
                line = ("Further I/O errors are counted by kind but not logged; the result and the report group them",
                        "warning")
            else:
                line = None
        if line is not None:
            self._log(*line)
        return first
