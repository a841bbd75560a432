"""A load sweep in lockstep, as each server of a sweep across servers runs it: fixed windows, its record to the lead,
its load until the lead's word; and the lead's reading of every server's records as one step."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from engine.hosts.sweep_across import SweepLeader, combined
from engine.model.config import TestConfig, default_config
from engine.protocol import LogEvent
from engine.results.criterion_schema import Criterion
from engine.results.document import read_samples
from engine.results.sweep_schema import SweepEnd, SweepStep
from engine.run.gate import Told
from engine.run.simulation import PROFILES, runner_for
from engine.run.sweep import plan_sweep

SATA = PROFILES["sata-2x7k"]


def _config(tmp_path: Path) -> TestConfig:
    return default_config(tmp_path, databases=1, seed=11, profile={"mailboxes": 1100, "iops_per_mailbox": 0.12,
                                                                    "headroom_percent": 0, "mailbox_size_mb": 500})


class OneServerLead:
    """The controller's leader with this run as its only server; `late` words name a sample already run."""

    def __init__(self, leader: SweepLeader, late: bool = False) -> None:
        self.leader, self.late = leader, late
        self.words: dict[int, Told] = {}

    def measured(self, record: SweepStep) -> None:
        told = self.leader.measured("server", record, ["server"])
        assert told is not None
        self.words[record.step + 1] = Told(record.last_interval, told.load, told.end) if self.late else told

    def told(self, step: int) -> Told | None:
        return self.words.get(step)


def test_a_sweep_in_lockstep_judges_fixed_windows_and_steps_at_the_sample_its_lead_names(tmp_path):
    config = _config(tmp_path)
    plan = plan_sweep(config, 2)
    leader = SweepLeader(plan, config.sample_interval_s, ["server"])
    result = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan, lead=OneServerLead(leader)).run()
    sweep = result.sweep
    assert sweep is not None and len(sweep.steps) >= 3
    samples = read_samples(tmp_path / "run")
    for number, step in enumerate(sweep.steps):
        mine = [s for s in samples if s.step == step.step]
        settle = plan.warmup if number == 0 else plan.min_settle
        # a fixed window on every server: the same settling, the same judged samples, however the latency moves
        assert [s.phase for s in mine if s.interval <= step.last_interval] == (
            ["warmup"] * settle + ["measure"] * plan.settle.measure_samples)
        if number:
            before = sweep.steps[number - 1]
            assert step.first_interval == before.last_interval + 1 + leader.gap  # the sample the word named
            between = [s for s in samples if before.last_interval < s.interval < step.first_interval]
            # between a step's last judged sample and the next step: its load runs on, judged by no step
            assert [(s.phase, s.threads) for s in between] == [("warmup", before.threads)] * leader.gap
    # the lead chose every step and the end: the sweep alone would have chosen the same from these records
    assert [(s.threads, s.sluggish_sessions) for s in leader.steps] == [(s.threads, s.sluggish_sessions) for s in sweep.steps]
    assert sweep.end == leader.end and sweep.end is not None and sweep.end.why != "stopped"
    assert any(s.settled for s in sweep.steps)  # whether a step's fixed settling settled it is said, not waited for
    assert len(samples) == sweep.steps[-1].last_interval + 1 + leader.gap  # it ended at the sample the word named


def test_a_word_that_comes_after_its_sample_is_followed_at_once_and_said(tmp_path):
    config = _config(tmp_path)
    plan = plan_sweep(config, 2)
    events = []
    lead = OneServerLead(SweepLeader(plan, config.sample_interval_s, ["server"]), late=True)
    result = runner_for(SATA, config, tmp_path / "run", events.append, sweep=plan, lead=lead).run()
    steps = result.sweep.steps
    assert len(steps) >= 2 and all(b.first_interval == a.last_interval + 2 for a, b in itertools.pairwise(steps))
    late = [e.message for e in events if isinstance(e, LogEvent) and "after the sample it named" in e.message]
    assert len(late) == len(steps), late  # each word, the end's too
    assert "the word to end the sweep came" in late[-1]


def _step(iops: float, read_ms: float, *, kept: bool = True, bound: bool = False, interval: int = 69) -> SweepStep:
    broke = None if kept else Criterion(name="average database read latency", instance="Instance 1", value=read_ms,
                                        limit=20.0, unit="ms", comparison="<=", passed=False)
    return SweepStep(step=0, threads=8, sluggish_sessions=1, first_interval=0, last_interval=interval, settled=True,
                     measured_s=10.0, transactional_iops=iops, db_read_avg_latency_ms=read_ms, db_read_max_latency_ms=read_ms * 2,
                     log_write_avg_latency_ms=1.0, log_write_max_latency_ms=2.0, page_fault_stalls_per_s=0.0,
                     cpu_percent=95.0 if bound else 20.0, host_bound=bound, latency_ok=kept, broke=broke)


def test_the_step_of_all_servers_sums_their_iops_and_keeps_the_worst_of_their_latencies():
    whole = combined({"a": _step(500.0, 8.0), "b": _step(450.0, 24.0, kept=False), "c": _step(480.0, 9.0, bound=True)})
    assert whole.transactional_iops == 1430.0 and whole.db_read_avg_latency_ms == 24.0
    assert not whole.latency_ok and whole.host_bound and whole.cpu_percent == 95.0
    assert whole.broke is not None and whole.broke.instance == "b Instance 1"  # named with its server
    assert combined({"a": _step(500.0, 8.0), "b": _step(450.0, 9.0)}).latency_ok


def test_the_lead_decides_once_every_live_server_measured_the_step_and_names_a_sample_after_the_gap(tmp_path):
    config = _config(tmp_path)
    leader = SweepLeader(plan_sweep(config, 2), 0.5, ["a", "b", "c"])
    assert leader.gap == 4  # two seconds of half-second samples
    assert leader.measured("a", _step(500.0, 8.0), ["a", "b", "c"]) is None
    assert leader.measured("b", _step(450.0, 9.0), ["a", "b", "c"]) is None
    told = leader.measured("c", _step(480.0, 9.0), ["a", "b", "c"])
    assert told is not None and told.at == 69 + 1 + 4 and told.load is not None and told.load[0] > 8  # all kept: heavier
    assert leader.steps[0].transactional_iops == pytest.approx(1430.0)
    # a server lost meanwhile is not waited for: the others' records decide
    again = SweepLeader(plan_sweep(config, 2), 1.0, ["a", "b", "c"])
    again.measured("a", _step(500.0, 30.0, kept=False), ["a", "b", "c"])
    told = again.measured("b", _step(450.0, 31.0, kept=False), ["a", "b"])
    assert told is not None and told.load is not None and told.load[0] < 8  # all broke: lighter
    record = again.record()
    assert record.judged_step == 0 and record.end == SweepEnd(why="stopped")  # ended before its word to end
