"""On-disk format of Jetwise database pages, log sectors and file headers.

Every 32 KiB database page starts with a header (magic, format version, kind,
checksum, database id, page number, write sequence) and every further 4 KiB sector
of it carries a stamp (page number, sequence, sector), so no two 4 KiB blocks
Jetwise writes are alike: deduplicating arrays cannot fold them. The rest is taken
from a pool of random bytes at a random offset, so compressing arrays cannot shrink
it either. The checksum (CRC-32) covers everything after the checksum field.

File headers (page 0 of a database, sector 0 of a log file) are how Jetwise
recognises its own files: it never writes into a file without a valid one.
"""

from __future__ import annotations

import os
import random
import struct
import time
import uuid
import zlib
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

FORMAT_VERSION = 1
SECTOR_BYTES = 4096

PAGE_MAGIC = b"JWDBPAGE"
LOG_SECTOR_MAGIC = b"JWLOGSEC"
DB_FILE_MAGIC = b"JWDBFILE"
LOG_FILE_MAGIC = b"JWLOGFIL"

# magic, format version, kind, checksum, database id, number, sequence
_HEADER = struct.Struct("<8sHHI16sQQ")
HEADER_BYTES = _HEADER.size  # 48
_CHECKSUM_OFFSET = 12
_CHECKSUMMED_FROM = 16
# per-sector stamp inside a page: page number, sequence, sector index
_STAMP = struct.Struct("<QQQ")

# database file header body, after the common header
_DB_FILE_BODY = struct.Struct("<QQQQq")  # page size, pages planned, pages created, created ns, reserved
# log file header body
_LOG_FILE_BODY = struct.Struct("<QQQq")  # file size, slot, sector bytes, created ns

RANDOM_POOL_BYTES = 8 * 1024 * 1024


class Kind(IntEnum):
    DB_PAGE = 1
    LOG_SECTOR = 2
    DB_FILE_HEADER = 3
    LOG_FILE_HEADER = 4


