"""Latency histograms added up over consecutive spans: an export's interval, the measured samples of a rebuilt
result."""

from __future__ import annotations

from engine.results.sample_schema import LatencyHistograms
from engine.workload.histogram import Counts, add_sparse, new_counts, to_sparse


class LatencySum:
    """The server's latency histograms over consecutive spans, added up."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.streams: dict[str, Counts] = {}

    def add(self, latency: LatencyHistograms) -> None:
        self.seconds += latency.span_s
        for name, sparse in latency.streams.items():
            add_sparse(self.streams.setdefault(name, new_counts()), sparse)

    def histograms(self) -> LatencyHistograms:
        return LatencyHistograms(span_s=self.seconds, streams={name: to_sparse(c) for name, c in self.streams.items()})
