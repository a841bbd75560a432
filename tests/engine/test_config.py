"""A table of bad configurations, each with the message an engineer sees."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from engine.io import preflight
from engine.io.config_file import load_config, save_config
from engine.io.file_names import database_file_path, log_file_path
from engine.io.files import prepare_database
from engine.io.log_files import prepare_logs
from engine.io.platform import UnbufferedProbe
from engine.io.platform.posix import PosixBackend
from engine.io.preflight import missing_root, validate_config
from engine.model import config as config_module
from engine.model.config import SCHEMA_VERSION, DatabaseSource, TestConfig, default_config
from engine.model.fields import FieldAddress, FieldError
from engine.model.growth import growth_bound_bytes
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import parse_duration_s
from engine.model.validation import check_rules, validate_data


def _base(tmp: Path) -> dict:
    return json.loads(default_config(tmp, databases=2).model_dump_json())


def _set(data: dict, dotted: str, value) -> dict:
    node = data
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if part.isdigit() else node[part]
    node[parts[-1]] = value
    return data


MODEL_CASES = [
    ("profile.mailboxes", 0, "profile.mailboxes", "at least 1 mailbox (got 0)"),
    ("profile.iops_per_mailbox", -0.5, "profile.iops_per_mailbox", "more than 0 IOPS (got -0.5)"),
    ("thread_count", 0, "thread_count", "at least 1 thread (got 0)"),
    ("sluggish_sessions", 0, "sluggish_sessions", "at least 1 (got 0)"),
    ("copies_per_database", 0, "copies_per_database", "at least 1 copy (got 0)"),
    ("operation_mix.read_percent", 50, "operation_mix", "make 115 %; they must make 100 %"),
    ("capacity_percent", 0, "capacity_percent", "more than 0 % (got 0"),
    ("test_type", "benchmark", "test_type", "'performance'"),
    ("duration_s", -1, "duration_s", "more than 0 s (got -1"),
    ("database_cache_min_mb", 4096, "database_cache_min_mb", "the minimum database cache (4096 MB) is larger than the maximum (3072 MB)"),
    ("database_cache_max_mb", 0, "database_cache_max_mb", "more than 0 MB (got 0"),
    ("databases.0.database_path", "", "databases[0].database_path", "enter a folder"),
    ("databases.1.log_path", "   ", "databases[1].log_path", "enter a folder"),
]


@pytest.mark.parametrize(("field", "value", "where", "words"), MODEL_CASES)
def test_bad_values_are_reported_at_their_field(tmp_path, field, value, where, words):
    config, problems = validate_data(_set(_base(tmp_path), field, value))
    assert config is None
    assert any(p.field == where and words in p.message for p in problems), problems


def test_every_problem_is_reported_at_once(tmp_path):
    data = _base(tmp_path)
    data["profile"]["mailboxes"] = -1
    data["thread_count"] = 0
    data["operation_mix"]["insert_percent"] = 90
    _, problems = validate_data(data)
    assert {p.field for p in problems} >= {"profile.mailboxes", "thread_count", "operation_mix"}


def test_unknown_setting_is_named(tmp_path):
    data = _base(tmp_path)
    data["thread_cuont"] = 3
    _, problems = validate_data(data)
    assert [(p.field, p.message) for p in problems] == [("thread_cuont", "is not a Jetwise setting")]


def test_rules_across_fields(tmp_path):
    config = default_config(tmp_path, databases=3, thread_count=2)
    config.databases[2].database_path = config.databases[0].database_path
    config.databases[1].log_path = config.databases[0].log_path
    messages = {p.field: p.message for p in check_rules(config)}
    assert "2 thread(s) cannot serve 3 databases" in messages["thread_count"]
    assert "databases 1 and 3 share" in messages["databases[2].database_path"]
    assert "databases 1 and 2 share" in messages["databases[1].log_path"]
    assert "own log folder" in messages["databases[1].log_path"]


def test_every_test_type_is_runnable(tmp_path):
    for kind in config_module.TestType:
        assert not [p for p in check_rules(default_config(tmp_path, test_type=kind)) if p.field == "test_type"]


def _env_problems(config: TestConfig, backend=None):
    problems, _ = validate_config(config, backend or PosixBackend())
    return {p.field: p.message for p in problems if p.field != "database_cache_max_mb"}  # tiny test databases fit in cache


def test_missing_folder_is_reported(tmp_path):
    config = default_config(tmp_path / "no" / "such")
    messages = _env_problems(config)
    assert "does not exist (nor does" in messages["databases[0].database_path"]


def test_missing_leaf_folder_is_fine_it_will_be_created(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 4, "mailbox_size_mb": 1})
    assert not any(f.startswith("databases[0]") for f in _env_problems(config))


def test_not_enough_free_space_says_how_much(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 10**9, "mailbox_size_mb": 10**6})
    message = next(m for f, m in _env_problems(config).items() if "free" in m)
    assert "free;" in message and "need" in message and "TB" in message


class _RefusingBackend(PosixBackend):
    def probe_unbuffered(self, directory):
        return UnbufferedProbe(False, False, "the fuse file system refuses O_DIRECT")


def test_filesystem_that_refuses_unbuffered_io_is_reported(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 4, "mailbox_size_mb": 1})
    message = _env_problems(config, _RefusingBackend())["databases[0].database_path"]
    assert "refuses O_DIRECT" in message and "allow buffered I/O" in message
    allowed = config.model_copy(update={"allow_buffered_io": True})
    assert _env_problems(allowed, _RefusingBackend()) == {}


def test_memory_backed_folder_is_reported():
    shm = Path("/dev/shm")
    if not shm.is_dir() or PosixBackend().probe_unbuffered(shm).representative:
        pytest.skip("no memory-backed file system here")
    scratch = shm / f"jetwise-test-{id(shm)}"
    scratch.mkdir(exist_ok=True)
    try:
        config = default_config(scratch, profile={"mailboxes": 4, "mailbox_size_mb": 1})
        message = _env_problems(config)["databases[0].database_path"]
        assert "memory-backed" in message
    finally:
        scratch.rmdir()


class _ReadOnlyBackend(PosixBackend):
    def probe_unbuffered(self, directory):
        raise PermissionError(errno.EACCES, "Permission denied", str(directory))


def test_unwritable_folder_is_reported(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 4, "mailbox_size_mb": 1})
    assert "Permission denied" in _env_problems(config, _ReadOnlyBackend())["databases[0].database_path"]


def test_foreign_file_where_the_database_goes_is_reported(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 4, "mailbox_size_mb": 1})
    folder = config.databases[0].database_path
    folder.mkdir()
    database_file_path(folder, 0).write_bytes(b"customer data" * 1000)
    message = _env_problems(config)["databases[0].database_path"]
    assert "not a Jetwise database" in message and "did not create" in message


def test_attach_without_a_database_is_reported(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 4, "mailbox_size_mb": 1}, database_source="attach")
    assert "no database to attach" in _env_problems(config)["databases[0].database_path"]


def test_json_round_trip_keeps_schema_version(tmp_path):
    config = default_config(tmp_path, thread_count=6, sluggish_sessions=3)
    path = tmp_path / "test.json"
    save_config(config, path)
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION == 2
    assert load_config(path) == config


def test_derived_figures(tmp_path):
    config = default_config(tmp_path, databases=3, thread_count=7,
                            profile={"mailboxes": 5000, "iops_per_mailbox": 0.4, "headroom_percent": 25, "mailbox_size_mb": 1024})
    assert config.target_transactional_iops == pytest.approx(2500.0)
    assert [config.threads_for_database(i) for i in range(3)] == [3, 2, 2]
    assert config.database_size_bytes == 5000 * 1024 * 1048576 // 3 // 32768 * 32768


def test_cache_figures_follow_jetstress_and_scale_with_capacity(tmp_path):
    full = default_config(tmp_path, databases=1)  # one database: the server's whole cache is its
    assert full.database_cache_pages == 3072 * 32  # 3 GB of 32 KiB pages
    start, stop = full.flush_thresholds_pages
    # Jetstress logs "start: 30.7 MB, stop: 61.4 MB" for a 3 GB cache
    assert (start * 32768 / 1e6, stop * 32768 / 1e6) == (pytest.approx(32.2, abs=0.1), pytest.approx(64.4, abs=0.1))
    assert start == round(3072 * 32 * 0.01)
    tenth = default_config(tmp_path, databases=1, capacity_percent=10)
    assert tenth.database_cache_pages == 3072 * 32 // 10  # same cache-to-database ratio
    tiny = default_config(tmp_path, databases=1, database_cache_min_mb=0.1, database_cache_max_mb=0.1)
    assert tiny.database_cache_pages == 64 and tiny.flush_thresholds_pages == (8, 16)


def test_a_cache_that_holds_the_whole_database_is_a_warning_that_the_test_is_judged_fail(tmp_path):
    small = default_config(tmp_path, profile={"mailboxes": 8, "mailbox_size_mb": 1})
    problems = check_rules(small)
    assert [(p.field, p.severity.value) for p in problems] == [("database_cache_max_mb", "warning")]
    assert "holds the whole database (4.0 MB)" in problems[0].message
    # the verdict's own rule, in its words, and what to change
    assert problems[0].message.startswith("the database cache (1.5 GB per instance) holds the whole database (4.0 MB), "
                                          "so once warm the storage serves 0 % of the transactions' database reads, less "
                                          "than the 50 % a test of the storage needs")
    assert ("this design is not a test of the storage, and a run of it is judged FAIL at any length; raise the mailboxes "
            "or the mailbox size (or the database size) until each database is at least 2.9 GB, twice the database cache "
            "it would hold (1.5 GB per instance), or lower the database cache (its maximum) to 4 MB or less") in problems[0].message
    assert check_rules(small.model_copy(update={"test_type": "database_checksum"})) == []  # a scan reads no cache
    assert check_rules(default_config(tmp_path)) == []


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2h", 7200), ("90m", 5400), ("1h30m", 5400), ("45s", 45), ("PT2H", 7200), ("P1DT1S", 86401), ("300", 300), ("500ms", 0.5)],
)
def test_durations(text, seconds):
    assert parse_duration_s(text) == seconds


def test_zero_warmup_is_allowed_where_asked():
    assert parse_duration_s("0s", allow_zero=True) == 0
    with pytest.raises(ValueError, match="must be positive"):
        parse_duration_s("0s")


@pytest.mark.parametrize("text", ["", "2x", "h2", "-5", "P1M", "P"])
def test_bad_durations_say_what_is_accepted(text):
    with pytest.raises(ValueError):
        parse_duration_s(text)


@pytest.mark.parametrize(("text", "seconds"), [("2:00:00", 7200), ("1:30", 90), ("0:00:45.5", 45.5)])
def test_clock_durations(text, seconds):
    assert parse_duration_s(text) == seconds


def test_compact_durations_read_back():
    from engine.model.units import compact_duration

    for seconds in (45, 60, 90, 3600, 5400, 7200, 86400 + 61, 0.5, 0.25, 90.5, 7200.125):  # sub-second parts kept
        assert parse_duration_s(compact_duration(seconds)) == seconds


def test_foreign_file_where_a_log_goes_is_reported_and_left_alone(tmp_path):
    config = default_config(tmp_path, profile={"mailboxes": 4, "mailbox_size_mb": 1})
    folder = config.databases[1].log_path
    folder.mkdir()
    foreign = log_file_path(folder, 1, 7)
    foreign.write_bytes(b"customer data" * 1000)
    message = _env_problems(config)["databases[1].log_path"]
    assert "not a Jetwise log file" in message and "did not create" in message
    assert foreign.read_bytes() == b"customer data" * 1000


def test_a_rerun_reuses_its_own_files_on_a_nearly_full_volume(tmp_path, monkeypatch):
    """The space of Jetwise's own database and log files counts as free for the run that reuses them."""
    config = default_config(tmp_path, databases=1, profile={"mailboxes": 4, "mailbox_size_mb": 1})
    spec = config.databases[0]
    spec.database_path.mkdir()
    spec.log_path.mkdir()
    created = prepare_database(PosixBackend(), database_file_path(spec.database_path, 0), config.database_pages,
                               DatabaseSource.CREATE, unbuffered=False)
    prepare_logs(PosixBackend(), spec.log_path, 0, created.db_id, unbuffered=False)
    free = growth_bound_bytes(config) + 4096  # what the rerun grows its database by must be free still
    monkeypatch.setattr(preflight.shutil, "disk_usage", lambda _folder: shutil._ntuple_diskusage(10**12, 10**12 - free, free))
    assert not any("free" in message for message in _env_problems(config).values())
    (spec.log_path / log_file_path(spec.log_path, 0, 15).name).unlink()  # one log to make again: 1 MiB, not there
    assert any("logs 1.0 MB, growth" in message for message in _env_problems(config).values())  # the log alone beyond