class FormatError(ValueError):
    """A block is not what Jetwise wrote there."""


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

    def fill_page(self, buf: memoryview, page_no: int, seq: int, page_bytes: int) -> None:
        """Write one database page into `buf[0:page_bytes]`."""
        start = self._rng.randrange(self._pool_span)
        buf[:page_bytes] = self._pool[start : start + page_bytes]
        _HEADER.pack_into(buf, 0, PAGE_MAGIC, FORMAT_VERSION, Kind.DB_PAGE, 0, self.db_id, page_no, seq)
        stamp = _STAMP.pack_into
        for sector in range(1, page_bytes // SECTOR_BYTES):
            stamp(buf, sector * SECTOR_BYTES, page_no, seq, sector)
        struct.pack_into("<I", buf, _CHECKSUM_OFFSET, zlib.crc32(buf[_CHECKSUMMED_FROM:page_bytes]))

    def fill_log_sectors(self, buf: memoryview, first_sector: int, count: int, generation: int) -> None:
        """Write `count` log sectors into `buf`, numbered from `first_sector` of log `generation`."""
        for i in range(count):
            base = i * SECTOR_BYTES
            start = self._rng.randrange(self._pool_span)
            buf[base : base + SECTOR_BYTES] = self._pool[start : start + SECTOR_BYTES]
            _HEADER.pack_into(
                buf, base, LOG_SECTOR_MAGIC, FORMAT_VERSION, Kind.LOG_SECTOR, 0,
                self.db_id, generation, first_sector + i,
            )
            crc = zlib.crc32(buf[base + _CHECKSUMMED_FROM : base + SECTOR_BYTES])
            struct.pack_into("<I", buf, base + _CHECKSUM_OFFSET, crc)


    def fill_log_write(self, buf: memoryview, length: int, generation: int, file_offset: int) -> None:
        """Fill `buf[0:length]` with log data bound for `file_offset` of log `generation`.

        Stamped at its start and at every 4 KiB boundary of the file, so no two 4 KiB
        blocks of a log are alike; no checksum (log data is never read back and checked).
        """
        start = self._rng.randrange(self._pool_span)
        buf[:length] = self._pool[start : start + length]
        stamp = _HEADER.pack_into
        first = -(-file_offset // SECTOR_BYTES) * SECTOR_BYTES
        offsets = [0] if first != file_offset else []
        offsets.extend(range(first - file_offset, length, SECTOR_BYTES))
        for at in offsets:
            if at + _HEADER.size <= length:
                stamp(buf, at, LOG_SECTOR_MAGIC, FORMAT_VERSION, Kind.LOG_SECTOR, 0,
                      self.db_id, generation, file_offset + at)


def check_page_identity(buf: memoryview, db_id: bytes, page_no: int) -> str | None:
    """Cheap check on every read: the page is ours and is the page asked for."""
    magic, _version, _kind, _crc, page_db, number, _seq = _HEADER.unpack_from(buf, 0)
    if magic != PAGE_MAGIC:
        return f"page {page_no} has no Jetwise page header"
    if page_db != db_id:
        return f"page {page_no} belongs to another database"
    if number != page_no:
        return f"page {page_no} carries page number {number}"
    return None


def verify_checksum(buf: memoryview | bytes, length: int) -> bool:
    (stored,) = struct.unpack_from("<I", buf, _CHECKSUM_OFFSET)
    return bool(stored == zlib.crc32(memoryview(buf)[_CHECKSUMMED_FROM:length]))


# File headers ---------------------------------------------------------------------


@dataclass(frozen=True)
class DatabaseHeader:
    db_id: bytes
    page_bytes: int
    pages_planned: int
    pages_created: int
    created_ns: int

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
    _HEADER.pack_into(buf, 0, DB_FILE_MAGIC, FORMAT_VERSION, Kind.DB_FILE_HEADER, 0, header.db_id, 0, 0)
    _DB_FILE_BODY.pack_into(
        buf, HEADER_BYTES, header.page_bytes, header.pages_planned, header.pages_created,
        header.created_ns, 0,
    )
    struct.pack_into("<I", buf, _CHECKSUM_OFFSET, zlib.crc32(buf[_CHECKSUMMED_FROM:SECTOR_BYTES]))


def pack_log_header(buf: memoryview, header: LogFileHeader) -> None:
    buf[:SECTOR_BYTES] = bytes(SECTOR_BYTES)
    _HEADER.pack_into(buf, 0, LOG_FILE_MAGIC, FORMAT_VERSION, Kind.LOG_FILE_HEADER, 0, header.db_id, header.slot, 0)
    _LOG_FILE_BODY.pack_into(
        buf, HEADER_BYTES, header.file_bytes, header.slot, header.sector_bytes, header.created_ns
    )
    struct.pack_into("<I", buf, _CHECKSUM_OFFSET, zlib.crc32(buf[_CHECKSUMMED_FROM:SECTOR_BYTES]))


def _read_head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(SECTOR_BYTES)


def _checked_head(path: Path, magic: bytes, what: str) -> bytes:
    try:
        head = _read_head(path)
    except OSError as exc:
        raise FormatError(f"{path} cannot be read ({exc.strerror})") from exc
    if len(head) < SECTOR_BYTES or head[:8] != magic:
        raise FormatError(f"{path} is not a Jetwise {what} (no Jetwise header)")
    (version,) = struct.unpack_from("<H", head, 8)
    if version != FORMAT_VERSION:
        raise FormatError(f"{path} is a Jetwise {what} of format {version}; this version reads {FORMAT_VERSION}")
    if not verify_checksum(head, SECTOR_BYTES):
        raise FormatError(f"{path} has a damaged Jetwise header (checksum mismatch)")
    return head


def read_database_header(path: Path) -> DatabaseHeader:
    """The header of a Jetwise database file; FormatError if it is not one."""
    head = _checked_head(path, DB_FILE_MAGIC, "database")
    _m, _v, _k, _c, db_id, _n, _s = _HEADER.unpack_from(head, 0)
    page_bytes, planned, created, created_ns, _ = _DB_FILE_BODY.unpack_from(head, HEADER_BYTES)
    return DatabaseHeader(db_id, page_bytes, planned, created, created_ns)


def read_log_header(path: Path) -> LogFileHeader:
    head = _checked_head(path, LOG_FILE_MAGIC, "log file")
    _m, _v, _k, _c, db_id, _n, _s = _HEADER.unpack_from(head, 0)
    file_bytes, slot, sector_bytes, created_ns = _LOG_FILE_BODY.unpack_from(head, HEADER_BYTES)
    return LogFileHeader(db_id, file_bytes, slot, sector_bytes, created_ns)


def is_jetwise_file(path: Path) -> bool:
    """True when `path` carries a valid Jetwise database or log header."""
    for reader in (read_database_header, read_log_header):
        try:
            reader(path)
            return True
        except FormatError:
            continue
    return False


def new_database_id() -> bytes:
    return uuid.uuid4().bytes


def now_ns() -> int:
    return time.time_ns()
