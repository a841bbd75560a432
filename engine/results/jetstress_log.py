"""The test log's lines in Jetstress's words, where Jetwise has the fact, so a Jetwise log reads beside a Jetstress
log line by line (the ESRP paper's test logs): the thresholds, the operation mix with its sessions, the logging
interval at the start; each instance's averages, the page fault stalls and the samples at the end."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.model.config import TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.schema import RunResult
from engine.workload.cache import WARM_SHARE


@dataclass
class StallSamples:
    """The measured samples' database page fault stalls per second: Jetstress sums them up at the end of its log, and
    its Host System Performance table gives their average, minimum and maximum."""

    values: list[float] = field(default_factory=list)

    def observe(self, stalls_per_s: float) -> None:
        self.values.append(stalls_per_s)

    @property
    def samples(self) -> int:
        return len(self.values)

    @property
    def highest(self) -> float:
        return max(self.values, default=0.0)

    @property
    def over_zero(self) -> int:
        return sum(value > 0 for value in self.values)


def opening_lines(config: TestConfig) -> list[str]:
    """Jetstress's lines before its prerequisites: the thresholds the test is judged by, its operation mix with the
    sessions (threads) of each database, and its logging interval."""
    limits, mix = config.active_thresholds, config.operation_mix
    sessions = sorted({config.threads_for_database(i) for i in range(config.database_count)})
    each = str(sessions[0]) if len(sessions) == 1 else f"{sessions[0]} to {sessions[-1]}"
    maxima = (f"; maximum latencies are judged on {round(config.thresholds.log_interval_s * 1000)} ms averages"
              if config.thresholds.averaged_maxima else "; maximum latencies are judged on single I/Os")
    return [
        f"Database read latency thresholds: (average: {limits.db_read_avg_latency_ms:g} msec/read, "
        f"maximum: {limits.db_read_max_latency_ms:g} msec/read).",
        f"Log write latency thresholds: (average: {limits.log_write_avg_latency_ms:g} msec/write, "
        f"maximum: {limits.log_write_max_latency_ms:g} msec/write).",
        f"Operation mix: Sessions {each}, Inserts {mix.insert_percent:g}%, Deletes {mix.delete_percent:g}%, "
        f"Replaces {mix.replace_percent:g}%, Reads {mix.read_percent:g}%, Lazy Commits {mix.lazy_commit_percent:g}%.",
        f"Performance logging begins (interval: {round(config.sample_interval_s * 1000)} ms{maxima}).",
    ]


def cache_line(config: TestConfig, cache_pages: int) -> str:
    """The database cache as the prerequisites were attained, in Jetstress's words: its size (every instance's pages
    in use) and the lower bound Jetstress waits for, 90 % of what it holds once warm. Jetwise's warm-up waits for the
    latency to settle instead (or its set time), so the bound is for comparison, not a condition here."""
    warm_pages = min(config.database_cache_pages - config.flush_thresholds_pages[1], config.database_pages - 1)
    lower = WARM_SHARE * warm_pages * config.database_file_count * PAGE_SIZE_BYTES
    return (f"\\MSExchange Database(JetstressWin)\\Database Cache Size, Last: {cache_pages * PAGE_SIZE_BYTES:.1f} "
            f"(lower bound: {lower:.1f}, upper bound: none).")


def closing_lines(result: RunResult, stalls: StallSamples) -> list[str]:
    """Jetstress's lines as it writes its report: each instance's average latencies, the page fault stalls of the
    measured samples, and how many samples the run's samples file has."""
    lines = ["Performance logging ends."]
    for instance in result.instances:
        lines.append(f"{instance.name} has {instance.db_read_avg_latency_ms:.1f} for I/O Database Reads Average Latency.")
        lines.append(f"{instance.name} has {instance.log_write_avg_latency_ms:.1f} for I/O Log Writes Average Latency.")
        if instance.log_reads_per_s:
            lines.append(f"{instance.name} has {instance.log_read_avg_latency_ms:.1f} for I/O Log Reads Average Latency.")
    lines.append(f"Test has {stalls.highest:g} Maximum Database Page Fault Stalls/sec.")
    lines.append(f"Test has {stalls.over_zero} Database Page Fault Stalls/sec samples higher than 0.")
    lines.append(f"{result.files.samples} has {stalls.samples} samples.")
    return lines
