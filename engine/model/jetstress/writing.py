"""A Jetwise configuration written as a JetstressConfig.xml that Jetstress 2013 accepts.

Every element of the 2013 file is written, in its order, with Jetstress's defaults where Jetwise
has no equivalent. Jetstress's MailboxIops is the figure tested, so Jetwise's headroom is folded
into it. What Jetstress cannot say (the headroom itself, the cache sizes, the target margin, a
Database Checksum test type, ...) travels in a comment Jetstress ignores: Jetwise reading the
file back gets the same configuration, unless an element was edited since, which then wins.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from engine.model.config import TestConfig, TestType
from engine.model.jetstress.elements import (
    DATABASE_SOURCES,
    EXCHANGE_PROFILE,
    JET_SYSTEM_PARAMS,
    JETWISE_COMMENT,
    ROOT,
    SIZING_BY_CAPACITY,
    SIZING_BY_PROFILE,
    TEST_DESIGN_INFO,
    TEST_TYPES,
    THRESHOLDS,
)
from engine.model.units import MIB

_NAMESPACES = {"xmlns:xsd": "http://www.w3.org/2001/XMLSchema", "xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance"}
# Jetstress has no Database Checksum test in its configuration: it checksums after a Stress test
_JETSTRESS_TYPE = {ours: name for name, ours in TEST_TYPES.items()} | {TestType.DATABASE_CHECKSUM.value: "Stress"}


def number(value: float) -> str:
    """A number as Jetstress writes it: whole numbers without a point, others to 12 significant digits."""
    return str(int(value)) if float(value).is_integer() else f"{value:.12g}"


def xs_duration(seconds: float) -> str:
    """Seconds as Jetstress's xs:duration, P0Y0M{d}DT{h}H{m}M{s}S."""
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"P0Y0M{days}DT{hours}H{minutes}M{number(secs + seconds - whole)}S"


def _values(config: TestConfig, auto_tune: bool) -> dict[str, str]:
    soft = config.test_type == TestType.SOFT_RECOVERY
    flag = {True: "true", False: "false"}
    return {
        "Type": _JETSTRESS_TYPE[config.test_type.value],
        "Description": config.description,
        "Duration": xs_duration(config.duration_s),
        "VerifyChecksum": flag[config.verify_checksum],
        "RunDatabaseMaintenancePerformance": flag[config.background_maintenance and not soft],
        "RunDatabaseMaintenanceSoftRecovery": flag[config.background_maintenance and soft],
        "ContinueOnErrors": flag[config.continue_on_errors],
        "SuppressTuning": flag[not auto_tune],
        "BackupToDisk": flag[config.backup_path is not None],
        "LogFilesToReplay": str(config.log_files_to_replay),
        "LogFilesToChecksum": str(config.log_files_to_checksum),
        "MaximumChecksumBuffers": str(round(config.checksum_buffers_mb * MIB)),
        "MaximumChecksumThreads": str(config.checksum_threads),
        "LogInterval": str(round(config.thresholds.log_interval_s * 1000)),
        "SluggishSessions": str(config.sluggish_sessions),
        "ThreadCount": str(_thread_count(config)),
        "DatabaseSource": next(name for name, ours in DATABASE_SOURCES.items() if ours == config.database_source.value),
        "ThroughputPercentage": number(config.throughput_percent),
        "DatabaseSizing": SIZING_BY_CAPACITY if config.seeks_maximum else SIZING_BY_PROFILE,
        "CapacityPercentage": number(config.capacity_percent),
        "MailboxCount": str(config.profile.mailboxes),
        "MailboxQuota": str(config.profile.mailbox_size_mb),
        "MailboxIops": number(config.profile.iops_per_mailbox * config.profile.headroom_factor),
        "DatabaseCopyCount": str(config.copies_per_database),
        "DBMThrottling": str(config.dbm_throttling_ms),
    }


def _thread_count(config: TestConfig) -> int:
    """ThreadCount as the configuration's Jetstress counts it: for the server (2013), or per database (2010), the
    server's threads spread evenly and rounded to the nearest whole thread, at least one."""
    if not config.generation.threads_per_database:
        return config.thread_count
    return max(1, round(config.thread_count / config.database_count))


