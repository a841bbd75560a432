"""Database files: create, resume, attach, and refuse anything that is not ours (log files: `engine.io.log_files`;
every file's name: `engine.io.file_names`).

Jetwise never opens an existing file for writing before it has read a valid
Jetwise header from it, never truncates (no O_TRUNC / CREATE_ALWAYS anywhere) and
only deletes files it recognises as its own.

A new database or log file is made at its creating name (`Jetwise001.jwdb.creating`), given its header, flushed,
and only then given its name, never over a file there (`made_whole`). A failure in between (a full volume, an error)
removes it, so a database's or log's name never holds a header-less file Jetwise made: no later run is held up by it.
A kill in that instant can leave the creating file, empty or with its header; that name is Jetwise's alone, so
`clean` lists it and the next creation of that file takes it over (`unfinished_creation`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.io.pages import (
    HEADER_BYTES,
    PAGE_MAGIC,
    SECTOR_BYTES,
    BlockWriter,
    DamagedHeaderError,
    DatabaseHeader,
    FormatError,
    is_jetwise_file,
    new_database_id,
    now_ns,
    pack_database_header,
    read_database_header,
)
from engine.io.parts import part_base
from engine.io.platform import AlignedBuffer, IoBackend, IoFile
from engine.io.safety import link_problem
from engine.model.config import DatabaseSource
from engine.model.sizing import PAGE_SIZE_BYTES

CREATE_CHUNK_PAGES = 128  # 4 MiB per sequential write
HEADER_UPDATE_EVERY_PAGES = 2048  # persist progress every 64 MiB, so creation can resume


class FileSafetyError(Exception):
    """Jetwise refuses to touch a file that it did not create, or cannot use it."""


class CreationInterruptedError(Exception):
    """Database creation stopped on request; the file resumes next time."""


CREATING_SUFFIX = ".creating"


def creating_path(path: Path) -> Path:
    """Where the database or log file `path` is made until it carries its header: a name only that step uses."""
    return path.with_name(path.name + CREATING_SUFFIX)


def unfinished_creation(path: Path) -> bool:
    """True when `path` is a creating file (`creating_path`) a creation left: a regular file, empty (made, not yet
    written) or with its Jetwise header (written, not yet named). Anything else there is not Jetwise's."""
    if not path.name.endswith(CREATING_SUFFIX) or link_problem(path) is not None:
        return False
    try:
        empty = path.stat().st_size == 0
    except OSError:
        return False
    return empty or is_jetwise_file(path)