@pytest.mark.parametrize(("path", "platform", "words"), [
    ("E:\\DB1", "linux", "E:\\DB1 is a Windows path (on E:); give a folder of this machine's file system"),
    ("\\\\filer\\share\\DB1", "linux", "is a Windows path (on \\\\filer\\share)"),
    ("/data/DB1", "linux", None),
    ("//filer/share/DB1", "linux", None),
    ("DB1", "linux", None),
])
def test_a_windows_path_elsewhere_is_said_to_be_one(path, platform, words):
    said = missing_root(Path(path), platform)
    assert (said is None) if words is None else (said is not None and words in said)


def test_the_database_cache_is_the_servers_shared_by_its_databases_as_eses_is(tmp_path):
    config = default_config(tmp_path, databases=12, profile={"mailboxes": 12, "mailbox_size_mb": 1024})  # 1 GB each
    assert (config.database_cache_min_mb, config.database_cache_max_mb) == (384, 3072)  # Jetstress's, unchanged
    assert config.database_cache_mb_per_database == 256  # the paper's 2.9 GB counter over its 12 databases
    assert config.database_cache_pages == 256 * 1024 * 1024 // PAGE_SIZE_BYTES
    # 1 GB databases: the whole budget (3 GB) each held the database, so no read reached the disk once warm
    assert not [p for p in check_rules(config) if p.field == "database_cache_max_mb"]
    alone = config.model_copy(update={"database_cache_shared": False})
    assert alone.database_cache_pages == 12 * config.database_cache_pages
    assert [p for p in check_rules(alone) if p.field == "database_cache_max_mb"]


