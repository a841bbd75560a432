"""The Review page's words: every problem with its field and the page it is edited on, and the test at a glance.

Rendered as HTML for a QTextBrowser. A problem's field is named as the form names it
("Database 2 log path (Databases and logs page)"); where it is edited comes from the pages'
own declarations of the options they edit.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ValidationError

from engine.model.config import MailboxProfile, TestConfig, TestType
from engine.model.derive import cache_words, target_words, thread_weight_words
from engine.model.fields import FieldAddress
from engine.model.options import option_at
from engine.model.sizing import LOG_FILE_SIZE_BYTES, LOG_FILES_PER_DATABASE
from engine.model.units import compact_duration, format_bytes, sentence
from engine.model.validation import HOSTS_FIELD, RUN_FOLDER_FIELD, Problem, Severity
from engine.results.verdict import maximum_basis
from engine.run.scan_plan import scan_order_words
from engine.run.sweep import plan_sweep
from engine.tuning.advisor import Advice
from engine.tuning.tuner import ANSWERED, MAX_RUNS, calibration_rule
from ui.scans import type_words
from ui.widgets.style import ERROR_STYLE, WARNING_STYLE

CREATE_RATE_BYTES_PER_S = 150e6  # a conservative estimate for the review; the run measures the real rate


def placed_at(field: str, placed: Mapping[str, str]) -> str | None:
    """Where the engineer edits `field` ("Mailbox profile page"), or None when only a file sets it."""
    found = option_at(field)
    if found is not None and found.path in placed:
        return placed[found.path]
    head = field.split(".")[0].split("[")[0]
    for path, where in placed.items():  # a problem of a whole group: the page of its options
        if path == head or path.startswith((head + ".", head + "[")):
            return where
    return None


def field_words(field: str, placed: Mapping[str, str]) -> str:
    """A problem's field in the words of the form: "Database 2 log path (Databases and logs page)"."""
    if not field:
        return "Configuration"
    if field == "session":
        return "Tuning session (Review page)"
    if field == RUN_FOLDER_FIELD:
        return "Run folder (where the window keeps each run's results)"
    if field == HOSTS_FIELD:
        return "Servers (Servers page)"
    where = placed_at(field, placed)
    address = FieldAddress.of(field)
    if address.row is not None and address.column is not None:
        name = f"Database {address.row + 1}" + {"database_path": " path", "log_path": " log path"}.get(address.column, "")
        if address.item is not None:  # one of its more database paths
            name += f" file {address.item + 2} path"
    else:
        titles = _titles(field)
        name = field
        if titles:  # a field of a page goes by its own name; one only a file sets, with its group
            name = titles[-1] if len(titles) == 1 or where else f"{titles[0]}: {titles[-1]}"
    return f"{name} ({where})" if where else f"{name} (in the configuration file)"


def rows_words(rows: list[int], listed: int) -> str:
    """Rows in a few words: "row 1", "rows 1, 3", past `listed` of them "rows 1, 2, 3 and 94 more"."""
    if len(rows) == 1:
        return f"row {rows[0]}"
    if len(rows) <= listed:
        return f"rows {', '.join(map(str, rows))}"
    return f"rows {', '.join(map(str, rows[:listed]))} and {len(rows) - listed} more"


def _titles(field: str) -> list[str]:
    """The titles of the model's fields along `field`'s path ("thresholds.strict.x" -> three titles)."""
    model: type[BaseModel] | None = TestConfig
    titles: list[str] = []
    for part in field.split("."):
        info = model.model_fields.get(part.split("[")[0]) if model is not None else None
        if info is None:
            return []
        titles.append(info.title or part)
        annotation = info.annotation
        model = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return titles


def problems_html(problems: list[Problem], placed: Mapping[str, str]) -> str:
    """The problems as a list: errors in red, warnings in amber, each with its field and page."""
    if not problems:
        return ""
    items = []
    for problem in problems:
        error = problem.severity == Severity.ERROR
        style = ERROR_STYLE if error else WARNING_STYLE
        where = field_words(problem.field, placed)
        items.append(f"<li><span style='{style}'><b>{'Error' if error else 'Warning'}</b> — {html.escape(where)}: "
                     f"{html.escape(problem.message)}</span></li>")
    return f"<p><b>Before Start</b></p><ul>{''.join(items)}</ul>"


