"""When a run's single I/Os passed its maximum latency: in how many measured samples, when, and how high.

The server's slowest I/O in each sample says whether a maximum passed was one spike (often the host rather than the
storage: a virtual machine paused, a snapshot taken, a path failed over) or the storage over its limit again and
again, and when, so the engineer can set it beside the host's own events. Where the maximum is judged on log-interval
averages, as Jetstress judges it, a spike of single I/Os is said too when the criterion passed: it is a fact of the
run the averages smooth out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from engine.results.criterion_schema import Criterion
from engine.results.sample_schema import Figures
from engine.results.schema import LatencySpike, Summary

# (the failing criterion's name, the figures' field, the words for the I/O)
WATCHED = (("maximum database read latency", "db_read_max_latency_ms", "Database reads"),
           ("maximum log write latency", "log_write_max_latency_ms", "Log writes"))
FEW = 0.01  # at most this share of the samples (and at least one) is a few spikes, worth a second run


@dataclass
class _Passed:
    samples: int
    first_utc: datetime | None
    first_in_s: float
    last_utc: datetime | None
    highest_ms: float


class LatencySpikes:
    """The measured samples whose highest database read or log write latency was above the threshold set's maximum."""

    def __init__(self, limits_ms: dict[str, float], sample_interval_s: float) -> None:
        self.limits_ms = limits_ms  # the figures' field -> its maximum, in ms
        self.sample_interval_s = sample_interval_s
        self.samples = 0
        self._start_s: float | None = None
        self._passed: dict[str, _Passed] = {}

    def observe(self, summary: Figures, *, time_utc: datetime | None, elapsed_s: float, duration_s: float) -> None:
        """One measured sample of the server (the samples of what is judged, in order)."""
        if self._start_s is None:
            self._start_s = elapsed_s - duration_s
        self.samples += 1
        for _, name, _ in WATCHED:
            value, limit = float(getattr(summary, name)), self.limits_ms.get(name)
            if limit is None or value <= limit:
                continue
            seen = self._passed.get(name)
            if seen is None:
                self._passed[name] = _Passed(1, time_utc, elapsed_s - self._start_s, time_utc, value)
            else:
                seen.samples += 1
                seen.last_utc = time_utc
                seen.highest_ms = max(seen.highest_ms, value)

    def facts(self, criteria: Sequence[Criterion], set_name: str, *, averaged: bool = False) -> list[LatencySpike]:
        """For each maximum-latency criterion that failed (and, when the maximum was judged on log-interval averages,
        `averaged`, each one whose limit single I/Os passed), the samples that passed its limit."""
        failed = {c.name for c in criteria if not c.passed}
        out = []
        for label, name, _words in WATCHED:
            seen = self._passed.get(name)
            if seen is None or (label not in failed and not averaged):
                continue
            judged = None if label in failed else max((c.value for c in criteria if c.name == label), default=0.0)
            out.append(LatencySpike(
                criterion=label, limit_ms=self.limits_ms[name], threshold_set=set_name, samples=seen.samples,
                of_samples=self.samples, sample_interval_s=self.sample_interval_s, first_utc=seen.first_utc,
                first_in_s=seen.first_in_s, last_utc=seen.last_utc, highest_ms=seen.highest_ms,
                passed_as_averaged_ms=judged))
        return out


def spike_words(spike: LatencySpike) -> str:
    """A spike as the engineer reads it: how often, when (the first and last sample, in UTC and into the measured
    time), how high, and whether it is more likely the host than the storage."""
    words = next(words for label, _name, words in WATCHED if label == spike.criterion)
    failed = spike.passed_as_averaged_ms is None
    each = "one-second" if spike.sample_interval_s == 1 else f"{spike.sample_interval_s:g}-second"
    subject = words if failed else f"Single {words.lower()}"
    text = (f"{subject} took longer than the {spike.threshold_set} maximum of {spike.limit_ms:g} ms in "
            f"{spike.samples:,} of the {spike.of_samples:,} measured {each} samples")
    into = f"{spike.first_in_s:,.0f} s into the measurement"
    first, last = _clock(spike.first_utc), _clock(spike.last_utc)
    at = f"{first}, {into}" if first else into
    if spike.samples == 1:
        text += f", at {at}"
    else:
        text += f", the first at {at}" + (f", the last at {last}" if last else "")
    text += f"; {spike.highest_ms:,.1f} ms at most"
    if not failed:
        text += (f"; the maximum is judged on log-interval averages, as Jetstress judges it, and passed "
                 f"({spike.passed_as_averaged_ms:,.1f} ms at most)")
    if spike.samples <= max(1, spike.of_samples * FEW):
        text += (": a single spike is" if spike.samples == 1 else ": spikes this rare are") + (
            " often the host, not the storage (a virtual machine paused, a snapshot, a path failing over)"
            + (", so run the test again before judging the storage on it" if failed else ""))
    return text


def spike_sentences(summary: Summary) -> list[str]:
    """A run's spikes in words (a result before schema 13 kept them in words)."""
    return [spike_words(spike) for spike in summary.spikes] if summary.spikes else list(summary.latency_spikes)


def _clock(time_utc: datetime | None) -> str:
    """'12:03:41 UTC'; '' without a time."""
    return f"{time_utc.astimezone(UTC):%H:%M:%S} UTC" if time_utc is not None else ""
