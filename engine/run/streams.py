"""What one database's workload asks of the storage per transaction and per second: the model's shares of its streams.

The simulated device serves these (`engine.run.sources.model`); the test log says them at the design's target, so an
engineer sees what the Exchange generation chosen drives before the run says what the storage did with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.config import TestConfig
from engine.workload.instance import upper_levels


@dataclass(frozen=True)
class Mix:
    """A transaction's I/O on average."""

    reads: float  # random reads per transaction
    writes: float  # flush writes per transaction
    log_writes: float  # log writes per transaction
    commit_waits: float  # log writes a transaction thread waits for, per transaction
    hits: float  # cache hits per transaction
    misses: float
    pages_per_write: float = 1.045  # a flush write's pages: dirty neighbours coalesced into it


def mix_of(config: TestConfig) -> Mix:
    mix = config.operation_mix
    update = mix.update_fraction
    forced = 1 - mix.lazy_commit_percent / 100.0
    leaves = max(1, config.database_pages - 1)
    cached = max(0, config.database_cache_pages - config.flush_thresholds_pages[1])
    miss = max(0.0, 1.0 - cached / leaves)
    levels = upper_levels(leaves)
    return Mix(
        reads=miss,
        writes=update,
        # lazy records are written two to a write, a waiting commit writes at once
        log_writes=update / (2 - forced),
        commit_waits=update * forced,
        hits=levels + 1 - miss,
        misses=miss,
    )


def maintenance_reads_per_s(config: TestConfig, read_ms: float) -> float:
    """Background maintenance's batch reads per second per database, as its generation paces them when each takes
    `read_ms` (0 when off)."""
    return config.maintenance_bytes_per_s(read_ms) / config.generation.maintenance_batch_bytes


@dataclass(frozen=True)
class DatabaseStreams:
    """One database's streams per second."""

    reads_per_s: float
    writes_per_s: float
    log_writes_per_s: float
    maintenance_reads_per_s: float
    maintenance_read_bytes: int

    @property
    def maintenance_mb_s(self) -> float:
        return self.maintenance_reads_per_s * self.maintenance_read_bytes / 1e6  # as the sources say it: 1 MB = 10^6 bytes

    @property
    def words(self) -> str:
        return (f"{self.reads_per_s:,.1f} database reads/s, {self.writes_per_s:,.1f} writes/s, "
                f"{self.log_writes_per_s:,.1f} log writes/s; background maintenance "
                + (f"{self.maintenance_reads_per_s:,.1f} reads/s ({self.maintenance_mb_s:.2f} MB/s)"
                   if self.maintenance_reads_per_s else "off"))


def database_streams(config: TestConfig, transactional_iops: float, read_ms: float | None = None,
                     work: Mix | None = None) -> DatabaseStreams:
    """What one database drives per second at `transactional_iops` of its own (database reads + writes), its
    maintenance reads taking `read_ms` each (None: the test's average database read latency threshold, the slowest a
    passing test reads at), by `work`'s shares (None: the formula's, `mix_of`)."""
    work = work if work is not None else mix_of(config)
    per_transaction = work.reads + work.writes
    transactions = transactional_iops / per_transaction if per_transaction else 0.0
    return DatabaseStreams(transactions * work.reads, transactions * work.writes, transactions * work.log_writes,
                           maintenance_reads_per_s(config, config.active_thresholds.db_read_avg_latency_ms
                                                   if read_ms is None else read_ms),
                           config.generation.maintenance_batch_bytes)


def target_streams_words(config: TestConfig, work: Mix | None = None) -> str:
    """The test log's line: what each database's workload drives at the design's target by `work`'s shares (None: the
    formula's, `mix_of`); its maintenance alone in the disk throughput scenario, which has no target."""
    streams = database_streams(config, config.target_transactional_iops / config.database_count, work=work)
    if config.seeks_maximum:
        maintenance = streams.words.partition("; ")[2]
        return f"Workload per database ({config.generation.jetstress}'s): {maintenance}"
    return f"Workload per database at the target ({config.generation.jetstress}'s): {streams.words}"
