"""Figures added up over consecutive spans: an instance's window in a samples file, an export's interval, the
measured samples of a rebuilt result."""

from __future__ import annotations

from engine.results.figures import cache_figures, part_from_figures, stream_figures
from engine.results.schema import Figures, LatencyHistograms
from engine.workload.histogram import Counts, add_sparse, new_counts, to_sparse
from engine.workload.stats import InstanceInterval

SPREAD = ("transactional_iops", "db_read_avg_latency_ms")  # an instance window's lowest and highest second


class FigureSum:
    """An instance's (or the server's) figures over consecutive spans, added up: a window's, or an export's interval."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.seconds = 0.0
        self.part = InstanceInterval("")
        self.errors = 0
        self.hit_ratios: list[float] = []
        self.lowest: dict[str, float] = {}
        self.highest: dict[str, float] = {}

    def add(self, row: Figures, seconds: float) -> None:
        self.seconds += seconds
        self.part.merge(part_from_figures(row, seconds))
        self.errors += row.io_errors
        if row.db_cache_hit_ratio is not None:
            self.hit_ratios.append(row.db_cache_hit_ratio)
        for name in SPREAD:
            value = float(getattr(row, name))
            self.lowest[name] = min(self.lowest.get(name, value), value)
            self.highest[name] = max(self.highest.get(name, value), value)

    def figures(self) -> dict[str, float | None]:
        out = stream_figures(self.part.streams, self.seconds)
        out.update(cache_figures(self.part.cache, self.seconds))
        out["io_errors"] = self.errors
        out["db_cache_hit_ratio"] = sum(self.hit_ratios) / len(self.hit_ratios) if self.hit_ratios else None
        return out


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
