"""A JetstressConfig.xml made into a Jetwise configuration, with every value the model refuses replaced by its default.

Reading (`reading`) keeps what each element says; the model may still refuse a value (a thread
count of 0, an operation mix over 100 %). Such a value is dropped with a warning naming its element,
and Jetwise's default is used, as for an empty or junk element. What remains wrong (no database
folders at all) is an error: the file cannot be run as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.model.config import TestConfig
from engine.model.derive import with_derived_defaults
from engine.model.jetstress.reading import XmlImport, read_xml
from engine.model.validation import Problem, Severity, check_rules, errors_only, validate_data

# Jetwise's field -> the element its value came from (the longest matching prefix is used)
ELEMENT_OF = {
    "description": "TestDesignInfo/Description",
    "duration_s": "TestDesignInfo/Duration",
    "sluggish_sessions": "TestDesignInfo/SluggishSessions",
    "log_files_to_replay": "TestDesignInfo/LogFilesToReplay",
    "log_files_to_checksum": "TestDesignInfo/LogFilesToChecksum",
    "checksum_buffers_mb": "TestDesignInfo/MaximumChecksumBuffers",
    "checksum_threads": "TestDesignInfo/MaximumChecksumThreads",
    "operation_mix": "TestDesignInfo/OperationMix",
    "thresholds.strict": "TestDesignInfo/Thresholds[Strict]",
    "thresholds.lenient": "TestDesignInfo/Thresholds[Lenient]",
    "thread_count": "ExchangeProfile/ThreadCount",
    "capacity_percent": "ExchangeProfile/CapacityPercentage",
    "throughput_percent": "ExchangeProfile/ThroughputPercentage",
    "scenario": "ExchangeProfile/DatabaseSizing",
    "copies_per_database": "ExchangeProfile/DatabaseCopyCount",
    "profile.mailboxes": "ExchangeProfile/MailboxCount",
    "profile.mailbox_size_mb": "ExchangeProfile/MailboxQuota",
    "profile.iops_per_mailbox": "ExchangeProfile/MailboxIops",
    "backup_path": "ExchangeProfile/EseInstances/EseInstance/DatabaseBackupPath",
}
_MOST_TRIES = 8


@dataclass
class XmlConfig:
    """The configuration a JetstressConfig.xml gives (None when it cannot run as it is), and all said about it."""

    config: TestConfig | None
    imported: XmlImport
    errors: list[Problem] = field(default_factory=list)

    @property
    def warnings(self) -> list[Problem]:
        return self.imported.warnings

    def said(self) -> list[Problem]:
        """Everything to tell the engineer: errors, then warnings, then notes (the elements ignored last)."""
        notes = [Problem("", note, Severity.NOTE) for note in self.imported.said_notes()]
        if self.imported.ignored:
            notes.append(Problem("", "ignored (Jetwise does not model them): " + ", ".join(self.imported.ignored),
                                 Severity.NOTE))
        return [*self.errors, *self.imported.warnings, *notes]

    @property
    def auto_tune(self) -> bool:
        return self.imported.auto_tune


def _source_key(field_path: str) -> str | None:
    """The key of ELEMENT_OF a field's value came under: the longest that is the field or holds it."""
    matches = [key for key in ELEMENT_OF if field_path == key or field_path.startswith(key + ".")]
    return max(matches, key=len) if matches else None


def _drop(data: dict[str, Any], key: str) -> bool:
    """Remove the value at `key` (the whole group when it is one, such as the operation mix)."""
    *parents, leaf = key.split(".")
    holder: Any = data
    for parent in parents:
        holder = holder.get(parent) if isinstance(holder, dict) else None
    return isinstance(holder, dict) and holder.pop(leaf, None) is not None


def config_from_xml(text: str, databases: list[dict[str, str]] | None = None) -> XmlConfig:
    """The configuration in a JetstressConfig.xml's text; `databases` (folders given apart) replace its EseInstances.

    Raises `JetstressXmlError` when the text cannot be a JetstressConfig.xml."""
    imported = read_xml(text)
    data = dict(imported.data)
    if databases:
        data["databases"] = databases
        imported.warnings = [w for w in imported.warnings if not w.field.startswith("ExchangeProfile/EseInstances")]
    if not data.get("databases"):
        return XmlConfig(None, imported, [Problem("ExchangeProfile/EseInstances", "lists no database; give each "
                                                  "database's folder and log folder")])
    if "thread_count" not in data and not imported.auto_tune:
        imported.notes.append("ThreadCount is empty: the thread count comes from Microsoft's rule (target IOPS / 135, "
                              "at least one per database)")
    for _ in range(_MOST_TRIES):
        config, problems = validate_data(with_derived_defaults(data, len(data["databases"])))
        dropped = False
        for problem in problems:
            key = _source_key(problem.field)
            if key is not None and _drop(data, key):
                imported.warnings.append(Problem(ELEMENT_OF[key], f"{problem.message}; Jetwise's default is used",
                                                 Severity.WARNING))
                dropped = True
        if config is not None or not dropped:
            break
    if config is None:
        return XmlConfig(None, imported, problems)
    rules = check_rules(config)
    imported.warnings += [p for p in rules if p.severity == Severity.WARNING]
    return XmlConfig(None if errors_only(rules) else config, imported, errors_only(rules))