def review_html(config: TestConfig, auto_tune: bool, calibration_s: float, first: Advice | None = None,
                servers: Mapping[str, TestConfig] | None = None) -> str:
    """The plan of a test as Review shows it; in auto-tune, `first` is the advisor's first setting (the session's
    runs read), which `config` already runs; across `servers`, each server's folders (`databases_table`)."""
    mix = config.operation_mix
    total = config.database_size_bytes * config.database_file_count
    create_s = total / CREATE_RATE_BYTES_PER_S
    if config.scans:
        return scan_review_html(config) + databases_table(config, servers)
    if config.recovers:
        return recovery_review_html(config) + databases_table(config, servers)
    sweep_s = plan_sweep(config, os.cpu_count() or 1).budget_intervals * config.sample_interval_s
    running = (f"a load sweep of at most {compact_duration(sweep_s)} unless the session has one (it ends once the "
               f"latency limit is bracketed), then confirmation runs of at most {compact_duration(calibration_s)} each, "
               f"at most {MAX_RUNS} runs in all" if auto_tune
               else f"running: {compact_duration(config.warmup_s + config.duration_s)}")
    try:
        shaped = calibration_rule(config, calibration_s)[0] if auto_tune else None
    except ValidationError:  # Review lists why at its field: the calibration length is not valid for this test
        shaped = None
    if shaped is not None:
        duration = (f"each confirmation run: {compact_duration(shaped.warmup_s)} warm-up + up to "
                    f"{compact_duration(shaped.duration_s)} measured, judged once settled (the planned "
                    f"{compact_duration(config.duration_s)} is for the full-length test)")
    else:
        duration = f"{compact_duration(config.warmup_s)} warm-up + {compact_duration(config.duration_s)} measured"
    aim = "the most that passes is confirmed" if config.seeks_maximum else "a setting passes"
    setting = f"{config.thread_count} threads, SluggishSessions {config.sluggish_sessions}"
    if not auto_tune:
        tuning = setting
    elif first is not None and first.status == "cache_held":  # no setting tests the storage: Start runs nothing
        tuning = f"Auto-tune runs nothing: {html.escape(sentence(first.rationale))}"
    elif first is not None and first.status in ANSWERED:  # no calibration run: the answer runs as planned
        tuning = (f"Auto-tune: this session already has its answer ({first.status}), {setting}, run at the planned "
                  f"length ({html.escape(first.rationale)})")
    else:
        why = f" ({html.escape(first.rationale)})" if first is not None else ""
        tuning = f"Auto-tune (calibration runs until {aim}), starting at {setting}{why}"
    return f"""
<h3>{type_words(config.test_type)} test, {config.threshold_set_name} thresholds</h3>
<table cellpadding="3">
<tr><td><b>Exchange version</b></td><td>{html.escape(config.generation.words, quote=False)}</td></tr>
<tr><td><b>Target</b></td><td>{target_cell(config)}{across_target(config, servers)}</td></tr>
<tr><td><b>Databases</b></td><td>{sizes_cell(config)},
 {config.copies_per_database} cop{'y' if config.copies_per_database == 1 else 'ies'} each,
 {config.database_source.value}</td></tr>
<tr><td><b>Thread tuning</b></td><td>{tuning}</td></tr>
<tr><td><b>Thread weight</b></td><td>{thread_weight_words(config.thread_weight)}</td></tr>
<tr><td><b>Operation mix</b></td><td>inserts {mix.insert_percent:g} %, deletes {mix.delete_percent:g} %,
 replaces {mix.replace_percent:g} %, reads {mix.read_percent:g} %, lazy commits {mix.lazy_commit_percent:g} %</td></tr>
<tr><td><b>Database cache</b></td><td>{cache_words(config).removeprefix("database cache ")}</td></tr>
<tr><td><b>Background maintenance</b></td><td>{'on' if config.background_maintenance else 'off'}</td></tr>
<tr><td><b>I/O errors</b></td><td>{html.escape(config.io_error_words[:1].upper() + config.io_error_words[1:])}</td></tr>
<tr><td><b>Maximum latency</b></td><td>{maximum_basis(config).removeprefix('the ')} of each instance</td></tr>
<tr><td><b>Duration</b></td><td>{duration}</td></tr>
<tr><td><b>Estimated time</b></td><td>creating the databases: about {compact_duration(max(1, round(create_s)))}
 (at {CREATE_RATE_BYTES_PER_S / 1e6:.0f} MB/s; a Jetwise database of this size already there is reused);
 {running}</td></tr>
</table>
""" + databases_table(config, servers)


