"""On-disk format of Jetwise database pages, log sectors and file headers.

Every 32 KiB database page starts with a header (magic, format version, kind,
checksum, database id, page number, write sequence) and every further 4 KiB sector
of it carries a stamp (page number, sequence, sector), so no two 4 KiB blocks
Jetwise writes are alike: deduplicating arrays cannot fold them. The rest is taken
from a pool of random bytes at a random offset, so compressing arrays cannot shrink
it either. The checksum (CRC-32) covers everything after the checksum field.

The byte after a page's header is its flush state (ESE's): 0 for a page no write of a run has stamped, else 1, 2
or 3, the next of them at each write of the page a run makes (`engine.workload.flushmap`). A page read back whose state
is not the one its last write carried is a write the storage acknowledged and lost: a lost flush. The checksum covers
it; a page of an earlier Jetwise holds a random byte there, and no state is expected of it.

Every log sector the log stream writes (512 bytes or 4 KiB, the log's sector size)
carries the same header, with the log generation as its number and its byte offset
in the file as its sequence, and a CRC-32 of its own. After the header comes the
sector's record directory: each update record that ends in the sector, as the page
it changed and the write sequence it gave the page (ESE's dbtime), which is what
soft recovery replays; the CRC covers it.

File headers (page 0 of a database, sector 0 of a log file) are how Jetwise
recognises its own files: it never writes into a file without a valid one.

A block read back is checked by `page_fault` or `log_sector_fault`: cheaply when it
is good, and classified into an `ErrorKind` only when it is not.
"""

from __future__ import annotations

import os
import random
import struct
import time
import uuid
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from pathlib import Path

# CRC-32 as zlib computes it (the format's checksum), folded with SIMD: a 32 KiB page in under a microsecond,
# a sixteenth of the standard library's time, on the hot path, the scans and the replay alike.
from zlib_ng.zlib_ng import crc32

from engine.io.parts import page_words

FORMAT_VERSION = 1
SECTOR_BYTES = 4096

PAGE_MAGIC = b"JWDBPAGE"
LOG_SECTOR_MAGIC = b"JWLOGSEC"
DB_FILE_MAGIC = b"JWDBFILE"
LOG_FILE_MAGIC = b"JWLOGFIL"
FLUSH_MAP_MAGIC = b"JWFLUSHM"

# magic, format version, kind, checksum, database id, number, sequence
_HEADER = struct.Struct("<8sHHI16sQQ")
HEADER_BYTES = _HEADER.size  # 48
FLUSH_STATE_AT = HEADER_BYTES  # a page's flush state: the byte after its header
_CHECKSUM_OFFSET = 12
_CHECKSUMMED_FROM = 16
_CRC = struct.Struct("<I")
# per-sector stamp inside a page: page number, sequence, sector index
_STAMP = struct.Struct("<QQQ")

# database file header body, after the common header
_DB_FILE_BODY = struct.Struct("<QQQQq")  # page size, pages planned, pages created, created ns, reserved
# log file header body
_LOG_FILE_BODY = struct.Struct("<QQQq")  # file size, slot, sector bytes, created ns
# flush map file header body: its states' bytes, closed clean (1) or left open by a run under way or killed (0)
_FLUSH_MAP_BODY = struct.Struct("<QB")

RANDOM_POOL_BYTES = 8 * 1024 * 1024

# A log sector's record directory, after its header: a count, then (page, sequence) per record.
_RECORD_COUNT = struct.Struct("<H")
_RECORD = struct.Struct("<QQ")
_RECORDS_AT = HEADER_BYTES + _RECORD_COUNT.size
SMALLEST_LOG_SECTOR_BYTES = 512
MAX_RECORDS_PER_SECTOR = (SMALLEST_LOG_SECTOR_BYTES - _RECORDS_AT) // _RECORD.size

# An update record in a log write: the byte offset (in the write) of the sector it ends in, its page, its sequence.
LogRecord = tuple[int, int, int]


class Kind(IntEnum):
    DB_PAGE = 1
    LOG_SECTOR = 2
    DB_FILE_HEADER = 3
    LOG_FILE_HEADER = 4
    FLUSH_MAP_HEADER = 5


