import numpy as np
import pytest

from engine.workload.histogram import NBUCKETS, bucket_bounds, bucket_index, new_counts, percentile_ns, percentiles_ms


def test_every_value_falls_inside_its_bucket():
    rng = np.random.default_rng(1)
    for value in [0, 1, 63, 64, 65, 127, 128, 1000, 65_535, 10**6, 10**9, *rng.integers(0, 2**40, 2000).tolist()]:
        low, high = bucket_bounds(bucket_index(value))
        assert low <= value < high


def test_buckets_tile_the_range_without_gaps():
    previous_high = 0
    for index in range(NBUCKETS):
        low, high = bucket_bounds(index)
        assert low == previous_high
        assert high > low
        previous_high = high


def test_relative_bucket_width_is_bounded():
    for index in range(128, NBUCKETS):
        low, high = bucket_bounds(index)
        assert (high - low) / low <= 1 / 64 + 1e-12


@pytest.mark.parametrize("seed", [3, 11])
def test_percentiles_match_numpy_within_bucket_error(seed):
    rng = np.random.default_rng(seed)
    samples = (rng.lognormal(mean=12.0, sigma=1.0, size=50_000)).astype(np.int64)  # ~160 us median
    counts = new_counts()
    for value in samples.tolist():
        counts[bucket_index(value)] += 1
    for fraction in (0.5, 0.9, 0.99, 0.999):
        exact = float(np.percentile(samples, fraction * 100, method="inverted_cdf"))
        estimate = percentile_ns(counts, fraction)
        assert estimate == pytest.approx(exact, rel=0.016), fraction


def test_merging_histograms_equals_histogram_of_union():
    rng = np.random.default_rng(5)
    a, b = rng.integers(1, 10**8, 1000), rng.integers(1, 10**8, 3000)
    ca, cb, cu = new_counts(), new_counts(), new_counts()
    for v in a.tolist():
        ca[bucket_index(v)] += 1
    for v in b.tolist():
        cb[bucket_index(v)] += 1
    for v in np.concatenate([a, b]).tolist():
        cu[bucket_index(v)] += 1
    for index, count in cb.items():
        ca[index] += count
    assert ca == cu and sum(cu.values()) == 4000


def test_empty_histogram_has_no_percentiles():
    assert percentiles_ms(new_counts()) == {"p50": None, "p90": None, "p99": None, "p99.9": None}


def test_a_percentile_is_never_above_the_highest_value_counted():
    # 100.083 ms falls in a bucket whose middle is 100.139 ms: the highest latency measured bounds every percentile
    counts = new_counts()
    counts[bucket_index(100_083_000)] += 1000
    assert percentiles_ms(counts)["p99"] == pytest.approx(100.139, abs=0.001)
    assert percentiles_ms(counts, highest_ns=100_083_000) == dict.fromkeys(("p50", "p90", "p99", "p99.9"), 100.083)
