"""A Soft Recovery test's replay, as the result document keeps it (`RunResult.recovery`)."""

from __future__ import annotations

from pydantic import Field

from engine.results.base import Schema


class InstanceRecovery(Schema):
    """One instance's soft recovery: the log files it generated under load, and their replay."""

    instance: str
    log_path: str
    log_files: int = Field(description="Log files the instance was to generate and replay.")
    log_files_generated: int
    log_files_replayed: int
    generation_seconds: float = Field(description="From the start of the load to the last log file written.")
    replay_seconds: float = Field(description="From the first log read to the last redone page written.")
    records: int = Field(0, description="Update records replayed.")
    pages_redone: int = Field(0, description="Records applied: the page on disk was older than the record.")
    pages_current: int = Field(0, description="Records the page on disk already held (written before the crash).")
    log_reads: int = 0
    log_bytes_read: int = 0
    log_read_avg_ms: float = 0.0
    page_reads: int = 0
    page_read_avg_ms: float = 0.0
    page_writes: int = 0
    pages_written: int = 0
    page_write_avg_ms: float = 0.0
    pages_verified: int = Field(0, description="Pages the replay wrote, read back after it (not timed in it).")
    damaged: int = Field(0, description="Damaged log sectors or database pages met; the first stops the replay.")
    lost_flushes: int = Field(0, description="Pages read back older than a completed write of them (ESE -1119).")
    complete: bool = Field(False, description="Every log file was replayed and every redone page written.")
    failure: str = Field("", description="What ended the replay before its end, other than a stop.")

    @property
    def seconds_per_log_file(self) -> float:
        return self.replay_seconds / self.log_files_replayed if self.log_files_replayed else 0.0

    @property
    def errors(self) -> int:
        return self.damaged + self.lost_flushes

    @property
    def log_bytes_per_s(self) -> float:
        return self.log_bytes_read / self.replay_seconds if self.replay_seconds > 0 else 0.0

    @property
    def page_reads_per_s(self) -> float:
        return self.page_reads / self.replay_seconds if self.replay_seconds > 0 else 0.0

    @property
    def page_writes_per_s(self) -> float:
        return self.page_writes / self.replay_seconds if self.replay_seconds > 0 else 0.0


class RecoveryResult(Schema):
    """What a Soft Recovery test generated and replayed, instance by instance (`RunResult.recovery`)."""

    log_files_to_replay: int
    limit_s: float = Field(description="The longest average time to play one log file that passes.")
    instances: list[InstanceRecovery] = Field(default_factory=list)

    @property
    def log_files_replayed(self) -> int:
        return sum(i.log_files_replayed for i in self.instances)

    @property
    def seconds_per_log_file(self) -> float:
        """Jetstress's "average time to play one log file": every instance's replay time over every file it played."""
        replayed = self.log_files_replayed
        return sum(i.replay_seconds for i in self.instances if i.log_files_replayed) / replayed if replayed else 0.0
