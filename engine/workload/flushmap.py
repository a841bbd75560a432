"""The flush map of one instance: the flush state each page's last write carried, two bits a page.

ESE's own keeps a few bits a page (its flush map, beside the database from Exchange 2013 on) rather than every page's
write sequence: each write of a page stamps it with the next of three states, and a read compares the state the page
holds with the one the map expects. A page the storage returns older than its last write (the write acknowledged and
never made) holds an earlier state: a lost flush (JET_errReadLostFlushVerifyFailure, -1119). Three writes lost in a
row come round to the same state and go unseen, as in ESE. A state of 0 means no write of this run stamped the page
(a page created, or written by an earlier run): nothing is expected of it.

Two bits a page is 800 KiB for 100 GB of database (3.2 million 32 KiB pages). The flushers set a state under one lock
(four pages share a byte) as they issue a write. ESE holds a page in its cache until its write completes, so no read
meets a write of the same page; Jetwise's cache model lets a page go as its write is issued, so a read may overlap it
and return either content. So a page with a write in flight expects nothing, a page two writes overlapped (which may
land in either order) expects nothing until its next write, and a reader judges a page only if no write of a page of
its group was issued or completed while it read (`version`: a count per group of pages that only goes up, so no
cycle of states can pass for none).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from engine.io.pages import FLUSH_STATE_AT, ErrorKind, Fault, page_sequence
from engine.io.parts import PART_SHIFT, split_page

STATES = 3  # 1, 2, 3: a page's state after each of its writes in turn; 0: nothing expected
GROUPS = 4096  # pages share a version by their number modulo this: a write to one makes a read of the others wait
_LOCAL = (1 << PART_SHIFT) - 1  # a page's number in its file, from its number in the instance's space


class FlushMap:
    __slots__ = ("_in_flight", "_lock", "_overlapped", "_parts", "_versions")

    def __init__(self, part_pages: Sequence[int], kept: Sequence[bytearray | None] = ()) -> None:
        """A map of files of `part_pages` pages, each starting from the states `kept` on disk for it (None: none)."""
        self._parts = [bytearray((pages + 3) // 4) for pages in part_pages]
        for part, states in enumerate(kept):
            if states is not None:
                self._parts[part][: len(states)] = states
        self._lock = threading.Lock()
        self._in_flight: dict[int, int] = {}  # page -> its writes issued and not yet completed
        self._overlapped: set[int] = set()  # pages with two writes in flight at once
        self._versions = [0] * GROUPS  # writes issued and completed, by group of pages

    def states(self, part: int) -> bytes:
        """The states of database file `part`, as its map file keeps them (`engine.io.flush_file`)."""
        with self._lock:
            return bytes(self._parts[part])

    def version(self, page: int) -> int:
        """The page's group's count of writes issued and completed: the same before and after a read, none met it."""
        return self._versions[page % GROUPS]

    def _where(self, page: int) -> tuple[bytearray, int, int]:
        """The states of the page's file, the byte of its state there and the state's shift in that byte."""
        part, local = split_page(page)
        return self._parts[part], local >> 2, (local & 3) << 1

    def expected(self, page: int) -> int:
        """The state the page's last write carried (0: none of this run's, or one still in flight)."""
        if page in self._in_flight:
            return 0
        states, at, shift = self._where(page)
        return (states[at] >> shift) & 3 if at < len(states) else 0

    def judged(self, page: int, version: int) -> int:
        """What a read of the page is judged against, `version` its group's `version` taken before the read: the state
        its last write carried, or 0 when nothing is (no write of this run's, one in flight, or one issued or completed
        as it was read). One call on the hot path: the whole of `version` and `expected`."""
        if self._versions[page % GROUPS] != version or page in self._in_flight:
            return 0
        local = page & _LOCAL
        states = self._parts[page >> PART_SHIFT]
        at = local >> 2
        return (states[at] >> ((local & 3) << 1)) & 3 if at < len(states) else 0

    def stamp(self, page: int) -> int:
        """The state the write of the page now issued carries; `written` once it completes."""
        states, at, shift = self._where(page)
        with self._lock:
            if at >= len(states):  # a page the database grew by
                states.extend(bytes(at + 1 - len(states)))
            state = (((states[at] >> shift) & 3) % STATES) + 1
            states[at] = (states[at] & ~(3 << shift) & 0xFF) | (state << shift)
            flying = self._in_flight.get(page, 0)
            if flying:
                self._overlapped.add(page)
            self._in_flight[page] = flying + 1
            self._versions[page % GROUPS] += 1
        return state

    def written(self, page: int, made: bool) -> None:
        """A write of the page completed; not `made` (it failed, and was said), the storage may hold either state, as
        it may after two writes overlapped: nothing is expected of it then until its next write."""
        states, at, shift = self._where(page)
        with self._lock:
            self._versions[page % GROUPS] += 1
            flying = self._in_flight.pop(page) - 1
            if flying:
                self._in_flight[page] = flying
            if not made or (not flying and page in self._overlapped):
                self._overlapped.discard(page)
                states[at] &= ~(3 << shift) & 0xFF


class Written:
    """What a run wrote to an instance's pages, against which a page read back is checked: its flush map, and the
    newest write sequence (dbtime) it can have given, since its sequence counts up from `first_sequence` one write or
    update at a time and so never outruns the nanoseconds since."""

    __slots__ = ("_first", "_newest", "_since_ns", "map")

    def __init__(self, part_pages: Sequence[int], first_sequence: int, kept: Sequence[bytearray | None] = ()) -> None:
        self.map = FlushMap(part_pages, kept)
        self._first = first_sequence
        self._since_ns = time.perf_counter_ns()
        self._newest = first_sequence  # a bound on the newest sequence given, as last worked out: below the true one

    def fault(self, page: memoryview, page_no: int, version: int) -> Fault | None:
        """A valid page's fault against its last write, `version` the map's `version` of it taken before the page was
        read: a lost flush, or a write sequence newer than any given. A page no write of this run stamped is not judged
        (what it holds came before the run), nor one a write of which was in flight, issued or completed as it was
        read."""
        want = self.map.judged(page_no, version)
        if not want:
            return None
        held = page[FLUSH_STATE_AT]
        if held != want:
            return ErrorKind.LOST_FLUSH, f"flush state {held} where its last write carried {want}"
        sequence = page_sequence(page)
        if sequence <= self._newest:  # within the bound worked out last: no clock to read
            return None
        newest = self._newest = self._first + time.perf_counter_ns() - self._since_ns
        if sequence > newest:
            return ErrorKind.TOO_NEW, f"write sequence {sequence:,}, past the newest the test can have given, {newest:,}"
        return None
