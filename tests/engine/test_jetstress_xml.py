"""JetstressConfig.xml read as the field writes it and written as Jetstress 2013 reads it.

The files here are written from the description of the format (shared reference
jetstress-config-xml.md): a complete 2013 file, the partial and junk files scripts leave, CRLF,
namespaces, no final newline, a 2010 file counting threads per database; then export, checked
against an XSD written from the same description, and read back.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema

from engine.model.config import TestConfig
from engine.model.jetstress.loading import config_from_xml
from engine.model.jetstress.reading import JetstressXmlError, read_xml
from engine.model.jetstress.values import parse_duration
from engine.model.jetstress.writing import export_notes, write_xml
from engine.model.validation import Severity
from tests.conftest import small_config

XSD = xmlschema.XMLSchema(Path(__file__).parents[1] / "data" / "JetstressConfig2013.xsd")

COMPLETE = """<?xml version="1.0"?>
<configuration xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <JetstressVersionGenerated>15.0.995.0</JetstressVersionGenerated>
  <EseVersionGenerated>15.0.995.0</EseVersionGenerated>
  <TestDesignInfo>
    <Type>Stress</Type>
    <MultiHostBreak>false</MultiHostBreak>
    <Description>Two
      arrays, one rack</Description>
    <Duration>P0Y0M1DT0H0M0S</Duration>
    <BinaryPerfLog>true</BinaryPerfLog>
    <VerifyChecksum>false</VerifyChecksum>
    <RunDatabaseMaintenancePerformance>false</RunDatabaseMaintenancePerformance>
    <RunDatabaseMaintenanceSoftRecovery>true</RunDatabaseMaintenanceSoftRecovery>
    <ContinueOnErrors>true</ContinueOnErrors>
    <SuppressTuning>true</SuppressTuning>
    <UseEseCounters>true</UseEseCounters>
    <PreloadJetCache>0.9</PreloadJetCache>
    <BackupToDisk>false</BackupToDisk>
    <LogFilesToReplay>300</LogFilesToReplay>
    <LogFilesToChecksum>50</LogFilesToChecksum>
    <LogInterval>15000</LogInterval>
    <LogInterval2>5000</LogInterval2>
    <OperationMix LockOps="true" InsertOps="30" DeleteOps="25" ReplaceOps="5" LazyCommits="60" />
    <SluggishSessions>3</SluggishSessions>
    <Thresholds Name="Strict">
      <AverageDatabaseReadLatency>18</AverageDatabaseReadLatency>
      <MaximumDatabaseReadLatency>90</MaximumDatabaseReadLatency>
      <AverageLogWriteLatency>8</AverageLogWriteLatency>
      <MaximumLogWriteLatency>80</MaximumLogWriteLatency>
    </Thresholds>
    <Thresholds Name="Lenient" TestRunTypes="Stress">
      <AverageDatabaseReadLatency>25</AverageDatabaseReadLatency>
      <MaximumDatabaseReadLatency>250</MaximumDatabaseReadLatency>
      <AverageLogWriteLatency>12</AverageLogWriteLatency>
      <MaximumLogWriteLatency>220</MaximumLogWriteLatency>
    </Thresholds>
  </TestDesignInfo>
  <ExchangeProfile>
    <ThreadCount>12</ThreadCount>
    <TransPerSec>0</TransPerSec>
    <DatabaseSource>Open</DatabaseSource>
    <CapacityPercentage>80</CapacityPercentage>
    <MailboxCount>5000</MailboxCount>
    <MailboxQuota>2048</MailboxQuota>
    <MailboxIops>0.5</MailboxIops>
    <DatabaseCopyCount>2</DatabaseCopyCount>
    <EseInstances>
      <EseInstance IopsBias="1"><DatabasePaths><Path>E:\\db1\\db</Path></DatabasePaths><LogPath>L:\\log1</LogPath></EseInstance>
      <EseInstance IopsBias="1"><DatabasePaths><Path>E:\\db2\\db</Path></DatabasePaths><LogPath>L:\\log2</LogPath></EseInstance>
    </EseInstances>
  </ExchangeProfile>
  <JetSystemParams>
    <DatabasePageSize>32768</DatabasePageSize>
    <CircularLog>1</CircularLog>
  </JetSystemParams>