class FormatError(ValueError):
    """A block is not what Jetwise wrote there."""


class ErrorKind(StrEnum):
    """What went wrong with an I/O, by the names storage engineers and ESE use for it."""

    CHECKSUM = "bad_checksum"  # the block's CRC does not match its contents
    WRONG_NUMBER = "wrong_number"  # a valid block, but not the one asked for: another page, sector or database
    UNINITIALISED = "uninitialised"  # all zeros: never written, or a blank block returned
    SHORT_READ = "short_read"  # the file ends before the read does
    DISK_IO = "disk_io"  # the operating system reported the I/O failed
    CRC_ERROR = "crc_error"  # the operating system failed a read for a data (CRC) error: the drive cannot read it back
    LOST_FLUSH = "lost_flush"  # a valid page, but older than its last write: the storage acknowledged a write and lost it
    TOO_NEW = "too_new"  # a valid page whose write sequence (dbtime) is newer than any the engine gave it
    HUNG_READ = "hung_read"  # a read the storage has not completed within the hung I/O threshold
    HUNG_WRITE = "hung_write"  # a write the storage has not completed within the hung I/O threshold


# What a check found: the kind, and in words what the block holds instead when it is a valid block of
# another place ("page 12", "log sector 17 of generation 3", "a page of another database"), else "".
Fault = tuple[ErrorKind, str]


def _pool() -> bytes:
    return os.urandom(RANDOM_POOL_BYTES)


