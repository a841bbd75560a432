"""How large a test's files and database cache are, from its configuration: the database's pages, the model's
cache and its flush thresholds, the logs' files and space; the sizes they are made of."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.units import MIB

if TYPE_CHECKING:
    from engine.model.profile import DatabaseSpec, MailboxProfile

PAGE_SIZE_BYTES = 32 * 1024
LOG_FILE_SIZE_BYTES = 1 * MIB
LOG_HEADER_BYTES = 4096  # sector 0 of each log file is its header
LOG_DATA_BYTES = LOG_FILE_SIZE_BYTES - LOG_HEADER_BYTES  # what a log file holds of the log
LOG_FILES_PER_DATABASE = 16
MIN_DATABASE_PAGES = 64
MIN_CACHE_PAGES = 64  # 2 MiB: smaller caches would stall on every burst of misses
# ESE's flush thresholds are fixed shares of the maximum cache: Jetstress logs "start: 30.7 MB, stop: 61.4 MB" for 3 GB.
FLUSH_START_SHARE = 0.01
FLUSH_STOP_SHARE = 0.02
# A cache scaled down for a small test still keeps 1 MiB of buffers in reserve, or a fast disk would stall on a
# reserve of a handful of pages that no real cache has.
MIN_FLUSH_START_PAGES = 32


class Sizing:
    """The sizes `engine.model.config.TestConfig` derives from its fields."""

    if TYPE_CHECKING:  # the configuration's fields these sizes are made of
        profile: MailboxProfile
        databases: list[DatabaseSpec]
        database_size_mb: float | None
        capacity_percent: float
        database_cache_max_mb: float
        database_cache_shared: bool
        log_files_to_replay: int

        @property
        def recovers(self) -> bool: ...

    @property
    def database_count(self) -> int:
        return len(self.databases)

    @property
    def database_file_count(self) -> int:
        """Database files over all instances: one each, and those of `DatabaseSpec.more_database_paths`."""
        return sum(len(spec.database_paths) for spec in self.databases)

    @property
    def database_pages(self) -> int:
        """Pages per database file (page 0 is the file header): the size set, or the profile's share at the capacity."""
        if self.database_size_mb is not None:
            size = self.database_size_mb * MIB
        else:
            size = self.planned_database_bytes * self.capacity_percent / 100.0
        return max(MIN_DATABASE_PAGES, int(size // PAGE_SIZE_BYTES))

    @property
    def planned_database_bytes(self) -> float:
        """A database file's production size as the mailbox profile plans it: its mailboxes' share, at full capacity."""
        return self.profile.mailboxes * self.profile.mailbox_size_mb * MIB / self.database_file_count

    @property
    def database_size_bytes(self) -> int:
        return self.database_pages * PAGE_SIZE_BYTES

    @property
    def database_cache_mb_per_database(self) -> float:
        """Each database file's share of the maximum database cache (the whole of it when not shared)."""
        return self.database_cache_max_mb / (self.database_file_count if self.database_cache_shared else 1)

    @property
    def production_share(self) -> float:
        """The test databases' share of their production size (`capacity_percent`; all of it for a set size): the
        cache and the databases' growth keep their production ratio to the database at this scale."""
        return self.capacity_percent / 100.0 if self.database_size_mb is None else 1.0

    @property
    def database_cache_pages(self) -> int:
        """Pages the model's cache holds per instance: its share of the server's cache, scaled by `capacity_percent`
        like a database sized from the profile (a test database at a fraction of its production size keeps the
        production cache-to-database ratio, so the same hit ratio); a database of a set size keeps the cache set."""
        size = self.database_cache_mb_per_database * MIB * self.production_share
        return max(MIN_CACHE_PAGES, int(size // PAGE_SIZE_BYTES))

    @property
    def flush_thresholds_pages(self) -> tuple[int, int]:
        """(start, stop): flushing starts when fewer buffers than `start` are available and stops once `stop` are."""
        pages = self.database_cache_pages
        start = max(1, round(pages * FLUSH_START_SHARE), min(MIN_FLUSH_START_PAGES, pages // 8))
        stop = max(start + 1, round(pages * FLUSH_STOP_SHARE), min(2 * MIN_FLUSH_START_PAGES, pages // 4))
        return start, stop

    def instance_cache_pages(self, index: int) -> tuple[int, int, int]:
        """(pages, flush start, flush stop) of instance `index`'s cache: a database's share for each of its files."""
        files = len(self.databases[index].database_paths)
        start, stop = self.flush_thresholds_pages
        return self.database_cache_pages * files, start * files, stop * files

    @property
    def log_files_per_database(self) -> int:
        """A circular set of 16, or for a Soft Recovery every file it generates and replays."""
        return self.log_files_to_replay if self.recovers else LOG_FILES_PER_DATABASE

    @property
    def log_space_bytes_per_database(self) -> int:
        return self.log_files_per_database * LOG_FILE_SIZE_BYTES
