"""When an open-ended test's work is done: the runner's record of each database's scan, each instance's log
generation and each replay, as the workers report them.

A Checksum or Backup test ends when the last database is read; a Soft Recovery's measured run ends when
the last instance has written its log files, and its replays report afterwards. Whatever the test, its databases'
lengths as it began and as it ended say how much it grew them (`engine.workload.growth`).
"""

from __future__ import annotations

from engine.io.file_names import database_sizes
from engine.model.config import TestConfig
from engine.model.sizing import LOG_DATA_BYTES, LOG_FILE_SIZE_BYTES
from engine.workload.recovery import RecoveryTally
from engine.workload.scan import ScanTally


class WorkEnds:
    def __init__(self, database_count: int) -> None:
        self.database_count = database_count
        self.scans: dict[int, tuple[ScanTally, int]] = {}  # each database's scan, and when it ended
        self.generated: dict[int, int] = {}  # when each instance had written its log files
        self.recoveries: dict[int, RecoveryTally] = {}  # each instance's replay
        self.end_ns: int | None = None  # when the work of the measured run ended
        self.replaying = False  # every instance has written its logs: the replay comes next
        self.announced = False  # ... and its phase was announced
        self.began_bytes: dict[str, int | None] = {}  # each database file's length as the test began

    def began(self, config: TestConfig) -> None:
        """The databases are created or attached and the test begins: their lengths now."""
        self.began_bytes = database_sizes(config)

    def database_bytes(self, config: TestConfig) -> dict[str, tuple[int | None, int | None]]:
        """Each database file's length as the test began (None if it never began) and now, as it ends."""
        return {name: (self.began_bytes.get(name), size) for name, size in database_sizes(config).items()}

    def scan_ended(self, instance: int, tally: ScanTally, ended_ns: int) -> int | None:
        """A database's scan ended (read through, or unable to go on): when the last has, the end of the run."""
        self.scans[instance] = tally, ended_ns
        if len(self.scans) < self.database_count:
            return None
        return max(ended for _tally, ended in self.scans.values())

    def logs_generated(self, instance: int, ended_ns: int) -> int | None:
        """An instance wrote its last log file: when the last has, the end of the measured run."""
        self.generated[instance] = ended_ns
        return max(self.generated.values()) if len(self.generated) == self.database_count else None

    def end(self, end_ns: int) -> bool:
        """The measured run ends at `end_ns` (False if it already ended)."""
        if self.end_ns is not None:
            return False
        self.end_ns = end_ns
        return True

    def announce_replay(self, generation_shown: bool) -> bool:
        """True once, when the replay's phase is due: every log written and the generation's last sample shown."""
        if self.replaying and not self.announced and generation_shown:
            self.announced = True
            return True
        return False

    def planned_bytes(self, config: TestConfig, measuring: bool) -> int | None:
        """The bytes a phase's progress counts to, when known ahead: the databases to create; a Soft Recovery's log
        data to generate, then its log files to replay. None for a scan, which counts what it finds."""
        if not measuring:
            return config.database_size_bytes * config.database_file_count
        if config.recovers:
            files = config.log_files_to_replay * config.database_count
            return files * (LOG_FILE_SIZE_BYTES if self.announced else LOG_DATA_BYTES)
        return None

    def scan_tallies(self) -> dict[int, ScanTally]:
        return {index: tally for index, (tally, _ended) in self.scans.items()}
