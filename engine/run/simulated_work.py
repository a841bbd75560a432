"""The simulated device's Checksum, Backup and Soft Recovery tests, in virtual time.

They run through the same measurement, verdict and result as on real files; only what
the device does is modelled:

- A scan reads its databases as the real one schedules them (`engine.run.scanning.scan_groups`: a
  checksum volume by volume, one database of each volume at a time; a backup every database at once),
  the streams reading at once sharing the device's sequential read rate (each server streams
  `StorageModel.stream_mb_s`, an IOPS ceiling caps the reads); a checksum reads each instance's 16 log
  files (or `log_files_to_checksum`) after its database.
  The model's pages are never damaged.
- A Soft Recovery generates its log files under the modelled transactional load until
  each instance has written them, then replays them: each file is read at the stream
  rate, and the pages its records touch that miss the cache are read, and the redone
  ones written, with the replay's prefetch depth of I/Os in flight at the unloaded
  service time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from engine.model.config import TestConfig, TestType
from engine.model.growth import INSERT_LOG_BYTES
from engine.model.sizing import LOG_DATA_BYTES, LOG_FILE_SIZE_BYTES, LOG_FILES_PER_DATABASE, PAGE_SIZE_BYTES
from engine.protocol import PHASE_WORDS, Phase, PhaseEvent
from engine.results.host_schema import HostFigures
from engine.results.note_schema import RunNote
from engine.results.scans import SCAN_PHASE_WORDS
from engine.results.schema import RunTimes
from engine.run.measurement import Measurement
from engine.run.played import played_mix
from engine.run.run_end import RunEnd
from engine.run.runner import Runner
from engine.run.scan_plan import scan_groups
from engine.run.simulated_draws import fill_stream
from engine.run.sources.model import SIMULATED_HOST, ModelSource, StorageModel, solve
from engine.workload.instance import DELETE_LOG_BYTES, REPLACE_LOG_BYTES
from engine.workload.recovery import PREFETCH_DEPTH, REPLAY_LOG_READ_BYTES, RecoveryTally
from engine.workload.scan import ScanTally
from engine.workload.stats import DB_READ, LOG_READ, LOG_WRITE, InstanceInterval

Parts = Callable[[int], dict[str, InstanceInterval]]


def stream_rate(model: StorageModel, read_bytes: int) -> float:
    """Bytes per second the device reads sequentially in reads of `read_bytes`, all streams together."""
    rate = model.servers * model.stream_mb_s * 1e6
    if model.iops_ceiling:
        rate = min(rate, model.iops_ceiling * read_bytes)
    return rate


class OpenEndedWork:
    """A scan or a Soft Recovery on the simulated device (`ModelSource` hands these tests here)."""

    def __init__(self, source: ModelSource) -> None:
        self.source = source
        self.model = source.model

    def run(self, runner: Runner, measurement: Measurement) -> RunEnd:
        config = runner.config
        clock = _VirtualClock(config.sample_interval_s)
        if config.scans:
            runner.emit(PhaseEvent(phase=Phase.MEASURING, message=f"{SCAN_PHASE_WORDS[config.test_type]} (simulated)"))
            end = self._scan(runner, measurement, clock)
        else:
            runner.emit(PhaseEvent(phase=Phase.MEASURING, message="Generating log files (simulated)"))
            end = self._recover(runner, measurement, clock)
        if runner.stop_reason is not None:
            end.aborted_reason = f"Run aborted: {runner.stop_reason} after {end.measured_s:.1f} s (simulated)"
        end.times = clock.times()
        end.host = SIMULATED_HOST
        end.io_detail = "simulated device"
        end.notes.append(self.source.note)
        return end

    # scans ---------------------------------------------------------------------------

    def _scan(self, runner: Runner, measurement: Measurement, clock: _VirtualClock) -> RunEnd:
        config, model = runner.config, self.model
        read = config.scan_read_bytes
        count = config.database_count
        rate = stream_rate(model, read)
        groups = scan_groups(config)
        busy = [0.0] * count  # virtual seconds each database's scan was reading
        began: list[float | None] = [None] * count
        in_db_busy = [0.0] * count
        log_files = min(LOG_FILES_PER_DATABASE, config.log_files_to_checksum)
        logs = log_files * LOG_FILE_SIZE_BYTES if config.test_type == TestType.DATABASE_CHECKSUM else 0
        db_bytes = [config.database_size_bytes * len(spec.database_paths) for spec in config.databases]  # every file
        total = [size + logs for size in db_bytes]
        done = [0] * count
        rng = random.Random(config.seed if config.seed is not None else 1)

        def reading() -> list[int]:
            """The database each group reads now: its first unfinished one."""
            return [i for i in (next((i for i in group if done[i] < total[i]), None) for group in groups) if i is not None]

        def parts(index: int) -> dict[str, InstanceInterval]:
            active = reading()
            per_database = rate / max(1, len(active))
            latency_ms = read / per_database * 1000.0 + 0.05 * model.service_ms
            out = {}
            for i, name in enumerate(measurement.names):
                part = InstanceInterval(name)
                if i in active:
                    if began[i] is None:
                        began[i] = index * config.sample_interval_s
                    take = min(total[i] - done[i], per_database * config.sample_interval_s)
                    in_database = max(0.0, min(take, db_bytes[i] - done[i]))
                    fill_stream(rng, part.stream(DB_READ), in_database / read, read, latency_ms, 0.2)
                    fill_stream(rng, part.stream(LOG_READ), (take - in_database) / read, read, latency_ms, 0.2)
                    done[i] += int(take)
                    busy[i] += take / per_database
                    in_db_busy[i] += in_database / per_database
                out[name] = part
            left = max((sum(total[i] - done[i] for i in group) for group in groups), default=0)
            measurement.eta_s = left / (rate / max(1, len(reading())))
            return out

        seconds = self._intervals(runner, measurement, clock, parts, lambda: all(d >= t for d, t in zip(done, total, strict=True)))
        scans = {}
        for i in range(count):
            in_database = min(done[i], db_bytes[i])
            scans[i] = ScanTally(
                pages_total=db_bytes[i] // PAGE_SIZE_BYTES, pages_seen=in_database // PAGE_SIZE_BYTES, bytes_read=in_database,
                log_files=log_files if logs else 0,
                log_sectors_seen=max(0, done[i] - db_bytes[i]) // 4096,
                database_seconds=in_db_busy[i], seconds=busy[i], complete=done[i] >= total[i], began_s=began[i] or 0.0)
        notes = [RunNote(what="no_backup_copy")] if config.backup_path is not None else []
        # the scan ends when its last group does, within its last interval
        longest = max(sum(scans[i].seconds for i in group) for group in groups)
        return RunEnd(measured_s=min(seconds, longest), scans=scans, notes=notes)

    # soft recovery ---------------------------------------------------------------------

    def _recover(self, runner: Runner, measurement: Measurement, clock: _VirtualClock) -> RunEnd:
        config, model = runner.config, self.model
        point = solve(model, config)
        rng = random.Random(config.seed if config.seed is not None else 1)
        target = config.log_files_to_replay * LOG_DATA_BYTES
        work = played_mix(config)
        logged = [tx * log.writes * log.bytes_per_write for tx, log in zip(point.transactions_per_s, point.logs, strict=True)]
        rate = sum(logged) / config.database_count  # log bytes/s per instance
        generated = [0] * config.database_count
        ended: dict[int, float] = {}

        def parts(index: int) -> dict[str, InstanceInterval]:
            ramp = 1.0 - 0.35 * math.exp(-(index + 1) * config.sample_interval_s / 20.0)
            out = {}
            for i, name in enumerate(measurement.names):
                part = self.source.instance_interval(config, name, point, work, i, ramp, rng)
                written = part.stream(LOG_WRITE).bytes
                if generated[i] + written >= target and i not in ended:  # within the interval, at the rate it wrote
                    ended[i] = (index + (target - generated[i]) / max(1, written)) * config.sample_interval_s
                generated[i] += written
                out[name] = part
            measurement.eta_s = (target - min(generated)) / rate if rate > 0 else None
            return out

        seconds = self._intervals(runner, measurement, clock, parts, lambda: len(ended) == config.database_count)
        if len(ended) == config.database_count:  # the measured run ends as the last instance writes its last file
            seconds = max(ended.values())
        recoveries = {}
        for i in range(config.database_count):
            files = config.log_files_to_replay if i in ended else min(config.log_files_to_replay, generated[i] // LOG_DATA_BYTES)
            recoveries[i] = RecoveryTally(log_files=config.log_files_to_replay, log_files_generated=files,
                                          generation_seconds=ended.get(i, seconds))
        if runner.stop_reason is None and len(ended) == config.database_count:
            runner.log("Log files generated; shutting down the databases without a clean checkpoint, as a crash does")
            runner.emit(PhaseEvent(phase=Phase.REPLAYING, message=f"{PHASE_WORDS[Phase.REPLAYING]} (simulated)"))
            for tally in recoveries.values():
                self._replay(config, tally)
            clock.extra_s = max(t.replay_seconds for t in recoveries.values())
        return RunEnd(measured_s=seconds, recoveries=recoveries)

    def _replay(self, config: TestConfig, tally: RecoveryTally) -> None:
        """One instance's replay as the model plays it: log reads, page reads that miss the cache, redone writes."""
        model = self.model
        mix = config.operation_mix
        updates = mix.insert_percent + mix.delete_percent + mix.replace_percent
        record_bytes = (mix.insert_percent * INSERT_LOG_BYTES + mix.delete_percent * DELETE_LOG_BYTES
                        + mix.replace_percent * REPLACE_LOG_BYTES) / updates
        files = tally.log_files_generated
        records = int(files * LOG_DATA_BYTES / record_bytes)
        misses = played_mix(config).misses
        reads = int(records * misses)
        # redone: the records of the last checkpoint depth whose pages were still dirty in the cache at the crash
        within = min(1.0, config.checkpoint_depth_bytes / (files * LOG_DATA_BYTES))
        redone = int(records * within * (1.0 - misses))
        writes = min(redone, config.database_cache_pages)
        in_flight = min(PREFETCH_DEPTH, model.servers)
        io_rate = in_flight * 1000.0 / model.service_ms
        if model.iops_ceiling:
            io_rate = min(io_rate, model.iops_ceiling)
        log_rate = stream_rate(model, REPLAY_LOG_READ_BYTES) / config.database_count
        log_bytes = files * LOG_FILE_SIZE_BYTES
        tally.replay_seconds = log_bytes / log_rate + (reads + writes) / io_rate
        tally.log_files_replayed = files
        tally.records, tally.pages_redone, tally.pages_current = records, redone, records - redone
        tally.log_reads = files * math.ceil(LOG_FILE_SIZE_BYTES / REPLAY_LOG_READ_BYTES)
        tally.log_bytes_read = log_bytes
        tally.log_read_ns = int(tally.log_reads * REPLAY_LOG_READ_BYTES / log_rate * 1e9)
        tally.page_reads = reads
        tally.page_read_ns = int(reads * model.service_ms * 1e6)
        tally.page_writes = tally.pages_written = tally.pages_verified = writes
        tally.page_write_ns = int(writes * model.service_ms * 1e6)
        tally.complete = True

    # the clock -------------------------------------------------------------------------

    def _intervals(self, runner: Runner, measurement: Measurement, clock: _VirtualClock, parts: Parts,
                   done: Callable[[], bool]) -> float:
        """Add intervals until the work is `done` (or a stop); the measured window ends with the last. Its seconds."""
        index = 0
        while index < measurement.total_intervals and runner.stop_reason is None and not done():
            interval = parts(index)
            clock.intervals = index + 1
            measurement.add(index, interval, duration_s=clock.interval_s, elapsed_s=clock.elapsed_s,
                            time_utc=clock.at(clock.elapsed_s), host=HostFigures())
            index += 1
        measurement.window.total_intervals = max(1, index)
        return clock.elapsed_s


class _VirtualClock:
    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.start = datetime.now(UTC)
        self.intervals = 0
        self.extra_s = 0.0  # virtual time after the last sample (a replay)

    @property
    def elapsed_s(self) -> float:
        return self.intervals * self.interval_s

    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)

    def times(self) -> RunTimes:
        end = self.start + timedelta(seconds=self.elapsed_s + self.extra_s)
        return RunTimes(test_start_utc=self.start, test_end_utc=end, collection_start_utc=self.start,
                        collection_end_utc=self.start + timedelta(seconds=self.elapsed_s))
