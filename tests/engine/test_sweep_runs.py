"""Load sweeps as runs on the simulated device: every step kept, stopped and killed sweeps, the time bound, and
a second tuning of the same storage that reads the first one's curve instead of sweeping again."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.model.config import TestConfig, default_config
from engine.protocol import LogEvent
from engine.results.document import read_samples
from engine.results.schema import Outcome
from engine.run.samples import rebuild_result
from engine.run.sources.model import PROFILES, runner_for
from engine.run.sweep import SWEEP_BUDGET_S, plan_sweep
from engine.tuning.advisor import advise_session
from engine.tuning.tuner import Tuner
from engine.workload.stats import CACHE_HITS, CACHE_MISSES
from tests.engine.test_advisor import simulated_tuning

SATA = PROFILES["sata-2x7k"]


def _config(tmp_path: Path, mailboxes: int = 1100, **update: object) -> TestConfig:
    config = default_config(tmp_path, databases=1, seed=11, profile={"mailboxes": mailboxes, "iops_per_mailbox": 0.12,
                                                                     "headroom_percent": 0, "mailbox_size_mb": 500})
    return config.model_copy(update=update)


def test_a_sweep_keeps_every_step_and_its_samples_and_judges_the_heaviest_passing_step(tmp_path):
    config = _config(tmp_path, thread_count=1)
    result = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan_sweep(config, 2)).run()
    sweep = result.sweep
    assert sweep is not None and len(sweep.steps) >= 2
    samples = read_samples(tmp_path / "run")
    for step in sweep.steps:
        mine = [s for s in samples if s.step == step.step]
        assert [s.interval for s in mine] == list(range(step.first_interval, step.last_interval + 1))
        assert {(s.threads, s.sluggish_sessions) for s in mine} == {(step.threads, step.sluggish_sessions)}
        assert sum(s.phase == "measure" for s in mine) == 10, "each step judges ten settled samples"
    passing = [s for s in sweep.steps if s.latency_ok]
    judged = sweep.steps[sweep.judged_step]
    assert judged == max(passing, key=lambda s: s.effective_load)
    assert (result.summary.threads, result.summary.sluggish_sessions) == (judged.threads, judged.sluggish_sessions)
    assert result.summary.achieved_transactional_iops == pytest.approx(judged.transactional_iops)
    assert sweep.end is not None and sweep.end.why == "limit_found"
    assert "latency limit lies between" in sweep.ended_words
    assert any(note.what == "sweep" and note.end == result.sweep.end for note in result.notes)
    assert result.summary.run_kind.value == "tuning"


def test_the_sweep_is_bounded_to_eight_minutes_for_samples_up_to_fifteen_seconds(tmp_path):
    for interval in (0.5, 1.0, 2.0, 5.0, 10.0, 15.0):
        config = _config(tmp_path, sample_interval_s=interval)
        plan = plan_sweep(config, 2)
        assert plan.budget_intervals * interval <= SWEEP_BUDGET_S, interval
        assert plan.max_steps >= 3 and plan.min_settle + plan.settle.measure_samples <= plan.step_limit, interval
    one_second = plan_sweep(_config(tmp_path), 2)
    assert (one_second.max_steps, one_second.step_limit, one_second.settle.measure_samples) == (8, 50, 10)
    config = _config(tmp_path, sample_interval_s=5.0)
    result = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan_sweep(config, 2)).run()
    assert result.sweep is not None and len(read_samples(tmp_path / "run")) * 5.0 <= SWEEP_BUDGET_S


def test_a_stopped_sweep_keeps_its_finished_steps_and_tuning_goes_on_from_their_curve(tmp_path):
    config = _config(tmp_path, thread_count=1)
    runner = None

    def watch(event: object) -> None:
        if isinstance(event, LogEvent) and event.message.startswith("Step 2:") and "transactional IOPS" in event.message:
            assert runner is not None
            runner.request_stop("stopped by the user")

    runner = runner_for(SATA, config, tmp_path / "run", watch, sweep=plan_sweep(config, 2))
    result = runner.run()
    assert result.verdict == Outcome.ABORTED and "stopped by the user" in result.summary.reasons[0]
    assert result.sweep is not None and len(result.sweep.steps) == 2, "the finished steps are kept"
    assert result.sweep.end is not None and result.sweep.end.why == "stopped"
    assert result.sweep.ended_words == "stopped before its end"
    tuner = Tuner(config, [result], device=SATA.name, cpu_count=2)
    assert tuner.next_sweep() is None, "the stopped sweep's curve is used, not measured again"
    assert tuner.advice.status == "next"


def test_a_killed_sweep_is_rebuilt_from_its_last_step_at_that_steps_setting(tmp_path):
    config = _config(tmp_path, thread_count=1)
    result = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan_sweep(config, 2)).run()
    samples = read_samples(tmp_path / "run")
    assert result.sweep is not None
    second = result.sweep.steps[1]
    cut = [s for s in samples if s.interval <= second.last_interval]  # the process died after step 2
    rebuilt = rebuild_result(config, cut, result.run_id, "the engine process ended")
    assert rebuilt.verdict == Outcome.ABORTED
    assert (rebuilt.summary.threads, rebuilt.summary.sluggish_sessions) == (second.threads, second.sluggish_sessions)
    assert rebuilt.summary.achieved_transactional_iops == pytest.approx(second.transactional_iops, rel=0.02)


def test_tuning_the_same_storage_again_reads_the_first_sweep_and_confirms_in_one_run(tmp_path):
    first = Tuner(_config(tmp_path), device=SATA.name, cpu_count=2)
    outcome = first.run(simulated_tuning(SATA, tmp_path / "first"))
    assert outcome.status == "converged" and len(outcome.runs) == 2
    history = [*first.runs]
    lower = _config(tmp_path, mailboxes=800)  # the engineer lowers the target and tunes again on the same storage
    again = Tuner(lower, history, device=SATA.name, cpu_count=2)
    assert again.next_sweep() is None
    second = again.run(simulated_tuning(SATA, tmp_path / "second"))
    assert second.status == "converged" and len(second.runs) <= 1, second.runs
    assert second.steps == [], "no new sweep"


def test_the_advice_after_a_sweep_names_the_setting_to_confirm_and_never_a_load_beyond_the_measured(tmp_path):
    config = _config(tmp_path, thread_count=1)
    result = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan_sweep(config, 2)).run()
    advice = advise_session(config, [result], device=SATA.name)
    assert result.sweep is not None
    heaviest_passing = max(s.effective_load for s in result.sweep.steps if s.latency_ok)
    assert advice.status == "next" and "confirms" in advice.rationale
    assert advice.threads / advice.sluggish_sessions <= heaviest_passing


def test_the_store_lists_a_sweep_at_the_setting_its_figures_were_judged_at(tmp_path):
    from engine.store.recorder import RunRecorder
    from engine.store.sqlite import Store

    store = Store(tmp_path / "s.sqlite3")
    config = _config(tmp_path, thread_count=1)
    record = RunRecorder(store, "SATA", tmp_path / "run")
    result = runner_for(SATA, config, tmp_path / "run", record, sweep=plan_sweep(config, 2)).run()
    [row] = store.runs("SATA")
    assert (row.threads, row.sluggish_sessions) == (result.summary.threads, result.summary.sluggish_sessions) != (1, 1)
    assert store.result(row.run_id).sweep == result.sweep


@pytest.mark.parametrize("reads", ["none", "nearly all cache hits"])
def test_a_sweep_ends_at_its_first_step_that_makes_no_database_reads(tmp_path, reads):
    config = _config(tmp_path, thread_count=1)
    runner = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan_sweep(config, 2))

    class HeldByTheCache(type(runner.source)):  # the model's reads all served by the cache: none reach the disk
        def instance_interval(self, *args, **kwargs):
            part = super().instance_interval(*args, **kwargs)
            if reads == "none":
                part.streams.pop("db_read", None)
            else:  # a few reads, 99.95 % of the page references cache hits: the cache, not the storage, served them
                part.cache[CACHE_HITS] = part.cache[CACHE_MISSES] * 1999
            return part

    runner.source = HeldByTheCache(SATA)
    result_of_cache = runner.run()
    assert result_of_cache.sweep is not None and len(result_of_cache.sweep.steps) == 1
    assert result_of_cache.sweep.steps[0].no_reads and "cache holds the database" in result_of_cache.sweep.ended_words
    tuner = Tuner(config, device=SATA.name, cpu_count=2)
    tuner.record(result_of_cache)
    assert tuner.status == "inconclusive" and any("made no database reads" in n.words for n in tuner.advice.notes)


def test_the_end_of_auto_tune_says_what_the_sweep_measured_and_why_it_ended(tmp_path):
    outcome = Tuner(_config(tmp_path), device=SATA.name, max_runs=8).run(simulated_tuning(SATA, tmp_path / "tune"))
    steps = outcome.steps
    assert steps and outcome.swept
    kept = [step for step in steps if step["latency_ok"]]
    best = max(kept, key=lambda step: step["transactional_iops"])
    assert f"The load sweep measured {len(steps)} step(s) from " in outcome.swept
    assert (f"the most within the latency thresholds: {best['transactional_iops']:,.0f} transactional IOPS at "
            f"{best['threads']} threads / SluggishSessions {best['sluggish_sessions']}") in outcome.swept
    assert "It ended: the latency limit lies between " in outcome.swept  # why: the limit bracketed
    assert outcome.words.startswith(f"Auto-tune: {outcome.status} after 2 run(s). The load sweep measured ")
    lightest = min(steps, key=lambda step: step["threads"] / step["sluggish_sessions"])
    assert lightest["threads"] == 1  # one thread, said as one
    assert f"from 1 thread / SluggishSessions {lightest['sluggish_sessions']} to " in outcome.swept
