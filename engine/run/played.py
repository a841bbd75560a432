"""A transaction's I/O as the workload model's own cache plays it: the streams the simulated device serves.

`engine.run.streams.mix_of` is the formula the prediction table and the test log say. The simulated device plays the
model instead (`played_mix`): the real `DatabaseCache` of an instance, with its eviction at the flush thresholds and
its checkpoint at the design's depth, fed the transactions' own page references and log positions (leaves picked
uniformly, the mix's updates and their log records, inserts' splits, reads' spans onto the next leaf), with no I/O and
no threads. Where the formula and the model part, a database the cache nearly holds (its pages the checkpoint writes
once for many updates), the simulated device follows the model and a comparison with the formula shows it. The log's
writes are played apart, at the device's operating point (`engine.run.played_log`): group commit is a matter of timing.

The play is scaled: a cache of at most `PLAYED_CACHE_PAGES` and a checkpoint of at most `PLAYED_DEPTH_BYTES`, the
database, the flush thresholds and the other scaled with them, so that the cache's share of the database and the
updates a page gets within a checkpoint depth are the whole design's, and so its shares; each design is played once
per process, in a fraction of a second.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache

from engine.model.config import TestConfig
from engine.model.growth import INSERT_LOG_BYTES, SPLIT_CHANCE
from engine.run.streams import Mix, mix_of
from engine.workload.cache import HIT, WARM_SHARE, DatabaseCache
from engine.workload.instance import DELETE_LOG_BYTES, REPLACE_LOG_BYTES, SPAN_CHANCE, upper_levels

PLAYED_CACHE_PAGES = 2048  # the most cache a play holds; a larger one is scaled down, its database with it
PLAYED_DEPTH_BYTES = 48 * 2**20  # the deepest checkpoint a play runs (about 20,000 updates); a deeper one is scaled
PLAYED_TRANSACTIONS = 30_000  # counted, once the cache is warm and the checkpoint has come round twice


def played_mix(config: TestConfig) -> Mix:
    """A transaction's I/O on average as one instance's cache plays the design: reads, flush writes (and the pages
    each covers), hits and misses played; log writes and commit waits the formula's (the simulated device plays its log
    at its operating point: `engine.run.played_log`)."""
    pages, start, stop = config.instance_cache_pages(0)
    mix = config.operation_mix
    leaves = max(1, config.database_pages - 1)
    played = _played(leaves, pages, start, stop, config.checkpoint_depth_bytes,
                     round(mix.insert_percent * 100), round(mix.delete_percent * 100), round(mix.replace_percent * 100))
    reads, writes, pages_per_write, misses, references = played
    levels = upper_levels(leaves)
    return replace(mix_of(config), reads=reads, writes=writes, pages_per_write=pages_per_write, misses=misses,
                   hits=levels + references - misses)


@lru_cache(maxsize=256)
def _played(leaves: int, cache_pages: int, start: int, stop: int, depth_bytes: int, inserts: int, deletes: int,
            replaces: int) -> tuple[float, float, float, float, float]:
    """(reads, writes, pages per write, misses, leaf references) per transaction; the mix's shares in hundredths of
    a percent."""
    scale = min(1.0, PLAYED_CACHE_PAGES / cache_pages, PLAYED_DEPTH_BYTES / depth_bytes)
    capacity = max(8, round(cache_pages * scale))
    start = min(capacity - 2, max(1, round(start * scale)))
    stop = min(capacity, max(start + 1, round(stop * scale)))
    leaves = max(2, round(leaves * scale))
    depth = max(1, round(depth_bytes * scale))
    cache = DatabaseCache(capacity, start, stop, depth)
    insert_cut = inserts / 10_000
    delete_cut = insert_cut + deletes / 10_000
    update_cut = delete_cut + replaces / 10_000
    chance = random.Random(leaves * 7919 + capacity).random
    fault, dirty, allocate, due, written = cache.fault, cache.dirty, cache.allocate, cache.next_write, cache.written
    position = 0
    tally = [0, 0, 0, 0, 0]  # reads, writes, pages written, misses, leaf references
    warm_pages = WARM_SHARE * min(capacity - stop, leaves)  # eviction keeps `stop` buffers free
    warm_until = None  # the log position the play counts from: two checkpoint depths past the cache's warming
    counted = 0
    # however the design is, a play ends: the cache warmed (each leaf or buffer taken many times over), two depths
    most = 200 * capacity + PLAYED_TRANSACTIONS + int(3 * depth / (DELETE_LOG_BYTES * max(update_cut, 0.01)))
    for _ in range(most):
        if warm_until is None and cache.resident_pages >= warm_pages:
            warm_until = position + 2 * depth
        counting = warm_until is not None and position >= warm_until
        reads = misses = 0
        references = 1
        kind = chance()
        page = 1 + int(chance() * leaves)
        if fault(page) != HIT:
            reads = misses = 1
            if kind >= update_cut and page < leaves and chance() < SPAN_CHANCE:  # one read of both when both miss
                references += 1
                if fault(page + 1) != HIT:
                    misses += 1
        if kind < update_cut:
            dirty(page, position)
            if kind < insert_cut:
                if page < leaves and chance() < SPLIT_CHANCE:
                    allocate(page + 1, position)
                position += INSERT_LOG_BYTES
            else:
                position += DELETE_LOG_BYTES if kind < delete_cut else REPLACE_LOG_BYTES
        writes = written_pages = 0
        while (run := due(position, 0.0)) is not None:  # the flushers, each write done at once
            writes += 1
            written_pages += run[1]
            written(run[2])
        if counting:
            for i, value in enumerate((reads, writes, written_pages, misses, references)):
                tally[i] += value
            counted += 1
            if counted == PLAYED_TRANSACTIONS:
                break
    n = max(1, counted)
    reads_each, writes_each, pages_each, misses_each, references_each = (value / n for value in tally)
    return reads_each, writes_each, pages_each / writes_each if writes_each else 1.0, misses_each, references_each
