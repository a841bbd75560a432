"""The disk subsystem throughput scenario: no target, the most transactional IOPS that pass, databases sized from
the volumes' free space.

The tuning loop runs on simulated storage (virtual time) and its answer is checked against the storage model's
steady state at every load of the ladder; the curve's reading is checked on made-up points; the sizing on an
injected free space and a real Jetwise database file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.io.capacity import MIN_RESERVE_BYTES, CapacityError, sized_for_capacity, sized_if_throughput
from engine.io.file_names import database_file_path
from engine.io.files import prepare_database
from engine.io.platform import default_backend
from engine.model.config import DatabaseSource, DatabaseSpec, default_config
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import MIB
from engine.results.criterion_schema import Criterion
from engine.results.verdict import IOPS_CRITERION
from engine.run.sources.model import PROFILES
from engine.run.sweep import Load, Step, heaviest_threads
from engine.tuning.advisor import advise_session, capacity_of
from engine.tuning.curve import CurvePoint
from engine.tuning.most import host_limited, read_most
from engine.tuning.tuner import Tuner
from tests.engine.steady import steady_iops
from tests.engine.test_advisor import _exhaustive_best, simulated_tuning


def _config(tmp_path: Path, databases: int = 1, **values):
    values = {"scenario": "disk_throughput", "database_size_mb": 500.0, "throughput_percent": 80.0,
              "profile": {"iops_per_mailbox": 0.1, "headroom_percent": 0}, "seed": 11, "database_cache_min_mb": 32.0,
              "database_cache_max_mb": 64.0, **values}
    return default_config(tmp_path, databases=databases, **values)


def _point(threads: int, sluggish: int, iops: float, ok: bool, confirmed: bool, host_bound: bool = False) -> CurvePoint:
    return CurvePoint(Step(Load(threads, sluggish), iops, ok, host_bound), confirmed, 10.0 if ok else 30.0, 1.0,
                      None if ok else Criterion(name="average database read latency", instance="Instance 1", value=30.0,
                                                limit=20.0, unit="ms", comparison="<=", passed=False))


def test_the_scenario_has_no_target_and_its_databases_take_the_size_set(tmp_path):
    config = _config(tmp_path, database_cache_max_mb=3072.0, capacity_percent=10.0)
    assert config.seeks_maximum and config.target_transactional_iops == 0.0
    assert config.database_size_bytes == 500 * MIB  # the size set, not scaled again by the capacity percentage
    assert config.database_cache_pages == 3072 * MIB // PAGE_SIZE_BYTES  # a set size keeps the cache set
    profile = default_config(tmp_path, capacity_percent=10.0)
    assert not profile.seeks_maximum and profile.target_transactional_iops == pytest.approx(1000 * 0.1 * 1.2)
    # a profile's size keeps its ratio, of each of its two databases' share of the server's cache
    assert profile.database_cache_pages == 3072 * MIB // 2 // 10 // PAGE_SIZE_BYTES


def test_the_curve_is_read_for_the_most_that_passes(tmp_path):
    config = _config(tmp_path)
    unconfirmed = read_most(config, [_point(2, 1, 100, True, False), _point(3, 1, 130, True, False),
                                     _point(4, 1, 140, False, False)], cpu_count=2)
    assert (unconfirmed.status, unconfirmed.load) == ("next", Load(3, 1)), "the best step is confirmed by a run"
    # 7 threads / SluggishSessions 2 is the ladder's next load after 3 threads: nothing untried lies between
    found = read_most(config, [_point(2, 1, 100, True, False), _point(3, 1, 128, True, True),
                               _point(7, 2, 140, False, False), _point(4, 1, 141, False, False)], cpu_count=2)
    assert (found.status, found.load, found.max_passing_iops) == ("most", Load(3, 1), 128)
    assert "7 threads / SluggishSessions 2, broke the thresholds" in found.why.words
    gap = read_most(config, [_point(2, 1, 100, True, True), _point(8, 1, 140, False, False)], cpu_count=2)
    assert gap.status == "next" and 2 < gap.load.effective < 8, "untried loads between the best and the ceiling"
    heaviest = heaviest_threads(1, 2)
    host = read_most(config, [_point(heaviest, 1, 9000, True, True)], cpu_count=2)
    assert host.status == "most" and "heaviest load this test runs on this host" in host.why.words
    assert host_limited([_point(heaviest, 1, 9000, True, True)], Load(heaviest, 1))
    assert not host_limited([_point(3, 1, 128, True, True), _point(7, 2, 140, False, False)], Load(3, 1))
    assert capacity_of(config, 9000, at_least=True).words.startswith("at least 9,000 transactional IOPS (the host, not the "
                                                                  "storage, set the limit): at 80 % of it, 72,000 mailboxes")
    lighter = read_most(config, [_point(4, 1, 140, False, True)], cpu_count=2)
    assert lighter.status == "next" and lighter.load.effective < 4
    none = read_most(config, [_point(1, 100, 3, False, True)], cpu_count=2)
    assert none.status == "unreachable" and "cannot carry" in none.why.words


@pytest.mark.parametrize("profile", ["sata-2x7k", "sas-8x10k"])
def test_tuning_finds_the_most_the_storage_passes_and_confirms_it(tmp_path, profile):
    config = _config(tmp_path)
    model = PROFILES[profile]
    outcome = Tuner(config, device=model.name, max_runs=8).run(simulated_tuning(model, tmp_path / "tune"))
    assert outcome.status == "converged", outcome.runs
    threads, sluggish = outcome.recommendation
    confirming = [r for r in outcome.runs if (r["threads"], r["sluggish_sessions"]) == (threads, sluggish)
                  and not r["sweep"]]
    assert confirming and confirming[-1]["verdict"] == "pass", "the answer was run, and passed"
    assert outcome.max_passing_iops == pytest.approx(confirming[-1]["achieved_transactional_iops"])
    # The chosen load's steady state against the best of every load's: the confirmation's own figure carries the
    # simulated device's noise (a 10 s run), which can lift a load at the limit a few per cent.
    chosen, _point = steady_iops(model, config.model_copy(update={"thread_count": threads, "sluggish_sessions": sluggish}))
    assert chosen == pytest.approx(_exhaustive_best(model, config), rel=0.10)
    assert outcome.advice.capacity == capacity_of(config, outcome.max_passing_iops)
    mailboxes = int(outcome.max_passing_iops * 0.8 / 0.1)
    assert f"at 80 % of it, {mailboxes:,} mailboxes at 0.1 IOPS each" in outcome.advice.capacity.words
    assert all(not r["reasons"] or "below the target" not in " ".join(r["reasons"]) for r in outcome.runs)


def test_runs_of_the_scenario_are_judged_without_a_target_and_tuning_again_reads_the_session(tmp_path):
    config = _config(tmp_path)
    tuner = Tuner(config, device="sata-2x7k", max_runs=8)
    tuner.run(simulated_tuning(PROFILES["sata-2x7k"], tmp_path / "tune"))
    assert all(c.name != IOPS_CRITERION for r in tuner.runs for c in r.criteria)
    again = Tuner(config, tuner.runs, device="sata-2x7k", max_runs=8)
    assert again.done and again.next_run() is None, "the session already holds the answer"
    assert again.outcome().recommendation == tuner.outcome().recommendation
    # a mailbox profile on the same storage reads the same curve against its own target
    profile = config.model_copy(update={"scenario": "mailbox_profile",
                                        "profile": config.profile.model_copy(update={"mailboxes": 500})})
    assert advise_session(profile, tuner.runs, device="sata-2x7k").status in ("converged", "next", "unreachable")


def test_the_first_run_starts_from_the_configured_setting(tmp_path):
    config = _config(tmp_path, thread_count=3, sluggish_sessions=2)
    tuner = Tuner(config, device="", max_runs=8)
    assert (tuner.advice.status, tuner.advice.threads, tuner.advice.sluggish_sessions) == ("start", 3, 2)
    assert "as configured" in tuner.describe_next()


def test_databases_take_the_capacity_share_of_their_volumes_free_space(tmp_path):
    config = _config(tmp_path, databases=2, database_size_mb=None, capacity_percent=50.0)
    free = 40 * 1024 * MIB
    sized, words = sized_for_capacity(config, lambda _folder: free)
    reserve = max(MIN_RESERVE_BYTES, 0.01 * free)
    logs = 2 * config.log_space_bytes_per_database
    assert sized.database_size_mb == ((free - reserve) * 0.5 - logs) // 2 // MIB
    assert "50 % of the 40.0 GB free" in words and "shared by its 2 databases and their logs" in words
    assert sized_if_throughput(sized) == (sized, ""), "a size once set is kept"
    assert sized_if_throughput(default_config(tmp_path)) == (default_config(tmp_path), "")
    elsewhere = config.model_copy(update={"databases": [DatabaseSpec(database_path=Path("E:\\db1"), log_path=tmp_path)]})
    if not Path("E:\\db1").is_absolute():  # a Windows path read on Linux
        with pytest.raises(CapacityError, match="free space cannot be measured"):
            sized_for_capacity(elsewhere, lambda _folder: free)


def test_sizing_again_counts_the_space_its_own_database_takes(tmp_path):
    config = _config(tmp_path, database_size_mb=None, capacity_percent=1.0)
    free = 10 * 1024 * MIB
    first, _words = sized_for_capacity(config, lambda _folder: free)
    path = database_file_path(config.databases[0].database_path, 0)
    path.parent.mkdir(parents=True)
    prepare_database(default_backend(), path, 64, DatabaseSource.CREATE, unbuffered=False)
    taken = path.stat().st_size
    again, _words = sized_for_capacity(config, lambda _folder: free - taken)
    assert again.database_size_mb == first.database_size_mb
    foreign = tmp_path / "other" / database_file_path(Path(), 0).name
    foreign.parent.mkdir()
    foreign.write_bytes(b"not a database" * 1000)
    moved = config.model_copy(update={"databases": [DatabaseSpec(database_path=foreign.parent, log_path=tmp_path)]})
    assert sized_for_capacity(moved, lambda _folder: free)[0].database_size_mb == first.database_size_mb, \
        "a file Jetwise did not make is not counted as free"