def test_a_result_of_an_earlier_version_keeps_the_rules_it_ran_by(tmp_path):
    from engine.results.schema import RESULT_SCHEMA_VERSION, RunResult
    from tests.engine.test_report import known_result

    now = known_result(tmp_path)
    assert now.configuration.database_cache_shared and now.configuration.thresholds.maximum_latency == "interval-average"
    assert now.configuration.thread_weight == "jetstress"
    data = now.model_dump(mode="json")
    for version, shared, maximum, weight in ((7, False, "single-io", "reads-only"), (8, False, "interval-average", "reads-only"),
                                             (9, True, "interval-average", "reads-only"),
                                             (RESULT_SCHEMA_VERSION, True, "interval-average", "jetstress")):
        data["schema_version"] = version
        del data["configuration"]["database_cache_shared"]
        del data["configuration"]["thresholds"]["maximum_latency"]
        del data["configuration"]["thread_weight"]
        then = RunResult.model_validate(data)
        config = then.configuration
        assert (config.database_cache_shared, config.thresholds.maximum_latency, config.thread_weight) == (shared, maximum, weight)
        data = now.model_dump(mode="json")


def test_a_soft_recoverys_log_files_that_do_not_fit_are_said_at_their_count_not_at_a_database_path(tmp_path, monkeypatch):
    """100,000 log files to replay on a volume with room for the databases: the shortage used to be said at "Database
    1 path", and the Test type page's field showed nothing."""
    config = default_config(tmp_path, databases=1, profile={"mailboxes": 4, "mailbox_size_mb": 1},
                            test_type="soft_recovery", log_files_to_replay=100_000)
    for folder in (config.databases[0].database_path, config.databases[0].log_path):
        folder.mkdir()
    free = 10 * 2**30  # room for the database and 16 logs, not for 100,000 of them
    monkeypatch.setattr(preflight.shutil, "disk_usage", lambda _folder: shutil._ntuple_diskusage(10**12, 10**12 - free, free))
    problems = _env_problems(config)
    assert set(problems) == {"log_files_to_replay"}
    assert "100,000 log files to replay per instance (1.0 MB each) do not fit" in problems["log_files_to_replay"]
    performance = config.model_copy(update={"test_type": "performance"})
    assert not any("free" in message for message in _env_problems(performance).values())
    tiny = 2**20  # no room even for the database: said where the database goes
    monkeypatch.setattr(preflight.shutil, "disk_usage", lambda _folder: shutil._ntuple_diskusage(10**12, 10**12 - tiny, tiny))
    assert "databases[0].database_path" in _env_problems(config)


