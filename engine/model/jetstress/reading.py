"""A JetstressConfig.xml as found in the field, read into Jetwise's configuration data.

Real files differ from the documentation: an element may be empty or hold junk, the database list
may be missing (a script adds it later), the root declares namespaces, paths are Windows paths that
need not exist here. Each bad value gives a warning naming the element and the default used; each
element Jetwise does not model is listed; a file that is not XML, or not a Jetstress configuration,
is refused with the line and the reason.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from engine.model.config import TestConfig
from engine.model.exchange import generation, version_of_jetstress
from engine.model.jetstress import values
from engine.model.jetstress.elements import (
    ELEMENT_DEFAULTS,
    JETWISE_COMMENT,
    MODELLED,
    ROOT,
    STRESS_AFTER_S,
    THRESHOLDS,
)
from engine.model.jetstress.merging import with_jetwise_settings
from engine.model.profile import LOG_INTERVAL_STEP_S
from engine.model.units import MIB, compact_duration
from engine.model.validation import Problem, Severity


class JetstressXmlError(ValueError):
    """The file is not a JetstressConfig.xml Jetwise can read: the reason, with its line where there is one."""


@dataclass
class XmlImport:
    """What a JetstressConfig.xml says, as Jetwise configuration data, and everything said about reading it."""

    data: dict[str, Any]
    auto_tune: bool = False
    warnings: list[Problem] = field(default_factory=list)  # a value not used, and what was used instead
    ignored: list[str] = field(default_factory=list)  # elements present that Jetwise does not model
    notes: list[str] = field(default_factory=list)  # how a Jetstress setting was carried over
    version: str = ""
    backup_to_disk: bool = False  # BackupToDisk: the copies go to the first instance's DatabaseBackupPath
    threads_per_database: int | None = None  # a Jetstress 2010 file's ThreadCount, multiplied out for the server

    def said_notes(self) -> list[str]:
        """How the settings were carried over, in words: the notes, then a Jetstress 2010 thread count's sum."""
        if self.threads_per_database is None:
            return list(self.notes)
        threads, databases = self.threads_per_database, len(self.data.get("databases", []))
        return [*self.notes, f"Jetstress 2010 counts threads per database: {threads} x {databases} databases = "
                             f"{threads * databases} threads for the server"]

    def warn(self, element: str, words: str) -> None:
        self.warnings.append(Problem(element, words, Severity.WARNING))


def _local(tag: object) -> str:
    """An element's name without its namespace."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _children(parent: ET.Element | None) -> dict[str, list[ET.Element]]:
    found: dict[str, list[ET.Element]] = {}
    for child in parent if parent is not None else ():
        if isinstance(child.tag, str):
            found.setdefault(_local(child.tag), []).append(child)
    return found


def _text(element: ET.Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


class _Reader:
    def __init__(self, result: XmlImport) -> None:
        self.result = result

    def value(self, parent: dict[str, list[ET.Element]], section: str, name: str, convert: Callable[[str], Any],
              default_words: str) -> Any:
        """The element's value converted, or None (after a warning when it held something unusable)."""
        elements = parent.get(name)
        if not elements:
            return None
        text = _text(elements[0])
        if not text:
            if name not in ("Description", "ThreadCount", "MailboxCount"):  # left empty on purpose in real files
                self.result.warn(f"{section}/{name}", f"is empty; {default_words}")
            return None
        try:
            return convert(text)
        except ValueError:
            self.result.warn(f"{section}/{name}", f"{text[:60]!r} is not {values.WHAT.get(convert, 'a value')}; {default_words}")
            return None

    def put(self, data: dict[str, Any], key: str, parent: dict[str, list[ET.Element]], section: str, name: str,
            convert: Callable[[str], Any], default_words: str) -> Any:
        """`value`, kept in `data` at `key` when there is one."""
        found = self.value(parent, section, name, convert, default_words)
        if found is not None:
            data[key] = found
        return found


