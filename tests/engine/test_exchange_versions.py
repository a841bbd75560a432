"""The choice of Exchange version: each generation's workload on the simulated device and on this disk, how older
files and results keep theirs, and the JetstressConfig.xml round trip."""

from __future__ import annotations

import json
import random

import pytest

from engine.io.config_file import load_config, save_config
from engine.model.config import ExchangeVersion, TestConfig, default_config
from engine.model.exchange import generation
from engine.model.jetstress.loading import config_from_xml
from engine.model.jetstress.writing import export_notes, write_xml
from engine.model.validation import validate_data
from engine.results.document import LOG_FILE
from engine.results.schema import RunResult
from engine.run.runner import Runner
from engine.run.sources.model import PROFILES, runner_for
from engine.run.streams import database_streams
from engine.tuning.evidence import evidence
from engine.workload.cache import DatabaseCache
from tests.conftest import small_config

EVERY = list(ExchangeVersion)


def _design(base, version: ExchangeVersion, **overrides: object) -> TestConfig:
    """2,000 mailboxes of 2 GB on 8 databases, the design of docs/workload.md's prediction table."""
    profile = {"exchange": version.value, "mailboxes": 2000, "mailbox_size_mb": 2048,
               "iops_per_mailbox": generation(version).iops_per_mailbox(100, copies=True)}
    values: dict[str, object] = {"thread_count": 16, "duration_s": 300.0, "warmup_s": 30.0, "seed": 5,
                                 "copies_per_database": 2, "profile": profile}
    values.update(overrides)
    return default_config(base, databases=8, **values)


@pytest.mark.parametrize("version", EVERY)
def test_a_simulated_run_of_each_generation_drives_the_streams_the_prediction_gives(tmp_path, version):
    config = _design(tmp_path / "data", version)
    result = runner_for(PROFILES["sas-8x10k"], config, tmp_path / "run", lambda _e: None).run()
    drives = generation(version)
    for row in result.instances:
        predicted = database_streams(config, row.db_reads_per_s + row.db_writes_per_s, row.bdm_read_avg_latency_ms)
        assert row.db_reads_per_s == pytest.approx(predicted.reads_per_s, rel=0.03)
        assert row.db_writes_per_s == pytest.approx(predicted.writes_per_s, rel=0.03)
        assert row.log_writes_per_s == pytest.approx(predicted.log_writes_per_s, rel=0.05)
        assert row.bdm_reads_per_s == pytest.approx(predicted.maintenance_reads_per_s, rel=0.05)
        assert row.bdm_reads_per_s * drives.maintenance_batch_bytes == pytest.approx(
            config.maintenance_bytes_per_s(row.bdm_read_avg_latency_ms), rel=0.05)
    log = (tmp_path / "run" / LOG_FILE).read_text(encoding="utf-8")
    assert f"Exchange version: {drives.words}" in log
    assert f"Workload per database at the target ({drives.jetstress}'s)" in log


def test_2013_maintenance_slows_as_its_reads_slow_where_2010_holds_its_rate(tmp_path):
    """ESE's database scan sleeps its throttle before each batch, so a slower storage scans slower (2013 and later);
    2010's maintenance holds its measured rate on any storage. And a longer DBMThrottling scans slower still."""
    def maintenance(device: str, version: ExchangeVersion, **overrides: object) -> float:
        config = _design(tmp_path / "data", version, thread_count=8, **overrides)
        out = tmp_path / f"{device}-{version.value}-{len(overrides)}"
        summary = runner_for(PROFILES[device], config, out, lambda _e: None).run().summary
        return summary.bdm_reads_per_s * config.generation.maintenance_batch_bytes / config.database_count

    old = {device: maintenance(device, ExchangeVersion.EXCHANGE_2010) for device in ("sas-8x10k", "sata-2x7k")}
    new = {device: maintenance(device, ExchangeVersion.EXCHANGE_2013) for device in ("sas-8x10k", "sata-2x7k")}
    assert old["sata-2x7k"] == pytest.approx(old["sas-8x10k"], rel=0.05)
    assert new["sata-2x7k"] < 0.9 * new["sas-8x10k"] < 512 * 1024 / 0.1
    assert maintenance("sas-8x10k", ExchangeVersion.EXCHANGE_2013, dbm_throttling_ms=400) < 0.5 * new["sas-8x10k"]


