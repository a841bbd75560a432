"""The Jetstress 2013 configuration file, declared once: its elements in order, with Jetstress's defaults.

The writer emits every element in this order; the reader knows from it which elements exist and
lists those Jetwise does not model. The values are what Jetstress 2013 (15.0.995.0) writes; its version, and the
Exchange version it stands for, are the configuration's (`engine.model.exchange`).
"""

from __future__ import annotations

ROOT = "configuration"

# (element, Jetstress's default); None: written by Jetwise from the configuration
TEST_DESIGN_INFO: tuple[tuple[str, str | None], ...] = (
    ("Type", None),
    ("MultiHostBreak", "false"),
    ("Description", None),
    ("Duration", None),
    ("BinaryPerfLog", "true"),
    ("VerifyChecksum", None),
    ("RunDatabaseMaintenancePerformance", None),
    ("RunDatabaseMaintenanceSoftRecovery", None),
    ("ContinueOnErrors", None),
    ("SuppressTuning", None),
    ("UseEseCounters", "true"),
    ("PreloadJetCache", "0.9"),
    ("BackupToDisk", None),
    ("LogFilesToReplay", None),
    ("LogFilesToChecksum", None),
    ("LogInterval", None),
    ("LogInterval2", "5000"),
    ("OperationMix", None),
    ("RetrieveLVOnRead", "false"),
    ("RetrieveLVOnScan", "false"),
    ("PrereadOnRead", "false"),
    ("PrereadOnScan", "true"),
    ("UpdateLV", "true"),
    ("ScanPercentage", "0"),
    ("RestoreBackupPath", ""),
    ("OutputPath", "."),
    ("MaximumChecksumBuffers", None),
    ("MaximumChecksumThreads", None),
    ("MaximumLatencyErrors", "6"),
    ("SluggishSessions", None),
    ("BatchRecords", "1"),
    ("BatchUpdates", "16"),
    ("Bulky1Percentage", "100"),
    ("Thresholds", None),  # twice: Strict, then Lenient for Stress
)
# each Thresholds set's elements, in order, and the ThresholdSet field each one is
THRESHOLDS = (("AverageDatabaseReadLatency", "db_read_avg_latency_ms"), ("MaximumDatabaseReadLatency", "db_read_max_latency_ms"),
              ("AverageLogWriteLatency", "log_write_avg_latency_ms"), ("MaximumLogWriteLatency", "log_write_max_latency_ms"))

EXCHANGE_PROFILE: tuple[tuple[str, str | None], ...] = (
    ("ThreadCount", None),
    ("TransPerSec", "0"),
    ("ThroughputPercentage", None),
    ("DatabaseSource", None),
    ("DatabaseSizing", None),
    ("CapacityPercentage", None),
    ("MailboxCount", None),
    ("MailboxQuota", None),
    ("MailboxIops", None),
    ("MarginIops", "0.05"),
    ("LongPadLength", "2000"),
    ("ShortPadLength", "200"),
    ("DatabaseSpaceReserved", "25"),
    ("DatabaseCopyCount", None),
    ("EseInstances", None),
)

JET_SYSTEM_PARAMS: tuple[tuple[str, str | None], ...] = (
    ("DatabasePageSize", "32768"),
    ("CircularLog", "1"),
    ("LogFileSize", "1024"),  # KB
    ("MaxVerPages", "8192"),
    ("DBMThrottling", None),  # ms: maintenance's sleep before each batch (`TestConfig.dbm_throttling_ms`)
)

ELEMENT_DEFAULTS = TEST_DESIGN_INFO + EXCHANGE_PROFILE + JET_SYSTEM_PARAMS

# Jetstress's names of the test types, and Jetwise's
TEST_TYPES = {
    "Performance": "performance",
    "Stress": "stress",
    "DatabaseBackup": "database_backup",
    "SoftRecovery": "soft_recovery",
}
DATABASE_SOURCES = {"New": "create", "Open": "attach"}
# DatabaseSizing: "Profile" sizes the databases from the mailbox profile (the mailbox profile scenario); the disk
# subsystem throughput scenario sizes them from the disks' capacity. The reference names only "Profile": any other
# value is read as the throughput scenario, and Jetwise writes SIZING_BY_CAPACITY for it.
SIZING_BY_PROFILE, SIZING_BY_CAPACITY = "Profile", "Capacity"
STRESS_AFTER_S = 6 * 3600  # Jetstress runs a performance test longer than this as a stress test, Lenient thresholds

# The elements Jetwise reads into its configuration; every other element present is named as ignored.
MODELLED = frozenset({
    "Type", "Description", "Duration", "VerifyChecksum", "RunDatabaseMaintenancePerformance",
    "RunDatabaseMaintenanceSoftRecovery", "ContinueOnErrors", "SuppressTuning", "BackupToDisk", "LogFilesToReplay",
    "LogFilesToChecksum", "MaximumChecksumBuffers", "MaximumChecksumThreads",
    "LogInterval", "OperationMix", "SluggishSessions", "Thresholds", "ThreadCount", "DatabaseSource",
    "ThroughputPercentage", "DatabaseSizing", "CapacityPercentage", "MailboxCount", "MailboxQuota", "MailboxIops",
    "DatabaseCopyCount", "EseInstances", "DatabasePageSize", "LogFileSize", "DBMThrottling"})

# The comment in which a written file carries the Jetwise settings Jetstress has no element for.
JETWISE_COMMENT = "Jetwise settings:"