def plan_html(data: Mapping[str, object]) -> str:
    """What the draft plans while it is not valid yet (an imported file whose folders are not this machine's): the
    test, its target and duration, its databases, each as far as its own values allow."""
    rows = []
    kind = data.get("test_type")
    if isinstance(kind, str) and kind in set(TestType):
        rows.append(("Test", f"{type_words(TestType(kind))} test"))
    try:
        profile = MailboxProfile.model_validate(data.get("profile"))
    except ValidationError:
        pass
    else:
        if data.get("scenario") != "disk_throughput":
            rows.append(("Target", f"{profile.target_iops:,.1f} transactional IOPS ({profile.mailboxes:,} mailboxes × "
                                   f"{profile.iops_per_mailbox:g} IOPS + {profile.headroom_percent:g} %)"))
    duration = data.get("duration_s")
    if isinstance(duration, int | float) and not isinstance(duration, bool) and duration > 0:
        rows.append(("Duration", f"{compact_duration(float(duration))} measured"))
    databases = data.get("databases")
    if isinstance(databases, list) and databases:
        rows.append(("Databases", f"{len(databases)}: " + ", ".join(
            html.escape(str(d.get("database_path", ""))) for d in databases[:4] if isinstance(d, dict))
            + (" …" if len(databases) > 4 else "")))
    cells = "".join(f"<tr><td><b>{name}</b></td><td>{value}</td></tr>" for name, value in rows)
    return f"<h3>What it plans</h3><table cellpadding='3'>{cells}</table>" if rows else ""


def sizes_cell(config: TestConfig) -> str:
    """The databases' sizes as a review shows them: "2 × 100.0 MB (200.0 MB)", and the files of instances with more."""
    files, each = config.database_file_count, format_bytes(config.database_size_bytes)
    total = format_bytes(config.database_size_bytes * files)
    if files == config.database_count:
        return f"{files} × {each} ({total})"
    return f"{files} database files × {each} in {config.database_count} instances ({total})"


def target_cell(config: TestConfig) -> str:
    """The target a review shows: the profile's, or the disk throughput scenario's aim."""
    p = config.profile
    if config.seeks_maximum:
        return (f"none: disk throughput, the most transactional IOPS that pass; mailboxes planned at "
                f"{config.throughput_percent:g} % of it, {p.iops_per_mailbox:g} IOPS each")
    return (f"{config.target_transactional_iops:,.1f} transactional IOPS ({p.mailboxes:,} mailboxes × "
            f"{p.iops_per_mailbox:g} IOPS + {p.headroom_percent:g} %)")


def across_target(config: TestConfig, servers: Mapping[str, TestConfig] | None) -> str:
    """Across servers, what the target above is (each server's share) and the whole test's, as it is judged."""
    if not servers or config.seeks_maximum:
        return ""
    return (f" on each server; {config.target_transactional_iops * len(servers):,.1f} across the {len(servers)} servers, "
            "as the test is judged")


def databases_table(config: TestConfig, servers: Mapping[str, TestConfig] | None = None) -> str:
    """Each instance with its database folders (one per database file) and its log folder; across `servers` (each
    server's configuration: this server's folders, or its own), each server with its instances and folders."""
    if not servers:
        return _instances_table("Databases", config)
    plural = "s" if len(servers) != 1 else ""
    said = (f"<h4>Servers</h4><p>Across {len(servers)} server{plural}, each running these databases through its agent "
            "in the folders below; the agent checks them on its server when the test starts.</p>")
    return said + "".join(_instances_table(f"{html.escape(host)}: {_whose(each, config)}", each)
                          for host, each in servers.items())


def _whose(each: TestConfig, config: TestConfig) -> str:
    """Whose folders a server's configuration runs in: this server's, or its own."""
    def folders(of: TestConfig) -> list[list[Path]]:
        return [[*spec.database_paths, spec.log_path] for spec in of.databases]

    return "this server's folders" if folders(each) == folders(config) else "its own folders"


def _instances_table(title: str, config: TestConfig) -> str:
    rows = "".join(
        f"<tr><td>{config.instance_name(i)}</td><td>{'<br>'.join(html.escape(str(p)) for p in s.database_paths)}</td>"
        f"<td>{html.escape(str(s.log_path))}</td></tr>"
        for i, s in enumerate(config.databases)
    )
    return (f"<h4>{title}</h4><table cellpadding='3' border='1' cellspacing='0'><tr><th>Instance</th>"
            f"<th>Database path</th><th>Log path</th></tr>{rows}</table>")


