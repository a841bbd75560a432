"""The ESRP suite on the simulated device, in virtual time: the full 2 h Performance and 24 h Stress, then the
Checksum, the Backup and the Soft Recovery on the model, stopped at a stage and resumed there, and refused in a
folder that holds another suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.model.config import TestConfig
from engine.results.document import read_result
from engine.results.schema import Outcome
from engine.run.runner import Runner
from engine.run.sources.model import PROFILES, runner_for
from engine.run.suite import PERFORMANCE_S, STAGES, STRESS_S, Stage, Suite, SuiteError, open_suite, read_suite
from tests.conftest import small_config

pytestmark = pytest.mark.slow  # 26 virtual hours of samples per suite


def _config(tmp_path: Path) -> TestConfig:
    # Jetstress's 15 s samples would do too; 30 s keeps the 26 virtual hours to a few thousand samples
    return small_config(tmp_path / "data", sample_interval_s=30.0, warmup_s=60.0, log_files_to_replay=500)


def _suite(config: TestConfig, folder: Path, stop_at: int | None = None) -> Suite:
    record = open_suite(config, folder, performance_s=PERFORMANCE_S, stress_s=STRESS_S, simulate="flash")

    def make(stage_config: TestConfig, out: Path) -> Runner:
        return runner_for(PROFILES["flash"], stage_config, out, lambda _event: None)

    suite: Suite

    def starting(number: int, _stage: Stage) -> None:
        if number == stop_at:
            suite.request_stop("stopped by the user")

    suite = Suite(record, folder, make, on_stage=starting)
    return suite


def test_the_whole_suite_runs_on_the_simulated_device_and_each_stage_keeps_its_result(tmp_path):
    config, folder = _config(tmp_path), tmp_path / "suite"
    record = _suite(config, folder).run()
    assert record.finished and record.outcome == Outcome.PASS
    assert [s.test_type for s in record.stages] == list(STAGES)
    results = [read_result(folder / stage.folder) for stage in record.stages]
    assert all(r.simulated and r.verdict == Outcome.PASS for r in results)
    assert results[0].summary.measured_s == pytest.approx(PERFORMANCE_S)  # the published lengths, in virtual time
    assert results[1].summary.measured_s == pytest.approx(STRESS_S) and results[1].summary.threshold_set == "Lenient"
    assert all(d.seen_pages == d.pages and d.log_files == 16 for d in results[2].scan.databases)
    assert results[3].scan.read_bytes == 256 * 1024
    recovery = results[4].recovery
    assert recovery.log_files_replayed == 2 * 500 and 0 < recovery.seconds_per_log_file < recovery.limit_s
    assert read_suite(folder) == record
    again = _suite(config, folder).run()  # a finished suite runs nothing again
    assert again == record and len([p for p in folder.iterdir() if p.is_dir()]) == 5


def test_a_suite_stopped_at_a_stage_resumes_there_with_the_same_configuration_only(tmp_path):
    config, folder = _config(tmp_path), tmp_path / "suite"
    stopped = _suite(config, folder, stop_at=2).run()
    assert [s.outcome for s in stopped.stages] == [Outcome.PASS, Outcome.PASS, Outcome.ABORTED, None, None]
    assert stopped.outcome == Outcome.ABORTED
    assert read_result(folder / "3-database-checksum").verdict == Outcome.ABORTED
    with pytest.raises(SuiteError, match="its configuration's thread_count differ"):
        open_suite(config.model_copy(update={"thread_count": 8}), folder, performance_s=PERFORMANCE_S, stress_s=STRESS_S,
                   simulate="flash")
    with pytest.raises(SuiteError, match="Stress length"):
        open_suite(config, folder, performance_s=PERFORMANCE_S, stress_s=3600.0, simulate="flash")
    with pytest.raises(SuiteError, match=r"device \(simulated flash, not the disk\)"):  # a simulated suite ends simulated
        open_suite(config, folder, performance_s=PERFORMANCE_S, stress_s=STRESS_S)
    resumed = _suite(config, folder).run()
    assert resumed.outcome == Outcome.PASS
    assert [s.folder for s in resumed.stages] == [
        "1-performance", "2-stress", "3-database-checksum-2", "4-database-backup", "5-soft-recovery"]
    assert read_result(folder / "1-performance").run_id == stopped.stages[0].run_id  # not run again


def test_only_a_suite_at_the_published_lengths_is_called_a_qualification():
    from engine.results.suite import PERFORMANCE_S, STRESS_S, suite_title, trial_words

    assert suite_title(PERFORMANCE_S, STRESS_S) == "ESRP qualification" and trial_words(PERFORMANCE_S, STRESS_S) == ""
    for performance, stress in ((20.0, 20.0), (PERFORMANCE_S, STRESS_S - 1), (PERFORMANCE_S - 1, STRESS_S)):
        assert suite_title(performance, stress) == "ESRP trial (not a qualification)"
        assert trial_words(performance, stress).startswith("A trial, not a qualification")
    assert suite_title(3 * PERFORMANCE_S, 2 * STRESS_S) == "ESRP qualification"  # longer than published qualifies


def _across(config: TestConfig, *hosts: str) -> TestConfig:
    return TestConfig.model_validate({**config.model_dump(), "servers": [{"host": host} for host in hosts]})


def test_a_suite_across_servers_keeps_them_in_its_configuration_and_other_servers_are_another_suite(tmp_path):
    config, folder = _across(_config(tmp_path), "mbx1", "mbx2", "mbx3"), tmp_path / "suite"
    record = open_suite(config, folder, performance_s=20.0, stress_s=20.0, simulate="flash")
    kept = read_suite(folder)
    assert kept.hosts == ["mbx1", "mbx2", "mbx3"] and kept.config.servers == config.servers
    assert kept.stage_config(STAGES[2]).server_names == ["mbx1", "mbx2", "mbx3"]  # every stage runs across them
    assert open_suite(config, folder, performance_s=20.0, stress_s=20.0, simulate="flash") == record
    with pytest.raises(SuiteError, match=r"servers \(mbx1, mbx2, mbx3, not mbx1, mbx2\)"):
        open_suite(_across(_config(tmp_path), "mbx1", "mbx2"), folder, performance_s=20.0, stress_s=20.0, simulate="flash")
    with pytest.raises(SuiteError, match=r"servers \(mbx1, mbx2, mbx3, not this server alone\)"):
        open_suite(_config(tmp_path), folder, performance_s=20.0, stress_s=20.0, simulate="flash")


def test_a_suite_record_an_earlier_jetwise_wrote_reads_on_this_server_and_is_refused_across_servers(tmp_path):
    config = _config(tmp_path)
    record = open_suite(config, tmp_path / "alone", performance_s=20.0, stress_s=20.0).model_dump(mode="json")
    for name, hosts in (("alone", []), ("across", ["mbx1", "mbx2"])):  # suite record 2 kept its servers beside the config
        (tmp_path / name).mkdir(exist_ok=True)
        (tmp_path / name / "suite.json").write_text(
            json.dumps({**record, "suite_version": 2, "hosts": hosts}), encoding="utf-8")
    assert read_suite(tmp_path / "alone").hosts == [] and read_suite(tmp_path / "alone").suite_version == 2
    with pytest.raises(SuiteError, match=r"is a suite across servers \(mbx1, mbx2\) that an earlier Jetwise kept.*can "
                                         r"neither resume nor report.*in a folder of its own"):
        read_suite(tmp_path / "across")
    with pytest.raises(SuiteError, match="neither resume"):
        open_suite(config, tmp_path / "across", performance_s=20.0, stress_s=20.0)