def made_whole(backend: IoBackend, path: Path, write_head: Callable[[IoFile], object], *, unbuffered: bool,
                write_through: bool) -> None:
    """Make `path` with its header, or leave nothing: made at its creating name, written by `write_head`, flushed,
    then named `path`; any failure on the way (a full volume, an error, a Stop) removes it. A creating file an
    earlier creation left (`unfinished_creation`) is taken over; any other file at that name is refused."""
    scratch = creating_path(path)
    if os.path.lexists(scratch):
        if not unfinished_creation(scratch):
            raise FileSafetyError(f"{scratch} is in the way of {path.name}'s creation and Jetwise did not create it; "
                                  "move it or choose another folder")
        scratch.unlink()
    handle = backend.open_file(scratch, create=True, writable=True, unbuffered=unbuffered, write_through=write_through)
    try:
        with handle:
            write_head(handle)
            handle.flush()
        _give_name(scratch, path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def _give_name(scratch: Path, path: Path) -> None:
    """Name `scratch` `path`, never over a file there: a second link where the file system has them; elsewhere (FAT,
    some shares) a rename, which Windows refuses over a file and which is not tried where one is."""
    taken = FileSafetyError(f"{path} appeared while Jetwise was creating it; Jetwise does not replace files it did not "
                            "create: move it or choose another folder")
    try:
        os.link(scratch, path)
    except FileExistsError:
        raise taken from None
    except OSError:
        if os.path.lexists(path):
            raise taken from None
        os.rename(scratch, path)
        return
    scratch.unlink()


@dataclass(frozen=True)
class CreationProgress:
    bytes_done: int
    bytes_total: int


ProgressCallback = Callable[[CreationProgress], None]


def prepare_database(backend: IoBackend, path: Path, pages_planned: int, source: DatabaseSource, *, unbuffered: bool,
                     progress: ProgressCallback | None = None, should_stop: Callable[[], bool] = lambda: False,
                     log: Callable[[str], None] = lambda _text: None, first: DatabaseHeader | None = None,
                     part: int = 0, as_it_is: bool = False) -> DatabaseHeader:
    """Create, resume or attach the database file at `path` and return its header; `as_it_is` (a scan) takes a Jetwise
    database whose header is damaged as it stands (`_as_it_stands`), for the scan to report the damage.

    An instance's further database files (`part` 1 on) belong to its first, whose header is `first`: they carry its
    database id, and a file of another instance's set is recreated (create) or refused (attach)."""
    db_id = first.db_id if first is not None else None
    if not path.exists():
        if source == DatabaseSource.ATTACH:
            raise FileSafetyError(f"{path} does not exist: there is no database to attach")
        return _create(backend, path, pages_planned, unbuffered, progress, should_stop, log, db_id, part)
    try:
        header = read_database_header(path)
    except DamagedHeaderError as exc:
        if not as_it_is:
            raise FileSafetyError(f"{exc}; a Database checksum reports the damage, and jetwise clean removes it") from exc
        return _as_it_stands(path, exc, part)
    except FormatError as exc:
        raise FileSafetyError(f"{exc}; Jetwise does not write into files it did not create") from exc
    if header.page_bytes != PAGE_SIZE_BYTES:
        raise FileSafetyError(f"{path} has {header.page_bytes}-byte pages; Jetwise uses {PAGE_SIZE_BYTES}")
    if header.part != part or (db_id is not None and header.db_id != db_id):
        if source == DatabaseSource.ATTACH:
            raise FileSafetyError(f"{path} is not database file {part + 1} of the database it is attached with; "
                                  "attach the files one test created together, or choose 'create'")
        log(f"{path} is database file {header.part + 1} of another Jetwise database; recreating it")
        path.unlink()
        return _create(backend, path, pages_planned, unbuffered, progress, should_stop, log, db_id, part)
    if source == DatabaseSource.ATTACH:
        if not header.complete:
            raise FileSafetyError(f"{path} is incomplete ({header.pages_created} of {header.pages_planned} pages); "
                                  f"choose 'create' to resume its creation")
        log(f"Attaching {path} ({header.pages_planned} pages)")
        return header
    if header.pages_planned != pages_planned:
        # Jetwise's own database (its header says so) of another size, as after a profile edit:
        # it is recreated at the size this test needs; validation has said so before the run.
        log(f"{path} holds {header.pages_planned} pages and this test needs {pages_planned}; recreating it")
        path.unlink()
        return _create(backend, path, pages_planned, unbuffered, progress, should_stop, log, db_id, part)
    if header.complete:
        log(f"{path} is already complete; attaching it")
        return header
    log(f"Resuming creation of {path} at page {header.pages_created} of {header.pages_planned}")
    return _fill(backend, path, header, unbuffered, progress, should_stop)


def _as_it_stands(path: Path, damaged: DamagedHeaderError, part: int) -> DatabaseHeader:
    """A damaged header's database as the file stands: its length in whole pages, its id from its first page (which
    the damage to the header did not touch), else from the header as it is."""
    with open(path, "rb") as handle:
        handle.seek(PAGE_SIZE_BYTES)
        page = handle.read(HEADER_BYTES)
    db_id = page[16:32] if page[:8] == PAGE_MAGIC else damaged.db_id
    pages = path.stat().st_size // PAGE_SIZE_BYTES
    return DatabaseHeader(db_id, PAGE_SIZE_BYTES, pages, pages, 0, part)


def _create(
    backend: IoBackend,
    path: Path,
    pages_planned: int,
    unbuffered: bool,
    progress: ProgressCallback | None,
    should_stop: Callable[[], bool],
    log: Callable[[str], None],
    db_id: bytes | None = None,
    part: int = 0,
) -> DatabaseHeader:
    header = DatabaseHeader(db_id or new_database_id(), PAGE_SIZE_BYTES, pages_planned, 1, now_ns(), part)
    buffer = backend.allocate(PAGE_SIZE_BYTES)
    try:
        pack_database_header(buffer.view, header)
        made_whole(backend, path, lambda handle: handle.write_from(buffer, 0), unbuffered=unbuffered,
                    write_through=False)
    finally:
        buffer.release()
    log(f"Creating {path} ({pages_planned * PAGE_SIZE_BYTES} bytes)")
    return _fill(backend, path, header, unbuffered, progress, should_stop)


def _fill(backend: IoBackend, path: Path, header: DatabaseHeader, unbuffered: bool, progress: ProgressCallback | None,
          should_stop: Callable[[], bool]) -> DatabaseHeader:
    """Write pages from `header.pages_created` on in large sequential writes."""
    writer = BlockWriter(header.db_id)
    chunk = backend.allocate(CREATE_CHUNK_PAGES * PAGE_SIZE_BYTES)
    head = backend.allocate(SECTOR_BYTES)
    page = header.pages_created
    base = part_base(header.part)
    total_bytes = header.pages_planned * PAGE_SIZE_BYTES
    last_report = 0.0
    try:
        with backend.open_file(path, create=False, writable=True, unbuffered=unbuffered, write_through=False) as handle:
            since_header = 0
            while page < header.pages_planned:
                if should_stop():
                    persist_header(handle, head, header, page)
                    raise CreationInterruptedError(
                        f"creation of {path} stopped at page {page} of {header.pages_planned}; it resumes next time"
                    )
                count = min(CREATE_CHUNK_PAGES, header.pages_planned - page)
                view = chunk.view
                for i in range(count):
                    writer.fill_page(view[i * PAGE_SIZE_BYTES :], base + page + i, 0, PAGE_SIZE_BYTES)
                handle.write_from(chunk, page * PAGE_SIZE_BYTES, count * PAGE_SIZE_BYTES)
                page += count
                since_header += count
                if since_header >= HEADER_UPDATE_EVERY_PAGES:
                    persist_header(handle, head, header, page)
                    since_header = 0
                now = time.monotonic()
                if progress is not None and now - last_report >= 0.25:
                    last_report = now
                    progress(CreationProgress(page * PAGE_SIZE_BYTES, total_bytes))
            final = persist_header(handle, head, header, page)
    finally:
        chunk.release()
        head.release()
    if progress is not None:
        progress(CreationProgress(total_bytes, total_bytes))
    return final


def persist_header(handle: IoFile, head_buffer: AlignedBuffer, header: DatabaseHeader, pages_created: int) -> DatabaseHeader:
    """Flush the pages written so far, then record in the header how many the file holds (as creation goes on, and as
    the database grows)."""
    handle.flush()
    updated = DatabaseHeader(header.db_id, header.page_bytes, header.pages_planned, pages_created, header.created_ns,
                             header.part)
    pack_database_header(head_buffer.view, updated)
    handle.write_from(head_buffer, 0)
    handle.flush()
    return updated


def prepare_backup_file(path: Path) -> None:
    """Make room for a new backup copy at `path`: an earlier Jetwise backup there (its header says so) is
    deleted; any other file is refused."""
    if not path.exists():
        return
    try:
        read_database_header(path)
    except FormatError as exc:
        raise FileSafetyError(f"{exc}; Jetwise does not replace files it did not create") from exc
    path.unlink()


def remove_jetwise_files(paths: list[Path]) -> list[Path]:
    """Delete the given files that carry a Jetwise header, and creating files a creation left; leave any other file
    alone.

    Returns the files it left in place because they are not Jetwise files.
    """
    kept: list[Path] = []
    for path in paths:
        if not path.exists():
            continue
        if is_jetwise_file(path) or unfinished_creation(path):
            path.unlink()
        else:
            kept.append(path)
    return kept
