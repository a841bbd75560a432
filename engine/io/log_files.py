"""An instance's log files: preformatted and sealed before a test, read back after it, and the sector size the
device under them takes. Each is made whole or not at all (`engine.io.files.made_whole`), and only a Jetwise log
is written into or read back."""

from __future__ import annotations

from pathlib import Path

from engine.io.file_names import log_file_path
from engine.io.files import FileSafetyError, made_whole
from engine.io.pages import SECTOR_BYTES, BlockWriter, FormatError, LogFileHeader, now_ns, pack_log_header, read_log_header
from engine.io.platform import IoBackend
from engine.model.sizing import LOG_FILE_SIZE_BYTES, LOG_FILES_PER_DATABASE

SMALL_LOG_SECTOR_BYTES = 512
PREFORMAT_CHUNK_BYTES = 32 * 1024  # a log file is preformatted in pieces of this size


def prepare_logs(backend: IoBackend, folder: Path, index: int, db_id: bytes, *, unbuffered: bool,
                 sector_bytes: int = SECTOR_BYTES, count: int = LOG_FILES_PER_DATABASE) -> list[Path]:
    """Make the instance's `count` preformatted 1 MiB log files (a circular set of 16, or a Soft Recovery's
    files to replay), sealed in `sector_bytes` sectors (the size the log is written in, which the header
    records, so a checksum pass reads them back whole).

    Existing files are reused only when they carry a Jetwise log header.
    """
    paths: list[Path] = []
    writer = BlockWriter(db_id)
    buffer = backend.allocate(LOG_FILE_SIZE_BYTES)
    try:
        for slot in range(count):
            path = log_file_path(folder, index, slot)
            header = LogFileHeader(db_id, LOG_FILE_SIZE_BYTES, slot, sector_bytes, now_ns())
            pack_log_header(buffer.view, header)
            for at in range(SECTOR_BYTES, LOG_FILE_SIZE_BYTES, PREFORMAT_CHUNK_BYTES):
                length = min(PREFORMAT_CHUNK_BYTES, LOG_FILE_SIZE_BYTES - at)
                writer.fill_log_write(buffer.view[at:], length, 0, at, sector_bytes)
            if path.exists():
                try:
                    read_log_header(path)
                except FormatError as exc:
                    raise FileSafetyError(f"{exc}; Jetwise does not write into files it did not create") from exc
                with backend.open_file(path, create=False, writable=True, unbuffered=unbuffered, write_through=True) as handle:
                    handle.write_from(buffer, 0)
            else:
                made_whole(backend, path, lambda handle: handle.write_from(buffer, 0), unbuffered=unbuffered,
                            write_through=True)
            paths.append(path)
    finally:
        buffer.release()
    return paths


def existing_logs(folder: Path, index: int, db_id: bytes, limit: int = LOG_FILES_PER_DATABASE) -> list[tuple[Path, LogFileHeader]]:
    """The instance's log files as a test left them, at most `limit`, to be read back (never written): those
    that carry a Jetwise log header of this database (the circular 16, and the files a Soft Recovery generated
    beyond them). A foreign file or another database's log raises FileSafetyError."""
    found = []
    for slot in range(limit):
        path = log_file_path(folder, index, slot)
        if not path.exists():
            if slot >= LOG_FILES_PER_DATABASE:
                break  # past the circular set, the files a Soft Recovery made end at the first missing one
            continue
        try:
            header = read_log_header(path)
        except FormatError as exc:
            raise FileSafetyError(f"{exc}; Jetwise reads back only the log files it wrote") from exc
        if header.db_id != db_id:
            raise FileSafetyError(f"{path} is a log of another database than the one beside it; "
                                  "Jetwise checks a database's logs only with their own database")
        found.append((path, header))
    return found


def log_sector_bytes(backend: IoBackend, log_path: Path, *, unbuffered: bool) -> int:
    """The smallest unit the instance's log can be written in: 512 bytes where the
    device takes 512-byte unbuffered writes, else 4 KiB (as ESE uses the sector size).

    Probed with one 512-byte write into the data area of a Jetwise log file (never
    into its header), since the answer depends on the device under the folder.
    """
    if not unbuffered:
        return SMALL_LOG_SECTOR_BYTES
    buffer = backend.allocate(SECTOR_BYTES)
    try:
        with backend.open_file(log_path, create=False, writable=True, unbuffered=True, write_through=True) as handle:
            handle.write_from(buffer, SECTOR_BYTES + SMALL_LOG_SECTOR_BYTES, SMALL_LOG_SECTOR_BYTES)
    except (OSError, ValueError):
        return SECTOR_BYTES
    finally:
        buffer.release()
    return SMALL_LOG_SECTOR_BYTES
