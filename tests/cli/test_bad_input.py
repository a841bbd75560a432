"""Bad input on the command line: a message saying what and where, exit code 2, never a traceback.

Each case is a command line as a field engineer might type it, with the words its message must
hold. `{name}` in a case is a file or folder made for it in a scratch folder (see PLACES);
`store=` names the run store the case finds. docs/bad-input.md is the table of every case
with the message it gives, made from this file:

    QT_QPA_PLATFORM=offscreen python -m tests.cli.test_bad_input
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.cli import run_cli
from app.cli.console import ConsoleRenderer
from engine.hosts.roster import ROSTER_FILE, RosterFile
from engine.hosts.trust import issue, new_authority
from engine.io.config_file import save_config
from engine.io.log_files import prepare_logs
from engine.io.pages import new_database_id
from engine.io.platform import default_backend
from engine.io.safety import make_folders, write_text
from engine.model.config import SCHEMA_VERSION, TestConfig, TestType, default_config
from engine.model.jetstress.writing import write_xml
from engine.model.validation import Problem, Severity
from engine.protocol import ExitCode, LogEvent
from engine.store.paths import DATA_DIR_ENV, STORE_FILE, hosts_folder
from engine.store.sqlite import Store

DOC = Path(__file__).resolve().parents[2] / "docs" / "bad-input.md"
REGENERATE = "QT_QPA_PLATFORM=offscreen python -m tests.cli.test_bad_input"
MOST_LINES = 24  # a message fits a screen: never the file, or every item of a list, it is about
MOST_CHARACTERS = 2_000
NUL = "\x00"


# The places a case names -----------------------------------------------------------------------------

def _write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def good_config(folder: Path) -> TestConfig:
    """A small valid configuration with its folders below `folder` (which it does not create)."""
    return default_config(folder, databases=2, profile={"mailboxes": 10, "mailbox_size_mb": 1}, database_cache_min_mb=1.0,
                          database_cache_max_mb=2.0)  # a cache smaller than the databases: a test that can pass


def good_data(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(good_config(folder).model_dump_json())
    return data


def _config(folder: Path) -> Path:
    path = folder / "ok.json"
    save_config(good_config(folder), path)
    return path


def _edited(name: str, edit: Callable[[dict[str, object]], object]) -> Callable[[Path], Path]:
    """A valid configuration as an engineer's editor left it: `edit` changes the data in place."""

    def make(folder: Path) -> Path:
        data = good_data(folder)
        edit(data)
        return _write(folder, name, json.dumps(data, indent=2))

    return make


def _databases(data: dict[str, object]) -> list[dict[str, str]]:
    return data["databases"]  # type: ignore[return-value]


def _a_third(data: dict[str, object]) -> None:
    """A third database added by copying the second's lines and renumbering them, the thread count left alone."""
    second = _databases(data)[1]
    _databases(data).append({key: str(Path(value).with_name(Path(value).name.replace("2", "3"))) if isinstance(value, str)
                             else value for key, value in second.items()})


def _cut_short(text: str) -> str:
    """A configuration copied in part: everything before the thread count, wherever its folders are."""
    return text[: text.index('"thread_count"')]


def _a_file(folder: Path) -> Path:
    return _write(folder, "a-file", "not a folder")


def _below_a_file(folder: Path) -> Path:
    """A configuration whose first database's folder is below a file (a-file/DB1), as a path typed one level off gives."""
    data = good_data(folder)
    _databases(data)[0]["database_path"] = str(_a_file(folder) / "DB1")
    return _write(folder, "below-a-file.json", json.dumps(data, indent=2))


def _used_folder(folder: Path) -> Path:
    used = folder / "used"
    used.mkdir()
    _write(used, "result.json", json.dumps({"schema_version": 2}))
    return used


def _store(folder: Path, name: str, content: bytes | None = None) -> Path:
    """A data folder whose run store file holds `content` (None: a real, empty store)."""
    data = folder / name
    data.mkdir()
    if content is None:
        Store(data / STORE_FILE).close()
    else:
        _write(data, STORE_FILE, content)
    return data