def scan_review_html(config: TestConfig) -> str:
    """What Start runs for a Database checksum or Database backup: what is read, what is judged, how long it takes."""
    total = config.database_size_bytes * config.database_file_count
    checksum = config.test_type == TestType.DATABASE_CHECKSUM
    plural = "s" if config.database_count != 1 else ""
    reads = f"sequential {config.scan_read_bytes // 1024} KiB reads"
    if checksum:
        what = (f"Every page of the {config.database_count} database{plural} read in {reads} and verified (checksum, "
                f"page number, database), then each instance's {LOG_FILES_PER_DATABASE} log files sector by sector")
        judged = "Pass when every page is read and no database page and no log sector is damaged"
    else:
        what = f"Each of the {config.database_count} database{plural} read through in {reads}, every page verified"
        judged = "Pass when every page is read and none is damaged"
    copy = (f"each database copied to {html.escape(str(config.backup_path))} (Jetwise001.jwbak and so on; an earlier "
            "copy there is replaced)" if config.backup_path is not None
            else "none: read only (a backup folder on the Test type page writes a copy)")
    backup = f"<tr><td><b>Backup copy</b></td><td>{copy}</td></tr>" if not checksum else ""
    read_s = max(1, round(total / CREATE_RATE_BYTES_PER_S))
    return f"""
<h3>{type_words(config.test_type)} test</h3>
<table cellpadding="3">
<tr><td><b>Reads</b></td><td>{what}; {scan_order_words(config)}</td></tr>
{backup}<tr><td><b>Databases</b></td><td>{sizes_cell(config)} as this profile sizes them;
 Jetwise databases already in the folders are read as they are.
 Run it after a Performance or Stress test on these folders</td></tr>
<tr><td><b>Judged</b></td><td>{judged}; no IOPS target and no latency thresholds</td></tr>
<tr><td><b>Thread tuning</b></td><td>does not apply</td></tr>
<tr><td><b>Estimated time</b></td><td>as long as reading {format_bytes(total)} takes: about {compact_duration(read_s)}
 at {CREATE_RATE_BYTES_PER_S / 1e6:.0f} MB/s (databases not there yet are created first, about as long again)</td></tr>
</table>
"""


def recovery_review_html(config: TestConfig) -> str:
    """What Start runs for a Soft recovery: the load that generates the log files, the crash, the replay, the verdict."""
    files = config.log_files_to_replay
    count = config.database_count
    total = config.database_size_bytes * config.database_file_count
    log_space = files * LOG_FILE_SIZE_BYTES
    create_s = max(1, round((total + log_space * count) / CREATE_RATE_BYTES_PER_S))
    mix = config.operation_mix
    plural = "s" if count != 1 else ""
    return f"""
<h3>{type_words(config.test_type)} test, {config.threshold_set_name} thresholds for its load</h3>
<table cellpadding="3">
<tr><td><b>Log generation</b></td><td>Each of the {count} instance{plural} generates {files:,} log files of 1 MiB under
 the transactional load: {config.thread_count} threads, SluggishSessions {config.sluggish_sessions} (auto-tune does not
 apply), {target_words(config.target_transactional_iops)}; background maintenance
 {'on' if config.background_maintenance else 'off'}</td></tr>
<tr><td><b>Crash and replay</b></td><td>Then the databases stop without a clean checkpoint, as a crash stops them, and
 each instance replays its {files:,} log files into its database, redoing the updates the crash lost; every page the
 replay wrote is read back afterwards</td></tr>
<tr><td><b>Log space</b></td><td>{files:,} MiB per instance, free on its log path ({files * count:,} MiB in all)</td></tr>
<tr><td><b>Judged</b></td><td>The log generation's latencies against the {config.threshold_set_name} thresholds, as a
 Performance test's; then every instance must replay every log file with no damaged log sector or page and no lost
 flush, taking at most {config.replay_limit_s:g} s on average to play one log file</td></tr>
<tr><td><b>Databases</b></td><td>{sizes_cell(config)}</td></tr>
<tr><td><b>Operation mix</b></td><td>inserts {mix.insert_percent:g} %, deletes {mix.delete_percent:g} %,
 replaces {mix.replace_percent:g} %, reads {mix.read_percent:g} %, lazy commits {mix.lazy_commit_percent:g} %</td></tr>
<tr><td><b>Estimated time</b></td><td>Creating the databases and log files: about {compact_duration(create_s)}
 (at {CREATE_RATE_BYTES_PER_S / 1e6:.0f} MB/s; existing Jetwise databases are reused); then as long as the load takes to
 write {files:,} log files per instance; then the replay, which passes within {files:,} × {config.replay_limit_s:g} s =
 {compact_duration(files * config.replay_limit_s)} per instance. No warm-up, and the duration is not used</td></tr>
</table>
"""