def _root(text: str) -> ET.Element:
    # A file from a customer's share is untrusted: defusedxml refuses a document type, and with it every entity
    # expansion and external reference, before anything is read
    parser = DefusedXMLParser(target=ET.TreeBuilder(insert_comments=True), forbid_dtd=True)
    try:
        parser.feed(text)
        root = parser.close()
    except DefusedXmlException as exc:
        raise JetstressXmlError("it declares a document type (<!DOCTYPE>) or entities, which a JetstressConfig.xml "
                                "never has") from exc
    except ET.ParseError as exc:
        line, column = exc.position
        reason = str(exc).split(":")[0]
        raise JetstressXmlError(f"it is not well-formed XML (line {line}, column {column + 1}: {reason})") from exc
    if _local(root.tag) != ROOT:
        raise JetstressXmlError(f"its root element is <{_local(root.tag)}>, not <{ROOT}>: this is not a JetstressConfig.xml")
    return root


def read_xml(text: str) -> XmlImport:
    """Read a JetstressConfig.xml's text; raise JetstressXmlError when it cannot be one."""
    root = _root(text.lstrip("\ufeff"))
    top = _children(root)
    if not any(name in top for name in ("TestDesignInfo", "ExchangeProfile")):
        raise JetstressXmlError(f"<{ROOT}> holds neither <TestDesignInfo> nor <ExchangeProfile>: this is not a JetstressConfig.xml")
    result = XmlImport(data={}, version=_text(top.get("JetstressVersionGenerated", [None])[0]))
    reader = _Reader(result)
    _test_design(reader, _children(top.get("TestDesignInfo", [None])[0]), result)
    _profile(reader, _children(top.get("ExchangeProfile", [None])[0]), result)
    _system(reader, _children(top.get("JetSystemParams", [None])[0]), result)
    for section in ("TestDesignInfo", "ExchangeProfile", "JetSystemParams"):
        for element in top.get(section, []):
            result.ignored += [name for name in _children(element) if name not in MODELLED and name not in result.ignored]
    finish_threads(result)
    comments = [c.text or "" for c in root if not isinstance(c.tag, str)]  # ElementTree's comments carry a function as tag
    comment = next((c for c in comments if c.strip().startswith(JETWISE_COMMENT)), "")
    if not comment:  # what no JetstressConfig.xml holds: said, not restored in silence over what was there
        result.notes.append(_not_in_the_file())
    if comment:  # a file Jetwise wrote: its Jetstress-only elements hold Jetstress's defaults unless edited since
        written = {name: text for name, text in ELEMENT_DEFAULTS if text is not None}
        found = {name: _text(elements[0]) for section in top.values() for element in section
                 for name, elements in _children(element).items()}
        result.ignored = [name for name in result.ignored if found.get(name) != written.get(name)]
    return with_jetwise_settings(result, comment) if comment else result


def _test_design(reader: _Reader, design: dict[str, list[ET.Element]], result: XmlImport) -> None:
    data, section = result.data, "TestDesignInfo"
    kind = reader.value(design, section, "Type", values.kind, "Performance is used")
    data["test_type"] = kind or "performance"
    description = reader.value(design, section, "Description", str, "")
    if description:
        words = " ".join(description.split())
        if len(words) > 500:
            result.warn(f"{section}/Description", "is longer than 500 characters; the first 500 are kept")
        data["description"] = words[:500]
    duration = reader.put(data, "duration_s", design, section, "Duration", values.duration,
                          "Jetwise's default duration is used")
    if duration is not None and data["test_type"] == "performance" and duration > STRESS_AFTER_S:
        data["test_type"] = "stress"
        result.notes.append("a Performance test longer than 6 hours runs as a Stress test (Lenient thresholds), "
                            "as in Jetstress")
    for name, key in (("VerifyChecksum", "verify_checksum"), ("ContinueOnErrors", "continue_on_errors")):
        reader.put(data, key, design, section, name, values.boolean, "the default is used")
    maintenance = "RunDatabaseMaintenanceSoftRecovery" if data["test_type"] == "soft_recovery" else "RunDatabaseMaintenancePerformance"
    reader.put(data, "background_maintenance", design, section, maintenance, values.boolean,
               "background maintenance stays on")
    suppress = reader.value(design, section, "SuppressTuning", values.boolean, "auto-tune is used")
    result.auto_tune = not suppress
    for name, key in (("LogFilesToReplay", "log_files_to_replay"), ("LogFilesToChecksum", "log_files_to_checksum"),
                      ("SluggishSessions", "sluggish_sessions"), ("MaximumChecksumThreads", "checksum_threads")):
        reader.put(data, key, design, section, name, values.whole, "the default is used")
    buffers = reader.value(design, section, "MaximumChecksumBuffers", values.whole, "the default is used")
    if buffers is not None:
        data["checksum_buffers_mb"] = buffers / MIB  # bytes in the file
    _operation_mix(design.get("OperationMix", []), result)
    _thresholds(reader, design.get("Thresholds", []), result)
    _log_interval(reader, design, result)
    if reader.value(design, section, "BackupToDisk", values.boolean, "no copy is written"):
        result.notes.append("BackupToDisk: each database's copy goes to the first instance's DatabaseBackupPath")
        result.backup_to_disk = True