def _section(parent: ET.Element, name: str, declared: tuple[tuple[str, str | None], ...], values: dict[str, str],
             config: TestConfig) -> None:
    section = ET.SubElement(parent, name)
    for element, default in declared:
        if element == "OperationMix":
            mix = config.operation_mix
            ET.SubElement(section, element, {  # whole percentages: Jetstress reads them as integers
                "LockOps": "true", "InsertOps": str(round(mix.insert_percent)), "DeleteOps": str(round(mix.delete_percent)),
                "ReplaceOps": str(round(mix.replace_percent)), "LazyCommits": str(round(mix.lazy_commit_percent))})
        elif element == "Thresholds":
            for set_name, chosen, extra in (("Strict", config.thresholds.strict, {}),
                                            ("Lenient", config.thresholds.lenient, {"TestRunTypes": "Stress"})):
                thresholds = ET.SubElement(section, element, {"Name": set_name, **extra})
                for child, key in THRESHOLDS:
                    ET.SubElement(thresholds, child).text = number(getattr(chosen, key))
        elif element == "EseInstances":
            instances = ET.SubElement(section, element)
            for spec in config.databases:
                instance = ET.SubElement(instances, "EseInstance", {"IopsBias": "1"})
                paths = ET.SubElement(instance, "DatabasePaths")
                for folder in spec.database_paths:
                    ET.SubElement(paths, "Path").text = str(folder)
                ET.SubElement(instance, "LogPath").text = str(spec.log_path)
                if config.backup_path is not None:
                    ET.SubElement(instance, "DatabaseBackupPath").text = str(config.backup_path)
        else:
            ET.SubElement(section, element).text = values[element] if default is None else default


def write_xml(config: TestConfig, *, auto_tune: bool = False) -> str:
    """The JetstressConfig.xml of `config` (UTF-8 text, CRLF as Jetstress writes on Windows)."""
    root = ET.Element(ROOT, _NAMESPACES)
    root.append(ET.Comment(f" {JETWISE_COMMENT} {_comment_json(config)} "))
    # the Jetstress of the configuration's Exchange version: its version tells a reader how ThreadCount counts
    ET.SubElement(root, "JetstressVersionGenerated").text = config.generation.jetstress_version
    ET.SubElement(root, "EseVersionGenerated").text = config.generation.jetstress_version
    values = _values(config, auto_tune)
    _section(root, "TestDesignInfo", TEST_DESIGN_INFO, values, config)
    _section(root, "ExchangeProfile", EXCHANGE_PROFILE, values, config)
    _section(root, "JetSystemParams", JET_SYSTEM_PARAMS, values, config)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode", short_empty_elements=True)
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n").replace("\n", "\r\n")


def export_notes(config: TestConfig) -> list[str]:
    """What Jetstress will run differently from Jetwise with the file `write_xml` gives (Jetwise reads it back exact)."""
    notes = []
    if config.test_type == TestType.DATABASE_CHECKSUM:
        notes.append("Jetstress has no Database Checksum test in its configuration (it checksums after a Stress test): "
                     "written as Stress")
    mix = config.operation_mix
    parts = (mix.insert_percent, mix.delete_percent, mix.replace_percent, mix.lazy_commit_percent)
    if any(not float(value).is_integer() for value in parts):
        notes.append("Jetstress takes whole percentages in its operation mix: "
                     + ", ".join(f"{name} {round(value)}" for name, value in zip(("InsertOps", "DeleteOps", "ReplaceOps",
                                                                                  "LazyCommits"), parts, strict=True))
                     + " written")
    per_database = _thread_count(config)
    if config.generation.threads_per_database and per_database * config.database_count != config.thread_count:
        notes.append(f"{config.generation.jetstress} counts threads per database: {config.thread_count} threads over "
                     f"{config.database_count} databases are written as ThreadCount {per_database} "
                     f"({per_database * config.database_count} for the server)")
    if config.profile.headroom_percent:
        notes.append(f"Jetstress's MailboxIops is the figure tested: {number(config.profile.iops_per_mailbox)} IOPS per "
                     f"mailbox with {number(config.profile.headroom_percent)} % headroom is written as "
                     f"{number(config.profile.iops_per_mailbox * config.profile.headroom_factor)}")
    return notes


def _comment_json(config: TestConfig) -> str:
    # "--" may not appear in an XML comment; inside a JSON string "\u002d" reads back as "-"
    return json.dumps(config.model_dump(mode="json"), separators=(",", ":")).replace("--", "-\\u002d")


def expected_data(saved: dict[str, Any]) -> dict[str, Any] | None:
    """What reading the elements Jetwise wrote for the saved settings gives: the baseline an edit is found against."""
    from engine.model.jetstress.reading import read_xml

    try:
        config = TestConfig.model_validate(saved)
    except ValueError:
        return None
    text = write_xml(config)
    without_comment = text.replace(text[text.index("<!--") : text.index("-->") + 3], "")
    return read_xml(without_comment).data
