"""How a database grows under ESE: new pages for splits, taken at the end of the file, which grows in steps.

An insert that splits its leaf needs a new page. ESE takes it from the space the table owns (pages that deletes
freed) or, when there is none, from the end of the database, and the file grows by its extension size at a time.
The ESRP paper's two-hour Performance run grew its 12 databases by 12.17 GB: 290 bytes per database transfer
(docs/workload.md). Jetwise's inserts split as often as ESE's (`SPLIT_CHANCE`); half of the splits take their page at
the end (`SPLIT_PAGES_AT_END`), which gives those 290 bytes at the paper's mix and cache, and a database grows by what
a test does to it, run after run. A test database sized at a share of its production size grows by that share as much
(`end_share`), as its cache is that share of the production cache. The model, and the most a test grows by, which
preflight reserves, are in `engine.model.growth`.

The new pages are real: each step writes `EXTENSION_PAGES` formatted pages after the last, flushes them, then records
the new length in the file's header, so the next test attaches the grown database and a checksum reads it whole. The
transactions reach the new pages as they do the others.
"""

from __future__ import annotations

import threading

from engine.io.files import persist_header
from engine.io.pages import SECTOR_BYTES, BlockWriter, DatabaseHeader, read_database_header
from engine.io.parts import part_base
from engine.io.platform import IoBackend, IoFile
from engine.model.growth import EXTENSION_PAGES
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.workload.context import InstanceContext, failed_io, report
from engine.workload.errors import PAGE
from engine.workload.stats import DB_WRITE, ThreadMeter


class Growth:
    """The pages of one database: those in use, those the file holds, and the steps that add to them."""

    def __init__(self, ctx: InstanceContext, meter: ThreadMeter, backend: IoBackend, db: IoFile, part: int,
                 seed: int) -> None:
        """The growth of `db`'s database file `part` (its only one, 0, but for an instance of several files)."""
        db, _ = db.part_at(part_base(part) * PAGE_SIZE_BYTES)
        self._ctx, self._meter, self._backend, self._db = ctx, meter, backend, db
        self._header: DatabaseHeader = read_database_header(db.path)
        self._base = part_base(part)
        self.end = self._header.pages_created  # pages the file holds (page 0 is its header)
        self.used = self.end  # pages in use: a created database is full, a grown one full to its last step
        self._blocks = BlockWriter(self._header.db_id, seed)
        self._lock = threading.Lock()
        self.failed = False

    def take(self) -> int | None:
        """A new page (its number in the file) at the end of the database, growing the file first when it is full; None when it could not
        grow (the error is reported, as any I/O error is)."""
        with self._lock:
            if self.used >= self.end and not self._extend():
                return None
            page = self.used
            self.used += 1
            return page

    def _extend(self) -> bool:
        if self.failed:
            return False
        first, count = self.end, EXTENSION_PAGES
        buffer = self._backend.allocate(count * PAGE_SIZE_BYTES)
        head = self._backend.allocate(SECTOR_BYTES)
        try:
            view = buffer.view
            for i in range(count):
                self._blocks.fill_page(view[i * PAGE_SIZE_BYTES:], self._base + first + i, 0, PAGE_SIZE_BYTES)
            self._db.write_from(buffer, first * PAGE_SIZE_BYTES)
            self._header = persist_header(self._db, head, self._header, first + count)
        except OSError as exc:
            self.failed = True
            offset = first * PAGE_SIZE_BYTES
            report(self._ctx, self._meter, failed_io(DB_WRITE, self._db, offset, count * PAGE_SIZE_BYTES, PAGE,
                                                     PAGE_SIZE_BYTES, exc))
            return False
        finally:
            buffer.release()
            head.release()
        self.end = first + count
        return True