def test_a_profile_no_exchange_server_is_planned_at_is_said_at_its_fields_but_not_refused(tmp_path):
    """99,999,999 mailboxes × 100 IOPS and a 45-million-TB database used to pass without a word."""
    from engine.model.validation import check_rules

    config = default_config(tmp_path, databases=2, profile={"mailboxes": 99_999_999, "iops_per_mailbox": 100,
                                                            "mailbox_size_mb": 1_000_000})
    said = {p.field: p for p in check_rules(config)}
    assert said["profile.mailboxes"].severity == "warning"
    assert "99,999,999 mailboxes × 100 IOPS ask 11,999,999,880 transactional IOPS of one server" in said["profile.mailboxes"].message
    assert said["profile.mailbox_size_mb"].severity == "warning"
    assert "each database would be 47,683,715.3 TB" in said["profile.mailbox_size_mb"].message
    planned = default_config(tmp_path, databases=2, profile={"mailboxes": 5000, "iops_per_mailbox": 0.1})
    assert not {"profile.mailboxes", "profile.mailbox_size_mb", "database_size_mb"} & {p.field for p in check_rules(planned)}
    # a database set far below what the profile plans for it: said, not refused
    [heavy] = [p for p in check_rules(config) if p.field == "profile.iops_per_mailbox"]  # 100 IOPS a mailbox
    assert heavy.severity == "warning" and heavy.message.startswith("100 IOPS per mailbox is more than twice what the "
                                                                    "heaviest mailbox asks of Exchange 2013")
    assert "(0.335 at 500 messages a day)" in heavy.message
    small = planned.model_copy(update={"database_size_mb": 1024.0})
    [remark] = [p for p in check_rules(small) if p.field == "database_size_mb"]
    assert remark.severity == "warning" and remark.message.startswith("each database is 1.0 GB, 0.04 % of the 2.4 TB")
    assert not [p for p in check_rules(small.model_copy(update={"database_size_mb": 500_000.0}))
                if p.field == "database_size_mb"]


