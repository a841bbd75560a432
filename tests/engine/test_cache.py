"""The database cache model on its own: hits, misses, eviction, flushing, stalls. No I/O."""

from __future__ import annotations

import random
import threading

import pytest

from engine.workload.cache import HIT, MISS, MISS_STALLED, DatabaseCache


def _cache(capacity: int, start: int | None = None, stop: int | None = None, depth: int = 1 << 40) -> DatabaseCache:
    start = start if start is not None else max(1, capacity // 16)
    stop = stop if stop is not None else max(start + 1, capacity // 8)
    return DatabaseCache(capacity, start, stop, depth)


def _flush_all_due(cache: DatabaseCache, log_position: int, written: list[tuple[int, int]]) -> None:
    """Play the flushers synchronously: write every run the cache asks for."""
    while (run := cache.next_write(log_position, 0)) is not None:
        first, count, frees = run
        written.append((first, count))
        cache.written(frees)


def _drive(cache: DatabaseCache, pages: int, references: int, update_share: float, seed: int = 1):
    """Uniform random references, as a session makes them; returns (hits, misses, writes)."""
    rng = random.Random(seed)
    hits = misses = 0
    written: list[tuple[int, int]] = []
    for position in range(references):
        _flush_all_due(cache, position, written)
        page = 1 + rng.randrange(pages)
        update = rng.random() < update_share
        state = cache.fault(page)
        assert state != MISS_STALLED  # the flushers above always keep a buffer free
        if state == HIT:
            hits += 1
        else:
            misses += 1
        if update:
            cache.dirty(page, position)
    return hits, misses, written


def test_hit_ratio_rises_with_cache_size_and_matches_the_cached_share():
    pages = 4096
    ratios = []
    for capacity in (256, 1024, 2048):
        cache = _cache(capacity)
        _drive(cache, pages, 8000, 0.65)  # warm
        hits, misses, _ = _drive(cache, pages, 20000, 0.65, seed=2)
        ratios.append(hits / (hits + misses))
    assert ratios == sorted(ratios) and ratios[0] < ratios[-1]
    # uniform references: the hit ratio is the share of the database held (less the reserve)
    assert ratios[1] == pytest.approx(1024 / 4096, abs=0.04)


def test_no_misses_once_a_database_that_fits_is_warm():
    cache = _cache(512)
    _drive(cache, 200, 5000, 0.65)  # 200 pages: every page read once, then resident
    hits, misses, _ = _drive(cache, 200, 5000, 0.65, seed=3)
    assert misses == 0 and hits == 5000


def test_every_dirtied_page_is_written_before_its_buffer_is_reused():
    cache = _cache(64)
    dirtied: set[int] = set()
    written: list[tuple[int, int]] = []
    rng = random.Random(5)
    for position in range(5000):
        _flush_all_due(cache, position, written)
        page = 1 + rng.randrange(10_000)
        cache.fault(page)
        cache.dirty(page, position)
        dirtied.add(page)
    # what is still resident and dirty has not been written yet; everything else has
    still_dirty = {p for p in dirtied if cache._pages.get(p)}
    on_disk = {first + i for first, count in written for i in range(count)}
    assert dirtied - still_dirty <= on_disk
    assert cache.resident_pages <= cache.capacity


def test_a_flush_takes_dirty_neighbours_along_in_one_write():
    cache = _cache(16, start=2, stop=4)
    for page in (10, 11, 12, 40):
        assert cache.fault(page) == MISS
        cache.dirty(page, 0)
    for page in range(100, 112):  # clean pages after them, filling the cache to 16
        cache.fault(page)
    # the pool is 0 < start: evict from the cold end, page 10 first, with its dirty neighbours
    assert cache.next_write(0, 0) == (10, 3, True)
    assert cache._pages[11] is False and cache._pages[12] is False  # still resident, now clean
    assert cache.next_write(0, 0) == (40, 1, True)  # 11 and 12 went back to the pool without a write


def test_checkpoint_depth_writes_old_dirty_pages_even_with_room_to_spare():
    cache = _cache(1024, depth=1000)
    cache.fault(7)
    cache.dirty(7, 0)
    assert cache.next_write(500, 0) is None  # not old enough yet
    assert cache.next_write(1001, 0) == (7, 1, False)  # written, keeps its buffer
    assert cache.next_write(10**9, 0) is None and cache.fault(7) == HIT  # nothing dirty is left, and 7 is still cached


def test_a_miss_with_only_dirty_pages_cached_stalls_until_a_flush_completes():
    cache = _cache(16, start=1, stop=2)
    for page in range(1, 17):
        cache.fault(page)
        cache.dirty(page, 0)  # all 16 buffers hold dirty pages; none available
    outcome: list[int] = []
    waiter = threading.Thread(target=lambda: outcome.append(cache.fault(99)))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and not outcome  # waiting for a buffer
    run = cache.next_write(0, 1.0)
    assert run is not None and run[2]  # an eviction write: it frees a buffer when done
    cache.written(run[2])
    waiter.join(5)
    assert outcome == [MISS_STALLED]


def test_a_miss_reuses_a_clean_cold_page_without_stalling():
    cache = _cache(16, start=1, stop=2)
    for page in range(1, 17):
        cache.fault(page)
        if page != 3:
            cache.dirty(page, 0)
    assert cache.fault(99) == MISS
    assert 3 not in cache._pages  # page 3's buffer went to page 99


def test_with_no_buffer_free_a_miss_takes_the_coldest_clean_page_deep_in_the_cache():
    cache = _cache(256, start=1, stop=2)
    for page in range(1, 257):
        cache.fault(page)
        if page not in (200, 230):
            cache.dirty(page, 0)
    assert cache.fault(999) == MISS  # no wait for a flusher: page 200 needs no write
    assert 200 not in cache._pages and 230 in cache._pages


def test_close_releases_a_waiting_miss():
    cache = _cache(16, start=1, stop=2)
    for page in range(1, 17):
        cache.fault(page)
        cache.dirty(page, 0)
    waiter = threading.Thread(target=cache.fault, args=(99,))
    waiter.start()
    cache.close()
    waiter.join(5)
    assert not waiter.is_alive()


def test_thresholds_must_fit_the_cache():
    with pytest.raises(ValueError, match="flush thresholds"):
        DatabaseCache(16, 8, 4, 1)
