"""What a test's type and scenario make of it: its target, its thresholds, its length, whether it scans or replays,
and how it meets an I/O error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.profile import SCAN_TEST_TYPES, Scenario, TestType

if TYPE_CHECKING:
    from engine.model.profile import MailboxProfile, Thresholds, ThresholdSet


class TestKind:
    """What `engine.model.config.TestConfig` makes of its test type, scenario and error handling."""

    __test__ = False  # a domain name, not a pytest test class

    if TYPE_CHECKING:  # the configuration's fields these are made of
        scenario: Scenario
        profile: MailboxProfile
        test_type: TestType
        thresholds: Thresholds
        backup_read_kib: int
        checksum_read_kib: int
        continue_on_errors: bool
        hung_io_threshold_s: float

    @property
    def seeks_maximum(self) -> bool:
        """The disk throughput scenario: no target; tuning looks for the most transactional IOPS that pass."""
        return self.scenario == Scenario.DISK_THROUGHPUT

    @property
    def target_transactional_iops(self) -> float:
        """The profile's target; 0 in the disk throughput scenario, which has none (any throughput meets it)."""
        return 0.0 if self.seeks_maximum else self.profile.target_iops

    @property
    def active_thresholds(self) -> ThresholdSet:
        return self.thresholds.lenient if self.test_type == TestType.STRESS else self.thresholds.strict

    @property
    def standard_duration_s(self) -> float:
        """The qualification length of this test type: 2 h Performance, 24 h Stress."""
        return 86400.0 if self.test_type == TestType.STRESS else 7200.0

    @property
    def scans(self) -> bool:
        """The test reads each database through once (Checksum, Backup) instead of running transactions."""
        return self.test_type in SCAN_TEST_TYPES

    @property
    def recovers(self) -> bool:
        """The test generates log files under load, then replays them (Soft Recovery)."""
        return self.test_type == TestType.SOFT_RECOVERY

    @property
    def io_error_words(self) -> str:
        """How the test meets an I/O error, as the test log, the Review page and the report say it."""
        first = ("it continues despite I/O errors, each of which still fails it" if self.continue_on_errors
                 else "the test stops at its first I/O error, which fails it")
        return (f"{first}; an I/O the storage has not completed {self.hung_io_threshold_s:g} s after it was issued is "
                "a hung I/O, an error of its own")

    @property
    def open_ended(self) -> bool:
        """The test lasts as long as its work takes (a scan, or a soft recovery's log generation), not a duration."""
        return self.scans or self.recovers

    @property
    def scan_read_bytes(self) -> int:
        kib = self.backup_read_kib if self.test_type == TestType.DATABASE_BACKUP else self.checksum_read_kib
        return kib * 1024

    @property
    def threshold_set_name(self) -> str:
        return "Lenient" if self.test_type == TestType.STRESS else "Strict"