def _operation_mix(elements: list[ET.Element], result: XmlImport) -> None:
    if not elements:
        return
    mix: dict[str, float] = {}
    for attribute, key in (("InsertOps", "insert_percent"), ("DeleteOps", "delete_percent"),
                           ("ReplaceOps", "replace_percent"), ("LazyCommits", "lazy_commit_percent")):
        text = elements[0].get(attribute, "").strip()
        if not text:
            continue
        try:
            mix[key] = values.number(text)
        except ValueError:
            result.warn(f"TestDesignInfo/OperationMix/@{attribute}", f"{text[:60]!r} is not a number; the default is used")
    if mix:
        writes = sum(v for k, v in mix.items() if k != "lazy_commit_percent")
        if writes > 100:
            result.warn("TestDesignInfo/OperationMix", f"InsertOps, DeleteOps and ReplaceOps make {writes:g} %, more "
                                                       "than 100 %; Jetwise's default mix is used")
            return
        if {"insert_percent", "delete_percent", "replace_percent"} <= mix.keys():
            mix["read_percent"] = 100 - writes  # reads are the remainder
        result.data["operation_mix"] = mix


def _thresholds(reader: _Reader, elements: list[ET.Element], result: XmlImport) -> None:
    sets: dict[str, dict[str, float]] = {}
    for element in elements:
        name = (element.get("Name") or "").strip()
        if name.lower() not in ("strict", "lenient"):
            result.warn("TestDesignInfo/Thresholds", f"a set named {name[:40]!r} is neither Strict nor Lenient; it is not used")
            continue
        chosen = sets.setdefault(name.lower(), {})
        children = _children(element)
        for child, key in THRESHOLDS:
            number = reader.value(children, f"TestDesignInfo/Thresholds[{name}]", child, values.number, "the default is used")
            if number is not None:
                chosen[key] = number
    if any(sets.values()):
        result.data.setdefault("thresholds", {}).update({name: chosen for name, chosen in sets.items() if chosen})


def _log_interval(reader: _Reader, design: dict[str, list[ET.Element]], result: XmlImport) -> None:
    """LogInterval (ms): the interval a maximum latency is averaged over, in Jetwise's whole 15 s steps."""
    milliseconds = reader.value(design, "TestDesignInfo", "LogInterval", values.whole, "15 s is used")
    if milliseconds is None:
        return
    seconds = min(3600.0, max(LOG_INTERVAL_STEP_S, round(milliseconds / 1000 / LOG_INTERVAL_STEP_S) * LOG_INTERVAL_STEP_S))
    if seconds * 1000 != milliseconds:
        result.notes.append(f"LogInterval {milliseconds:,} ms: maximum latencies are averaged over {seconds:g} s (Jetwise "
                            f"averages over whole {LOG_INTERVAL_STEP_S:g} s steps, up to an hour)")
    result.data.setdefault("thresholds", {})["log_interval_s"] = seconds


