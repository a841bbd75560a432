"""The database cache of one instance: page numbers, not page contents.

It is the piece of ESE that turns transactions into disk I/O. A page a transaction
touches is either resident (a hit: no I/O) or not (a miss: a buffer is taken from
the available pool and the page is read). Updated pages are marked dirty and stay
resident until a flusher writes them. Two things make the flusher write:

- Eviction. ESE keeps a pool of available buffers for misses. When it falls below
  the start threshold, flushers take pages from the cold end of the LRU list (a
  clean page frees its buffer at once, a dirty one once it is written) until the
  pool reaches the stop threshold. A miss that finds the pool empty waits: a
  database page fault stall.
- Checkpoint depth. The circular log can only reuse a file once every page dirtied
  by its records is on disk, so a dirty page whose first change is more than
  `checkpoint_depth` log bytes old is written even if the cache has room.

When a flusher writes a page it takes dirty neighbours along in the same write, as
ESE coalesces; that is why the average database write is a little above 32 KiB.

One lock guards everything; transactions hold it for dictionary operations only,
never across an I/O.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict

HIT = 0
MISS = 1
MISS_STALLED = 2  # a miss that had to wait for a buffer
MAX_COALESCED_PAGES = 8  # one flush write covers at most 256 KiB
# How far from the cold end a miss with no buffer free looks for a clean page to reuse
# (32 MiB of cache; the scan holds the lock).
COLD_SCAN_PAGES = 1024


WARM_SHARE = 0.9  # Jetstress's prerequisite: the cache at 90 % of its size (its counter's lower bound)

class DatabaseCache:
    def __init__(
        self,
        capacity_pages: int,
        flush_start_pages: int,
        flush_stop_pages: int,
        checkpoint_depth_bytes: int,
    ) -> None:
        if not 0 < flush_start_pages < flush_stop_pages <= capacity_pages:
            raise ValueError(f"flush thresholds must satisfy 0 < start ({flush_start_pages}) < stop "
                             f"({flush_stop_pages}) <= capacity ({capacity_pages})")
        self.capacity = capacity_pages
        self.flush_start = flush_start_pages
        self.flush_stop = flush_stop_pages
        self.checkpoint_depth = checkpoint_depth_bytes
        self.lock = threading.Lock()
        self._buffer_freed = threading.Condition(self.lock)
        self._work = threading.Condition(self.lock)
        self._pages: OrderedDict[int, bool] = OrderedDict()  # resident page -> dirty; coldest first
        self._dirty: OrderedDict[int, int] = OrderedDict()  # dirty page -> log position of its first change
        self.available = capacity_pages  # buffers a miss can take
        self._in_flight = 0  # buffers that come free when eviction writes complete
        self._flushing = False
        self.closed = False

    # transactions ------------------------------------------------------------------

    def fault(self, page: int) -> int:
        """Reference `page`: HIT, or MISS / MISS_STALLED when it had to be brought in.

        A missed page is resident from here on, as ESE puts a page in the cache before
        its read completes; the caller reads it, and marks it dirty if it updates it.
        """
        with self.lock:
            pages = self._pages
            if page in pages:
                pages.move_to_end(page)
                return HIT
            state = MISS
            if self.available > 0:
                self.available -= 1
                if self.available + self._in_flight < self.flush_start and not self._release_clean_cold_pages():
                    self._work.notify()  # a dirty page blocks the cold end: a flusher's job
            elif not self._take_clean_cold_page():
                while self.available <= 0 and not self.closed:
                    self._work.notify()
                    self._buffer_freed.wait(0.05)
                self.available -= 1
                state = MISS_STALLED
            pages[page] = False
            return state

    def _release_clean_cold_pages(self) -> bool:
        """Return clean pages at the cold end to the pool, up to the stop threshold, without
        waking a flusher (no write is needed). False if a dirty page is in the way."""
        pages = self._pages
        while pages and self.available + self._in_flight < self.flush_stop:
            page = next(iter(pages))
            if pages[page]:
                return False
            del pages[page]
            self.available += 1
        return True

    def _take_clean_cold_page(self) -> bool:
        """With no buffer free, reuse a clean page near the cold end: it needs no write, so
        taking it is no stall. Only when the cold end is all dirty must a miss wait."""
        for page, dirty in itertools.islice(self._pages.items(), COLD_SCAN_PAGES):
            if not dirty:
                del self._pages[page]
                return True
        return False

    def dirty(self, page: int, log_position: int) -> bool:
        """An update changed a resident page (a page evicted meanwhile is left alone: False)."""
        with self.lock:
            if page not in self._pages:
                return False
            self._pages[page] = True
            if page not in self._dirty:
                self._dirty[page] = log_position
            return True

    def allocate(self, page: int, log_position: int) -> bool:
        """A new page (a split): dirty in the cache without a read. False if no buffer is free."""
        with self.lock:
            if page not in self._pages:
                if self.available <= 0:
                    return False
                self.available -= 1
            self._pages[page] = True
            self._pages.move_to_end(page)
            if page not in self._dirty:
                self._dirty[page] = log_position
            return True

    # flushers ------------------------------------------------------------------------

    def next_write(self, log_position: int, timeout_s: float) -> tuple[int, int, bool] | None:
        """Block until a run of pages is due for writing: (first page, pages, frees a buffer).

        None after `timeout_s` with nothing due, or once the cache is closed.
        """
        with self.lock:
            run = self._due(log_position)
            if run is None and not self.closed:
                self._work.wait(timeout_s)
                run = self._due(log_position)
            return run

    def written(self, frees_buffer: bool) -> None:
        if frees_buffer:
            with self.lock:
                self._in_flight -= 1
                self.available += 1
                self._buffer_freed.notify()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self._buffer_freed.notify_all()
            self._work.notify_all()

    def _evicting(self) -> bool:
        pool = self.available + self._in_flight
        if not self._flushing and pool < self.flush_start:
            self._flushing = True
        elif self._flushing and pool >= self.flush_stop:
            self._flushing = False
        return self._flushing

    def _due(self, log_position: int) -> tuple[int, int, bool] | None:
        if self.closed:
            return None
        pages = self._pages
        while pages and self._evicting():
            page, dirty = pages.popitem(last=False)
            if not dirty:
                self.available += 1
                self._buffer_freed.notify()
                continue
            del self._dirty[page]
            self._in_flight += 1
            first, count = self._coalesce(page)
            return first, count, True
        if self._dirty:
            page, since = next(iter(self._dirty.items()))
            if log_position - since > self.checkpoint_depth:
                del self._dirty[page]
                pages[page] = False  # stays resident, now clean
                first, count = self._coalesce(page)
                return first, count, False
        return None

    def _coalesce(self, page: int) -> tuple[int, int]:
        """Take resident dirty neighbours of `page` into its write; they stay resident, clean."""
        pages, dirty = self._pages, self._dirty
        low = high = page
        while high - low + 1 < MAX_COALESCED_PAGES and pages.get(high + 1):
            high += 1
            pages[high] = False
            del dirty[high]
        while high - low + 1 < MAX_COALESCED_PAGES and pages.get(low - 1):
            low -= 1
            pages[low] = False
            del dirty[low]
        return low, high - low + 1

    def drain(self) -> list[tuple[int, int]]:
        """Every dirty page, as coalesced runs to write now (a clean shutdown); they stay resident, clean.
        Only once no flusher is writing."""
        with self.lock:
            runs = []
            while self._dirty:
                page = next(iter(self._dirty))
                del self._dirty[page]
                self._pages[page] = False
                runs.append(self._coalesce(page))
            return runs

    # state -------------------------------------------------------------------------

    @property
    def resident_pages(self) -> int:
        return len(self._pages)

