"""A Database Checksum or Database Backup test's scan, as the result document keeps it (`RunResult.scan`)."""

from __future__ import annotations

from pydantic import Field

from engine.io.pages import ErrorKind
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.base import Schema


class DamagedPage(Schema):
    """A page a scan found damaged: where it is and how."""

    page: int
    offset: int = Field(description="Its byte offset in the file.")
    kind: ErrorKind


class DatabaseScan(Schema):
    """One database's scan in a Database Checksum or Database Backup test (Jetstress's "Checksum Statistics" row)."""

    instance: str
    database_file: str
    more_database_files: list[str] = Field(
        default_factory=list, description="The instance's further database files, read after the first.")
    pages: int = Field(description="Pages in its files, each header page included.")
    seen_pages: int
    bad_pages: int = Field(description="Pages whose checksum does not match their contents (ESE -1018).")
    wrong_page_number_pages: int = Field(description="Valid pages of another place or database (ESE -1118).")
    uninitialised_pages: int = Field(description="Pages that read back as all zeros (ESE -1019).")
    unreadable_pages: int = Field(0, description="Pages in reads the operating system failed, or past the file's end.")
    crc_error_pages: int = Field(0, description="Pages the operating system could not read for a data error, a CRC "
                                                "error (ESE -1021), each read alone; never patched: a scan never writes "
                                                "into the database.")
    lost_flush_pages: int = Field(0, description="Valid pages older than the last write the flush map kept: writes the "
                                                 "storage acknowledged and lost (ESE -1119).")
    flush_map: str = Field("", description="Why a database file was read without its flush map, so that a lost flush "
                                           "could not be told; empty when each was read against its own.")
    correctable_pages: int = Field(
        0, description="Always 0: a Jetwise page has one CRC-32 and no error-correcting code, so no damage is correctable."
    )
    bytes_read: int
    seconds: float = Field(description="How long the database file took, its logs not included.")
    volume: str = Field("", description="The volume the database is on (its drive, share or mount point).")
    began_s: float = Field(0.0, description="When its reading began, in seconds from the test's start: a checksum reads "
                                            "the databases of one volume one after another.")
    complete: bool = Field(description="Every page was read; False when the test stopped first.")
    failure: str = Field("", description="What ended the scan before its end, other than a stop.")
    first_damaged: list[DamagedPage] = Field(default_factory=list, description="The first damaged pages, at most 20.")
    log_files: int = 0
    log_sectors_seen: int = 0
    log_sectors_damaged: int = 0
    backup_file: str = Field("", description="Database Backup to disk: the copy written (of the first file).")
    more_backup_files: list[str] = Field(default_factory=list, description="The copies of the further files.")
    bytes_written: int = 0

    @property
    def database_files(self) -> list[str]:
        return [self.database_file, *self.more_database_files]

    @property
    def file_bytes(self) -> int:
        """The database file's length: every page, its header page included."""
        return self.pages * PAGE_SIZE_BYTES

    @property
    def damaged_pages(self) -> int:
        return (self.bad_pages + self.wrong_page_number_pages + self.uninitialised_pages + self.unreadable_pages
                + self.crc_error_pages + self.lost_flush_pages)

    @property
    def bytes_per_s(self) -> float:
        return self.bytes_read / self.seconds if self.seconds > 0 else 0.0


class ScanResult(Schema):
    """What a Database Checksum or Database Backup test read, database by database (`RunResult.scan`)."""

    read_bytes: int = Field(description="The size of each sequential database read.")
    databases: list[DatabaseScan] = Field(default_factory=list)
    seconds: float = Field(0.0, description="From the first read to the end of the last database's scan.")
    by_volume: bool = Field(False, description="A checksum read the databases of each volume one after another, the "
                                               "volumes at once; otherwise every database at once (results before 11).")
    reads_in_flight: int = Field(1, description="Reads each scan kept in flight: on each volume for a checksum read by "
                                                "volume, for each database otherwise.")

    @property
    def bytes_read(self) -> int:
        return sum(d.bytes_read for d in self.databases)

    @property
    def database_seconds(self) -> float:
        """From the first read to the end of the last database file (a checksum's log files not included)."""
        return max((d.began_s + d.seconds for d in self.databases), default=0.0)

    @property
    def bytes_per_s(self) -> float:
        """The server's read rate: every database's bytes over the time the database files took."""
        seconds = self.database_seconds
        return self.bytes_read / seconds if seconds > 0 else 0.0