@pytest.mark.slow  # about 6 s each: the databases made, a second of warm-up, 4 s measured
@pytest.mark.parametrize("version", EVERY)
def test_a_real_short_run_paces_maintenance_at_its_generations_rate(disk_dir, version):
    config = small_config(disk_dir / "data", profile={"exchange": version.value, "mailboxes": 16,
                                                      "iops_per_mailbox": 0.1, "mailbox_size_mb": 1},
                          background_maintenance=True, sluggish_sessions=8, duration_s=4.0, warmup_s=1.0)
    result = Runner(config, disk_dir / "out", lambda _event: None).run()
    assert result.verdict.value == "pass", result.summary.reasons
    batch = generation(version).maintenance_batch_bytes
    for row in result.instances:
        measured = row.bdm_reads_per_s * row.bdm_read_avg_bytes
        rate = config.maintenance_bytes_per_s(row.bdm_read_avg_latency_ms)  # 2013: ESE's pace at the reads measured
        # a read more or less at either edge of the 4 s window
        assert abs(measured - rate) <= 0.1 * rate + batch / 4.0, (row.name, measured, rate)
    log = (disk_dir / "out" / LOG_FILE).read_text(encoding="utf-8")
    assert f"Exchange version: {generation(version).words}" in log
    assert f"Background maintenance: {generation(version).maintenance_words(100)}" in log


def test_a_new_configuration_drives_exchange_2013_and_later(tmp_path):
    config = default_config(tmp_path)
    assert config.profile.exchange == ExchangeVersion.EXCHANGE_2013
    assert config.dbm_throttling_ms == 100  # Jetstress 2013's DBMThrottling: 512 KiB, then 100 ms of sleep
    assert config.maintenance_bytes_per_s(read_ms=0.0) == pytest.approx(512 * 1024 / 0.1)
    path = tmp_path / "new.json"
    save_config(config, path)
    assert json.loads(path.read_text())["profile"]["exchange"] == "2013"
    assert load_config(path) == config


def test_a_file_naming_exchange_2016_2019_or_se_drives_the_2013_generation_and_2007_is_refused(tmp_path):
    data = default_config(tmp_path).model_dump(mode="json")
    for named in ("2016", "2019", "SE", "se"):
        config, problems = validate_data(json.dumps({**data, "profile": {**data["profile"], "exchange": named}}))
        assert config is not None and not problems, problems
        assert config.profile.exchange == ExchangeVersion.EXCHANGE_2013
    config, problems = validate_data(json.dumps({**data, "profile": {**data["profile"], "exchange": "2007"}}))
    assert config is None and [p.message for p in problems] == ["must be '2013' or '2010' (got '2007')"]


def test_a_file_without_the_choice_is_read_as_exchange_2010_what_it_ran_as(tmp_path):
    data = default_config(tmp_path).model_dump(mode="json")
    del data["profile"]["exchange"]
    for older in ({**data, "schema_version": 1}, {key: value for key, value in data.items() if key != "schema_version"}):
        config, problems = validate_data(json.dumps(older))
        assert config is not None and not problems, problems
        assert config.profile.exchange == ExchangeVersion.EXCHANGE_2010
        (tmp_path / "old.json").write_text(json.dumps(older))
        assert load_config(tmp_path / "old.json").profile.exchange == ExchangeVersion.EXCHANGE_2010
    said, _ = validate_data(json.dumps({**data, "schema_version": 1, "profile": {**data["profile"], "exchange": "2013"}}))
    assert said is not None and said.profile.exchange == ExchangeVersion.EXCHANGE_2013  # a choice made is kept


def test_a_result_of_an_earlier_version_says_it_ran_exchange_2010(tmp_path):
    from tests.engine.test_report import known_result

    document = known_result(tmp_path).model_dump(mode="json")
    document["schema_version"] = 13
    document["configuration"]["schema_version"] = 1
    del document["configuration"]["profile"]["exchange"]
    old = RunResult.model_validate(document)
    assert old.configuration.profile.exchange == ExchangeVersion.EXCHANGE_2010
    assert old.configuration.generation.words.startswith("Exchange 2010: Jetstress 2010 (14.01)'s workload")