def test_a_rule_across_fields_is_placed_at_its_field_by_the_rule_not_by_its_words(tmp_path):
    """The cache rule names its field where it is broken: reworded, the problem stays at that field."""
    data = _base(tmp_path)
    data["database_cache_min_mb"], data["database_cache_max_mb"] = 4096, 1024
    _, problems = validate_data(data)
    assert [p.field for p in problems] == ["database_cache_min_mb"]
    try:
        raise FieldError("databases[2].more_database_paths[0]", "anything at all")
    except FieldError as exc:
        assert FieldAddress(exc.field).text == "databases[2].more_database_paths[0]"


@pytest.mark.parametrize(("text", "row", "column", "item", "pattern"), [
    ("databases[1].log_path", 1, "log_path", None, "databases[].log_path"),
    ("databases[0].more_database_paths[2]", 0, "more_database_paths", 2, "databases[].more_database_paths[]"),
    ("databases[3]", 3, None, None, "databases[]"),
    ("thresholds.strict.db_read_avg_latency_ms", None, None, None, "thresholds.strict.db_read_avg_latency_ms"),
    ("databases.1.log_path", None, None, None, ""),  # not an address: no parts
    ("", None, None, None, ""),
])
def test_one_field_address_form(text, row, column, item, pattern):
    address = FieldAddress.of(text)
    assert (address.row, address.column, address.item, address.pattern) == (row, column, item, pattern)
    if address.parts:
        assert address.text == text


def test_true_or_false_is_refused_wherever_a_number_belongs(tmp_path):
    """JSON's true is no number: `"duration_s": true` was read as a test of 1 s. Every numeric field of the
    configuration, its parts' too, refuses it by name; a switch still takes it."""
    data = default_config(tmp_path).model_dump(mode="json")
    numeric = [(part, name) for part, model in [(None, TestConfig), *[(p, type(getattr(default_config(tmp_path), p)))
                                                                      for p in ("profile", "thresholds", "operation_mix")]]
               for name, info in model.model_fields.items()
               if info.annotation in (int, float, int | None, float | None)]
    assert ("duration_s" in [n for _, n in numeric] and ("profile", "mailboxes") in numeric
            and ("thresholds", "minimum_measured_s") in numeric and len(numeric) > 30)
    for part, name in numeric:
        for value in (True, False):
            edited = json.loads(json.dumps(data))
            (edited if part is None else edited[part])[name] = value
            config, problems = validate_data(json.dumps(edited))
            where = name if part is None else f"{part}.{name}"
            assert config is None and [(p.field, p.message) for p in problems] == [
                (where, f"must be a number, not {str(value).lower()}")], where
    switched, problems = validate_data({**data, "background_maintenance": False})
    assert problems == [] and switched is not None and switched.background_maintenance is False
