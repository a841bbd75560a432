"""Page patching: a database page the operating system could not read for a data error (a CRC error, ESE -1021)
written again, whole and valid, and read back, as Exchange mends a page from a good copy.

Jetstress 2013 says only that for CRC errors it "will simulate the same behaviour as Exchange 'page patching'"
(docs/ese-source.md, section 4). What Exchange does with a good copy of the page is write it over the bad one
(`PagePatching::ErrDoPatch`, ESE's `dev/ese/src/ese/bf.cxx`) and go on reading it. Jetwise's pages are synthetic, so
the good copy is a fresh image of the page as a flush makes it: stamped through the run's flush map like any flush
(`engine.workload.flushmap`), so a later read of the page is judged against this write, and a flush of the same page
at the same moment leaves the map expecting nothing of it, as any two overlapping writes do; then read back and
verified. The error is still counted as -1021 and fails the test ("A single IO error anywhere will fail the test");
it says "patched: ..." or "not patched: why". Only -1021 is patched, as Jetstress says; ESE's own rule would patch
-1018, -1118, -1119, -1121 and -1022 too (`PagePatching::FIsPatchableError`, `dev/ese/src/ese/prl.cxx`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace

from engine.io.pages import BlockWriter, page_fault
from engine.io.parts import part_base
from engine.io.platform import IoBackend, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.workload.errors import PAGE, IoProblem, title
from engine.workload.flushmap import Written


class PagePatcher:
    """Mends the pages of one instance's database files that a read met a CRC error on, one page at a time (they are
    rare), on the thread that met it, before the error is counted (`engine.workload.context.report`)."""

    def __init__(self, backend: IoBackend, db: IoFile, db_paths: Sequence[str], db_id: bytes, written: Written,
                 sequence: Iterator[int], seed: int) -> None:
        self._backend = backend
        self._db = db
        self._parts = {path: part for part, path in enumerate(db_paths)}
        self._db_id = db_id
        self._written = written
        self._sequence = sequence  # the instance's write sequence (dbtime), which the flushers take from too
        self._blocks = BlockWriter(db_id, seed)
        self._lock = threading.Lock()  # its page writer is one

    def patch(self, problem: IoProblem) -> IoProblem:
        """The CRC error `problem`, its page written again and read back: patched, or not patched and why."""
        part = self._parts.get(problem.path)
        if problem.unit != PAGE:
            why = "page patching mends database pages, and a log file has no good copy to take"
        elif part is None:
            why = f"{problem.path} is not one of this instance's database files"
        elif problem.number == 0:
            why = "it is its file's header, which only the database's creation writes"
        else:
            with self._lock:
                why = self._write_and_verify(part_base(part) + problem.number)
        return replace(problem, patched=not why, not_patched=why)

    def _write_and_verify(self, page: int) -> str:
        """Write a fresh image of `page` and read it back: "" when it reads back good, else why not."""
        flushes = self._written.map
        offset = page * PAGE_SIZE_BYTES
        buffer = self._backend.allocate(PAGE_SIZE_BYTES)
        view = buffer.view
        try:
            self._blocks.fill_page(view, page, next(self._sequence), PAGE_SIZE_BYTES, flushes.stamp(page))
            made = False
            try:
                self._db.write_from(buffer, offset, PAGE_SIZE_BYTES)
                made = True
            except OSError as exc:
                return f"writing it again failed: {exc.strerror or exc}"
            finally:
                flushes.written(page, made)
            version = flushes.version(page)  # a flush of the page from now on leaves the read back unjudged
            view[:PAGE_SIZE_BYTES] = bytes(PAGE_SIZE_BYTES)
            try:
                self._db.read_into(buffer, offset, PAGE_SIZE_BYTES)
            except OSError as exc:
                return f"written again, it still could not be read back: {exc.strerror or exc}"
            fault = page_fault(view, self._db_id, page, PAGE_SIZE_BYTES, True) or self._written.fault(view, page, version)
            if fault is not None:
                kind, found = fault
                return f"written again, it read back wrong: {title(kind, PAGE)}" + (f" ({found})" if found else "")
            return ""
        finally:
            buffer.release()
