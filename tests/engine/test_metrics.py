from engine.results.counters import Counters
from engine.workload.context import record
from engine.workload.stats import CACHE_HITS, DB_READ, InstanceInterval, StreamStats, ThreadMeter


def test_operations_land_in_the_interval_of_their_completion():
    meter = ThreadMeter("Instance 1", t0_ns=1_000, interval_ns=100)
    record(meter, DB_READ, 32768, 10, 1_050)  # interval 0
    record(meter, DB_READ, 32768, 20, 1_099)  # interval 0
    record(meter, DB_READ, 32768, 30, 1_100)  # interval 1
    first = meter.take(0)
    assert [b.index for b in first] == [0]
    assert first[0].streams[DB_READ].count == 2
    second = meter.take(1)
    assert [b.index for b in second] == [1]
    assert second[0].streams[DB_READ].max_ns == 30


def test_a_bucket_taken_while_current_is_not_handed_over_twice():
    meter = ThreadMeter("Instance 1", t0_ns=0, interval_ns=100)
    record(meter, DB_READ, 4096, 5, 10)
    assert len(meter.take(0)) == 1  # taken while still the thread's current bucket
    record(meter, DB_READ, 4096, 5, 250)  # the thread rolls over to interval 2
    assert meter.take(1) == []
    assert [b.index for b in meter.take(2)] == [2]


def _across(part: InstanceInterval) -> InstanceInterval:
    """`part` as a sample carries it in JSON (a samples file, a server's message), read back to add up."""
    return Counters.model_validate_json(Counters.of(part).model_dump_json()).part(part.instance)


def test_wire_round_trip_keeps_every_counter():
    stats = StreamStats()
    for latency in (1_000, 2_000, 150_000):
        stats.count += 1
        stats.bytes += 32768
        stats.sum_ns += latency
        stats.max_ns = max(stats.max_ns, latency)
    stats.errors = 2
    merged = _across(InstanceInterval("Instance 1", {DB_READ: stats}, [5, 2, 1]))
    back = merged.streams[DB_READ]
    assert (back.count, back.bytes, back.sum_ns, back.max_ns, back.errors) == (3, 98304, 153_000, 150_000, 2)
    assert merged.streams[DB_READ].avg_latency_ms() == 0.051
    again = _across(merged)
    assert again.cache == [5, 2, 1]
    again.merge(merged)
    assert again.cache == [10, 4, 2] and again.streams[DB_READ].count == 6


def test_a_bucket_with_only_cache_counts_is_collected():
    meter = ThreadMeter("Instance 1", t0_ns=0, interval_ns=100)
    meter.bucket_for(10).cache[CACHE_HITS] += 3  # a transaction served wholly from the cache
    meter.bucket_for(150)  # rolls over to interval 1
    taken = meter.take(0)
    assert [b.cache[CACHE_HITS] for b in taken] == [3]