class BlockWriter:
    """Fills aligned buffers with unique, incompressible, checksummed blocks.

    One per thread: it owns a random generator and shares the process's random pool.
    """

    __slots__ = ("_pool", "_pool_span", "_rng", "db_id")

    _shared_pool: bytes | None = None

    def __init__(self, db_id: bytes, seed: int | None = None) -> None:
        if BlockWriter._shared_pool is None:
            BlockWriter._shared_pool = _pool()
        self.db_id = db_id
        self._pool = memoryview(BlockWriter._shared_pool)
        self._pool_span = RANDOM_POOL_BYTES - 64 * 1024
        self._rng = random.Random(seed)

    def fill_page(self, buf: memoryview, page_no: int, seq: int, page_bytes: int, flush_state: int = 0) -> None:
        """Write one database page into `buf[0:page_bytes]`, stamped with its `flush_state`."""
        start = self._rng.randrange(self._pool_span)
        buf[:page_bytes] = self._pool[start : start + page_bytes]
        _HEADER.pack_into(buf, 0, PAGE_MAGIC, FORMAT_VERSION, Kind.DB_PAGE, 0, self.db_id, page_no, seq)
        buf[FLUSH_STATE_AT] = flush_state
        stamp = _STAMP.pack_into
        for sector in range(1, page_bytes // SECTOR_BYTES):
            stamp(buf, sector * SECTOR_BYTES, page_no, seq, sector)
        struct.pack_into("<I", buf, _CHECKSUM_OFFSET, crc32(buf[_CHECKSUMMED_FROM:page_bytes]))

    def fill_log_write(self, buf: memoryview, length: int, generation: int, file_offset: int, sector_bytes: int,
                       records: list[LogRecord] | tuple[()] = ()) -> None:
        """Fill `buf[0:length]` with whole log sectors bound for `file_offset` of log `generation`.

        Each sector carries its header, its record directory (the `records` that end in it,
        in order) and its checksum, so no two 4 KiB blocks of a log are alike, log replication
        and a checksum pass can verify every sector, and soft recovery can replay the records.
        """
        start = self._rng.randrange(self._pool_span)
        buf[:length] = self._pool[start : start + length]
        counts: dict[int, int] = {}
        for at, page, sequence in records:
            count = counts.get(at, 0)
            if count == MAX_RECORDS_PER_SECTOR:
                raise ValueError(f"more than {MAX_RECORDS_PER_SECTOR} log records end in one sector")
            _RECORD.pack_into(buf, at + _RECORDS_AT + count * _RECORD.size, page, sequence)
            counts[at] = count + 1
        stamp, seal, crc, db_id = _HEADER.pack_into, _CRC.pack_into, crc32, self.db_id
        tally = _RECORD_COUNT.pack_into
        for at in range(0, length, sector_bytes):
            stamp(buf, at, LOG_SECTOR_MAGIC, FORMAT_VERSION, Kind.LOG_SECTOR, 0, db_id, generation, file_offset + at)
            tally(buf, at + HEADER_BYTES, counts.get(at, 0))
            seal(buf, at + _CHECKSUM_OFFSET, crc(buf[at + _CHECKSUMMED_FROM : at + sector_bytes]))


def page_fault(buf: memoryview, db_id: bytes, page_no: int, page_bytes: int, verify: bool) -> Fault | None:
    """Check a database page just read: it is ours, it is the page asked for and, with `verify`,
    its checksum holds. None when it is good (one header unpack, one CRC); what is wrong when not."""
    magic, _version, _kind, stored, page_db, number, _seq = _HEADER.unpack_from(buf, 0)
    if magic == PAGE_MAGIC and page_db == db_id and number == page_no:
        return _checksum_fault(buf, stored, page_bytes, verify)
    return _misplaced(buf, magic, PAGE_MAGIC, page_db == db_id, page_words(number), page_bytes)


def log_sector_fault(
    buf: memoryview, db_id: bytes, generation: int, file_offset: int, sector_bytes: int, verify: bool
) -> Fault | None:
    """Check a log sector read back: ours, of this `generation`, written for `file_offset` and, with
    `verify`, with a checksum that holds."""
    magic, _version, _kind, stored, sector_db, number, at = _HEADER.unpack_from(buf, 0)
    if magic == LOG_SECTOR_MAGIC and sector_db == db_id and number == generation and at == file_offset:
        return _checksum_fault(buf, stored, sector_bytes, verify)
    holds = f"log sector {at // sector_bytes} of generation {number}"
    return _misplaced(buf, magic, LOG_SECTOR_MAGIC, sector_db == db_id, holds, sector_bytes)


def log_records(buf: memoryview) -> list[tuple[int, int]]:
    """The records a verified log sector carries: (page, sequence) of each update that ends in it, in order."""
    (count,) = _RECORD_COUNT.unpack_from(buf, HEADER_BYTES)
    if count > MAX_RECORDS_PER_SECTOR:
        raise FormatError(f"a log sector lists {count} records, more than a sector holds")
    return [_RECORD.unpack_from(buf, _RECORDS_AT + n * _RECORD.size) for n in range(count)]


_SEQUENCE = struct.Struct("<Q")
SEQUENCE_AT = _HEADER.size - _SEQUENCE.size  # a block header's last field: a page's write sequence


def page_sequence(buf: memoryview) -> int:
    """The write sequence of a database page read back (ESE's dbtime): which updates it already holds."""
    return int(_SEQUENCE.unpack_from(buf, SEQUENCE_AT)[0])


def log_scan_fault(buf: memoryview, db_id: bytes, file_offset: int, sector_bytes: int) -> Fault | None:
    """Check a log sector met by a checksum pass, which knows where it is but not which generation it holds:
    ours, written for `file_offset`, with a checksum that holds."""
    magic, _version, _kind, stored, sector_db, number, at = _HEADER.unpack_from(buf, 0)
    if magic == LOG_SECTOR_MAGIC and sector_db == db_id and at == file_offset:
        return _checksum_fault(buf, stored, sector_bytes, True)
    holds = f"log sector {at // sector_bytes} of generation {number}"
    return _misplaced(buf, magic, LOG_SECTOR_MAGIC, sector_db == db_id, holds, sector_bytes)


def database_header_fault(buf: memoryview, db_id: bytes) -> Fault | None:
    """Check page 0 of a database read back: its file header, of this database, with a checksum that holds."""
    magic, _version, _kind, stored, file_db, _number, _seq = _HEADER.unpack_from(buf, 0)
    if magic == DB_FILE_MAGIC and file_db == db_id:
        return _checksum_fault(buf, stored, SECTOR_BYTES, True)
    return _misplaced(buf, magic, DB_FILE_MAGIC, file_db == db_id, "another database's header", SECTOR_BYTES)


def log_header_fault(buf: memoryview, db_id: bytes, verify: bool) -> Fault | None:
    """Check the header sector of a log file read back (sector 0)."""
    magic, _version, _kind, stored, file_db, _slot, _seq = _HEADER.unpack_from(buf, 0)
    if magic == LOG_FILE_MAGIC and file_db == db_id:
        return _checksum_fault(buf, stored, SECTOR_BYTES, verify)
    return _misplaced(buf, magic, LOG_FILE_MAGIC, file_db == db_id, "another log file's header", SECTOR_BYTES)


def _checksum_fault(buf: memoryview, stored: int, length: int, verify: bool) -> Fault | None:
    if not verify or stored == crc32(buf[_CHECKSUMMED_FROM:length]):
        return None
    return ErrorKind.CHECKSUM, ""


def _misplaced(buf: memoryview, magic: bytes, expected: bytes, same_database: bool, holds: str, length: int) -> Fault:
    """The slow path of a failed check: which kind of failure it is."""
    if magic == expected:
        # a whole block of another place, or of another database: what ESE calls a wrong page number
        if same_database:
            return ErrorKind.WRONG_NUMBER, holds
        return ErrorKind.WRONG_NUMBER, f"a {'page' if expected == PAGE_MAGIC else 'block'} of another database"
    if buf[:length].tobytes().count(0) == length:
        return ErrorKind.UNINITIALISED, ""
    return ErrorKind.CHECKSUM, ""  # the header itself is damaged, so the block cannot checksum


def verify_checksum(buf: memoryview | bytes, length: int) -> bool:
    (stored,) = _CRC.unpack_from(buf, _CHECKSUM_OFFSET)
    return bool(stored == crc32(memoryview(buf)[_CHECKSUMMED_FROM:length]))


# File headers ---------------------------------------------------------------------


@dataclass(frozen=True)
class DatabaseHeader:
    db_id: bytes
    page_bytes: int
    pages_planned: int
    pages_created: int
    created_ns: int
    part: int = 0  # which of its instance's database files this is (the first: 0)

    @property
    def complete(self) -> bool:
        return self.pages_created >= self.pages_planned



@dataclass(frozen=True)
class LogFileHeader:
    db_id: bytes
    file_bytes: int
    slot: int
    sector_bytes: int
    created_ns: int


def pack_database_header(buf: memoryview, header: DatabaseHeader) -> None:
    """Write a database file header into `buf` (one sector, zero-padded)."""
    buf[:SECTOR_BYTES] = bytes(SECTOR_BYTES)
    _HEADER.pack_into(buf, 0, DB_FILE_MAGIC, FORMAT_VERSION, Kind.DB_FILE_HEADER, 0, header.db_id, header.part, 0)
    _DB_FILE_BODY.pack_into(buf, HEADER_BYTES, header.page_bytes, header.pages_planned, header.pages_created,
                            header.created_ns, 0)
    struct.pack_into("<I", buf, _CHECKSUM_OFFSET, crc32(buf[_CHECKSUMMED_FROM:SECTOR_BYTES]))


def pack_log_header(buf: memoryview, header: LogFileHeader) -> None:
    buf[:SECTOR_BYTES] = bytes(SECTOR_BYTES)
    _HEADER.pack_into(buf, 0, LOG_FILE_MAGIC, FORMAT_VERSION, Kind.LOG_FILE_HEADER, 0, header.db_id, header.slot, 0)
    _LOG_FILE_BODY.pack_into(
        buf, HEADER_BYTES, header.file_bytes, header.slot, header.sector_bytes, header.created_ns
    )
    struct.pack_into("<I", buf, _CHECKSUM_OFFSET, crc32(buf[_CHECKSUMMED_FROM:SECTOR_BYTES]))


def _read_head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(SECTOR_BYTES)


class DamagedHeaderError(FormatError):
    """A header Jetwise wrote that no longer verifies: its magic, format version and kind intact, its checksum wrong.
    The file is Jetwise's and damaged (a checksum reports it, clean removes it), never a file of someone else's."""

    def __init__(self, path: Path, what: str, head: bytes) -> None:
        super().__init__(f"{path} is a Jetwise {what} whose header is damaged (its checksum does not match)")
        self.db_id: bytes = _HEADER.unpack_from(head, 0)[4]  # as it stands: the damage may be there too


def _checked_head(path: Path, magic: bytes, what: str, kind: Kind) -> bytes:
    try:
        head = _read_head(path)
    except OSError as exc:
        raise FormatError(f"{path} cannot be read ({exc.strerror})") from exc
    if len(head) < SECTOR_BYTES or head[:8] != magic:
        raise FormatError(f"{path} is not a Jetwise {what} (no Jetwise header)")
    version, written_kind = struct.unpack_from("<HH", head, 8)
    if version != FORMAT_VERSION:
        raise FormatError(f"{path} is a Jetwise {what} of format {version}; this version reads {FORMAT_VERSION}")
    if not verify_checksum(head, SECTOR_BYTES):
        if written_kind == kind:
            raise DamagedHeaderError(path, what, head)
        raise FormatError(f"{path} is not a Jetwise {what} (its header is not one Jetwise wrote)")
    return head


def read_database_header(path: Path) -> DatabaseHeader:
    """The header of a Jetwise database file; FormatError if it is not one."""
    head = _checked_head(path, DB_FILE_MAGIC, "database", Kind.DB_FILE_HEADER)
    _m, _v, _k, _c, db_id, part, _s = _HEADER.unpack_from(head, 0)
    page_bytes, planned, created, created_ns, _ = _DB_FILE_BODY.unpack_from(head, HEADER_BYTES)
    return DatabaseHeader(db_id, page_bytes, planned, created, created_ns, part)


def read_log_header(path: Path) -> LogFileHeader:
    head = _checked_head(path, LOG_FILE_MAGIC, "log file", Kind.LOG_FILE_HEADER)
    _m, _v, _k, _c, db_id, _n, _s = _HEADER.unpack_from(head, 0)
    file_bytes, slot, sector_bytes, created_ns = _LOG_FILE_BODY.unpack_from(head, HEADER_BYTES)
    return LogFileHeader(db_id, file_bytes, slot, sector_bytes, created_ns)


@dataclass(frozen=True)
class FlushMapHeader:
    db_id: bytes  # of the database file whose pages' flush states it keeps
    part: int
    state_bytes: int  # after the header sector: two bits a page
    clean: bool  # written whole by a run that ended cleanly: every state it holds is the one on disk


def pack_flush_map_header(buf: memoryview, header: FlushMapHeader) -> None:
    """Write a flush map file's header into `buf` (one sector, zero-padded)."""
    buf[:SECTOR_BYTES] = bytes(SECTOR_BYTES)
    _HEADER.pack_into(buf, 0, FLUSH_MAP_MAGIC, FORMAT_VERSION, Kind.FLUSH_MAP_HEADER, 0, header.db_id, header.part, 0)
    _FLUSH_MAP_BODY.pack_into(buf, HEADER_BYTES, header.state_bytes, 1 if header.clean else 0)
    struct.pack_into("<I", buf, _CHECKSUM_OFFSET, crc32(buf[_CHECKSUMMED_FROM:SECTOR_BYTES]))


def read_flush_map_header(path: Path) -> FlushMapHeader:
    """The header of a Jetwise flush map file; FormatError if it is not one."""
    head = _checked_head(path, FLUSH_MAP_MAGIC, "flush map", Kind.FLUSH_MAP_HEADER)
    _m, _v, _k, _c, db_id, part, _s = _HEADER.unpack_from(head, 0)
    state_bytes, clean = _FLUSH_MAP_BODY.unpack_from(head, HEADER_BYTES)
    return FlushMapHeader(db_id, part, state_bytes, bool(clean))


def is_jetwise_file(path: Path) -> bool:
    """True when `path` carries a Jetwise database, log or flush map header: valid, or one Jetwise wrote that is
    damaged."""
    for reader in (read_database_header, read_log_header, read_flush_map_header):
        try:
            reader(path)
            return True
        except DamagedHeaderError:
            return True
        except FormatError:
            continue
    return False


def new_database_id() -> bytes:
    return uuid.uuid4().bytes


def now_ns() -> int:
    return time.time_ns()