@pytest.mark.parametrize("version", EVERY)
def test_the_xml_round_trip_keeps_the_exchange_version(tmp_path, version):
    config = default_config(tmp_path, databases=4, thread_count=8, profile={"exchange": version.value})
    text = write_xml(config)
    assert f"<JetstressVersionGenerated>{generation(version).jetstress_version}</JetstressVersionGenerated>" in text
    per_database = version == ExchangeVersion.EXCHANGE_2010
    assert f"<ThreadCount>{2 if per_database else 8}</ThreadCount>" in text
    assert "<DBMThrottling>100</DBMThrottling>" in text
    loaded = config_from_xml(text)
    assert loaded.config == config
    throttled = config_from_xml(text.replace("<DBMThrottling>100<", "<DBMThrottling>250<"))
    assert throttled.config is not None and throttled.config.dbm_throttling_ms == 250  # read from the file
    assert "<DBMThrottling>250</DBMThrottling>" in write_xml(throttled.config)  # and written back
    bare = config_from_xml(text.replace(text[text.index("<!--"):text.index("-->") + 3], ""))  # the elements alone
    assert bare.config is not None
    assert bare.config.profile.exchange == version and bare.config.thread_count == 8


def test_a_2010_thread_count_that_does_not_spread_evenly_is_said_on_export(tmp_path):
    config = default_config(tmp_path, databases=4, thread_count=10, profile={"exchange": "2010"})
    assert "<ThreadCount>2</ThreadCount>" in write_xml(config)
    assert any("written as ThreadCount 2 (8 for the server)" in note for note in export_notes(config))
    assert not any("ThreadCount" in note for note in export_notes(config.model_copy(update={"thread_count": 8})))


def test_the_advisor_does_not_read_a_run_of_another_exchange_version_as_evidence(tmp_path):
    from tests.engine.test_report import known_result

    now = known_result(tmp_path)
    config = now.configuration
    other = ExchangeVersion.EXCHANGE_2010 if config.profile.exchange == ExchangeVersion.EXCHANGE_2013 \
        else ExchangeVersion.EXCHANGE_2013
    before = now.model_copy(update={"configuration": config.model_copy(
        update={"profile": config.profile.model_copy(update={"exchange": other})})})
    points, notes = evidence(config, [before], now.device)
    assert not points and [note.what for note in notes] == ["other_exchange"]
    assert "another Exchange version's workload" in notes[0].words and generation(other).jetstress in notes[0].words
    points, notes = evidence(config, [now], now.device)
    assert not [note for note in notes if note.what == "other_exchange"]


@pytest.mark.parametrize("copies", [1, 2])
def test_the_deeper_checkpoint_writes_a_page_updated_again_within_it_once(tmp_path, copies):
    """A database the cache holds: 64 pages updated over and over, 2,350 bytes of log each (an update's record). The
    checkpoint writes a page once its first change is its depth of log old: the design's depth, by its copies, in
    either generation: at 20 MiB (stand-alone, ESE's default) each page is written about every 8,900 updates, at
    100 MiB (with copies) about every 44,600, so a design with copies writes a fifth as many pages here."""
    depths = {default_config(tmp_path, copies_per_database=copies, profile={"exchange": version.value}
                             ).checkpoint_depth_bytes for version in EVERY}
    assert depths == {20 * 2**20 if copies == 1 else 100 * 2**20}  # the design's, whatever the generation
    depth = depths.pop()
    cache = DatabaseCache(1024, 16, 32, depth)
    rng = random.Random(3)
    position, written = 0, 0
    for _ in range(200_000):
        page = rng.randrange(64)
        cache.fault(page)
        position += 2350
        cache.dirty(page, position)
        while (run := cache.next_write(position, 0.0)) is not None:
            written += run[1]  # pages, neighbours coalesced into the write included
    once_per_depth = 200_000 * 2350 / depth * 64
    # a neighbour coalesced into a write goes before its own depth, so a little more often, never less
    assert 0.9 * once_per_depth <= written <= 1.25 * once_per_depth, (written, once_per_depth)