def _profile(reader: _Reader, profile: dict[str, list[ET.Element]], result: XmlImport) -> None:
    data, section = result.data, "ExchangeProfile"
    mailbox: dict[str, Any] = {"headroom_percent": 0.0}  # Jetstress's MailboxIops is the figure tested, headroom included
    for name, key, convert in (("MailboxCount", "mailboxes", values.whole), ("MailboxQuota", "mailbox_size_mb", values.whole),
                               ("MailboxIops", "iops_per_mailbox", values.number)):
        reader.put(mailbox, key, profile, section, name, convert, "Jetwise's default is used")
    data["profile"] = mailbox
    reader.put(data, "thread_count", profile, section, "ThreadCount", values.whole, "")
    reader.put(data, "database_source", profile, section, "DatabaseSource", values.source, "new databases are created")
    sizing = "the mailbox profile scenario is used"
    if reader.put(data, "scenario", profile, section, "DatabaseSizing", values.sizing, sizing) == "disk_throughput":
        text = _text(profile["DatabaseSizing"][0])
        result.notes.append(f"DatabaseSizing {text[:40]!r}: the disk subsystem throughput scenario (no target; tuning "
                            "finds the most transactional IOPS that pass)")
    for name, key, convert in (("CapacityPercentage", "capacity_percent", values.number),
                               ("ThroughputPercentage", "throughput_percent", values.number),
                               ("DatabaseCopyCount", "copies_per_database", values.whole)):
        reader.put(data, key, profile, section, name, convert, "the default is used")
    _instances(profile.get("EseInstances", []), result)


def _instances(elements: list[ET.Element], result: XmlImport) -> None:
    instances = [child for element in elements for child in element if _local(child.tag) == "EseInstance"]
    if not instances:
        result.warn("ExchangeProfile/EseInstances", "lists no database: give each database's folder and log folder "
                                                    "before running")
        return
    databases, backups = [], []
    for number, instance in enumerate(instances, 1):
        children = _children(instance)
        paths = [_text(p) for holder in children.get("DatabasePaths", []) for p in holder if _local(p.tag) == "Path"]
        paths = [p for p in paths if p]
        log = _text(children.get("LogPath", [None])[0])
        where = f"ExchangeProfile/EseInstances/EseInstance[{number}]"
        if not paths or not log:
            missing = " and ".join(w for w, v in (("DatabasePaths/Path", paths), ("LogPath", log)) if not v)
            result.warn(where, f"has no {missing}; this instance is left out")
            continue
        databases.append({"database_path": paths[0], "log_path": log, "more_database_paths": paths[1:]})
        backup = _text(children.get("DatabaseBackupPath", [None])[0])
        if backup:
            backups.append(backup)
    if databases:
        result.data["databases"] = databases
    if result.backup_to_disk and backups:
        result.data["backup_path"] = backups[0]


def _system(reader: _Reader, params: dict[str, list[ET.Element]], result: XmlImport) -> None:
    for name, supported, words in (("DatabasePageSize", 32768, "Jetwise's pages are 32,768 bytes"),
                                   ("LogFileSize", 1024, "Jetwise's log files are 1,024 KB")):
        number = reader.value(params, "JetSystemParams", name, values.whole, words)
        if number is not None and number != supported:
            result.warn(f"JetSystemParams/{name}", f"is {number}; {words}, as Jetstress 2013's")
    reader.put(result.data, "dbm_throttling_ms", params, "JetSystemParams", "DBMThrottling", values.whole,
               "maintenance sleeps 100 ms a batch")


def finish_threads(result: XmlImport) -> None:
    """The Exchange version the file's Jetstress qualifies (JetstressVersionGenerated 14.x: Jetstress 2010, Exchange
    2010; otherwise Jetstress 2013), and its thread count: Jetstress 2010 counts threads per database, 2013 for the
    server, so a 2010 count is multiplied out."""
    version = version_of_jetstress(result.version)
    result.data.setdefault("profile", {})["exchange"] = version.value
    threads, databases = result.data.get("thread_count"), len(result.data.get("databases", []))
    if generation(version).threads_per_database and isinstance(threads, int) and databases:
        result.data["thread_count"] = threads * databases
        result.threads_per_database = threads


def _not_in_the_file() -> str:
    fields = TestConfig.model_fields
    warmup = float(fields["warmup_s"].default)
    least, most = float(fields["database_cache_min_mb"].default), float(fields["database_cache_max_mb"].default)
    return (f"a JetstressConfig.xml holds no warm-up and no database cache size: Jetwise's defaults are used, a "
            f"{compact_duration(warmup)} warm-up and a {least:,.0f} MB to {most:,.0f} MB cache for the server (Jetstress's "
            "own); set them in More settings, or save a Jetwise configuration, which keeps them")