def _truncated_store(folder: Path) -> Path:
    data = _store(folder, "truncated-store")
    whole = (data / STORE_FILE).read_bytes()
    (data / STORE_FILE).write_bytes(whole[: len(whole) // 3])  # a copy cut short: the header survives, the tables do not
    return data


def _sqlite_store(folder: Path, name: str, statement: str) -> Path:
    data = folder / name
    data.mkdir()
    with contextlib.closing(sqlite3.connect(data / STORE_FILE)) as db:
        db.execute(statement)
        db.commit()
    return data


def _junk_samples(folder: Path) -> Path:
    """A run folder whose samples file is not one: a copy gone wrong."""
    run = folder / "junk-run"
    run.mkdir()
    _write(run, "config.json", _config(folder).read_text())
    _write(run, "samples.sqlite", "junk")
    return run


def _folder_store(folder: Path) -> Path:
    data = folder / "folder-store"
    (data / STORE_FILE).mkdir(parents=True)
    return data


def _roster(folder: Path) -> Path:
    """A controller's data folder whose roster names an authority with no key in the credential store: as a Linux
    controller's after it restarted."""
    authority = new_authority("lost")
    roster = RosterFile(authority_pem=authority.cert_pem, controller_pem=issue(authority, "controller", "controller").cert_pem)
    make_folders(folder / "controller" / "hosts")
    write_text(folder / "controller" / "hosts" / ROSTER_FILE, roster.model_dump_json(indent=1))
    return folder / "controller"


def _orphan_logs(folder: Path) -> Path:
    """A checksum's configuration whose first database was removed and whose logs stayed beside it."""
    config = good_config(folder).model_copy(update={"test_type": TestType.DATABASE_CHECKSUM})
    for spec in config.databases:
        make_folders(spec.log_path)
    prepare_logs(default_backend(), config.databases[0].log_path, 0, new_database_id(), unbuffered=False, count=1)
    save_config(config, folder / "checksum.json")
    return folder / "checksum.json"


def _old_suite_across(folder: Path) -> Path:
    """A suite across servers as an earlier Jetwise recorded it (suite record 2): its servers beside its configuration."""
    stages = [{"test_type": kind} for kind in ("performance", "stress", "database_checksum", "database_backup",
                                                 "soft_recovery")]
    record = {"suite_version": 2, "config": good_data(folder), "performance_s": 7200.0, "stress_s": 86400.0,
              "hosts": ["mbx1", "mbx2"], "stages": stages}
    make_folders(folder / "old-suite")
    return _write(folder / "old-suite", "suite.json", json.dumps(record)).parent


PLACES: dict[str, Callable[[Path], Path]] = {
    "config": _config,
    "xml": lambda f: _write(f, "JetstressConfig.xml", write_xml(good_config(f), auto_tune=False)),
    "a_file": _a_file,
    "used": _used_folder,
    "binary": lambda f: _write(f, "binary.json", bytes(range(128, 256)) * 8),
    "empty": lambda f: _write(f, "empty.json", ""),
    "not_json": lambda f: _write(f, "settings.ini", "[test]\nmailboxes = 1000\n"),
    "truncated": lambda f: _write(f, "cut.json", _cut_short(_config(f).read_text())),
    "a_list": lambda f: _write(f, "list.json", json.dumps([good_data(f)])),
    "huge": lambda f: _write(f, "samples.jsonl", (json.dumps({"interval": 1, "phase": "measure"}) + "\n") * 40_000),
    "deep": lambda f: _write(f, "deep.json", '{"profile": ' * 50_000 + "1" + "}" * 50_000),
    "wrong_type": _edited("wrong-type.json", lambda d: d.update(thread_count="eight")),
    "unknown": _edited("unknown.json", lambda d: d.update(mailboxes=5000)),
    "many_unknown": _edited("many-unknown.json", lambda d: d.update({f"setting_{n}": n for n in range(5000)})),
    "negative": _edited("negative.json", lambda d: d.update(duration_s=-5)),
    "no_databases": _edited("no-databases.json", lambda d: d.update(databases=[])),
    "too_many_databases": _edited("many-databases.json", lambda d: d.update(databases=_databases(d) * 150)),
    "true_seconds": _edited("true-seconds.json", lambda d: d.update(duration_s=True)),
    "nan": lambda f: _write(f, "nan.json", _config(f).read_text().replace('"duration_s": 7200.0', '"duration_s": NaN')),
    "big_number": _edited("big-number.json", lambda d: d["profile"].update(mailboxes=10**400)),  # type: ignore[attr-defined]
    "newer": _edited("newer.json", lambda d: d.update(schema_version=SCHEMA_VERSION + 1)),
    "missing_log": _edited("missing-log.json", lambda d: _databases(d)[1].pop("log_path")),
    "shared_folder": _edited("shared.json", lambda d: _databases(d)[1].update(database_path=_databases(d)[0]["database_path"])),
    "three_for_two": _edited("three-databases.json", _a_third),
    "more_threads": _edited("more-threads.json", lambda data: data.update(thread_count=8)),
    "nul_path": _edited("nul-path.json", lambda d: _databases(d)[0].update(database_path="D:\\DB1\x00")),
    "bad_mix": _edited("bad-mix.json", lambda d: d["operation_mix"].update(read_percent=50)),  # type: ignore[attr-defined]
    "bad_result": lambda f: _write(_used_folder(f), "result.json", json.dumps({"schema_version": 2})).parent,
    "not_sqlite": lambda f: _store(f, "not-sqlite", b"Jetwise run store (copied as text)\n" * 200),
    "truncated_store": _truncated_store,
    "foreign_store": lambda f: _sqlite_store(f, "foreign-store", "CREATE TABLE sessions (owner TEXT)"),
    "newer_store": lambda f: _sqlite_store(f, "newer-store", "PRAGMA user_version = 99"),
    "folder_store": _folder_store,
    "junk_samples": lambda f: _junk_samples(f),
    "huge_integer": lambda f: _write(f, "huge-integer.json", _config(f).read_text().replace(
        '"thread_count": 2', '"thread_count": ' + "9" * 5000)),
    "set_twice": lambda f: _write(f, "twice.json", _config(f).read_text().replace(
        '"thread_count": 2', '"thread_count": 1, "thread_count": 2')),
    "roster": _roster,
    "old_suite_across": _old_suite_across,
    "orphan_logs": _orphan_logs,
    "below_a_file": _below_a_file,
}


@dataclass(frozen=True)
class Case:
    """A command line, the words its message must hold, and its exit code."""

    arguments: tuple[str, ...]
    words: str
    code: int = ExitCode.INVALID
    store: str | None = None  # the place (of PLACES) that is the run store's data folder

    @property
    def title(self) -> str:
        """The command line as typed (an empty or spaced argument quoted), cut short if a case types a page."""
        line = " ".join(a if a and " " not in a else repr(a) for a in ("jetwise", *self.arguments)).replace(NUL, "\\x00")
        return line if len(line) <= 120 else line[:119] + "…"


def case(*arguments: str, says: str, store: str | None = None, code: int = ExitCode.INVALID) -> Case:
    return Case(arguments, says, code, store)


# Where files go: one rule for every command that writes where it is told (engine.io.safety.destination_problem).
WHERE_FILES_GO = [
    case("init", "/t.json", says="/t.json is in /, the root of its file system; write it in a folder of its own"),
    case("import-xml", "{xml}", "-o", "/t.json", says="/t.json is in /, the root of its file system"),
    case("export-xml", "{config}", "-o", "/t.xml", says="/t.xml is in /, the root of its file system"),
    case("export", "{used}", "--output", "/s.csv", says="--output /s.csv is in /, the root of its file system"),
    case("report", "{used}", "--html", "/r.html", says="--html /r.html is in /, the root of its file system"),
    case("report", "{used}", "--pdf", "/usr/r.pdf", says="--pdf /usr/r.pdf is in /usr, a system folder (/usr); write it in a "
         "folder of its own"),
    case("report", "{used}", "--csv", "/r.csv", says="--csv /r.csv is in /, the root of its file system"),
    case("report", "{used}", "--jetstress", "/", says="--jetstress / is the root of its file system; give a folder of its own"),
    case("cmd", "/c", "{config}", "/output", "/", says="/output / is the root of its file system; give a folder of its own"),
    case("suite", "{config}", "--output", "/", says="--output / is the root of its file system; give a folder of its own"),
    case("tune", "{config}", "--output", "/", says="--output / is the root of its file system; give a folder of its own"),
    case("engine", "{config}", "--output", "/", says="/ is the root of its file system; give a folder of its own"),
    case("hosts", "add", "mbx1", "--folder", "/", says="--folder / is the root of its file system; give a folder of its own"),
]

CASES = [
    # init: where the file goes
    case("init", "{tmp}/missing/t.json", says="the folder {tmp}/missing does not exist"),
    case("init", "{a_file}/t.json", says="the folder {a_file} is a file, not a folder"),
    case("init", "{tmp}", "--force", says="is a folder; give the file to write"),
    case("init", "{tmp}/t.json", "--scenario", "disk",
         says="--scenario: invalid choice: 'disk' (choose from 'mailbox_profile', 'disk_throughput')"),
    case("init", "{config}", says="{config} exists; use --force to overwrite it"),
    case("init", "", says="OUT.json: the path is empty"),
    case("init", "{tmp}/newdir/", says="{tmp}/newdir/ ends with a separator, so it names a folder; give the file to write"),
    case("init", f"{{tmp}}/t{NUL}.json", says="OUT.json: the path holds a NUL character"),
    # init: numbers
    case("init", "{tmp}/t.json", "--databases", "100000", says="--databases: give 1 to 256 databases (got 100,000)"),
    case("init", "{tmp}/t.json", "--databases", "0", says="--databases: give 1 to 256 databases (got 0)"),
    case("init", "{tmp}/t.json", "--databases", "1.5", says="--databases takes a whole number (got '1.5')"),
    case("init", "{tmp}/t.json", "--mailboxes", "-5", says="--mailboxes: at least 1 mailbox (got -5)"),
    case("init", "{tmp}/t.json", "--mailboxes", "0", says="--mailboxes: at least 1 mailbox (got 0)"),
    case("init", "{tmp}/t.json", "--mailboxes", "1.5", says="--mailboxes takes a whole number (got '1.5')"),
    case("init", "{tmp}/t.json", "--mailboxes", "1,000", says="--mailboxes takes a whole number (got '1,000'); write it without "
         "thousands separators"),
    case("init", "{tmp}/t.json", "--mailboxes", "99999999999999999999999999",
         says="--mailboxes: at most 1,000,000,000 mailboxes"),
    case("init", "{tmp}/t.json", "--mailbox-size-mb", "1e400", says="--mailbox-size-mb takes a whole number (got '1e400')"),
    case("init", "{tmp}/t.json", "--iops-per-mailbox", "inf", says="--iops-per-mailbox: must be a finite number (got inf)"),
    case("init", "{tmp}/t.json", "--iops-per-mailbox", "nan", says="--iops-per-mailbox: must be a finite number (got nan)"),
    case("init", "{tmp}/t.json", "--iops-per-mailbox", "0,5", says="--iops-per-mailbox takes a number (got '0,5'); write it "
         "without thousands separators and with a point for decimals"),
    case("init", "{tmp}/t.json", "--threads", "0", says="--threads: at least 1 thread (got 0)"),
    case("init", "{tmp}/t.json", "--threads", "5000", says="--threads: at most 4,096 threads (got 5000)"),
    case("init", "{tmp}/t.json", "--databases", "4", "--threads", "2",
         says="--threads: 2 thread(s) cannot serve 4 databases; each database needs at least one thread"),
    case("init", "{tmp}/t.json", "--capacity-percent", "0", says="--capacity-percent: more than 0 %"),
    case("init", "{tmp}/t.json", "--capacity-percent", "150", says="--capacity-percent: at most 100 %"),
    case("init", "{tmp}/t.json", "--target-margin-percent", "100", says="--target-margin-percent: less than 100 %"),
    case("init", "{tmp}/t.json", "--cache-min-mb", "4096", "--cache-max-mb", "1024",
         says="the minimum database cache (4096 MB) is larger than the maximum (1024 MB)"),
    case("init", "{tmp}/t.json", "--copies", "17", says="--copies: at most 16 copies (got 17)"),
    case("init", "{tmp}/t.json", "--workers", "0", says="--workers: at least 1 process (got 0)"),
    case("init", "{tmp}/t.json", "--mailboxes", says="--mailboxes: expected one argument"),
    # init: words, choices and durations
    case("init", "{tmp}/t.json", "--background-maintenance", "maybe", says="--background-maintenance: say on or off (got 'maybe')"),
    case("init", "{tmp}/t.json", "--type", "backup", says="--type: invalid choice: 'backup'"),
    case("init", "{tmp}/t.json", "--exchange", "2007", says="--exchange: invalid choice: '2007' (choose from '2013', '2010')"),
    case("init", "{tmp}/t.json", "--log-files-to-replay", "1",
         says="--log-files-to-replay: at least 2 files (got 1)"),
    case("init", "{tmp}/t.json", "--replay-limit", "0", says="--replay-limit: more than 0 s"),
    case("init", "{tmp}/t.json", "--checksum-read-kib", "48", says="--checksum-read-kib: must be a multiple of 32"),
    case("init", "{tmp}/t.json", "--description", "x" * 600, says="--description: string should have at most 500 characters"),
    case("init", "{tmp}/t.json", "--duration", "2x", says="--duration: cannot read duration '2x'"),
    case("init", "{tmp}/t.json", "--duration", "", says="--duration: a duration is empty"),
    case("init", "{tmp}/t.json", "--duration", "nan", says="--duration: duration 'nan' is not a length of time"),
    case("init", "{tmp}/t.json", "--duration", "1" + "0" * 400, says="is not a length of time"),
    case("init", "{tmp}/t.json", "--duration=-5m", says="--duration: duration '-5m' must be positive"),
    case("init", "{tmp}/t.json", "--duration", "40d", says="--duration: at most 720h (got 960h)"),
    case("init", "{tmp}/t.json", "--duration", "P1M", says="years and months are not supported; use days"),
    case("init", "{tmp}/t.json", "--warmup=-1s", says="--warmup: duration '-1s' must not be negative"),
    # init: folders
    case("init", "{tmp}/t.json", "--db-path", "a", "b", "c", says="--db-path: 3 paths given for 2 databases"),
    case("init", "{tmp}/t.json", "--db-path", "", says="--db-path: an empty folder was given"),
    case("init", "{tmp}/t.json", "--log-path", f"L:\\Log{NUL}", "L:\\Log2",
         says="--log-path databases[0]: the path holds a NUL character"),
    case("init", "{tmp}/t.json", "--db-path", "{tmp}/DB", "{tmp}/DB", says="--db-path databases[1]: databases 1 and 2 share"),
    case("init", "{tmp}/t.json", "--frobnicate", says="unrecognized arguments: --frobnicate"),
    # validate: the file
    case("validate", "{binary}", says="{binary} is not a text file"),
    case("validate", "{tmp}", says="{tmp} is a folder; give the configuration file"),
    case("validate", "{tmp}/nothing.json", says="cannot read {tmp}/nothing.json: No such file or directory"),
    case("validate", "{a_file}/inner.json", says="cannot read {a_file}/inner.json: Not a directory"),
    case("validate", "", says="CONFIG: the path is empty"),
    case("validate", f"{{tmp}}/ok{NUL}.json", says="CONFIG: the path holds a NUL character"),
    case("validate", "n" * 300, says="CONFIG: the path cannot be used: File name too long"),
    case("validate", "{empty}", says="{empty} is empty; write a configuration with jetwise init"),
    case("validate", "{not_json}", says="{not_json} is not valid JSON (line 1, column 2: Expecting value)"),
    case("validate", "{truncated}", says="{truncated} is not valid JSON (line"),
    case("validate", "{a_list}", says="{a_list} holds a JSON list, not a configuration"),
    case("validate", "{huge}", says="{huge} is larger than 1.0 MB; a configuration is a small JSON file"),
    case("validate", "{deep}", says="{deep} nests its JSON too deeply to be a configuration"),
    case("validate", "{config}", "{config}", says="unrecognized arguments: {config}"),
    case("validate", says="the following arguments are required: CONFIG"),
    # import-xml and export-xml: a JetstressConfig.xml in and out
    case("import-xml", "{tmp}", says="{tmp} is a folder; give the file to read"),
    case("import-xml", "{a_list}", "-o", "{tmp}/out.json", says="cannot be read as a JetstressConfig.xml: it is not "
                                                                 "well-formed XML (line 1, column 1"),
    case("export-xml", ".", says=". is a folder; give the file to read"),
    case("export-xml", "{config}", "-o", "{config}", "--force", says="is the configuration being exported"),
    # window: a configuration to load, and --start
    case("window", "--start", says="--start needs a CONFIG to start"),
    case("window", "{tmp}", "--start", says="{tmp} is not a file"),
    # cmd: JetstressCmd's switches
    case("cmd", says="give the configuration with /c CONFIG.xml"),
    case("cmd", "{config}", says="'{config}' is not a switch; JetstressCmd's switches start with /"),
    case("cmd", "/c", says="/c takes one value (got 0: none)"),
    case("cmd", "/c", "{config}", "/threads", "eight", says="/threads takes a number (got 'eight')"),
    case("cmd", "/c", "{config}", "/threads", "2.5", says="/threads takes a whole number (got '2.5')"),
    case("cmd", "/c", "{config}", "/threads", "9" * 5000, says="/threads takes 1 to 10000 (got '99999"),
    case("cmd", "/c", "{config}", "/timeout", "1000H", says="/timeout 1000H is longer than 30 days, the longest test"),
    case("cmd", "/c", "{config}", "/timeout", "soon", says="/timeout soon:"),
    case("cmd", "/c", "{config}", "/new", "/OPEN", says="/new and /open contradict each other"),
    case("cmd", "/c", "{config}", "/pctcapacity", "0", says="/pctcapacity takes 0.001 to 100 (got '0')"),
    case("cmd", "/c", "{config}", "/throughput", "150", says="/throughput takes 0.001 to 100 (got '150')"),
    case("cmd", "/c", "{config}", "/dbpath", "{tmp}/DB1", says="give /logpath too"),
    case("cmd", "/c", "{config}", "/output", "{a_file}", says="/output {a_file} is a file"),
    case("cmd", "/c", "{config}", "/output", "{a_file}/results", says="/output {a_file}/results is below {a_file}, which is a "
         "file, not a folder"),
    case("cmd", "/c", "{config}", "/g", says="/g (generate a configuration) is not taken"),
    case("cmd", "/c", "{config}", "/c", "{config}", says="/c is given twice"),
    case("cmd", "/c", "{config}", "/bogus", says="/bogus is not one of JetstressCmd's switches (jetwise cmd /? lists them)"),
    case("cmd", "/c", "{config}", "/new", "-Verbose", says="-Verbose is not one of JetstressCmd's switches"),
    case("cmd", "/c", "{not_json}", says="{not_json} is not valid JSON"),
    case("report", "{tmp}", "--jetstress", "{a_file}", says="--jetstress {a_file} is a file, not a folder"),
    # validate: the fields in the file
    case("validate", "{wrong_type}", says="thread_count: must be a whole number (got 'eight')"),
    case("validate", "{unknown}", says="mailboxes: is not a Jetwise setting"),
    case("validate", "{many_unknown}", says="... and 4,980 more problem(s)\n{many_unknown}: 5,000 problem(s)"),
    case("validate", "{negative}", says="duration_s: more than 0 s (got -5)"),
    case("validate", "{nan}", says="duration_s: must be a finite number (got nan)"),
    case("validate", "{true_seconds}", says="duration_s: must be a number, not true"),  # not 1 s
    case("validate", "{big_number}", says="profile.mailboxes: at most 1,000,000,000 mailboxes"),
    case("validate", "{no_databases}", says="databases: list should have at least 1 item"),
    case("validate", "{too_many_databases}", says="databases: list should have at most 256 items after validation, not 300"),
    case("validate", "{newer}", says=f"schema_version: must be {SCHEMA_VERSION} (got {SCHEMA_VERSION + 1})"),
    case("validate", "{missing_log}", says="databases[1].log_path: is missing"),
    case("validate", "{shared_folder}", says="databases[1].database_path: databases 1 and 2 share"),
    case("validate", "{three_for_two}", says="thread_count: 2 thread(s) cannot serve 3 databases"),
    case("validate", "{nul_path}", says="databases[0].database_path: the path holds a NUL character"),
    case("validate", "{below_a_file}", says="databases[0].database_path: {tmp}/a-file/DB1 is below {tmp}/a-file, which is a "
         "file, not a folder"),
    case("validate", "{huge_integer}", says="{huge_integer} holds a number of thousands of digits, too long to be any setting"),
    case("validate", "{set_twice}", says="{set_twice} sets 'thread_count' twice in one object"),
    case("validate", "{bad_mix}", says="operation_mix: inserts + deletes + replaces + reads make 115 %; they must make 100 %"),
    # run
    case("run", says="give either CONFIG.json or --quick"),
    case("run", "{config}", "--quick", says="give either CONFIG.json or --quick"),
    case("run", "{config}", "--output", "{a_file}", says="--output {a_file} is a file, not a folder; a run needs a folder of "
         "its own"),
    case("run", "{config}", "--output", "{a_file}/run", says="--output {a_file}/run is below {a_file}, which is a file, not a "
         "folder; a run needs a folder of its own"),
    case("run", "{config}", "--output", "{used}", says="--output {used} already holds a run (result.json)"),
    case("run", "{config}", "--output", "", says="--output: the path is empty"),
    case("run", "{config}", "--output", "n" * 300, says="--output: the path cannot be used: File name too long"),
    case("run", "{config}", "--duration", "0s", says="--duration: duration '0s' must be positive"),
    case("run", "{config}", "--duration", "40d", says="--duration: at most 720h (got 960h)"),
    case("run", "{config}", "--duration", "1ms", "--output", "{tmp}/short",
         says="the test measures 0.001 s, less than one sample interval (1 s)"),
    case("run", "{config}", "--output", "/", says="/ is the root of its file system; give a folder of its own"),
    case("run", "{config}", "--session", "s" * 10_000, says="--session: a session's name has at most 200 characters (got 10,000)"),
    case("run", "{config}", "--mailboxes", "5", says="unrecognized arguments: --mailboxes 5"),
    case("run", "{config}", "--simulate", "floppy", says="no simulated storage profile 'floppy'; choose one of:"),
    case("run", "{wrong_type}", says="{wrong_type}: 1 problem(s)"),
    case("run", "{not_json}", says="{not_json} is not valid JSON"),
    # tune
    case("tune", "{config}", "--max-runs", "0", says="--max-runs must be at least 1 (got 0)"),
    case("tune", "{config}", "--max-runs", "2.5", says="--max-runs takes a whole number (got '2.5')"),
    case("tune", "{config}", "--calibration", "abc", says="--calibration: cannot read duration 'abc'"),
    case("tune", "{config}", "--calibration", "0", says="--calibration: duration '0' must be positive"),
    case("tune", "{config}", "--calibration", "1ms", says="--calibration: a calibration run takes 10 s to 30 days (got '1ms')"),
    case("tune", "{config}", "--calibration", "100d", says="--calibration: a calibration run takes 10 s to 30 days (got '100d')"),
    case("tune", "{config}", "--simulate", "floppy", says="no simulated storage profile 'floppy'"),
    case("tune", "{config}", "--output", "{a_file}", says="--output {a_file} is a file; the calibration runs need a folder"),
    case("tune", "{tmp}", says="{tmp} is a folder; give the configuration file"),
    case("tune", "{empty}", says="{empty} is empty"),
    # engine (the front ends' process): its bad input fails before a run begins
    case("engine", "{config}", says="the following arguments are required: --output"),
    case("engine", "{config}", "--output", "{tmp}/o", "--calibrate", "0", says="--calibrate: duration '0' must be positive"),
    case("engine", "{not_json}", "--output", "{tmp}/o", says="is not valid JSON"),
    case("engine", "n" * 300, "--output", "{tmp}/o", says="File name too long"),
    case("engine", "{config}", "--output", "n" * 300, "--simulate", "flash", says="--output: the path cannot be used: File name too long"),
    case("engine", "{config}", "--output", "{tmp}/o", "--simulate", "floppy", says="no simulated storage profile 'floppy'"),
    # report
    case("report", "{used}", "--html", "{tmp}/nowhere/r.html", says="--html {tmp}/nowhere/r.html is in a folder that does not exist"),
    case("report", "{used}", "--csv", "{tmp}", says="--csv {tmp} is a folder; give a file to write"),
    case("report", "{used}", "--html", "{a_file}/r.html", says="--html {a_file}/r.html is below {a_file}, which is a file, not "
         "a folder; give a file to write"),
    case("report", "{junk_samples}", says="{junk_samples} holds samples Jetwise cannot read"),
    case("report", "no-such-run", says="no-such-run is neither a run folder nor a run id in the store"),
    case("report", "", says="RUN: the path is empty"),
    case("report", "{tmp}", says="{tmp} holds no Jetwise run (result.json or config.json is missing)"),
    case("report", "{bad_result}", says="{bad_result}/result.json cannot be read as a Jetwise run's result.json: run_id: is "
         "missing"),
    case("report", "no-such-run", "--page-size", "a3", says="--page-size: invalid choice: 'a3'"),
    # history
    case("history", "--session", "no such session", says="no tuning session 'no such session' in"),
    case("history", "extra", says="unrecognized arguments: extra"),
    # the run store, as found on the machine
    case("history", store="not_sqlite", says="the run store {not_sqlite}/jetwise.sqlite3 is damaged or is not a Jetwise store "
         "(file is not a database); rename it to keep it and Jetwise starts a new one"),
    case("history", store="truncated_store", says="the run store {truncated_store}/jetwise.sqlite3 is damaged"),
    case("report", "some-run", store="foreign_store", says="the run store {foreign_store}/jetwise.sqlite3 is damaged or is not "
         "a Jetwise store"),
    case("run", "{config}", "--simulate", "flash", store="not_sqlite", says="{not_sqlite}/jetwise.sqlite3 is damaged"),
    case("tune", "{config}", "--simulate", "flash", store="newer_store",
         says="the run store {newer_store}/jetwise.sqlite3 was written by a newer Jetwise (schema 99"),
    case("history", store="folder_store", says="cannot open the run store {folder_store}/jetwise.sqlite3"),
    # a test across servers: the controller's hosts and an agent's enrolment
    case("hosts", says="the following arguments are required: ACTION"),
    case("hosts", "remove", "mbx9", says="mbx9 is not enrolled; enrolled: none"),
    case("hosts", "check", "--timeout", "0", says="--timeout: duration '0' must be positive"),
    case("hosts", "check", says="no server enrolled: jetwise hosts add HOST"),
    case("hosts", "add", "../x", says="HOST: '../x' is not a host name or address (it holds '/'): give an RFC 1123 host "
         "name such as mbx1.contoso.com"),
    case("hosts", "add", "/srv/mbx1", says="'/srv/mbx1' is not a host name or address (it holds '/')"),
    case("hosts", "add", "", says="HOST: '' is not a host name or address (it is empty)"),
    case("hosts", "add", "mbx1.", says="'mbx1.' is not a host name or address (it has an empty label"),
    case("hosts", "add", "mbx1", "--controller", "not a url", says="--controller: 'not a url' is not a controller's address "
         "(its host 'not a url' is no host name or address: it holds ' '): give tls://HOST:PORT, such as "
         "tls://ctl.contoso.com:8786"),
    case("hosts", "add", "mbx1", "--controller", "https://ctl.contoso.com:8786", says="(it begins https://, not tls://)"),
    case("hosts", "add", "mbx1", "--folder", "{a_file}", says="--folder {a_file} is a file, not a folder"),
    case("hosts", "add", "mbx1", "--folder", "{tmp}/missing", says="--folder {tmp}/missing does not exist; give the folder "
         "to write mbx1.jwenrol in"),
    case("hosts", "add", "mbx1", "--controller", "ctl.contoso.com", says="'ctl.contoso.com' is not a controller's address (it "
         "names no port)"),
    case("hosts", "reset", says="give --yes to reset: it removes this controller's authority and every server enrolled",
         store="roster"),
    case("hosts", "check", "--port", "99999", says="--port: give a port from 1 to 65535 (got 99999)"),
    case("hosts", "check", "--port", "0", says="--port: give a port from 1 to 65535 (got 0)"),
    case("agent", "--port", "70000", says="--port: give a port from 1 to 65535 (got 70000)"),
    case("agent", says="this server is not enrolled: run jetwise agent --enrol FILE"),
    case("agent", "--enrol", "{tmp}/mbx1.jwenrol", "--code", "X", says="cannot read {tmp}/mbx1.jwenrol"),
    case("agent", "--enrol", "{config}", "--code", "X", says="is not an enrolment bundle (a .jwenrol file the controller wrote)"),
    case("agent", "--enrol", "", says="--enrol: the path is empty"),
    case("agent", "--enrol", "{tmp}/mbx1.jwenrol", says="give the bundle's one-time code with --code"),
    case("run", "{config}", "--hosts", ",", says="--hosts: name at least one server: HOST[=FILE],..."),
    case("run", "{config}", "--hosts", "mbx1,mbx1", says="'mbx1': give each server once, as HOST or HOST=FILE"),
    case("run", "--quick", "--hosts", "mbx1", says="--hosts runs CONFIG.json across servers; --quick runs on this server"),
    case("run", "{config}", "--hosts", "mbx1", says="--hosts: no server enrolled: jetwise hosts add HOST"),
    case("run", "{config}", "--hosts", "mbx1={tmp}/missing.json", says="--hosts: 'mbx1={tmp}/missing.json': "
         "{tmp}/missing.json does not exist; give the server's own configuration file"),
    case("run", "{config}", "--hosts", "mbx1=", says="--hosts: 'mbx1=': give the server's own configuration after = "
         "(HOST=FILE), or the server alone (HOST) to run CONFIG"),
    case("run", "{config}", "--hosts", "mbx1={tmp}", says="--hosts: 'mbx1={tmp}': {tmp} is a folder"),
    case("run", "{config}", "--hosts", "mbx1,MBX1", says="--hosts: 'MBX1': give each server once"),
    case("run", "{config}", "--hosts", "mbx1={more_threads}", says="--hosts mbx1={more_threads}: its thread_count is not "
         "CONFIG's"),
    case("run", "{config}", "--hosts", "../x", says="--hosts: '../x': '../x' is not a host name or address"),
    case("run", "{config}", "--hosts", "mbx1", "--port", "99999", says="--port: give a port from 1 to 65535 (got 99999)"),
    case("tune", "{config}", "--hosts", "mbx1", "--port=-1", says="--port: give a port from 1 to 65535 (got -1)"),
    case("suite", "{config}", "--hosts", "mbx1", "--port", "65536", says="--port: give a port from 1 to 65535 (got 65536)"),
    case("suite", "{config}", "--output", "{old_suite_across}", says="{old_suite_across}/suite.json is a suite across "
         "servers (mbx1, mbx2) that an earlier Jetwise kept in another form"),
    case("report", "{old_suite_across}", says="can neither resume nor report: its combined report (esrp-report.html) "
         "stays beside it"),
    case("validate", "{orphan_logs}", says="databases[0].log_path: {tmp}/Log1 holds the logs of a database that is no "
         "longer in {tmp}/DB1 (Jetwise001.jwdb)"),
    case("run", "{orphan_logs}", "--output", "{tmp}/run", says="databases[0].log_path: {tmp}/Log1 holds the logs"),
    *WHERE_FILES_GO,
    # the command itself
    case("frobnicate", says="unknown command 'frobnicate'"),
    case("tuen", "{config}", says="unknown command 'tuen'; did you mean 'tune'?"),
]

RUN_IN_THE_ROOT = next(c for c in CASES if c.arguments == ("run", "{config}", "--output", "/"))
HOSTS_ADD = [c for c in CASES if c.arguments[:2] == ("hosts", "add")]


# Running a case --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    code: int
    text: str  # what was printed, stdout then stderr, with the places' names for their paths and {time} for a time


def _named(case: Case) -> set[str]:
    found = {name for argument in case.arguments for name in re.findall(r"\{(\w+)\}", argument)}
    return found | ({case.store} if case.store else set())


def run_case(case: Case, folder: Path) -> Outcome:
    """Run `case` in `folder` (its places made there first) as an engineer would, in this process."""
    places = {"tmp": folder, **{name: PLACES[name](folder) for name in sorted(_named(case) - {"tmp"})}}
    arguments = [a.format(**places) for a in case.arguments]
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd(), os.environ.get(DATA_DIR_ENV)
    os.chdir(folder)
    if case.store:
        os.environ[DATA_DIR_ENV] = str(places[case.store])
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run_cli(arguments)
    finally:
        os.chdir(before[0])
        if before[1] is None:
            os.environ.pop(DATA_DIR_ENV, None)
        else:
            os.environ[DATA_DIR_ENV] = before[1]
    text = out.getvalue() + err.getvalue()
    for name, path in sorted(places.items(), key=lambda item: -len(str(item[1]))):
        text = text.replace(str(path), f"{{{name}}}")
    store = os.environ.get(DATA_DIR_ENV)
    if store:
        text = text.replace(store, "{store}")
    return Outcome(code, re.sub(r'"time":"[^"]*"', '"time":"{time}"', text))  # the engine's log lines are stamped


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_bad_input_is_named_and_exits_2(case: Case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    assert outcome.code == case.code, outcome.text
    assert case.words in outcome.text, outcome.text
    assert "Traceback" not in outcome.text
    assert len(outcome.text) <= MOST_CHARACTERS and outcome.text.count("\n") <= MOST_LINES, outcome.text
    assert not re.search(r"\b(error|warning): (error|warning):", outcome.text)  # a level said twice


@pytest.mark.parametrize("case", [*WHERE_FILES_GO, RUN_IN_THE_ROOT], ids=[c.title for c in [*WHERE_FILES_GO, RUN_IN_THE_ROOT]])
def test_a_command_told_to_write_in_the_root_or_a_system_folder_writes_nothing_there(case: Case, tmp_path: Path) -> None:
    """Run as root (a field engineer's administrator), nothing stops the write but the rule: / and /usr are unchanged."""
    before = set(os.listdir("/")), set(os.listdir("/usr"))
    outcome = run_case(case, tmp_path)
    assert outcome.code == ExitCode.INVALID and case.words in outcome.text, outcome.text
    assert (set(os.listdir("/")), set(os.listdir("/usr"))) == before


@pytest.mark.parametrize("case", HOSTS_ADD, ids=[c.title for c in HOSTS_ADD])
def test_a_server_refused_at_hosts_add_leaves_no_authority_and_no_bundle(case: Case, tmp_path: Path) -> None:
    """Refused before the controller's authority is made: nothing in its data folder, no bundle or scratch file."""
    assert run_case(case, tmp_path).code == ExitCode.INVALID
    assert not hosts_folder().exists() and not [p for p in tmp_path.rglob("*") if p.name != "a-file"]


def test_every_case_is_its_own() -> None:
    assert len(CASES) >= 60
    assert len({(*c.arguments, c.store) for c in CASES}) == len(CASES)  # no case counted twice


def test_a_warning_logged_during_a_run_says_warning_once() -> None:
    """The runner logs a problem in its own words, which start with its level; the console adds the level once."""
    stream = io.StringIO()
    problem = Problem("database_cache_max_mb", "the database cache holds the whole database", Severity.WARNING)
    ConsoleRenderer(stream)(LogEvent(time="2026-01-01T00:00:00+00:00", level="warning", message=str(problem)))
    assert stream.getvalue() == "   warning: database_cache_max_mb: the database cache holds the whole database\n"


# The table of every case -----------------------------------------------------------------------------

def _cell(text: str) -> str:
    return text.strip().replace("|", "\\|").replace("\n", "<br>").replace(NUL, "\\x00") or " "


def render_table(scratch: Path) -> str:
    """docs/bad-input.md: every case run in a folder of its own below `scratch`, with what it printed."""
    rows = []
    for number, each in enumerate(CASES, 1):
        folder = scratch / f"case-{number}"
        folder.mkdir()
        outcome = run_case(each, folder)
        store = f" (run store: `{{{each.store}}}`)" if each.store else ""
        command = _cell(each.title).replace("`", "'")
        rows.append(f"| {number} | `{command}`{store} | {outcome.code} | {_cell(outcome.text)} |")
    places = ", ".join(f"`{{{name}}}`" for name in PLACES)
    return "\n".join([
        "# Bad input: what Jetwise says",
        "",
        f"Regenerate with `{REGENERATE}`; tests/cli/test_bad_input.py fails while this file is stale.",
        "",
        "Every bad input a test checks, as an engineer would type it, with the exit code and the exact message. Exit codes: "
        "0 pass, 1 fail, 2 invalid input, 3 aborted or an unexpected error (written to the crash log, summarised in one line). "
        "`{tmp}` is the folder the command was typed in; the other names in braces are files and folders made there for "
        f"the case (tests/cli/test_bad_input.py, PLACES: {places}).",
        "",
        "| # | Command | Exit | Message |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
    ])


def test_the_table_of_cases_is_current(tmp_path: Path) -> None:
    assert DOC.read_text(encoding="utf-8") == render_table(tmp_path), f"docs/bad-input.md is stale: {REGENERATE}"


# What is not bad input, and what is not foreseen ------------------------------------------------------

def test_a_configuration_saved_with_a_byte_order_mark_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # Notepad's UTF-8
    assert run_cli(["validate", str(path)]) == ExitCode.PASS, capsys.readouterr()


def test_an_unexpected_error_is_one_line_and_a_crash_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.cli.validate

    def broken(*_args: object) -> None:
        raise RuntimeError("the disk driver said no")

    monkeypatch.setattr(app.cli.validate, "validate_config", broken)
    assert run_cli(["validate", str(_config(tmp_path))]) == ExitCode.ABORTED
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unexpected error: RuntimeError: the disk driver said no" in err
    log = Path(err.rsplit("the details are in ", 1)[1].strip())
    assert "RuntimeError: the disk driver said no" in log.read_text(encoding="utf-8")


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="jetwise-bad-input-") as folder:
        os.environ[DATA_DIR_ENV] = str(Path(folder) / "store")
        yield Path(folder)


if __name__ == "__main__":
    with _scratch() as scratch:
        DOC.write_text(render_table(scratch), encoding="utf-8")
    sys.stdout.write(f"wrote {DOC}\n")
