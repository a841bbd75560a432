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

from engine.results.schema import Criterion, Figures

# (the failing criterion's name, the figures' field, the words for the I/O)
WATCHED = (
    ("maximum database read latency", "db_read_max_latency_ms", "Database reads"),
    ("maximum log write latency", "log_write_max_latency_ms", "Log writes"),
)
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

    def sentences(self, criteria: Sequence[Criterion], set_name: str, *, averaged: bool = False) -> list[str]:
        """For each maximum-latency criterion that failed (and, when the maximum was judged on log-interval averages,
        `averaged`, each one whose limit single I/Os passed), a sentence on the samples that passed its limit."""
        failed = {c.name for c in criteria if not c.passed}
        out = []
        for label, name, words in WATCHED:
            seen = self._passed.get(name)
            if seen is None or (label not in failed and not averaged):
                continue
            each = "one-second" if self.sample_interval_s == 1 else f"{self.sample_interval_s:g}-second"
            subject = words if label in failed or not averaged else f"Single {words.lower()}"
            text = (f"{subject} took longer than the {set_name} maximum of {self.limits_ms[name]:g} ms in "
                    f"{seen.samples:,} of the {self.samples:,} measured {each} samples")
            into = f"{seen.first_in_s:,.0f} s into the measurement"
            first, last = _clock(seen.first_utc), _clock(seen.last_utc)
            at = f"{first}, {into}" if first else into
            if seen.samples == 1:
                text += f", at {at}"
            else:
                text += f", the first at {at}" + (f", the last at {last}" if last else "")
            text += f"; {seen.highest_ms:,.1f} ms at most"
            if label not in failed:
                judged = max((c.value for c in criteria if c.name == label), default=0.0)
                text += (f"; the maximum is judged on log-interval averages, as Jetstress judges it, and passed "
                         f"({judged:,.1f} ms at most)")
            if seen.samples <= max(1, self.samples * FEW):
                text += (": a single spike is" if seen.samples == 1 else ": spikes this rare are") + (
                    " often the host, not the storage (a virtual machine paused, a snapshot, a path failing over)"
                    + (", so run the test again before judging the storage on it" if label in failed else ""))
            out.append(text)
        return out


def _clock(time_utc: datetime | None) -> str:
    """'12:03:41 UTC'; '' without a time."""
    return f"{time_utc.astimezone(UTC):%H:%M:%S} UTC" if time_utc is not None else ""
