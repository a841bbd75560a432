"""When a maximum latency failed: how many measured samples passed it, when, how high, and whether that is rare."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.results.criterion_schema import Criterion
from engine.results.sample_schema import Figures
from engine.results.spikes import LatencySpikes, spike_words

LIMITS = {"db_read_max_latency_ms": 100.0, "log_write_max_latency_ms": 100.0}


def _failed(*names: str) -> list[Criterion]:
    return [Criterion(name=name, instance="Instance 1", value=150.0, limit=100.0, unit="ms", comparison="<=", passed=False)
            for name in names]


def _seen(maxima: list[tuple[float, float]], interval_s: float = 1.0) -> LatencySpikes:
    """Samples whose server maxima are (database read, log write), from 10:00:00 UTC on."""
    spikes = LatencySpikes(LIMITS, interval_s)
    for index, (read, log) in enumerate(maxima):
        at = (index + 1) * interval_s
        spikes.observe(Figures(db_read_max_latency_ms=read, log_write_max_latency_ms=log),
                       time_utc=datetime(2026, 11, 25, 10, int(at) // 60, int(at) % 60, tzinfo=UTC), elapsed_s=30 + at,
                       duration_s=interval_s)
    return spikes


def _said(spikes: LatencySpikes, criteria: list[Criterion], set_name: str) -> list[str]:
    return [spike_words(spike) for spike in spikes.facts(criteria, set_name)]


def test_one_second_over_the_maximum_is_a_single_spike_with_its_time():
    maxima = [(20.0, 2.0)] * 200
    maxima[73] = (109.3, 2.0)
    [words] = _said(_seen(maxima), _failed("maximum database read latency"), "Strict")
    assert words == ("Database reads took longer than the Strict maximum of 100 ms in 1 of the 200 measured one-second "
                     "samples, at 10:01:14 UTC, 74 s into the measurement; 109.3 ms at most: a single spike is often the "
                     "host, not the storage (a virtual machine paused, a snapshot, a path failing over), so run the test "
                     "again before judging the storage on it")


def test_many_samples_over_the_maximum_name_the_first_and_the_last_and_no_rerun():
    maxima = [(20.0, 2.0)] * 10 + [(150.0, 120.0 + i) for i in range(20)] + [(20.0, 2.0)] * 10
    reads, logs = _said(_seen(maxima, 2.0), _failed("maximum database read latency", "maximum log write latency"),
                       "Lenient")
    assert reads.startswith("Database reads took longer than the Lenient maximum of 100 ms in 20 of the 40 measured "
                            "2-second samples, the first at 10:00:22 UTC, 22 s into the measurement, the last at "
                            "10:01:00 UTC; 150.0 ms at most")
    assert reads.endswith("at most") and logs.endswith("139.0 ms at most")


def test_a_passed_criterion_or_no_sample_over_its_limit_says_nothing():
    maxima = [(20.0, 2.0)] * 5 + [(150.0, 2.0)]
    assert _said(_seen(maxima), _failed("average database read latency"), "Strict") == []  # the maximum passed
    # the maximum failed on an I/O no sample showed (a straggler counted after its sample): nothing to say of when
    assert _said(_seen([(20.0, 2.0)] * 6), _failed("maximum database read latency"), "Strict") == []


def test_samples_of_an_older_store_without_times_say_the_seconds_into_the_measurement_alone():
    spikes = LatencySpikes(LIMITS, 1.0)
    for index in range(3):
        spikes.observe(Figures(db_read_max_latency_ms=150.0 if index else 20.0), time_utc=None, elapsed_s=index + 1.0,
                       duration_s=1.0)
    [words] = _said(spikes, _failed("maximum database read latency"), "Strict")
    assert ("in 2 of the 3 measured one-second samples, the first at 2 s into the measurement; 150.0 ms at most"
            in words) and "UTC" not in words