</configuration>"""


def _said(loaded, severity) -> list[str]:
    return [str(p) for p in loaded.said() if p.severity == severity]


def test_a_complete_file_gives_every_setting_it_holds_and_names_what_it_ignores():
    for text in (COMPLETE, COMPLETE.replace("\n", "\r\n"), COMPLETE + "\n", "\ufeff" + COMPLETE):
        loaded = config_from_xml(text)
        config = loaded.config
        assert config is not None and not loaded.errors and not loaded.warnings, loaded.said()
        assert config.test_type == "stress" and config.duration_s == 86400 and config.description == "Two arrays, one rack"
        assert not config.verify_checksum and config.continue_on_errors and not config.background_maintenance
        assert (config.log_files_to_replay, config.log_files_to_checksum, config.sluggish_sessions) == (300, 50, 3)
        mix = config.operation_mix
        assert (mix.insert_percent, mix.delete_percent, mix.replace_percent, mix.read_percent, mix.lazy_commit_percent) == (
            30, 25, 5, 40, 60)
        assert config.thresholds.strict.db_read_avg_latency_ms == 18 and config.thresholds.lenient.log_write_max_latency_ms == 220
        assert (config.thread_count, config.database_source, config.capacity_percent, config.copies_per_database) == (
            12, "attach", 80, 2)
        profile = config.profile  # Jetstress's MailboxIops is what is tested: no headroom on top
        assert (profile.mailboxes, profile.mailbox_size_mb, profile.iops_per_mailbox, profile.headroom_percent) == (
            5000, 2048, 0.5, 0)
        assert config.target_transactional_iops == 2500
        assert [str(d.database_path) for d in config.databases] == ["E:\\db1\\db", "E:\\db2\\db"]
        assert [str(d.log_path) for d in config.databases] == ["L:\\log1", "L:\\log2"]
        assert not loaded.auto_tune
        ignored = next(line for line in _said(loaded, Severity.NOTE) if "ignored" in line)
        for element in ("MultiHostBreak", "BinaryPerfLog", "UseEseCounters", "PreloadJetCache", "LogInterval2",
                        "TransPerSec", "CircularLog"):
            assert element in ignored
        assert "Thresholds" not in ignored and "MailboxIops" not in ignored


def test_empty_and_junk_values_are_named_with_the_default_used_and_the_rest_is_kept():
    text = (COMPLETE.replace("<Type>Stress</Type>", "<Type>Stres</Type>")
            .replace("<ThreadCount>12</ThreadCount>", "<ThreadCount />")
            .replace("<SluggishSessions>3</SluggishSessions>", "<SluggishSessions>zero</SluggishSessions>")
            .replace("<Duration>P0Y0M1DT0H0M0S</Duration>", "<Duration>2 hours</Duration>")
            .replace("<MailboxCount>5000</MailboxCount>", "<MailboxCount>-4</MailboxCount>")
            .replace('InsertOps="30"', 'InsertOps="90"')
            .replace("<VerifyChecksum>false</VerifyChecksum>", "<VerifyChecksum>maybe</VerifyChecksum>")
            .replace("<DatabasePageSize>32768</DatabasePageSize>", "<DatabasePageSize>8192</DatabasePageSize>"))
    loaded = config_from_xml(text)
    config = loaded.config
    assert config is not None, loaded.said()
    warnings = "\n".join(_said(loaded, Severity.WARNING))
    assert "TestDesignInfo/Type: 'Stres' is not Performance, Stress, DatabaseBackup or SoftRecovery; Performance is used" in warnings
    assert "TestDesignInfo/SluggishSessions: 'zero' is not a whole number" in warnings
    assert "TestDesignInfo/Duration: '2 hours' is not a duration such as P0Y0M0DT2H0M0S" in warnings
    assert "ExchangeProfile/MailboxCount: at least 1 mailbox (got -4); Jetwise's default is used" in warnings
    assert "TestDesignInfo/OperationMix: InsertOps, DeleteOps and ReplaceOps make 120 %, more than 100 %" in warnings
    assert "TestDesignInfo/VerifyChecksum: 'maybe' is not true or false" in warnings
    assert "JetSystemParams/DatabasePageSize: is 8192; Jetwise's pages are 32,768 bytes" in warnings
    defaults = TestConfig.model_validate({"databases": [{"database_path": "a", "log_path": "b"}]})
    assert config.test_type == "performance" and config.sluggish_sessions == 1 and config.duration_s == defaults.duration_s
    assert config.profile.mailboxes == defaults.profile.mailboxes and config.operation_mix == defaults.operation_mix
    assert config.verify_checksum and config.profile.mailbox_size_mb == 2048 and config.thread_count >= 2
    assert any("ThreadCount is empty" in note for note in _said(loaded, Severity.NOTE))
    assert config.thresholds.strict.db_read_avg_latency_ms == 18  # what was good is kept


def test_a_file_without_its_databases_is_read_whole_but_cannot_run_until_they_are_given():
    start = COMPLETE.index("<EseInstances>")
    text = COMPLETE[: start] + COMPLETE[COMPLETE.index("</EseInstances>") + len("</EseInstances>"):]
    loaded = config_from_xml(text)
    assert loaded.config is None and loaded.imported.data["thread_count"] == 12
    assert [str(e) for e in loaded.errors] == ["ExchangeProfile/EseInstances: lists no database; give each database's "
                                               "folder and log folder"]
    given = config_from_xml(text, [{"database_path": "D:\\one", "log_path": "L:\\one"}])
    assert given.config is not None and given.config.database_count == 1 and not given.errors
    assert not any("EseInstances" in str(w) for w in given.warnings)


def test_a_2010_file_counts_threads_per_database_and_a_long_performance_test_is_a_stress_test():
    text = (COMPLETE.replace("15.0.995.0</JetstressVersionGenerated>", "14.1.225.17</JetstressVersionGenerated>")
            .replace("<Type>Stress</Type>", "<Type>performance</Type>")
            .replace("<Duration>P0Y0M1DT0H0M0S</Duration>", "<Duration>P0Y0M0DT6H0M1S</Duration>"))
    loaded = config_from_xml(text)
    assert loaded.config is not None and loaded.config.thread_count == 24  # 12 per database, two databases
    notes = "\n".join(_said(loaded, Severity.NOTE))
    assert "Jetstress 2010 counts threads per database: 12 x 2 databases = 24" in notes
    assert loaded.config.test_type == "stress" and "longer than 6 hours runs as a Stress test" in notes
    six_hours = text.replace("P0Y0M0DT6H0M1S", "P0Y0M0DT6H0M0S")
    assert config_from_xml(six_hours).config.test_type == "performance"


def test_what_is_not_a_jetstress_configuration_is_refused_with_its_line():
    broken = COMPLETE.replace("</TestDesignInfo>", "</TestDesign>")
    line = broken[: broken.index("</TestDesign>")].count("\n") + 1
    cases = {
        broken: f"not well-formed XML (line {line}, column 5: mismatched tag)",
        "<settings><TestDesignInfo/></settings>": "its root element is <settings>",
        "<configuration><Other/></configuration>": "holds neither <TestDesignInfo> nor <ExchangeProfile>",
        '<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaa">]><configuration/>': "declares a document type",
        "": "not well-formed XML (line 1, column 1",
    }
    for text, words in cases.items():
        with pytest.raises(JetstressXmlError, match=None) as refused:
            read_xml(text)
        assert words in str(refused.value), (words, str(refused.value))


def test_durations_as_jetstress_writes_them():
    assert parse_duration("P0Y0M0DT2H0M0S") == 7200 and parse_duration("P0Y0M0DT0H15M0S") == 900
    assert parse_duration("PT1H30M") == 5400 and parse_duration("P1D") == 86400 and parse_duration("PT0.5S") == 0.5
    for junk in ("", "P", "PT", "P0Y0M0DT0H0M0S", "2h", "P1DT", "-P1D"):
        assert parse_duration(junk) is None, junk


def _configs(tmp_path) -> list[TestConfig]:
    small = small_config(tmp_path / "data")

    def like_small(**changes) -> TestConfig:
        return TestConfig.model_validate({**small.model_dump(mode="json"), **changes})

    return [
        small,
        like_small(test_type="soft_recovery", background_maintenance=True, log_files_to_replay=7,
                   description="replay -- on the SAN <east>"),
        like_small(test_type="database_backup", backup_path=str(tmp_path / "backup")),
        like_small(test_type="database_checksum", database_source="attach", duration_s=90061.5),
        like_small(scenario="disk_throughput", throughput_percent=70, database_size_mb=300),
        TestConfig.model_validate({"databases": [{"database_path": "E:\\db1\\db", "log_path": "F:\\log1"}],
                                   "operation_mix": {"insert_percent": 40.5, "delete_percent": 19.5, "replace_percent": 5,
                                                     "read_percent": 35, "lazy_commit_percent": 70},
                                   "profile": {"mailboxes": 30, "iops_per_mailbox": 0.1, "headroom_percent": 20}}),
    ]


def test_an_export_is_a_complete_jetstress_2013_file_and_reads_back_as_the_same_configuration(tmp_path):
    for config in _configs(tmp_path):
        for auto_tune in (False, True):
            text = write_xml(config, auto_tune=auto_tune)
            XSD.validate(text)  # every element of the 2013 file, in order, each value of its type
            assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
            loaded = config_from_xml(text)
            assert loaded.config == config and loaded.auto_tune is auto_tune and not loaded.warnings, loaded.said()
            again = write_xml(loaded.config, auto_tune=auto_tune)
            assert again == text  # export, import, export: the same file


def test_database_sizing_other_than_profile_is_the_disk_throughput_scenario():
    def sized(value: str):
        return config_from_xml(COMPLETE.replace("<TransPerSec>0</TransPerSec>", "<TransPerSec>0</TransPerSec><ThroughputPercentage>"
                                                f"60</ThroughputPercentage><DatabaseSizing>{value}</DatabaseSizing>"))

    throughput = sized("Capacity")
    config = throughput.config
    assert config is not None and config.seeks_maximum and config.throughput_percent == 60
    assert config.target_transactional_iops == 0 and config.capacity_percent == 80
    assert any("DatabaseSizing 'Capacity': the disk subsystem throughput scenario" in n for n in _said(throughput, Severity.NOTE))
    assert any("has no database size" in w for w in _said(throughput, Severity.WARNING)), \
        "sized from the free space only where the volumes are (the front ends do it)"
    for element in ("DatabaseSizing", "ThroughputPercentage"):
        assert element not in next(line for line in _said(throughput, Severity.NOTE) if "ignored" in line)
    for profile in ("Profile", "profile"):
        loaded = sized(profile).config
        assert loaded is not None and not loaded.seeks_maximum and loaded.target_transactional_iops == 2500


def test_an_element_edited_after_the_export_wins_over_the_settings_jetwise_kept(tmp_path):
    config = _configs(tmp_path)[5]  # 0.1 IOPS per mailbox and 20 % headroom: MailboxIops 0.12
    text = write_xml(config)
    assert "<MailboxIops>0.12</MailboxIops>" in text and "<InsertOps" not in text and 'InsertOps="40"' in text
    assert any("whole percentages" in note for note in export_notes(config))
    edited = config_from_xml(text.replace("<MailboxIops>0.12</MailboxIops>", "<MailboxIops>0.2</MailboxIops>")
                             .replace("<SluggishSessions>1</SluggishSessions>", "<SluggishSessions>4</SluggishSessions>")).config
    assert edited is not None and edited.sluggish_sessions == 4
    assert (edited.profile.iops_per_mailbox, edited.profile.headroom_percent) == (0.2, 0)  # the figure typed is tested
    assert edited.operation_mix == config.operation_mix and edited.database_cache_max_mb == config.database_cache_max_mb
    damaged = config_from_xml(text.replace('"schema_version"', '"schema_version'))
    assert damaged.config is not None and any("comment Jetwise wrote is damaged" in str(w) for w in damaged.warnings)


def test_a_backup_to_disk_goes_to_the_first_instances_backup_folder_and_needs_no_instances_to_read():
    with_backup = COMPLETE.replace("<BackupToDisk>false</BackupToDisk>", "<BackupToDisk>true</BackupToDisk>").replace(
        "<LogPath>L:\\log1</LogPath>", "<LogPath>L:\\log1</LogPath><DatabaseBackupPath>B:\\copies</DatabaseBackupPath>")
    loaded = config_from_xml(with_backup)
    assert loaded.config is not None and str(loaded.config.backup_path) == "B:\\copies"
    start = with_backup.index("<EseInstances>")
    bare = with_backup[:start] + with_backup[with_backup.index("</EseInstances>") + len("</EseInstances>"):]
    given = config_from_xml(bare, [{"database_path": "D:\\one", "log_path": "L:\\one"}])
    assert given.config is not None and given.config.backup_path is None, given.said()


def test_a_file_jetwise_wrote_names_only_the_jetstress_elements_edited_since(tmp_path):
    text = write_xml(_configs(tmp_path)[0])
    assert not config_from_xml(text).imported.ignored
    edited = config_from_xml(text.replace("<LogInterval2>5000</LogInterval2>", "<LogInterval2>1000</LogInterval2>"))
    assert edited.imported.ignored == ["LogInterval2"]


@pytest.mark.parametrize(("milliseconds", "seconds", "noted"), [("15000", 15.0, False), ("30000", 30.0, False),
                                                               ("10000", 15.0, True), ("5000", 15.0, True),
                                                               ("40000", 45.0, True), ("7200000", 3600.0, True)])
def test_log_interval_is_the_interval_a_maximum_is_averaged_over_both_ways(tmp_path, milliseconds, seconds, noted):
    loaded = config_from_xml(COMPLETE.replace("<LogInterval>15000</LogInterval>", f"<LogInterval>{milliseconds}</LogInterval>"))
    assert loaded.config is not None and loaded.config.thresholds.log_interval_s == seconds
    assert "LogInterval" not in loaded.imported.ignored
    assert any(note.startswith(f"LogInterval {int(milliseconds):,} ms") for note in loaded.imported.notes) == noted
    written = write_xml(loaded.config)
    assert f"<LogInterval>{round(seconds * 1000)}</LogInterval>" in written
    assert config_from_xml(written).config == loaded.config


def test_the_checksum_buffers_and_threads_set_how_deep_each_volume_is_read_both_ways():
    default = config_from_xml(COMPLETE)
    assert default.config is not None
    assert (default.config.checksum_buffers_mb, default.config.checksum_threads) == (20.0, 400)  # Jetstress's defaults
    text = COMPLETE.replace("<LogFilesToChecksum>50</LogFilesToChecksum>", "<LogFilesToChecksum>50</LogFilesToChecksum>"
                            "<MaximumChecksumBuffers>10485760</MaximumChecksumBuffers>"
                            "<MaximumChecksumThreads>100</MaximumChecksumThreads>")
    loaded = config_from_xml(text)
    assert loaded.config is not None and (loaded.config.checksum_buffers_mb, loaded.config.checksum_threads) == (10.0, 100)
    assert not {"MaximumChecksumBuffers", "MaximumChecksumThreads"} & set(loaded.imported.ignored)
    written = write_xml(loaded.config)
    assert "<MaximumChecksumBuffers>10485760</MaximumChecksumBuffers>" in written
    assert "<MaximumChecksumThreads>100</MaximumChecksumThreads>" in written
    assert config_from_xml(written).config == loaded.config
