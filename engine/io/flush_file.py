"""A database file's flush map on disk: `<database>.jwfm` beside it, as ESE keeps `<database>.jfm` (Exchange 2013 on).

Its header sector (`engine.io.pages.FlushMapHeader`) says whose pages it maps and whether it was closed clean; the
pages' flush states follow, two bits a page (`engine.workload.flushmap`). A Database checksum days later, in another
process, reads a page's state against it and so finds a write the storage acknowledged and lost.

A map is true only of a run that ended cleanly, so it is written so that no crash or kill makes a good page look lost:
- before a run writes any page, its header is rewritten "open" in place, write-through, and made durable;
- once the run's writes have all completed, the states are written, made durable, and only then the header "clean";
- a header left open, torn (its checksum fails), of another database file, or no file at all: nothing is told.
A kill before the first step leaves the last clean map, which no page written since contradicts, for none was; after
it, until the last step has completed, the header says open. A Soft Recovery's replay writes pages the map does not
follow, so its run leaves the map open.
"""

from __future__ import annotations

from pathlib import Path

from engine.io.files import FileSafetyError
from engine.io.pages import (
    SECTOR_BYTES,
    DamagedHeaderError,
    FlushMapHeader,
    FormatError,
    is_jetwise_file,
    pack_flush_map_header,
    read_flush_map_header,
)
from engine.io.platform import IoBackend


def flush_map_path(database: Path) -> Path:
    """Where a database file's flush map is kept: beside it, its name with `.jwfm` for `.jwdb`."""
    return database.with_suffix(".jwfm")


def foreign_flush_map(database: Path) -> str | None:
    """Why the run of `database` would not write its flush map: a file at its name that Jetwise did not make (None:
    there is none, or it is Jetwise's)."""
    path = flush_map_path(database)
    if not path.exists() or is_jetwise_file(path):
        return None
    return (f"{path} is not a flush map Jetwise made, and Jetwise keeps the database's flush map there; Jetwise never "
            "writes into a file it did not create: move it away or choose another folder")


def clean_states(path: Path, db_id: bytes, part: int) -> tuple[bytearray | None, str]:
    """The states a map closed clean keeps for the database file `db_id` (its `part`), or None and why not, in words
    for the test log."""
    if not path.exists():
        return None, "it has no flush map (an earlier Jetwise made it, or its map was removed)"
    try:
        header = read_flush_map_header(path)
    except DamagedHeaderError:
        return None, "its flush map's header is damaged"
    except FormatError as exc:
        return None, str(exc)
    if header.db_id != db_id or header.part != part:
        return None, "its flush map is another database's (the database was made again since)"
    if not header.clean:
        return None, "its flush map was left open: the last run on it did not end cleanly (stopped by a kill or a crash)"
    with open(path, "rb") as handle:
        handle.seek(SECTOR_BYTES)
        states = handle.read(header.state_bytes)
    if len(states) != header.state_bytes:
        return None, "its flush map is shorter than its header says"
    return bytearray(states), ""


def open_for_run(backend: IoBackend, database: Path, db_id: bytes, part: int) -> bytearray | None:
    """The states the map of `database` (its file `part`) kept when its last run ended clean (None: none to trust),
    after its header is made "open", durably, so that nothing this run writes is read against it until the run ends
    clean. A file at its name that Jetwise did not make is never written: FileSafetyError."""
    if (foreign := foreign_flush_map(database)) is not None:  # preflight said so; one that came since is refused too
        raise FileSafetyError(foreign)
    path = flush_map_path(database)
    states, _why = clean_states(path, db_id, part)
    _write(backend, path, FlushMapHeader(db_id, part, 0, clean=False), None)
    return states


def close_clean(backend: IoBackend, database: Path, db_id: bytes, part: int, states: bytes) -> None:
    """Keep `states`, the flush states of a run of `database` that ended cleanly: the states first, durably, then the
    header."""
    path = flush_map_path(database)
    _write(backend, path, FlushMapHeader(db_id, part, len(states), clean=False), states)
    _write(backend, path, FlushMapHeader(db_id, part, len(states), clean=True), None)


def _write(backend: IoBackend, path: Path, header: FlushMapHeader, states: bytes | None) -> None:
    """The header sector, and `states` after it when given, written through and made durable."""
    length = SECTOR_BYTES + (-(-len(states) // SECTOR_BYTES) * SECTOR_BYTES if states is not None else 0)
    buffer = backend.allocate(length)
    try:
        view = buffer.view
        pack_flush_map_header(view, header)
        if states is not None:
            view[SECTOR_BYTES:SECTOR_BYTES + len(states)] = states
            view[SECTOR_BYTES + len(states):length] = bytes(length - SECTOR_BYTES - len(states))
        with backend.open_file(path, create=not path.exists(), writable=True, unbuffered=False,
                               write_through=True) as handle:
            handle.write_from(buffer, 0, length)
            handle.flush()
    finally:
        buffer.release()
